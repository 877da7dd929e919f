package tests

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/session"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// ranksSession is the directed check e-comm/ranks-barrier's ops: a
// session of three ranks as threads of one process. The runner makes each
// call that waits for its peers on a rank's thread of its own (parked) and
// the last arrival releases it, so the recorder writes overlapping calls
// of several threads.
func ranksSession(t *testing.T) []op.Op {
	for _, c := range catalogue.Checks() {
		if c.Name == "e-comm/ranks-barrier" {
			return c.Ops()
		}
	}
	t.Fatal("no directed check e-comm/ranks-barrier")
	return nil
}

// E-COMM.8, .20, .58: a session of three ranks as threads, run live
// through the recording runtime over the emitted fake, is judged by
// -check-trace call by call, every wait exactly: clean over the fake, and
// over the mutants that let an earlier rank return before the last one
// arrives, a failure under E-COMM naming the call that returned early.
func TestRecordedRanksAsThreads_ECOMM(t *testing.T) {
	ops := ranksSession(t)
	for _, c := range []struct {
		mutant string
		fails  []string
		early  string // the first failure's detail names this call
	}{
		{"", nil, ""},
		{"comm-alloc-no-wait", []string{"E-COMM"}, "calloc of h1 returned before the last rank of its session arrived"},
		{"comm-barrier-no-wait", []string{"E-COMM"}, "cbarrier of h2 returned before the last rank of its session arrived"},
	} {
		t.Run("mutant="+c.mutant, func(t *testing.T) {
			a, err := buildEmitted(emit.Config{Mutant: c.mutant})
			if isNoCompiler(err) {
				t.Skip("no C compiler")
			}
			if err != nil {
				t.Fatal(err)
			}
			e, err := newEmittedRuntime(a)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			rr, err := runRecorded(e, ops, dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := liveFailedRules(rr.live); !slices.Equal(got, c.fails) {
				t.Fatalf("live: %v, want %v", got, c.fails)
			}
			threads := map[int]bool{}
			for _, cl := range rr.trace.Calls {
				if cl.Op.Kind.CommCodes() {
					threads[cl.Thread] = true
					if !cl.RanksHere {
						t.Errorf("%q: every rank of its session is in the trace, and it is not RanksHere", cl.Text)
					}
				}
			}
			if len(threads) < 3 {
				t.Fatalf("the comm calls ran on %d threads, want 3 or more (ranks as threads)\n%s", len(threads), rr.text)
			}
			run, err := session.CheckTrace(filepath.Join(dir, "trace.ops")) // abicheck -check-trace
			if err != nil {
				t.Fatal(err)
			}
			rep := run.Result.Report
			if d := cmp.Diff(c.fails, failedRules(rep)); d != "" {
				t.Fatalf("-check-trace failed rules (-want +got):\n%s\n%s", d, rr.text)
			}
			for _, r := range rep.Rules {
				switch {
				case r.Rule != model.REComm.String():
				case c.fails == nil && (r.Verdict != model.Pass || r.Passes != 15):
					t.Errorf("E-COMM: %v with %d passes (%s), want pass with 15: every call of the session judged", r.Verdict, r.Passes, r.Detail)
				case c.fails != nil && !strings.Contains(r.Detail, c.early):
					t.Errorf("E-COMM: %q, want it to name %q\n%s", r.Detail, c.early, rr.text)
				}
			}
		})
	}
}

// The differential for ranks as threads: the generator's comm sequences
// (GenOptions.CommOnly: sessions of 2-4 ranks, every rank's collective
// called, the waits parked), run live through the recorder over the
// emitted fake and over the two mutants that return early, and checked
// offline: over the fake both verdicts are clean; over a mutant the trace
// flags E-COMM wherever the live model saw a parked call return early
// (E-COMM.8, .20). The waits of sessions whose ranks are all in the trace
// are judged exactly (each sequence's count of such calls is logged), so
// the agreement is not the tolerance's.
func TestRecordedRanksAsThreadsAgreeWithLive_ECOMM(t *testing.T) {
	seeds := uint64(12)
	if *long {
		seeds = 100
	}
	for _, mutant := range []string{"", "comm-alloc-no-wait", "comm-barrier-no-wait"} {
		t.Run("mutant="+mutant, func(t *testing.T) {
			a, err := buildEmitted(emit.Config{Mutant: mutant})
			if isNoCompiler(err) {
				t.Skip("no C compiler")
			}
			if err != nil {
				t.Fatal(err)
			}
			e, err := newEmittedRuntime(a)
			if err != nil {
				t.Fatal(err)
			}
			exact, flagged, early := 0, 0, 0
			for seed := uint64(1); seed <= seeds; seed++ {
				ops := conformance.Generate(conformance.GenOptions{Seed: seed, Ops: 120, CommOnly: true,
					Caps: conformance.CapsOf(target.SimTarget(sim.TMR)), Profile: model.ProfileTMR})
				rr, err := runRecorded(e, ops, t.TempDir())
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				for _, c := range rr.trace.Calls {
					if c.RanksHere && model.CommMayWait(c.Op.Kind) {
						exact++
					}
				}
				got := failedRules(rr.check.Report())
				if mutant == "" {
					if err := rr.agreeOnFake(); err != nil {
						t.Fatalf("seed %d: %v\n%s", seed, err, rr.report())
					}
					continue
				}
				if earlyLive(rr.live) {
					early++
				}
				if earlyLive(rr.live) && !slices.Contains(got, "E-COMM") {
					t.Errorf("seed %d: the live model saw a parked call return early, -check-trace flagged %v\n%s", seed, got, rr.report())
				}
				if slices.Contains(got, "E-COMM") {
					flagged++
				}
			}
			t.Logf("%d sequences: %d waits judged exactly; %d live runs saw an early return, %d traces flagged E-COMM", seeds, exact, early, flagged)
			if exact == 0 {
				t.Error("no call that waits was judged exactly: the property says nothing")
			}
			if mutant != "" && flagged == 0 {
				t.Errorf("no trace over %s flagged E-COMM", mutant)
			}
		})
	}
}

// earlyLive reports whether the live model flagged a parked call that
// returned before its release.
func earlyLive(res *conformance.Result) bool {
	return slices.ContainsFunc(res.Findings, func(f model.Finding) bool {
		return f.Verdict == model.Fail && strings.Contains(f.Detail, "returned before the last rank of its session arrived")
	})
}

// openRecordedRank opens the recording runtime over target for a rank
// process (TestCommRankProcess), its trace written to trace.
func openRecordedRank(t *testing.T, target, trace string) (*onboard.Library, error) {
	b, err := recorderBytes()
	if err != nil {
		return nil, err
	}
	rec := filepath.Join(t.TempDir(), "libhost_runtime.so")
	if err := os.WriteFile(rec, b, 0o755); err != nil {
		return nil, err
	}
	return loadRecorder(rec, target, trace)
}

// E-COMM across processes, recorded: each rank of a session of two is a
// process of its own over the emitted fake (windows, barriers, a derived
// context, a domain allocation, a global domain imported across the two,
// comm_destroy), each recorded. A trace holds one rank of the session, so
// its waits depend on the other process: no call of it is RanksHere, each
// that may wait is allowed 0 or -1, and each trace checks clean.
func TestRecordedRanksInProcesses_ECOMM(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the ranks share /dev/shm on Linux only")
	}
	fake := emittest.Path(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{CommTimeoutMs: 60000}})
	dir := t.TempDir()
	runRanksRecorded(t, []string{fake, fake}, false, 60000, dir)
	for r := range 2 {
		tr, o := judgeTraceFile(t, filepath.Join(dir, "rank-"+strconv.Itoa(r)+".ops"))
		waits := 0
		for _, c := range tr.Calls {
			if c.RanksHere {
				t.Errorf("rank %d: %q is RanksHere, and the other rank is another process's", r, c.Text)
			}
			if model.CommMayWait(c.Op.Kind) && c.Skip == "" && c.Op.Comm.H >= 0 {
				waits++
			}
		}
		if waits < 3 {
			t.Errorf("rank %d: %d calls that may wait recorded, want comm_alloc_windows, barriers and comm_destroy", r, waits)
		}
		if got := failedRules(o.Report()); len(got) != 0 {
			t.Errorf("rank %d: -check-trace flagged %v (%s)", r, got, o.Note)
		}
	}
}
