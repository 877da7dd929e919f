package emit

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Concurrency and robustness of the emitted runtime: properties a
// single-threaded script cannot show, checked by testdata/concurrency.c (one
// child process per check, so a crash or a deadlock fails only its test).

func concurrencyCheck(t *testing.T, cfg Config, check string) runResult {
	t.Helper()
	art := buildFake(t, cfg)
	r := runExe(t, 3*time.Minute, driver(t, "concurrency"), art.RuntimePath, art.ACLPath, check)
	if r.exitCode != 0 || r.signaled || r.timedOut || !strings.Contains(r.stdout, "PASS "+check) {
		t.Fatalf("concurrency check %s failed:\n%v", check, r)
	}
	t.Logf("%s", r.stdout)
	return r
}

// X-2, E-LAUNCH, semantics §11: a launch returns INVALID_STATE at once only
// while a prepare or launch of its context is in progress. Every other entry
// on the same context — committed memory, the program-mode entries, the run
// family, a refused destroy — runs beside launches without refusing one.
func TestX2_LaunchIsRefusedOnlyByPrepareOrLaunch(t *testing.T) {
	t.Parallel()
	concurrencyCheck(t, Config{}, "launch-vs-entries")
}

// M-7, X-2: committed_device_memory_ctx (and the program entries) do not
// wait for a prepare that holds the submission gate (site 7).
func TestM7_CommittedDoesNotWaitForThePrepareGate(t *testing.T) {
	t.Parallel()
	concurrencyCheck(t, Config{}, "committed-vs-prepare")
}

// E-LAUNCH-ASYNC, E-LAUNCH, semantics §4: a synchronize of s0 runs its
// kernels without a lock launches need, so a launch on s1 by another context
// does not wait for it; the stream switch stays exact (s0 completes only
// when its items have run, and an item enqueued during the sync is not
// completed by it).
func TestELaunchAsync_SyncDoesNotBlockLaunchesOnOtherStreams(t *testing.T) {
	t.Parallel()
	concurrencyCheck(t, Config{}, "launch-during-sync")
}

// Semantics §7: a kernel holds device memory stable while it runs, as sim
// holds its memory lock: aclrtFree of a buffer a running kernel writes waits
// for that kernel, and the later kernels fault instead of writing unmapped
// memory.
func TestF1_FreeWaitsForTheRunningKernel(t *testing.T) {
	t.Parallel()
	concurrencyCheck(t, Config{}, "free-during-kernel")
}

// F-1: unloading the runtime (its destructor unregisters its synchronize
// callback) waits until no callback of it runs, so a dlclose racing
// aclrtSynchronizeStream never leaves the ACL calling unmapped code.
func TestF1_UnloadWaitsForARunningSynchronize(t *testing.T) {
	t.Parallel()
	concurrencyCheck(t, Config{}, "dlclose-during-sync")
}

// F-1, docs/fake-runtime.md "fork": a child forked while other threads hold
// the global locks of both libraries (contexts table, claims, faults,
// streams, device memory, synchronize callbacks) can use both libraries.
func TestF1_ForkWhileLocksAreHeld(t *testing.T) {
	t.Parallel()
	concurrencyCheck(t, Config{}, "fork")
}

// F-3, semantics §2: destroy frees the context; handles stay unique and a
// freed one is still recognised.
func TestF3_DestroyFreesTheContext(t *testing.T) {
	t.Parallel()
	t.Run("memory", func(t *testing.T) {
		concurrencyCheck(t, Config{}, "destroy-frees")
	})
	t.Run("freed-long-ago", func(t *testing.T) {
		// Thousands of later contexts, created and destroyed: the handle of
		// the first is still "freed", never mistaken for a live one.
		r := probe(t, Config{}, "new", "destroy", "0", "churn", "5000", "fin", "0")
		wantAbort(t, r, "invalid-handle")
		if !strings.Contains(r.stderr, "destroy_device_context freed") {
			t.Errorf("a handle freed before 5000 others is not reported as freed:\n%v", r)
		}
	})
	t.Run("not-yet-returned", func(t *testing.T) {
		r := probe(t, Config{}, "new", "new", "ahead")
		wantAbort(t, r, "invalid-handle")
		if !strings.Contains(r.stderr, "create_device_context never returned") {
			t.Errorf("a handle past the last one is not reported as never returned:\n%v", r)
		}
	})
	t.Run("live-after-churn", func(t *testing.T) {
		r := probe(t, Config{}, "new", "churn", "3000", "kinit", "0", "7", "prep", "0", "fin", "0", "destroy", "0")
		if r.exitCode != 0 || r.signaled || !strings.Contains(r.stdout, "prep 0 -> 0 0\nfin 0 -> 0") {
			t.Fatalf("a context live across 3000 create/destroy pairs:\n%v", r)
		}
	})
}

