package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/emit"
)

// What abicheck makes for itself goes when it ends (issue #37): an
// interrupted check, diff or mutants run leaves nothing in $TMPDIR or
// /dev/shm and no child process; what it writes for the user it names.

// interruptSeedEnv replays the delays of a TestInterrupt_leavesNothingBehind run.
const interruptSeedEnv = "ABICHECK_INTERRUPT_SEED"

// TestInterrupt_leavesNothingBehind runs a check of an emitted fake, a
// diff of it against a one-knob variant, a diff's speed comparison and a
// mutants run, each with a $TMPDIR of its own, interrupts each at a random
// moment once a child process has started, and finds exit status 130
// (SIGINT) or 143 (SIGTERM) with the one line saying so, $TMPDIR empty, no
// child alive and no comm segment of the process tree in /dev/shm. A
// killed abicheck (SIGKILL: no handler runs) has its orphaned children
// remove the library copies.
func TestInterrupt_leavesNothingBehind(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the process tree is read from /proc")
	}
	fake := build(t, emit.Config{Profile: emit.ProfileTMR})
	knob := build(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Status: map[string]int32{"simpler_kernel_mode_launch": -93}}})
	build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: "late-thread-leak"}) // built before, so that the run checks it
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(interruptSeedEnv); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", interruptSeedEnv, s, err)
		}
	}
	t.Logf("delays seeded with %d (%s=%d replays them)", seed, interruptSeedEnv, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	long := []string{"-sequences", "100000", "-duration", "60s"}
	const maxDelay = 500 * time.Millisecond
	cache := t.TempDir() // the emitter's cache of the cold mutants run
	for _, tc := range []struct {
		name     string
		sig      syscall.Signal
		maxDelay time.Duration
		args     []string
		cache    string // $SIMABI_FAKE_CACHE, when the run builds
	}{
		{"check", syscall.SIGINT, maxDelay, append(slices.Clone(long), fake), ""},
		{"diff", syscall.SIGINT, maxDelay, append(append([]string{"diff"}, long...), fake, knob), ""},
		// The speed comparison's children, the only ones of sim builds:
		// refusing and no probes, so that they start within a second. They
		// time for about 300 ms, whatever the budget.
		{"diff-speed", syscall.SIGINT, 50 * time.Millisecond, []string{"diff", "-sequences", "0", "-no-probes", "-speed-budget", "60s", "sim:refusing", "sim:refusing"}, ""},
		// late-thread-leak survives random sequences: the run lasts.
		{"mutants", syscall.SIGINT, maxDelay, append([]string{"mutants", "-random-only", "-run", "^late-thread-leak$"}, long...), ""},
		// An empty cache: the first child is the compiler, stopped by
		// SIGTERM so that it removes its own files from $TMPDIR, and the
		// build directory in the cache goes.
		{"mutants-compiling", syscall.SIGINT, 300 * time.Millisecond, append([]string{"mutants", "-random-only", "-run", "^late-thread-leak$"}, long...), cache},
		{"check-sigterm", syscall.SIGTERM, maxDelay, append(slices.Clone(long), fake), ""},
		{"check-sigkill", syscall.SIGKILL, maxDelay, append(slices.Clone(long), fake), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var env []string
			if tc.cache != "" {
				env = []string{"SIMABI_FAKE_CACHE=" + tc.cache}
			}
			interrupt(t, tc.sig, time.Duration(rng.Int64N(int64(tc.maxDelay))), env, tc.args)
			if tc.cache == "" {
				return
			}
			for _, e := range entries(t, tc.cache) {
				if strings.HasPrefix(filepath.Base(e), ".") {
					t.Errorf("left in the emitter's cache: %s", e)
				}
			}
		})
	}
}

