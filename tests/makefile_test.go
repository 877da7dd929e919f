package tests

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The Makefile names tests that run without the race detector (and are
// skipped in the race-detected run), and the tests of ./tests and
// ./sim/emit that run under it, as lists of names it anchors (^(A|B)$). A
// renamed or deleted test would make its name match nothing, and the test
// it meant would silently run under the race detector again, or no longer
// under it: every name of each list must be a test function of the package
// the list runs in. The lists of one group run in one go test over the
// group's packages, so a name must also be no test of the group's other
// packages (it would run there too).
func TestMakefilePlainListsNameTests(t *testing.T) {
	root := repoRoot(t)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	groups := [][]struct{ list, pkg string }{
		{{"RACE_TESTS_TESTS", "tests"}, {"RACE_EMIT_TESTS", "sim/emit"}},
		{{"PLAIN_SUITE_TESTS", "conformance/suite"}, {"PLAIN_SESSION_TESTS", "conformance/session"}, {"PLAIN_CONF_TESTS", "conformance"}},
	}
	funcs := map[string][]string{} // package → its test functions, read once
	for _, group := range groups {
		for _, l := range group {
			funcs[l.pkg] = testFuncs(t, root, []string{l.pkg})
		}
	}
	for _, group := range groups {
		for _, l := range group {
			m := regexp.MustCompile(`(?m)^` + l.list + ` := ([\w ]+)$`).FindSubmatch(mk)
			if m == nil {
				t.Errorf("Makefile: no line %q := NAME ...", l.list)
				continue
			}
			for _, name := range strings.Fields(string(m[1])) {
				for _, other := range group {
					has := slices.Contains(funcs[other.pkg], name)
					switch {
					case other.pkg == l.pkg && !has:
						t.Errorf("Makefile %s names %q, which is no test function of %s", l.list, name, l.pkg)
					case other.pkg != l.pkg && has:
						t.Errorf("Makefile %s names %q, which %s has too: one go test runs both", l.list, name, other.pkg)
					}
				}
			}
		}
	}
}

// TestMakefileSingleNamesExist: a target that runs one named test or fuzz
// target of one package (make mutants' random hunt, make fuzz, make
// mutant-repros) would run nothing, and pass, once that test is renamed:
// each name must be a test or fuzz function of the package its line names.
func TestMakefileSingleNamesExist(t *testing.T) {
	root := repoRoot(t)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`-(?:run|fuzz) '\^((?:Test|Fuzz)\w+)\$\$'`)
	pkg := regexp.MustCompile(`\s\./([\w/]+)(?:\s|$)`)
	lines := 0
	for i, line := range strings.Split(string(mk), "\n") {
		names := name.FindAllStringSubmatch(line, -1)
		if len(names) == 0 || !strings.Contains(line, "$(GO) test") {
			continue
		}
		pkgs := pkg.FindAllStringSubmatch(line, -1)
		if len(pkgs) != 1 {
			t.Errorf("Makefile:%d names %s but not exactly one package", i+1, names[0][1])
			continue
		}
		lines++
		funcs := testFuncs(t, root, []string{pkgs[0][1]})
		for _, n := range names {
			if !slices.Contains(funcs, n[1]) {
				t.Errorf("Makefile:%d runs %s, which is no test or fuzz function of ./%s", i+1, n[1], pkgs[0][1])
			}
		}
	}
	if lines < 10 {
		t.Errorf("found %d lines that run one named test, want at least 10 (make fuzz alone has 11)", lines)
	}
}

