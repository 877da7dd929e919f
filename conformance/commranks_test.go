package conformance_test

import (
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim"
)

// TestCommRanks_ECOMM8_ECOMM20_randomSessionsPark: the comm family's
// random sequences open sessions of 2-4 ranks and call their collectives
// on every rank; the runner parks each call that waits for the others
// (E-COMM.8, .19, .20, .33, .58), the last arrival releases it, and the
// model finds nothing on the simulator.
func TestCommRanks_ECOMM8_ECOMM20_randomSessionsPark(t *testing.T) {
	parked, kinds := 0, map[string]int{}
	for seed := uint64(1); seed <= 30; seed++ {
		ops := conformance.Generate(conformance.GenOptions{Seed: seed, Ops: 300, CommOnly: true, Caps: conformance.CapsOf(target.SimTarget(sim.TMR)), Profile: model.ProfileTMR})
		res := conformance.NewRunner(target.SimTarget(sim.TMR), conformance.Options{}).Run(ops)
		for _, f := range res.Findings {
			if f.Verdict.Bad() {
				t.Fatalf("seed %d: #%d %v %s: %s\n%s", seed, f.Index, f.Op, f.Rule, f.Detail, res.History)
			}
		}
		for i := range res.History.Entries {
			e := &res.History.Entries[i]
			if at, ok := e.ParkedUntil(); ok {
				if at <= i {
					t.Fatalf("seed %d: #%d released by #%d, which is not after it", seed, i, at)
				}
				parked++
				kinds[e.Op.Kind.String()]++
			}
		}
	}
	for _, k := range []string{"calloc", "cbarrier", "cdestroy", "dalloc", "drelease"} {
		if kinds[k] == 0 {
			t.Errorf("no %s was parked in 30 sequences (parked: %v)", k, kinds)
		}
	}
	t.Logf("%d calls parked: %v", parked, kinds)
}
