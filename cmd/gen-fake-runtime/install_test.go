package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/sim/emit"
)

// installCache is one build cache for the install tests, so that the
// legacy fake each installs is compiled once (TestMain removes it).
var installCache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gen-fake-runtime-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	installCache = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// simplerTree makes a simpler build in a temporary directory as
// build_runtimes.py leaves one: every runtime directory with its three
// libraries (dummy bytes naming the file) and the context library. It
// returns the root and every file's bytes by path relative to it.
func simplerTree(t *testing.T, dirs ...string) (string, map[string]string) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{"build/lib/libcpu_sim_context.so": "upstream context\n"}
	for _, d := range dirs {
		for _, lib := range []string{"libhost_runtime.so", "libaicpu_kernel.so", "libaicore_kernel.so"} {
			files[d+"/"+lib] = "upstream " + d + "/" + lib + "\n"
		}
	}
	for rel, body := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root, files
}

// treeFiles reads every regular file under root, by relative path.
func treeFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		got[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

const (
	a2a3TMR = "build/lib/a2a3/sim/tensormap_and_ringbuffer"
	a2a3HBG = "build/lib/a2a3/sim/host_build_graph"
	a5TMR   = "build/lib/a5/sim/tensormap_and_ringbuffer"
	a5HBG   = "build/lib/a5/sim/host_build_graph"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// F-1: install puts the built legacy fake (runtime and ACL) into every
// runtime directory, keeps upstream's runtime aside, prints every file it
// wrote or moved; restore gives upstream's files back byte for byte, and
// the tree is as it was.
func TestInstall_restoreGivesUpstreamsFilesBack(t *testing.T) {
	t.Setenv("SIMABI_FAKE_CACHE", installCache)
	root, before := simplerTree(t, a2a3TMR, a2a3HBG, a5TMR, a5HBG)
	code, out, errs := runCLI("install", "-knob", "strict=true", root)
	if code != exitOK {
		t.Fatalf("install: exit %d: %s", code, errs)
	}
	var want []string
	for _, d := range []string{a2a3HBG, a2a3TMR, a5HBG, a5TMR} { // the glob's order
		p := filepath.Join(root, d)
		want = append(want, "wrote "+p+"/simabi-fake.installed",
			"moved "+p+"/libhost_runtime.so -> "+p+"/.libhost_runtime.so.upstream",
			"wrote "+p+"/libhost_runtime.so", "wrote "+p+"/libascendcl.so")
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(out), "\n")); diff != "" {
		t.Errorf("install printed (-want +got):\n%s", diff)
	}
	installed := treeFiles(t, root)
	for _, d := range []string{a2a3TMR, a2a3HBG, a5TMR, a5HBG} {
		knobs := []string{"strict=true"}
		if strings.HasSuffix(d, "/host_build_graph") {
			knobs = append(knobs, "pipeline=host_build_graph")
		}
		fakeRT, fakeACL := builtFake(t, knobs...)
		checks := map[string]string{
			"libhost_runtime.so":           fakeRT,
			"libascendcl.so":               fakeACL,
			".libhost_runtime.so.upstream": before[d+"/libhost_runtime.so"],
			"libaicpu_kernel.so":           before[d+"/libaicpu_kernel.so"],
			"simabi-fake.installed": "# simabi's fake runtime, installed over upstream's; `gen-fake-runtime restore` or `python3 -m simabi_fake restore` puts upstream's back\n" +
				"profile legacy\nknob strict=true\n" + pipelineLine(d) + "aside libhost_runtime.so\nnew libascendcl.so\n",
		}
		for name, body := range checks {
			if installed[d+"/"+name] != body {
				t.Errorf("%s/%s after install: %d bytes %.80q, want %d bytes %.80q", d, name, len(installed[d+"/"+name]), installed[d+"/"+name], len(body), body)
			}
		}
	}
	if installed[a2a3HBG+"/libhost_runtime.so"] == installed[a2a3TMR+"/libhost_runtime.so"] {
		t.Errorf("the host_build_graph directory got the tensormap_and_ringbuffer fake")
	}
	// Upstream's tests/ut/py/test_host_runtime_abi.py wants one
	// libhost_runtime.* in each directory: the kept-aside file is not one.
	for _, d := range []string{a2a3TMR, a2a3HBG, a5TMR, a5HBG} {
		if m, _ := filepath.Glob(filepath.Join(root, d, "libhost_runtime.*")); len(m) != 1 {
			t.Errorf("%s holds %q; want libhost_runtime.so alone", d, m)
		}
	}
	if st, err := os.Stat(filepath.Join(root, a5TMR, "libhost_runtime.so")); err != nil || st.Mode().Perm()&0o111 == 0 {
		t.Errorf("installed runtime: %v, %v; want an executable file", st, err)
	}

	code, out, errs = runCLI("restore", root)
	if code != exitOK {
		t.Fatalf("restore: exit %d: %s", code, errs)
	}
	want = nil
	for _, d := range []string{a2a3HBG, a2a3TMR, a5HBG, a5TMR} {
		p := filepath.Join(root, d)
		want = append(want, "moved "+p+"/.libhost_runtime.so.upstream -> "+p+"/libhost_runtime.so",
			"removed "+p+"/libascendcl.so", "removed "+p+"/simabi-fake.installed")
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(out), "\n")); diff != "" {
		t.Errorf("restore printed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, treeFiles(t, root)); diff != "" {
		t.Errorf("tree after restore differs from upstream's (-want +got):\n%s", diff)
	}
	if st, err := os.Stat(filepath.Join(root, a5TMR, "libhost_runtime.so")); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("restored runtime: %v, %v; want mode 0755 as upstream's", st, err)
	}
}

