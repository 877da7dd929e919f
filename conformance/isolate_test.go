package conformance

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/simabi/simabi/sim"
)

// TestBeforeOp: Options.BeforeOp sees the setup, every op in order, then
// the cleanup (what a child process of the CLI streams to its parent), and a
// crash is located at the op that was executing; the hook changes nothing of
// the run (same history, findings, tally on both profiles).
func TestBeforeOp(t *testing.T) {
	for _, p := range []sim.Profile{sim.TMR, sim.Refusing} {
		caps := CapsOf(SimTarget(p))
		prof := ProfileTMR
		if p == sim.Refusing {
			prof = ProfileRefusing
		}
		for seed := uint64(1); seed <= 5; seed++ {
			ops := Generate(GenOptions{Seed: seed, Ops: 150, Caps: caps, Profile: prof})
			want := FactoryExecutor{Factory: SimFactory(p)}.Execute(ops, true)
			var seen []int
			got := FactoryExecutor{Factory: SimFactory(p), Options: Options{BeforeOp: func(i int) { seen = append(seen, i) }}}.Execute(ops, true)
			if !reflect.DeepEqual(want.History, got.History) || !reflect.DeepEqual(want.Result.Findings, got.Result.Findings) ||
				want.Result.Tally != got.Result.Tally {
				t.Fatalf("%s seed %d: the hook changed the run", p, seed)
			}
			if len(seen) != len(ops)+2 || seen[0] != AtSetup || seen[len(seen)-1] != len(ops) {
				t.Fatalf("%s seed %d: hook saw %v", p, seed, seen)
			}
			for i := 0; i < len(ops); i++ {
				if seen[i+1] != i {
					t.Fatalf("%s seed %d: hook saw %v", p, seed, seen)
				}
			}
		}
	}
	ops := MustParseScript("create c0\nsupported c0\ncommitted c0\n")
	o := FactoryExecutor{Factory: SimFactory(sim.TMR), Options: Options{BeforeOp: func(i int) {
		if i == 1 {
			panic("boom")
		}
	}}}.Execute(ops, false)
	if o.Verdict != Crash || o.At != 1 || !strings.Contains(o.Detail, "boom") {
		t.Fatalf("a panic before op 1: %+v, want a crash at 1", o)
	}
}

// TestOutcomeRecordRoundTrip: an outcome survives the trip through JSON (what
// crosses the process boundary): findings (E-SUP, skips of the refusing
// build's fault sites), tally, profile, history.
func TestOutcomeRecordRoundTrip(t *testing.T) {
	caps := CapsOf(SimTarget(sim.Refusing))
	ops := Generate(GenOptions{Seed: 3, Ops: 200, Caps: caps, Profile: ProfileRefusing})
	o := FactoryExecutor{Factory: SimFactory(sim.Refusing)}.Execute(ops, true)
	if o.Verdict != Pass || o.Result == nil || len(o.History) != len(ops) {
		t.Fatalf("outcome %+v", o)
	}
	b, err := json.Marshal(o.Record())
	if err != nil {
		t.Fatal(err)
	}
	var rec OutcomeRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	back, err := rec.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	if back.Result.Tally != o.Result.Tally || back.Result.Checked != o.Result.Checked ||
		back.Result.History.Profile != o.Result.History.Profile || !reflect.DeepEqual(back.History, o.History) {
		t.Fatalf("round trip changed the result")
	}
	if !reflect.DeepEqual(back.Result.Findings, o.Result.Findings) {
		t.Fatalf("findings differ:\n%v\n%v", o.Result.Findings, back.Result.Findings)
	}
	for _, v := range Verdicts() {
		var x Verdict
		if err := x.UnmarshalText([]byte(v.String())); err != nil || x != v {
			t.Errorf("verdict %v: %v %v", v, x, err)
		}
	}
}

// dyingExecutor simulates a library whose every launch dies.
type dyingExecutor struct {
	inner FactoryExecutor
	v     Verdict
	runs  int
}

func (x *dyingExecutor) Execute(ops []Op, history bool) Outcome {
	x.runs++
	for i, op := range ops {
		if op.Kind == KindLaunch {
			return Outcome{Verdict: x.v, Detail: "simulated " + x.v.String(), At: i}
		}
	}
	return x.inner.Execute(ops, history)
}

// TestConformWithCrashAndHang: a crash of a directed check is reported under
// its rules (E-LAUNCH, K-3 for e-launch/before-prepare) with the op log up
// to the launch, shrunk; hangs stop being run after MaxHangs; the rest of
// the run goes on (V-INIT passes).
func TestConformWithCrashAndHang(t *testing.T) {
	caps := CapsOf(SimTarget(sim.TMR))
	for _, v := range []Verdict{Crash, Hang} {
		x := &dyingExecutor{inner: FactoryExecutor{Factory: SimFactory(sim.TMR)}, v: v}
		res := ConformWith(x, SuiteRun{Name: "dying", Profile: ProfileTMR, Caps: caps, Random: 5, RandomOps: 100, Seed: 1, SkipSlow: true,
			ShrinkBudget: 5 * time.Second})
		byRule := map[string]RuleReport{}
		for _, rr := range res.Report.Rules {
			byRule[rr.Rule] = rr
		}
		if byRule["V-INIT"].Verdict != Pass {
			t.Errorf("%v: V-INIT %v, want pass", v, byRule["V-INIT"].Verdict)
		}
		el := byRule["E-LAUNCH"]
		switch v {
		case Crash:
			if el.Verdict != Crash || len(el.Repro) == 0 || !strings.HasPrefix(el.Repro[len(el.Repro)-1], "launch ") {
				t.Errorf("E-LAUNCH %v repro %v", el.Verdict, el.Repro)
			}
			if len(el.Repro) > 2 {
				t.Errorf("crash repro not shrunk: %v", el.Repro)
			}
		case Hang:
			hung, blocked := 0, 0
			for _, c := range res.Cases {
				if c.Verdict == Hang {
					hung++
				}
			}
			for _, c := range res.Report.Checks {
				if c.Verdict == Skip && strings.Contains(c.Detail, "hung in 2 earlier cases") {
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
		{Name: "a", Verdict: Pass},
		{Name: "b", Verdict: Fail, Broken: []Rule{REPrep}},
		{Name: "c", Verdict: Crash, Broken: []Rule{RM5, RM7}},
	}
	if k := KillOf(cases, "M-5"); !k.Killed || k.Case != "c" || k.Rule != "M-5" || k.How != Crash || len(k.Elsewhere) != 1 {
		t.Errorf("M-5: %+v", k)
	}
	if k := KillOf(cases[:2], "M-5"); k.Killed || len(k.Elsewhere) != 1 || k.Elsewhere[0] != "E-PREP fail" {
		t.Errorf("M-5 without c: %+v", k)
	}
	if k := KillOf([]CaseOutcome{{Name: "d", Verdict: Fail, Broken: []Rule{RD1, RD4}}}, "D-4"); k.Rule != "D-4" {
		t.Errorf("D-4: %+v, want the mutant's own rule named", k)
	}
	if g := RuleGroup("E-LAUNCH-ASYNC"); g != "E" {
		t.Errorf("group %q", g)
	}
	if !StopAtKill("E-LAUNCH")(cases[1]) || StopAtKill("V-IMG")(cases[1]) {
		t.Errorf("StopAtKill")
	}
}