// testFuncs lists the Test and Fuzz functions declared in the _test.go
// files of pkgs.
func testFuncs(t *testing.T, root string, pkgs []string) []string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)\w*)\(`)
	var out []string
	for _, p := range pkgs {
		files, err := filepath.Glob(filepath.Join(root, p, "*_test.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no test files in %s (%v)", p, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range re.FindAllSubmatch(b, -1) {
				out = append(out, string(m[1]))
			}
		}
	}
	return out
}

// TestMakeTest_interruptEndsEveryJob: make test and make test-shuffle run
// jobs side by side (the Python tests, the plain and the race-detected go
// test). An interrupted run must end every one of them (a script's
// background job would ignore SIGINT) and remove its temporary files. The
// go and python3 here are stubs that note their pid and sleep: the test
// waits until every job has started, signals make's process group as a
// terminal's Ctrl-C does (SIGTERM, as a CI's cancel does, when this process
// was itself started ignoring SIGINT), and checks that every job is gone and
// $TMPDIR is empty.
func TestMakeTest_interruptEndsEveryJob(t *testing.T) {
	for _, tool := range []string{"make", "setsid"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
	}
	root := repoRoot(t)
	sig := syscall.SIGINT
	if ignored, err := signalIgnored(syscall.SIGINT); err != nil || ignored {
		sig = syscall.SIGTERM
	}
	// A stub leaves a directory in $TMPDIR, as a test binary a signal ends
	// leaves its t.TempDir.
	stub := "#!/bin/sh\ncase \"$*\" in *--version*|list*) exit 0;; esac\n" +
		"mkdir \"${TMPDIR:-/tmp}/stub.$$\"; echo \"$*\" > \"$MARKS/$(basename \"$0\").$$\"; exec sleep 600\n"
	for _, tc := range []struct {
		target string
		jobs   int // stubs that start and must end
	}{
		{"test", 3},         // test-python's pytest, test-plain's and test-race's go test
		{"test-shuffle", 2}, // the plain go test and the race-detected one
	} {
		t.Run(tc.target, func(t *testing.T) {
			bin, marks, tmp := t.TempDir(), t.TempDir(), t.TempDir()
			for _, name := range []string{"go", "python3"} {
				if err := os.WriteFile(filepath.Join(bin, name), []byte(stub), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("make", "--no-print-directory", "-o", "build", "-o", "vet", "-o", "cross",
				"GO="+filepath.Join(bin, "go"), "PYTHON="+filepath.Join(bin, "python3"), "SHUFFLE=1", tc.target)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "MARKS="+marks)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			pids := waitForMarks(t, marks, tc.jobs, done, &out)
			if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("make %s exited 0 after %v\n%s", tc.target, sig, out.String())
				}
			case <-time.After(time.Minute):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				t.Fatalf("make %s still runs a minute after %v\n%s", tc.target, sig, out.String())
			}
			for pid, what := range pids {
				if !gone(pid) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("after %v, make %s left %q running (pid %d)", sig, tc.target, what, pid)
				}
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("after %v, make %s left %d entries in $TMPDIR, the first %s", sig, tc.target, len(left), left[0].Name())
			}
		})
	}
}

// waitForMarks waits until n stubs have noted their pids in dir (or make
// has exited, which fails the test) and returns them with what each runs.
func waitForMarks(t *testing.T, dir string, n int, done <-chan error, out *bytes.Buffer) map[int]string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("make exited (%v) before its %d jobs started\n%s", err, n, out.String())
		default:
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) < n {
			continue
		}
		pids := map[int]string{}
		for _, e := range entries {
			_, p, _ := strings.Cut(e.Name(), ".")
			pid, err := strconv.Atoi(p)
			b, rerr := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil || rerr != nil || len(b) == 0 {
				pids = nil // a mark being written
				break
			}
			pids[pid] = e.Name() + ": " + strings.TrimSpace(string(b))
		}
		if len(pids) == n {
			return pids
		}
	}
	t.Fatalf("%d jobs did not start within a minute", n)
	return nil
}

// gone reports whether pid has exited (and been reaped) within a few
// seconds: a job's shell reaps it once it has ended.
func gone(pid int) bool {
	for range 250 {
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// signalIgnored reports whether this process ignores sig (a job a script
// started in the background ignores SIGINT, and so do its children).
func signalIgnored(sig syscall.Signal) (bool, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && mask&(1<<(uint(sig)-1)) != 0, err
		}
	}
	return false, errors.New("no SigIgn in /proc/self/status")
}
