package conformance_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim"
)

// commCleanupChild marks the child process that makes the runs.
const commCleanupChild = "SIMABI_COMMCLEANUP_CHILD"

// commSegments are the comm segments named after this process's parent,
// where the runtime's comm family names them (E-COMM's names).
func commSegments() map[string]bool {
	es, _ := os.ReadDir("/dev/shm")
	out := map[string]bool{}
	pre := fmt.Sprintf("simpler_%08x_", os.Getppid())
	for _, e := range es {
		if strings.HasPrefix(e.Name(), pre) {
			out[e.Name()] = true
		}
	}
	return out
}

// TestCommCleanup_ECOMM58_runsLeaveNoSegment: the random sequences that mix
// in the comm family (sessions of several ranks among them) leave no
// segment in /dev/shm: the runner's cleanup destroys the ranks of a session
// together (E-COMM.58: the last one out unlinks it), and the generator puts
// no handle of one rank into a session of ranks. Before, the ranks of a
// session each waited for the others at cleanup and were left, with their
// segments. (Without the comm timeout hook: a rank whose wait for peers
// that never came timed out (E-COMM.9, .59) leaves its session's segment,
// as upstream's does: TestCommCleanup_ECOMM59_timedOutRanksLeaveNoSegment.)
func TestCommCleanup_ECOMM58_runsLeaveNoSegment(t *testing.T) {
	if inChild(t) {
		return
	}
	caps := conformance.CapsOf(target.SimTarget(sim.TMR)) &^ catalogue.CapCommTimeout
	for seed := uint64(1); seed <= 120; seed++ {
		if _, left := runLeaving(seed, caps); left != nil {
			t.Errorf("%s", left)
			return
		}
	}
}

// TestCommCleanup_ECOMM59_timedOutRanksLeaveNoSegment: with the comm
// timeout hook the random sequences time out ranks whose peers never come
// (E-COMM.9, .59), and such a rank keeps its session's segment, as
// upstream's backend does; the runner, when the run ends, removes the
// segments its own calls named, so none is left in /dev/shm. The sequences
// must time some rank out, or the test checks nothing.
func TestCommCleanup_ECOMM59_timedOutRanksLeaveNoSegment(t *testing.T) {
	if inChild(t) {
		return
	}
	caps := conformance.CapsOf(target.SimTarget(sim.TMR))
	if !caps.Has(catalogue.CapCommTimeout) {
		t.Fatal("sim has no comm timeout hook (CapCommTimeout)")
	}
	timedOut := 0
	for seed := uint64(1); seed <= 60; seed += 2 {
		res, left := runLeaving(seed, caps)
		if left != nil {
			t.Errorf("%s", left)
			return
		}
		timedOut += timedOutCalls(res)
	}
	if timedOut < 10 {
		t.Errorf("E-COMM.59: the runs timed out %d comm calls, want at least 10 (else the test checks nothing)", timedOut)
	}
}

// inChild makes the test's runs in a child process of the test, and says
// whether this is the parent (whose test is then done): segments are named
// after the parent of the process that makes them, and the test binaries
// of one go test command (other packages, at the same time) share theirs.
func inChild(t *testing.T) bool {
	t.Helper()
	if os.Getenv(commCleanupChild) != "" {
		return false
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), commCleanupChild+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the child's runs: %v\n%s", err, out)
	}
	return true
}

// runLeaving runs seed's random sequence (comm mixed in on odd seeds) on
// sim with caps, and says which segment it left in /dev/shm (nil: none).
func runLeaving(seed uint64, caps catalogue.Caps) (*conformance.Result, error) {
	before := commSegments()
	ops := conformance.Generate(conformance.GenOptions{Seed: seed, Ops: 300, Comm: conformance.MixesComm(seed), Caps: caps, Profile: model.ProfileTMR, HoldMs: 10})
	res := conformance.NewRunner(target.SimTarget(sim.TMR), conformance.Options{}).Run(ops)
	for n := range commSegments() {
		if !before[n] {
			return res, fmt.Errorf("seed %d left segment %s in /dev/shm (model lost track: %q)\n%s", seed, n, res.Lost, res.History)
		}
	}
	return res, nil
}

// timedOutCalls counts the run's comm calls on a handle, of the entries
// that wait for peers, made under a short comm timeout, that answered -1:
// mostly ranks whose peers never came.
func timedOutCalls(res *conformance.Result) int {
	n := 0
	short := false
	for _, e := range res.History.Entries {
		switch {
		case e.Op.Kind == op.KindCommTimeout:
			short = e.Op.Ms < 1000
		case short && e.Skipped == "" && e.Op.Comm.H >= 0 && e.Obs.Call.Status == -1 && (e.Op.Kind == op.KindCommAlloc || e.Op.Kind == op.KindCommBarrier ||
			e.Op.Kind == op.KindCommDomainAlloc || e.Op.Kind == op.KindCommDomainRelease || e.Op.Kind == op.KindCommDestroy):
			n++
		}
	}
	return n
}
