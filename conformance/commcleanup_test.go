package conformance_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
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
// as upstream's does; abicheck removes those at exit.)
//
// The runs are made in a child process of this test: segments are named
// after the parent of the process that makes them, and the test binaries
// of one go test command (other packages, at the same time) share theirs.
func TestCommCleanup_ECOMM58_runsLeaveNoSegment(t *testing.T) {
	if os.Getenv(commCleanupChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCommCleanup_ECOMM58_runsLeaveNoSegment$", "-test.count=1")
		cmd.Env = append(os.Environ(), commCleanupChild+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the child's runs: %v\n%s", err, out)
		}
		return
	}
	for seed := uint64(1); seed <= 120; seed++ {
		before := commSegments()
		ops := conformance.Generate(conformance.GenOptions{Seed: seed, Ops: 300, Comm: conformance.MixesComm(seed), Caps: conformance.CapsOf(target.SimTarget(sim.TMR)) &^ conformance.CapCommTimeout, Profile: model.ProfileTMR, HoldMs: 10})
		res := conformance.NewRunner(target.SimTarget(sim.TMR), conformance.Options{}).Run(ops)
		for n := range commSegments() {
			if !before[n] {
				t.Errorf("seed %d left segment %s in /dev/shm (model lost track: %q)\n%s", seed, n, res.Lost, res.History)
				return
			}
		}
	}
}
