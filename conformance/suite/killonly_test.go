package suite

import (
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/target/targettest"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// freshCounter is an executor that can run in a fresh process, counting how
// often it is asked to (the runs are in this process either way).
type freshCounter struct {
	conformance.FactoryExecutor
	fresh int
}

func (x *freshCounter) ExecuteFresh(ops []op.Op, history bool) conformance.Outcome {
	x.fresh++
	return x.Execute(ops, history)
}

// A mutant's run shows no repro, so its kill costs no fresh process; a
// check's run confirms each failure's repro in one (F-4: the kill is the
// same either way). dedup breaks E-PREP's id minting.
func TestKillOnly_F4_killsWithoutAFreshProcess(t *testing.T) {
	m, ok := emit.LookupMutant("dedup")
	if !ok {
		t.Fatal("no mutant dedup")
	}
	a := emittest.Build(t, emit.Config{Profile: m.Profile, Mutant: m.Name})
	for _, killOnly := range []bool{false, true} {
		x := &freshCounter{FactoryExecutor: conformance.FactoryExecutor{Factory: targettest.EmittedFactory(t, a)}}
		res := ConformWith(x, Run{Name: "dedup", Stop: StopAtKill(m.Rule),
			Cases: Cases{Profile: model.ProfileTMR, Checks: catalogue.ChecksClaiming(m.Name), KillOnly: killOnly}})
		k := KillOf(res.Cases, m.Rule)
		if !k.Killed || RuleGroup(k.Rule) != m.Group {
			t.Fatalf("KillOnly %v: kill %+v, want a kill under %s", killOnly, k, m.Group)
		}
		// Without KillOnly, each rule the failing case broke has its
		// repro confirmed once.
		want := 0
		for _, c := range res.Cases {
			if !killOnly && c.Verdict == model.Fail {
				want += len(c.Broken)
			}
		}
		if x.fresh != want || (!killOnly && want == 0) {
			t.Errorf("KillOnly %v: %d runs in a fresh process, want %d", killOnly, x.fresh, want)
		}
	}
}