// pipelineLine is the record's knob line for the pipeline of directory d.
func pipelineLine(d string) string {
	if strings.HasSuffix(d, "/host_build_graph") {
		return "knob pipeline=host_build_graph\n"
	}
	return ""
}

// builtFake builds the legacy fake with knobs, as install must have, and
// returns its runtime's and its ACL's bytes.
func builtFake(t *testing.T, knobs ...string) (string, string) {
	t.Helper()
	cfg := emit.Config{Profile: emit.ProfileLegacy}
	for _, k := range knobs {
		if err := emit.ParseKnob(k, &cfg.Knobs); err != nil {
			t.Fatal(err)
		}
	}
	src, err := emit.Source(cfg)
	if err != nil {
		t.Fatal(err)
	}
	art, err := emit.BuildSources(src, emit.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := os.ReadFile(art.RuntimePath)
	if err != nil {
		t.Fatal(err)
	}
	acl, err := os.ReadFile(art.ACLPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(rt), string(acl)
}

// A second install over a fake is refused before anything moves (upstream's
// kept-aside runtime would be overwritten), naming the directory; so is an
// interrupted install's leftover; restore with nothing installed says so
// and changes nothing.
func TestInstall_refusesASecondInstall(t *testing.T) {
	t.Setenv("SIMABI_FAKE_CACHE", installCache)
	root, before := simplerTree(t, a2a3TMR)
	if code, _, errs := runCLI("install", root); code != exitOK {
		t.Fatalf("install: exit %d: %s", code, errs)
	}
	installed := treeFiles(t, root)
	code, out, errs := runCLI("install", root)
	d := filepath.Join(root, a2a3TMR)
	wantErr := fmt.Sprintf("gen-fake-runtime: install: %s already holds a fake (simabi-fake.installed); gen-fake-runtime restore %s first (gen-fake-runtime -h for help)\n", d, root)
	if code != exitUsage || out != "" || errs != wantErr {
		t.Errorf("second install: exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errs, wantErr)
	}
	if diff := cmp.Diff(installed, treeFiles(t, root)); diff != "" {
		t.Errorf("the refused install changed the tree (-want +got):\n%s", diff)
	}
	// An install interrupted after it moved upstream's runtime, before it
	// wrote the fake: restore still puts upstream's back.
	if code, _, errs := runCLI("restore", root); code != exitOK {
		t.Fatalf("restore: exit %d: %s", code, errs)
	}
	p, kept := filepath.Join(d, "libhost_runtime.so"), filepath.Join(d, ".libhost_runtime.so.upstream")
	if err := os.Rename(p, kept); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI("install", root)
	if want := "already holds a fake (.libhost_runtime.so.upstream)"; code != exitUsage || !strings.Contains(errs, want) {
		t.Errorf("install over a leftover: exit %d, %q; want exit 2 and %q", code, errs, want)
	}
	code, out, _ = runCLI("restore", root)
	if code != exitOK || out != "moved "+kept+" -> "+p+"\n" {
		t.Errorf("restore of a leftover: exit %d, printed %q", code, out)
	}
	if diff := cmp.Diff(before, treeFiles(t, root)); diff != "" {
		t.Errorf("tree after restore (-want +got):\n%s", diff)
	}
	code, out, errs = runCLI("restore", root)
	wantErr = "gen-fake-runtime restore: " + root + " holds no fake (no simabi-fake.installed under build/lib); nothing to do\n"
	if code != exitOK || out != "" || errs != wantErr {
		t.Errorf("restore of nothing: exit %d, stdout %q, stderr %q; want 0 and %q", code, out, errs, wantErr)
	}
}

// A root that is not a simpler build, or holds a runtime install does not
// know, or an install argument it cannot take, is refused in one line
// naming it, and nothing is written.
func TestInstall_refusesWhatIsNotASimplerBuild(t *testing.T) {
	t.Setenv("SIMABI_FAKE_CACHE", installCache)
	empty := t.TempDir()
	unknown, _ := simplerTree(t, a2a3TMR, "build/lib/a2a3/sim/aicpu_build_graph")
	good, _ := simplerTree(t, a5TMR)
	notSimpler := func(root string) string {
		return "gen-fake-runtime: install: " + root + " is not a simpler build: no build/lib/<arch>/sim/<runtime>/libhost_runtime.so (python3 simpler_setup/build_runtimes.py --platforms a2a3sim a5sim makes them) (gen-fake-runtime -h for help)\n"
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"install", empty}, notSimpler(empty)},
		{[]string{"install", filepath.Join(empty, "nope")}, "gen-fake-runtime: install: " + filepath.Join(empty, "nope") + ": no such directory (gen-fake-runtime -h for help)\n"},
		{[]string{"install", unknown}, "gen-fake-runtime: install: " + filepath.Join(unknown, "build/lib/a2a3/sim/aicpu_build_graph") + ": a simulator runtime install does not know (it knows tensormap_and_ringbuffer, host_build_graph of a2a3, a5) (gen-fake-runtime -h for help)\n"},
		{[]string{"install", "-knob", "pipeline=single", good}, "gen-fake-runtime: install: knob \"pipeline=single\": install sets the pipeline per runtime directory (gen-fake-runtime -h for help)\n"},
		{[]string{"install", "-knob", "strict=yes", good}, "gen-fake-runtime: install: knob \"strict=yes\": value must be true or false (gen-fake-runtime -h for help)\n"},
		{[]string{"install", good, good}, "gen-fake-runtime: usage: gen-fake-runtime install [-knob key=value]... [-cc CC] SIMPLER_ROOT (gen-fake-runtime -h for help)\n"},
		{[]string{"restore"}, "gen-fake-runtime: usage: gen-fake-runtime restore SIMPLER_ROOT (gen-fake-runtime -h for help)\n"},
		{[]string{"restore", empty}, "gen-fake-runtime: restore: " + empty + " is not a simpler build: no build/lib/<arch>/sim/<runtime>/libhost_runtime.so (python3 simpler_setup/build_runtimes.py --platforms a2a3sim a5sim makes them) (gen-fake-runtime -h for help)\n"},
	} {
		code, out, errs := runCLI(tc.args...)
		if code != exitUsage || out != "" || errs != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr\n%q\nwant exit 2 and\n%q", tc.args, code, out, errs, tc.want)
		}
	}
	for _, root := range []string{empty, unknown, good} {
		if _, err := os.Stat(filepath.Join(root, a5TMR, installRecord)); err == nil {
			t.Errorf("%s: a refused install wrote a record", root)
		}
	}
	// A compiler that fails leaves upstream's build as it was (exit 1).
	before := treeFiles(t, good)
	code, _, errs := runCLI("install", "-cc", "/nonexistent/cc", good)
	if code != exitBuild || !strings.Contains(errs, emit.ErrNoCompiler.Error()) {
		t.Errorf("install without a compiler: exit %d, %q", code, errs)
	}
	if diff := cmp.Diff(before, treeFiles(t, good)); diff != "" {
		t.Errorf("a failed build changed the tree (-want +got):\n%s", diff)
	}
}

