package suite

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/conformance/target/targettest"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// TestRandomCampaign is an opt-in long hunt (CONFORMANCE_CAMPAIGN=N runs N
// sequences of 500 ops per target and context count): random sequences on
// sim (tmr, refusing) and the emitted runtime, every call checked against
// the model (every rule the generator reaches: V-*, L-*, K-*, E-*, M-*, D-*,
// ); failures are shrunk and printed.
func TestRandomCampaign(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CONFORMANCE_CAMPAIGN"))
	if n == 0 {
		t.Skip("set CONFORMANCE_CAMPAIGN=N to run")
	}
	targets := []struct {
		name string
		f    conformance.Factory
		p    model.Profile
	}{
		{"sim", simFactory(sim.TMR, false), model.ProfileTMR},
		{"sim-refusing", simFactory(sim.Refusing, false), model.ProfileRefusing},
		{"emitted", targettest.EmittedFactory(t, emittest.Build(t, emit.Config{Profile: emit.ProfileTMR})), model.ProfileTMR},
	}
	for _, tg := range targets {
		caps := conformance.CapsOf(target.SimTarget(sim.TMR))
		x := conformance.FactoryExecutor{Factory: tg.f, Timeout: time.Minute}
		for _, slots := range []int{2, 4} {
			bad := 0
			for i := 0; i < n; i++ {
				ops := conformance.Generate(conformance.GenOptions{Seed: uint64(i*7 + slots), Ops: 500, Slots: slots, Devices: 3, Caps: caps, Profile: tg.p, HoldMs: 5})
				o := x.Execute(ops, false)
				if o.Verdict == model.Pass && !o.Result.Failed() {
					continue
				}
				if bad++; bad <= 3 {
					// Shrink to a sequence that fails the same way: the same
					// first failing rule, or the same crash or hang.
					var want model.Rule
					if o.Verdict == model.Pass {
						want = failingRules(o.Result)[0]
					}
					repro := conformance.Shrink(ops, func(cand []op.Op) bool {
						c := x.Execute(cand, false)
						if o.Verdict != model.Pass {
							return c.Verdict == o.Verdict
						}
						return c.Verdict == model.Pass && slices.Contains(failingRules(c.Result), want)
					})
					ro := x.Execute(repro, false)
					if ro.Result != nil {
						t.Errorf("%s seed %d: %v %s\n%s\nfindings: %v", tg.name, i, o.Verdict, o.Detail, ro.Result.History.String(), ro.Result.Findings)
					} else {
						t.Errorf("%s seed %d: %v %s\n%s", tg.name, i, ro.Verdict, ro.Detail, op.FormatOps(repro))
					}
				}
			}
			t.Logf("%s slots=%d: %d/%d sequences failed", tg.name, slots, bad, n)
		}
	}
}

// failingRules lists the rules of a run's failures, in the order found.
func failingRules(res *conformance.Result) []model.Rule {
	if res == nil {
		return nil
	}
	var rs []model.Rule
	for _, f := range res.Findings {
		if f.Verdict == model.Fail {
			rs = append(rs, f.Rule)
		}
	}
	return rs
}