// K-5, F-4: the mutant close-failure-swallowed breaks K-5 only. A failed
// release step is ignored: finalize goes on, returns 0 and leaves the
// context exactly as a successful finalize does (M-7: committed 0; E-CLAIM:
// the claim released; E-DESTROY: destroy frees it).
func TestK5_CloseFailureSwallowedBreaksOnlyK5(t *testing.T) {
	t.Parallel()
	cfg := Config{Mutant: "close-failure-swallowed"}
	script := []string{"new", "new", "kinit", "0", "9", "prep", "0", "inject", "5", "1", "-1000", "fin", "0",
		"committed", "0", "kinit", "1", "9", "fin", "1", "destroy", "1", "destroy", "0"}
	r := probe(t, cfg, script...)
	for _, want := range []string{"fin 0 -> 0\n", "committed 0 -> 0\n", "kinit 1 -> 0\n", "fin 1 -> 0\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("mutant: missing %q:\n%v", want, r)
		}
	}
	if r.exitCode != 0 || r.signaled || strings.Contains(r.stderr, "refused") {
		t.Errorf("mutant: a swallowed close failure must leave the context destroyable:\n%v", r)
	}
	// The plain runtime reports the failure and keeps the rest (K-5).
	plain := probe(t, Config{}, script...)
	if !strings.Contains(plain.stdout, "fin 0 -> -1000\n") || !strings.Contains(plain.stdout, "kinit 1 -> -1003\n") {
		t.Errorf("plain runtime:\n%v", plain)
	}
	// The self-check sees only K-5 fail.
	art := buildFake(t, cfg)
	sc := runExe(t, 2*time.Minute, driver(t, "selfcheck"), art.RuntimePath, art.ACLPath, "tmr")
	if sc.exitCode == 0 {
		t.Fatalf("self-check did not detect the mutant:\n%v", sc)
	}
	for _, l := range strings.Split(sc.stdout, "\n") {
		if strings.HasPrefix(l, "FAIL ") && !strings.HasPrefix(l, "FAIL K-5 ") {
			t.Errorf("the mutant breaks more than K-5: %s", l)
		}
	}
}

// whitebox compiles testdata/whitebox.c, which includes the runtime source
// of art, and returns the executable.
func whitebox(t *testing.T, art *Artifacts) string {
	t.Helper()
	cc, err := resolveCompiler("")
	if err != nil {
		t.Skip(err)
	}
	dir := filepath.Dir(art.RuntimeSource)
	exe := filepath.Join(t.TempDir(), "whitebox")
	args := append(append([]string{}, cc.argv[1:]...), "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-pthread",
		"-I", dir, "-o", exe, filepath.Join("testdata", "whitebox.c"), "-L", dir, "-l:"+ACLLibName, "-Wl,-rpath,"+dir)
	if out, err := exec.Command(cc.argv[0], args...).CombinedOutput(); err != nil {
		t.Fatalf("compiling whitebox: %v\n%s", err, out)
	}
	return exe
}

// V-CFG: kernel init copies the caller's 1148 config bytes once and checks
// the copy; a writer racing the init cannot slip an unchecked config in.
func TestVCFG_KernelInitChecksTheConfigItKeeps(t *testing.T) {
	t.Parallel()
	art := buildFake(t, Config{})
	r := runExe(t, time.Minute, whitebox(t, art), "config-read-once")
	if r.exitCode != 0 || !strings.Contains(r.stdout, "PASS config-read-once") {
		t.Fatalf("whitebox config-read-once:\n%v", r)
	}
}

// S-1, S-2, S-3 (F-4): the status mutants are detected by the self-check
// with a failure naming the status rule they break (null-prepare-internal
// breaks V-PREP-2.1, and with it S-3's "no tolerance" for kernel entries).
func TestF4_StatusMutants(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, rule string }{
		{"device-band-code", "S-1"}, {"undocumented-code", "S-2"}, {"null-prepare-internal", "S-3"},
	} {
		if _, ok := LookupMutant(c.name); !ok {
			t.Fatalf("no mutant %s", c.name)
		}
		art := buildFake(t, Config{Mutant: c.name})
		r := runExe(t, 2*time.Minute, driver(t, "selfcheck"), art.RuntimePath, art.ACLPath, "tmr", "scodes")
		if r.exitCode == 0 || !strings.Contains(r.stdout, "FAIL "+c.rule+" ") {
			t.Errorf("mutant %s (%s) not detected by the scodes check:\n%v", c.name, c.rule, r)
		}
	}
	// The plain runtimes pass the same check.
	for _, p := range []Profile{ProfileTMR, ProfileRefusing} {
		art := buildFake(t, Config{Profile: p})
		if r := runExe(t, time.Minute, driver(t, "selfcheck"), art.RuntimePath, art.ACLPath, string(p), "scodes"); r.exitCode != 0 {
			t.Errorf("%s: scodes:\n%v", p, r)
		}
	}
}
