package suite

import (
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/conformance/target/targettest"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

func simExec(p sim.Profile) conformance.Executor {
	return conformance.FactoryExecutor{Factory: target.SimFactory(p)}
}

func simCaps(t *testing.T) catalogue.Caps {
	t.Helper()
	return conformance.CapsOf(target.SimTarget(sim.TMR))
}

// A build against itself: no change, directed checks and random sequences
// alike (issue #30: self-diff is empty). The probes are left out here (two
// simulators in this process cost 30 s under the race detector with them);
// the mutant test below runs them, and abicheck's own test diffs the fake
// against itself with them.
func TestDiff_selfIsEmpty(t *testing.T) {
	res := DiffWith(simExec(sim.TMR), simExec(sim.TMR), DiffRun{Cases: Cases{Caps: simCaps(t), Random: 3, RandomOps: 100, Seed: 1, HoldMs: 10}})
	if len(res.Changes) != 0 {
		t.Fatalf("%d changes of sim:tmr against itself, first: %+v", len(res.Changes), res.Changes[0])
	}
	want := 0
	for _, c := range catalogue.Checks() {
		if c.AppliesTo(model.ProfileTMR) && simCaps(t).Has(c.Needs) {
			want++
		}
	}
	if res.Cases != want+3 || res.Random != 3 {
		t.Errorf("ran %d cases (%d random), want the %d checks for tmr and 3", res.Cases, res.Random, want)
	}
}

// The emitted fake against sim: the Go and the C backends behave alike
// (F-1), so the diff is empty too: two independent routes to one answer.
func TestDiff_emittedAgainstSimIsEmpty_F1(t *testing.T) {
	a := emittest.Build(t, emit.Config{Profile: emit.ProfileTMR})
	res := DiffWith(simExec(sim.TMR), conformance.FactoryExecutor{Factory: targettest.EmittedFactory(t, a)},
		DiffRun{Cases: Cases{Caps: simCaps(t), Random: 2, RandomOps: 100, Seed: 7, HoldMs: 10}})
	for _, c := range res.Changes {
		t.Errorf("%s [%s] #%d: %s -> %s", c.Case, c.Group(), c.At, c.Old, c.New)
	}
}

// A mutant differs from the fake, and the change is grouped under the
// clause the mutant breaks; the shrunk script still shows it on both.
func TestDiff_mutantNamedByItsClause(t *testing.T) {
	for _, name := range []string{"prep-keeps-out", "launch-id-8192-ok", "finalize-null-ia", "register-id-8192-ok"} {
		t.Run(name, func(t *testing.T) {
			cl, ok := catalogue.ClauseOfMutant(name)
			if !ok {
				t.Fatalf("no clause for %s", name)
			}
			a := emittest.Build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: name})
			newX := conformance.FactoryExecutor{Factory: targettest.EmittedFactory(t, a)}
			res := DiffWith(simExec(sim.TMR), newX, DiffRun{Cases: Cases{Caps: simCaps(t), Checks: catalogue.ChecksClaiming(name), Probes: true}})
			if len(res.Changes) == 0 {
				t.Fatalf("no change against mutant %s", name)
			}
			named := false
			for _, c := range res.Changes {
				named = named || slices.Contains(c.Clauses, cl.ID)
				if c.At < 0 || c.At > len(c.Script) || c.Old == c.New {
					t.Errorf("%s: at %d of %d, %q -> %q", c.Case, c.At, len(c.Script), c.Old, c.New)
				}
				// Replaying the shrunk script shows the same change.
				d, ok := compareOutcomes(c.Script, simExec(sim.TMR).Execute(c.Script, true), newX.Execute(c.Script, true))
				if !ok || ResultOf(d.old) != ResultOf(c.Old) || ResultOf(d.new) != ResultOf(c.New) {
					t.Errorf("%s: the script does not show %q -> %q again (%v: %q -> %q)\n%s", c.Case, c.Old, c.New, ok, d.old, d.new,
						strings.Join(conformance.OpLines(c.Script), "\n"))
				}
			}
			if !named {
				var groups []string
				for _, c := range res.Changes {
					groups = append(groups, c.Case+": "+c.Group())
				}
				t.Errorf("no change names %s: %v", cl.ID, groups)
			}
		})
	}
}

