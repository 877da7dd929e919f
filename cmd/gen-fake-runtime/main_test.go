package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/simabi/simabi/sim/emit"
)

// F-4: -list-mutants prints every mutant with the clause it breaks.
func TestF4_ListMutants(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-list-mutants"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, m := range emit.Mutants() {
		if !strings.Contains(out.String(), m.Name) || !strings.Contains(out.String(), m.Clause) {
			t.Errorf("listing lacks %s (%s):\n%s", m.Name, m.Clause, out.String())
		}
	}
}

// F-1/F-2: -emit-only writes both sources with the knobs baked in.
func TestF2_EmitOnly(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	args := []string{"-o", dir, "-emit-only", "-profile", "refusing", "-omit", "comm_barrier,comm_destroy",
		"-knob", "status.finalize_device=-77", "-knob", "strict=true"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	paths := strings.Fields(out.String())
	if len(paths) != 3 {
		t.Fatalf("printed %q, want the two source paths and the header", out.String())
	}
	src, err := os.ReadFile(filepath.Join(dir, emit.RuntimeSrcName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Profile: refusing", "return -77; /* knob status.finalize_device */", "SIMABI_OMITTED\nint comm_barrier(", "#define SIMABI_STRICT 1"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("source lacks %q", want)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},                                     // no -o
		{"-o", t.TempDir(), "-profile", "xyz"}, // bad profile
		{"-o", t.TempDir(), "-knob", "bogus"},  // bad knob
		{"-o", t.TempDir(), "-mutant", "nope"}, // bad mutant
	} {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		msg := strings.TrimSpace(errb.String())
		if code != exitUsage || strings.Count(msg, "\n") != 0 || !strings.HasPrefix(msg, "gen-fake-runtime: ") {
			t.Errorf("run(%q): exit %d, stderr %q; want exit 2 and one line", args, code, msg)
		}
	}
}

// F-1: a build prints the paths it wrote; without a compiler it says so in
// one line.
func TestBuildPrintsPaths(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SIMABI_FAKE_CACHE", filepath.Join(dir, "cache"))
	var out, errb bytes.Buffer
	code := run([]string{"-o", filepath.Join(dir, "fake"), "-cc", "/nonexistent/cc"}, &out, &errb)
	if code == 0 || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 || !strings.Contains(errb.String(), emit.ErrNoCompiler.Error()) {
		t.Fatalf("missing compiler: exit %d, stderr %q", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	code = run([]string{"-o", filepath.Join(dir, "fake")}, &out, &errb)
	if code != 0 {
		if strings.Contains(errb.String(), emit.ErrNoCompiler.Error()) {
			t.Skip("skipping: " + emit.ErrNoCompiler.Error())
		}
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	paths := strings.Fields(out.String())
	if len(paths) != 5 {
		t.Fatalf("printed %q, want 5 paths", out.String())
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}

// docs/trace.md: -recorder -emit-only writes the recorder's source for the
// revision, the hooks choice and the image limit given.
func TestRecorderEmitOnly(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	args := []string{"-recorder", "-o", dir, "-emit-only", "-revision", "legacy", "-hooks=false", "-image-limit", "4096"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if got := strings.Fields(out.String()); len(got) != 1 || got[0] != filepath.Join(dir, emit.RecorderSrcName) {
		t.Fatalf("printed %q, want the source path", out.String())
	}
	src, err := os.ReadFile(filepath.Join(dir, emit.RecorderSrcName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Revision: legacy", "#define REC_DEFAULT_IMAGE_LIMIT 4096ull", "SIMABI_EXPORT\nint simpler_provision_dma_workspace("} {
		if !strings.Contains(string(src), want) {
			t.Errorf("source lacks %q", want)
		}
	}
	for _, absent := range []string{"SIMABI_EXPORT\nint simabi_inject(", "SIMABI_EXPORT\nint simpler_kernel_mode_launch("} {
		if strings.Contains(string(src), absent) {
			t.Errorf("a legacy -hooks=false recorder has %q", absent)
		}
	}
}

// -recorder takes only its own options; its options need it; every usage
// error is one line and exit 2.
func TestRecorderUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-recorder"},
		{"-recorder", "-o", t.TempDir(), "-profile", "tmr"},
		{"-recorder", "-o", t.TempDir(), "-knob", "strict=true"},
		{"-recorder", "-o", t.TempDir(), "-mutant", "count-8191"},
		{"-recorder", "-o", t.TempDir(), "-omit", "comm_barrier"},
		{"-recorder", "-list-mutants"},
		{"-recorder", "-o", t.TempDir(), "-revision", "new"},
		{"-recorder", "-o", t.TempDir(), "-image-limit", "0"},
		{"-recorder", "-o", t.TempDir(), "-image-limit", "-5"},
		{"-recorder", "-o", t.TempDir(), "-hooks=maybe"},
		{"-o", t.TempDir(), "-revision", "legacy"},
		{"-o", t.TempDir(), "-hooks=false"},
		{"-o", t.TempDir(), "-image-limit", "4096"},
	} {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		msg := strings.TrimSpace(errb.String())
		if code != exitUsage || strings.Count(msg, "\n") != 0 || !strings.HasPrefix(msg, "gen-fake-runtime: ") {
			t.Errorf("run(%q): exit %d, stderr %q; want exit 2 and one line", args, code, msg)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-h"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "-recorder") || !strings.Contains(out.String(), "-image-limit") {
		t.Errorf("-h: exit %d, usage lacks the recorder:\n%s", code, out.String())
	}
}

// docs/trace.md: -recorder builds DIR/libhost_runtime.so (and writes its
// source beside it) and prints both paths; without a compiler it says so in
// one line.
func TestRecorderBuildPrintsPaths(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SIMABI_FAKE_CACHE", filepath.Join(dir, "cache"))
	var out, errb bytes.Buffer
	code := run([]string{"-recorder", "-o", filepath.Join(dir, "rec"), "-cc", "/nonexistent/cc"}, &out, &errb)
	if code != 1 || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 || !strings.Contains(errb.String(), emit.ErrNoCompiler.Error()) {
		t.Fatalf("missing compiler: exit %d, stderr %q", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"-recorder", "-o", filepath.Join(dir, "rec")}, &out, &errb); code != 0 {
		if strings.Contains(errb.String(), emit.ErrNoCompiler.Error()) {
			t.Skip("skipping: " + emit.ErrNoCompiler.Error())
		}
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	paths := strings.Fields(out.String())
	want := []string{filepath.Join(dir, "rec", emit.RuntimeLibName), filepath.Join(dir, "rec", emit.RecorderSrcName)}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Fatalf("printed %q, want %q", paths, want)
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}

// C-BIND-1, F-1: the build holds the fake's exports to its revision's
// consumer set: an omitted symbol is said with its group and what requires
// it, and a missing one nobody asked to omit fails the build.
func TestCBIND1_BuildChecksExports(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"-o", dir, "-profile", "legacy", "-omit", "comm_derive_context"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lib := filepath.Join(dir, emit.RuntimeLibName)
	want := "gen-fake-runtime: note: " + lib + " lacks, as -omit asked: comm_derive_context (comm, ChipWorker since 5fd3f10 (#752, 2026-05-19)); required by the legacy consumer, upstream ChipWorker at 6ebaf77 (src/common/worker/chip_worker.cpp)\n"
	if errb.String() != want {
		t.Fatalf("stderr\n got %q\nwant %q", errb.String(), want)
	}
	// The same library judged as if nothing had been omitted: a defect.
	errb.Reset()
	if code := checkExports(lib, nil, &errb); code != exitBuild || !strings.Contains(errb.String(), "(revision legacy) lacks symbols its consumer resolves: comm_derive_context (comm, ") {
		t.Fatalf("checkExports = %d, %q", code, errb.String())
	}
	// A complete build says nothing.
	errb.Reset()
	if code := run([]string{"-o", t.TempDir(), "-profile", "tmr"}, &out, &errb); code != 0 || errb.Len() != 0 {
		t.Fatalf("tmr: exit %d, stderr %q", code, errb.String())
	}
}

// F-2: -h names every knob form ParseKnob accepts (emit.KnobForms), and
// the fake-runtime document's knob table has a row for each.
func TestF2_HelpNamesEveryKnob(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-h"}, &out, &errb); code != 0 {
		t.Fatalf("-h: exit %d: %s", code, errb.String())
	}
	doc, err := os.ReadFile("../../docs/fake-runtime.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(emit.KnobForms) < 10 {
		t.Fatalf("emit.KnobForms has %d forms", len(emit.KnobForms))
	}
	for _, f := range emit.KnobForms {
		form := f.Key + "=" + f.Value
		if !strings.Contains(out.String(), form) {
			t.Errorf("-h does not name the knob %s:\n%s", form, out.String())
		}
		if !strings.Contains(string(doc), "\n| `"+form+"` |") {
			t.Errorf("docs/fake-runtime.md's knob table has no row for %s", form)
		}
	}
}

// Every flag of gen-fake-runtime -h is documented: the fake's in
// docs/fake-runtime.md's flag table, -recorder's in docs/trace.md.
func TestDocsNameEveryFlag(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-h"}, &out, &errb); code != 0 {
		t.Fatalf("-h: exit %d: %s", code, errb.String())
	}
	var docs string
	for _, d := range []string{"../../docs/fake-runtime.md", "../../docs/trace.md"} {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		docs += string(b)
	}
	n := 0
	for _, l := range strings.Split(out.String(), "\n") {
		name, ok := strings.CutPrefix(l, "  -")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, " ")
		n++
		if !regexp.MustCompile("[` \\[]-" + regexp.QuoteMeta(name) + "[ `=\\]]").MatchString(docs) {
			t.Errorf("neither docs/fake-runtime.md nor docs/trace.md documents -%s", name)
		}
	}
	if n < 10 {
		t.Errorf("-h lists %d flags:\n%s", n, out.String())
	}
}