// pythonInstall runs `python3 -m simabi_fake ARGS...` from python/src:
// its exit status, stdout and stderr.
func pythonInstall(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	py := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil {
			py = path
			break
		}
	}
	if py == "" {
		t.Skip("skipping: no python3 (the Python package's tests need Debian's python3)")
	}
	src, err := filepath.Abs("../../python/src")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, append([]string{"-m", "simabi_fake"}, args...)...)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+src, "PYTHONDONTWRITEBYTECODE=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// The Python package's install and restore (python/src/simabi_fake/
// _install.py, the same layout declared again) print and write what
// gen-fake-runtime's do, and each restores the other's install.
func TestInstall_pythonAgrees(t *testing.T) {
	t.Setenv("SIMABI_FAKE_CACHE", installCache)
	goRoot, before := simplerTree(t, a2a3TMR, a2a3HBG, a5TMR)
	pyRoot, _ := simplerTree(t, a2a3TMR, a2a3HBG, a5TMR)
	args := []string{"-knob", "poll_pending=1", "-knob", "strict=true"}
	code, goOut, errs := runCLI(append(append([]string{"install"}, args...), goRoot)...)
	if code != exitOK {
		t.Fatalf("gen-fake-runtime install: exit %d: %s", code, errs)
	}
	code, pyOut, errs := pythonInstall(t, append(append([]string{"install"}, args...), pyRoot)...)
	if code != 0 || errs != "" {
		t.Fatalf("python3 -m simabi_fake install: exit %d: %s", code, errs)
	}
	if diff := cmp.Diff(goOut, strings.ReplaceAll(pyOut, pyRoot, goRoot)); diff != "" {
		t.Errorf("printed (-gen-fake-runtime +python):\n%s", diff)
	}
	if diff := cmp.Diff(treeFiles(t, goRoot), treeFiles(t, pyRoot)); diff != "" {
		t.Errorf("installed trees (-gen-fake-runtime +python):\n%s", diff)
	}
	for _, refused := range [][]string{{"install", goRoot}, {"install", t.TempDir()}, {"install", "-knob", "pipeline=single", goRoot}} {
		code, _, goErr := runCLI(refused...)
		pyCode, _, pyErr := pythonInstall(t, refused...)
		goMsg := strings.TrimSuffix(strings.TrimPrefix(goErr, "gen-fake-runtime: install: "), " (gen-fake-runtime -h for help)\n")
		if pyMsg := strings.TrimPrefix(pyErr, "simabi_fake install: "); code != exitUsage || pyCode != 2 || goMsg+"\n" != pyMsg {
			t.Errorf("%q refused: gen-fake-runtime exit %d %q, python exit %d %q", refused, code, goErr, pyCode, pyErr)
		}
	}
	code, goOut, _ = pythonInstall(t, "restore", goRoot)
	pyCode, pyOut, _ := runCLI("restore", pyRoot)
	if code != 0 || pyCode != exitOK || goOut != strings.ReplaceAll(pyOut, pyRoot, goRoot) || strings.Count(goOut, "\n") != 9 {
		t.Errorf("restore of the other's install: python exit %d %q, gen-fake-runtime exit %d %q", code, goOut, pyCode, pyOut)
	}
	for _, root := range []string{goRoot, pyRoot} {
		if diff := cmp.Diff(before, treeFiles(t, root)); diff != "" {
			t.Errorf("%s after restore (-upstream +got):\n%s", root, diff)
		}
	}
}