// interrupt runs abicheck with env, args and a $TMPDIR of its own, sends
// sig delay after its first child process appeared, and checks what is
// left.
func interrupt(t *testing.T, sig syscall.Signal, delay time.Duration, env, args []string) {
	tmp := t.TempDir()
	shmBefore := shmEntries(t)
	cmd := exec.Command(binary, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(os.Environ(), asCLIEnv+"=1", "TMPDIR="+tmp), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tree := map[int]bool{cmd.Process.Pid: true}
	var err error
	var sent time.Time
	for done := false; !done; {
		select {
		case err = <-exited:
			done = true
		case <-time.After(10 * time.Millisecond):
			addDescendants(tree)
			if sent.IsZero() && len(tree) > 1 {
				time.Sleep(delay)
				t.Logf("%s %v after the first child started", signalText(sig), delay)
				if cmd.Process.Signal(sig) != nil {
					t.Fatalf("abicheck ended before the signal:\n%s\n%s", stdout.String(), stderr.String())
				}
				sent = time.Now()
			}
		}
	}
	if sent.IsZero() {
		t.Fatalf("abicheck ended before a child started: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("exited %v after the signal", time.Since(sent))
	checkExit(t, sig, err, stderr.String())
	children := make([]int, 0, len(tree))
	for pid := range tree {
		if pid != cmd.Process.Pid {
			children = append(children, pid)
		}
	}
	if sig == syscall.SIGKILL {
		// The orphans notice within their watchdog's 500 ms.
		waitForNone(t, children, 3*time.Second)
	}
	if alive := aliveOf(children); len(alive) > 0 {
		t.Errorf("child processes %v still alive", alive)
	}
	if left := entries(t, tmp); len(left) > 0 {
		t.Errorf("left in $TMPDIR: %v", left)
	}
	// A session's segment is named after the parent of the process that
	// made it: this one's, for the simulator abicheck runs in process.
	prefixes := []string{abi.CommSegmentPrefix(uint32(os.Getpid()))}
	for pid := range tree {
		prefixes = append(prefixes, abi.CommSegmentPrefix(uint32(pid)))
	}
	for _, name := range shmEntries(t) {
		if !slices.Contains(shmBefore, name) && slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			t.Errorf("left in /dev/shm: %s", name)
		}
	}
}

// checkExit checks the status and the last line of an interrupted run:
// 128+signal and the line saying what was cleaned up; killed by SIGKILL.
func checkExit(t *testing.T, sig syscall.Signal, err error, stderr string) {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("exit: %v, want a failure\n%s", err, stderr)
	}
	if sig == syscall.SIGKILL {
		if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("exit: %v, want killed by SIGKILL", err)
		}
		return
	}
	if got, want := ee.ExitCode(), 128+int(sig); got != want {
		t.Errorf("exit status %d, want %d\n%s", got, want, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	want := "abicheck: stopped by " + signalText(sig) + ": its children ended and its temporary files removed"
	if last := lines[len(lines)-1]; last != want {
		t.Errorf("last line of stderr %q, want %q", last, want)
	}
}

func signalText(sig syscall.Signal) string {
	return map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGKILL: "SIGKILL"}[sig]
}

// addDescendants adds to tree every process whose parent is in it.
func addDescendants(tree map[int]bool) {
	ents, _ := os.ReadDir("/proc")
	for grew := true; grew; {
		grew = false
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || tree[pid] {
				continue
			}
			if ppid, ok := parentOf(pid); ok && tree[ppid] {
				tree[pid], grew = true, true
			}
		}
	}
}

// parentOf reads a process's parent from /proc/PID/stat.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	rest := b[bytes.LastIndexByte(b, ')')+1:]
	f := strings.Fields(string(rest))
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// aliveOf are the pids that still run (a zombie has ended).
func aliveOf(pids []int) []int {
	var alive []int
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 && f[0] != "Z" && f[0] != "X" {
			alive = append(alive, pid)
		}
	}
	return alive
}

func waitForNone(t *testing.T, pids []int, limit time.Duration) {
	for end := time.Now().Add(limit); time.Now().Before(end) && len(aliveOf(pids)) > 0; {
		time.Sleep(50 * time.Millisecond)
	}
}

// entries lists dir's contents, recursively.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// shmEntries lists /dev/shm's comm segments (abi.CommSegmentPrefix).
func shmEntries(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir("/dev/shm")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "simpler_") {
			out = append(out, e.Name())
		}
	}
	return out
}

// wroteRE is the line naming what abicheck wrote: how many, where, which.
var wroteRE = regexp.MustCompile(`(?m)^abicheck: wrote (?:(\d+) [a-z ]+ to ([^,:]+)(?:, a new directory[^:]*)?: (.+)|the (?:JUnit report|baseline of \d+ [a-z ]+) to (.+))$`)

