package suite

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"strings"
	"testing"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim"
)

// dyingExecutor simulates a library whose every launch dies.
type dyingExecutor struct {
	inner conformance.FactoryExecutor
	v     model.Verdict
	runs  int
}

func (x *dyingExecutor) Execute(ops []op.Op, history bool) conformance.Outcome {
	x.runs++
	for i, o := range ops {
		if o.Kind == op.KindLaunch {
			return conformance.Outcome{Verdict: x.v, Detail: "simulated " + x.v.String(), At: i}
		}
	}
	return x.inner.Execute(ops, history)
}

// TestConformWithCrashAndHang: a crash of a directed check is reported under
// its rules (E-LAUNCH, K-3 for e-launch/before-prepare) with the op log up
// to the launch, shrunk; hangs stop being run after MaxHangs; the rest of
// the run goes on (V-INIT passes).
func TestConformWithCrashAndHang(t *testing.T) {
	caps := conformance.CapsOf(target.SimTarget(sim.TMR))
	for _, v := range []model.Verdict{model.Crash, model.Hang} {
		x := &dyingExecutor{inner: conformance.FactoryExecutor{Factory: target.SimFactory(sim.TMR)}, v: v}
		res := ConformWith(x, Run{Name: "dying", SkipSlow: true, Cases: Cases{Profile: model.ProfileTMR, Caps: caps, Random: 5, RandomOps: 100, Seed: 1,
			ShrinkBudget: 5 * time.Second}})
		byRule := map[string]report.RuleReport{}
		for _, rr := range res.Report.Rules {
			byRule[rr.Rule] = rr
		}
		if byRule["V-INIT"].Verdict != model.Pass {
			t.Errorf("%v: V-INIT %v, want pass", v, byRule["V-INIT"].Verdict)
		}
		el := byRule["E-LAUNCH"]
		switch v {
		case model.Crash:
			if el.Verdict != model.Crash || len(el.Repro) == 0 || !strings.HasPrefix(el.Repro[len(el.Repro)-1], "launch ") {
				t.Errorf("E-LAUNCH %v repro %v", el.Verdict, el.Repro)
			}
			if len(el.Repro) > 2 {
				t.Errorf("crash repro not shrunk: %v", el.Repro)
			}
		case model.Hang:
			hung, blocked := 0, 0
			for _, c := range res.Cases {
				if c.Verdict == model.Hang {
					hung++
				}
			}
			for _, c := range res.Report.Checks {
				if c.Verdict == model.Skip && strings.Contains(c.Detail, "hung in 2 earlier cases") {
					blocked++
				}
			}
			if hung != 2 || blocked == 0 {
				t.Errorf("hang: %d cases hung, %d blocked; want 2 and some", hung, blocked)
			}
		}
	}
}

// TestKillOf: a kill counts only in the mutant's rule group (F-4).
func TestKillOf(t *testing.T) {
	cases := []CaseOutcome{
		{Name: "a", Verdict: model.Pass},
		{Name: "b", Verdict: model.Fail, Broken: []model.Rule{model.REPrep}},
		{Name: "c", Verdict: model.Crash, Broken: []model.Rule{model.RM5, model.RM7}},
	}
	if k := KillOf(cases, "M-5"); !k.Killed || k.Case != "c" || k.Rule != "M-5" || k.How != model.Crash || len(k.Elsewhere) != 1 {
		t.Errorf("M-5: %+v", k)
	}
	if k := KillOf(cases[:2], "M-5"); k.Killed || len(k.Elsewhere) != 1 || k.Elsewhere[0] != "E-PREP fail" {
		t.Errorf("M-5 without c: %+v", k)
	}
	if k := KillOf([]CaseOutcome{{Name: "d", Verdict: model.Fail, Broken: []model.Rule{model.RD1, model.RD4}}}, "D-4"); k.Rule != "D-4" {
		t.Errorf("D-4: %+v, want the mutant's own rule named", k)
	}
	if g := RuleGroup("E-LAUNCH-ASYNC"); g != "E" {
		t.Errorf("group %q", g)
	}
	if !StopAtKill("E-LAUNCH")(cases[1]) || StopAtKill("V-IMG")(cases[1]) {
		t.Errorf("StopAtKill")
	}
}
