package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simabi/simabi/sim/emit"
)

// F-4: -list-mutants prints every mutant with the rule it breaks.
func TestF4_ListMutants(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-list-mutants"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, m := range emit.Mutants() {
		if !strings.Contains(out.String(), m.Name) || !strings.Contains(out.String(), m.Rule) {
			t.Errorf("listing lacks %s (%s):\n%s", m.Name, m.Rule, out.String())
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