// named lists the files the "abicheck: wrote" lines of stderr name, by
// path (a diff's numbered scripts "diff-1.ops to diff-N.ops" expanded).
func named(t *testing.T, stderr, dir string) []string {
	t.Helper()
	var out []string
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	for _, m := range wroteRE.FindAllStringSubmatch(stderr, -1) {
		if m[4] != "" {
			out = append(out, abs(m[4]))
			continue
		}
		n, _ := strconv.Atoi(m[1])
		names := strings.Split(m[3], ", ")
		if first, last, ok := strings.Cut(m[3], " to "); ok && first == "diff-1.ops" && last == fmt.Sprintf("diff-%d.ops", n) {
			names = names[:0]
			for i := 1; i <= n; i++ {
				names = append(names, fmt.Sprintf("diff-%d.ops", i))
			}
		}
		if len(names) != n {
			t.Errorf("%q: %d names for %d files", m[0], len(names), n)
		}
		for _, name := range names {
			out = append(out, abs(filepath.Join(m[2], name)))
		}
	}
	slices.Sort(out)
	return out
}

// files lists the regular files under dirs, by path.
func files(t *testing.T, dirs ...string) []string {
	t.Helper()
	var out []string
	for _, dir := range dirs {
		for _, rel := range entries(t, dir) {
			p := filepath.Join(dir, rel)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}

// A finished run leaves in $TMPDIR what it had (nothing), and names every
// file it writes: without -repro-dir a failing check writes nothing, and
// its replay hint works once the run it names has written the file
// (V-IMG: the mutant img-trailing-ok); with -repro-dir, -junit and
// -write-baseline each file is named on stderr; a diff without -repro-dir
// keeps its scripts in one new directory it names.
func TestFinishedRun_writesOnlyWhatItNames(t *testing.T) {
	t.Parallel()
	lib := build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: "img-trailing-ok"})
	fake := build(t, emit.Config{Profile: emit.ProfileTMR})
	cwd, tmp := t.TempDir(), t.TempDir()
	env := []string{"TMPDIR=" + tmp}
	// V-IMG's finding is a directed check's: no probes needed.
	r := runIn(t, cwd, env, "-q", "-no-probes", "-sequences", "0", lib)
	hint := regexp.MustCompile(`replay: abicheck -replay (out/repro-V-IMG\.ops \S+) \(once a run with -repro-dir out has written it\)`).FindStringSubmatch(r.stdout)
	if r.code != exitFindings || hint == nil {
		t.Fatalf("exit %d, want 1 with the replay hint naming out/repro-V-IMG.ops:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if left := append(entries(t, tmp), entries(t, cwd)...); len(left) > 0 || strings.Contains(r.stderr, "wrote") {
		t.Errorf("without -repro-dir: wrote %v; stderr:\n%s", left, r.stderr)
	}
	r = runIn(t, cwd, env, "-q", "-no-probes", "-sequences", "0", "-repro-dir", "out", "-junit", "out/junit.xml", "-write-baseline", "base.txt", lib)
	if r.code != exitFindings {
		t.Fatalf("with -repro-dir: exit %d, want 1\n%s", r.code, r.stderr)
	}
	if diff := cmp.Diff(files(t, cwd), named(t, r.stderr, cwd)); diff != "" {
		t.Errorf("files written (-) against files named (+):\n%s\nstderr:\n%s", diff, r.stderr)
	}
	if left := entries(t, tmp); len(left) > 0 {
		t.Errorf("left in $TMPDIR: %v", left)
	}
	// The hint, followed where it was printed.
	rr := runIn(t, cwd, env, append([]string{"-replay"}, strings.Fields(hint[1])...)...)
	if rr.code != exitOK || !strings.Contains(rr.stdout, "replay: reproduces V-IMG fail at prepare: ") {
		t.Errorf("the hint's replay: exit %d, want 0 reproducing V-IMG's finding\n%s\n%s", rr.code, rr.stdout, rr.stderr)
	}
	// diff -q names no script on stdout: stderr names the directory.
	d := runIn(t, cwd, env, "diff", "-q", "-no-speed", "-no-probes", "-sequences", "0", fake, lib)
	if d.code != exitFindings {
		t.Fatalf("diff: exit %d, want 1\n%s", d.code, d.stderr)
	}
	got := named(t, d.stderr, cwd)
	if diff := cmp.Diff(files(t, tmp), got); diff != "" || len(got) == 0 {
		t.Errorf("diff: files in $TMPDIR (-) against files named (+):\n%s\nstderr:\n%s", diff, d.stderr)
	}
}