// compareOutcomes: equal runs are no change; a status that differs is the
// first change; a crash against a pass is a change at the op that died.
func TestDiff_compareOutcomes(t *testing.T) {
	ops := op.MustParseScript("create c0\ndestroy c0\n")
	pass := func(lines ...string) conformance.Outcome {
		var steps []conformance.Step
		for _, l := range lines {
			steps = append(steps, conformance.Step{Line: l})
		}
		return conformance.Outcome{Verdict: model.Pass, Result: &conformance.Result{}, Steps: steps, At: len(ops)}
	}
	crash := conformance.Outcome{Verdict: model.Crash, Detail: "signal SIGSEGV", At: 1}
	type want struct {
		Differs  bool
		At       int
		Old, New string
		Kind     string
	}
	for _, tc := range []struct {
		name string
		a, b conformance.Outcome
		want want
	}{
		{"same", pass("#0 create c0 -> OK", "#1 destroy c0 -> OK"), pass("#0 create c0 -> OK", "#1 destroy c0 -> OK"), want{}},
		{"status", pass("#0 create c0 -> OK", "#1 destroy c0 -> OK"), pass("#0 create c0 -> OK", "#1 destroy c0 -> INVALID_STATE"),
			want{true, 1, "#1 destroy c0 -> OK", "#1 destroy c0 -> INVALID_STATE", "destroy"}},
		{"crash", pass("#0 create c0 -> OK", "#1 destroy c0 -> OK"), crash,
			want{true, 1, "#1 destroy c0 -> OK", "crash at #1 destroy c0: signal SIGSEGV", "destroy"}},
		{"same crash", crash, crash, want{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, ok := compareOutcomes(ops, tc.a, tc.b)
			got := want{Differs: ok}
			if ok {
				got.At, got.Old, got.New, got.Kind = d.at, d.old, d.new, d.kind
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestDiff_firstDifference: where two runs of the same ops part (a mechanical
// survivor against its reference, a diff), and the rule the differing op
// concerns: a finding's there (judged), else the entry's.
func TestDiff_firstDifference(t *testing.T) {
	ops := op.MustParseScript("create c0\nsetdev 0\nkinit c0 dev=0 gen=1\n")
	steps := func(lines ...string) []conformance.Step {
		var out []conformance.Step
		for _, l := range lines {
			out = append(out, conformance.Step{Line: l})
		}
		return out
	}
	passed := func(fs []model.Finding, lines ...string) conformance.Outcome {
		return conformance.Outcome{Verdict: model.Pass, Result: &conformance.Result{Findings: fs}, At: len(ops), Steps: steps(lines...)}
	}
	died := func(v model.Verdict, at int) conformance.Outcome {
		return conformance.Outcome{Verdict: v, At: at, Detail: "signal SIGSEGV\nmore"}
	}
	plain := []string{"#0 create -> c0", "#1 setdev 0 -> OK", "#2 kinit c0 dev=0 gen=1 -> OK mem=0"}
	other := []string{"#0 create -> c0", "#1 setdev 0 -> OK", "#2 kinit c0 dev=0 gen=1 -> INVALID_STATE mem=0"}
	kinitFinding := []model.Finding{{Index: 2, Rule: model.RL5, Verdict: model.Fail, Key: "wanted OK"}}
	for _, tc := range []struct {
		name     string
		ref, mut conformance.Outcome
		want     *outcomeDiff
	}{
		{"the same calls", passed(nil, plain...), passed(nil, plain...), nil},
		{"a call answers otherwise", passed(nil, plain...), passed(nil, other...),
			&outcomeDiff{at: 2, old: plain[2], new: other[2], rule: model.REKInit, kind: "kinit"}},
		{"the model flags a call of the mutant", passed(nil, plain...), passed(kinitFinding, plain...),
			&outcomeDiff{at: 2, old: "no finding", new: "model: #2 L-5 fail wanted OK", rule: model.RL5, judged: true, kind: "kinit"}},
		{"the mutant crashes", passed(nil, plain...), died(model.Crash, 1),
			&outcomeDiff{at: 1, old: plain[1], new: "crash at #1 setdev 0: signal SIGSEGV", rule: conformance.EntryRule(ops[1]), kind: "setdev"}},
		{"the mutant hangs in the cleanup", passed(nil, plain...), died(model.Hang, 3),
			&outcomeDiff{at: 3, old: "cleanup finished", new: "hang at the cleanup after the last op (finalize/destroy of the contexts left): signal SIGSEGV", rule: model.REDestroy, kind: "cleanup"}},
		{"the mutant dies in the setup", passed(nil, plain...), died(model.Crash, conformance.AtSetup),
			&outcomeDiff{at: conformance.AtSetup, old: "set up", new: "crash at the setup before the first op (supported(NULL), resetting hooks and device): signal SIGSEGV", rule: model.RESup, kind: "setup"}},
		{"both die alike", died(model.Crash, 1), died(model.Crash, 1), nil},
		{"both die, elsewhere", died(model.Crash, 1), died(model.Crash, 2),
			&outcomeDiff{at: 1, old: "crash at #1 setdev 0: signal SIGSEGV", new: "crash at #2 kinit c0 dev=0 gen=1: signal SIGSEGV", rule: conformance.EntryRule(ops[1]), kind: "setdev"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, ok := compareOutcomes(ops, tc.ref, tc.mut)
			switch {
			case tc.want == nil && ok:
				t.Errorf("a difference: %+v", d)
			case tc.want != nil && !ok:
				t.Error("no difference")
			case tc.want != nil && d != *tc.want:
				t.Errorf("got  %+v\nwant %+v", d, *tc.want)
			}
		})
	}
}
