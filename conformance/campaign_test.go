package conformance

import (
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
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
		f    Factory
		p    Profile
	}{
		{"sim", simFactory(sim.TMR, false), ProfileTMR},
		{"sim-refusing", simFactory(sim.Refusing, false), ProfileRefusing},
		{"emitted", emittedFactory(t, emittedBuild(t, emit.Config{Profile: emit.ProfileTMR})), ProfileTMR},
	}
	for _, tg := range targets {
		caps := CapsOf(SimTarget(sim.TMR))
		x := FactoryExecutor{Factory: tg.f, Timeout: time.Minute}
		for _, slots := range []int{2, 4} {
			bad := 0
			for i := 0; i < n; i++ {
				ops := Generate(GenOptions{Seed: uint64(i*7 + slots), Ops: 500, Slots: slots, Devices: 3, Caps: caps, Profile: tg.p, HoldMs: 5})
				o := x.Execute(ops, false)
				if o.Verdict == Pass && !o.Result.Failed() {
					continue
				}
				if bad++; bad <= 3 {
					// Shrink to a sequence that fails the same way: the same
					// first failing rule, or the same crash or hang.
					var want Rule
					if o.Verdict == Pass {
						want = failingRules(o.Result)[0]
					}
					repro := Shrink(ops, func(cand []Op) bool {
						c := x.Execute(cand, false)
						if o.Verdict != Pass {
							return c.Verdict == o.Verdict
						}
						return c.Verdict == Pass && slices.Contains(failingRules(c.Result), want)
					})
					ro := x.Execute(repro, false)
					if ro.Result != nil {
						t.Errorf("%s seed %d: %v %s\n%s\nfindings: %v", tg.name, i, o.Verdict, o.Detail, ro.Result.History.String(), ro.Result.Findings)
					} else {
						t.Errorf("%s seed %d: %v %s\n%s", tg.name, i, ro.Verdict, ro.Detail, FormatOps(repro))
					}
				}
			}
			t.Logf("%s slots=%d: %d/%d sequences failed", tg.name, slots, bad, n)
		}
	}
}
