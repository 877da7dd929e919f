package session

import (
	"bytes"
	"strings"
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// TestFirstDifference: where two runs of the same ops part, and the rule
// the differing op concerns.
func TestFirstDifference(t *testing.T) {
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
		want     *mechDiff
	}{
		{"the same calls", passed(nil, plain...), passed(nil, plain...), nil},
		{"a call answers otherwise", passed(nil, plain...), passed(nil, other...),
			&mechDiff{at: 2, ref: plain[2], mut: other[2], rule: model.REKInit, kind: "kinit"}},
		{"the model flags a call of the mutant", passed(nil, plain...), passed(kinitFinding, plain...),
			&mechDiff{at: 2, ref: "no finding", mut: "model: #2 L-5 fail wanted OK", rule: model.RL5, kind: "kinit"}},
		{"the mutant crashes", passed(nil, plain...), died(model.Crash, 1),
			&mechDiff{at: 1, ref: plain[1], mut: "crash at #1 setdev 0: signal SIGSEGV", rule: conformance.EntryRule(ops[1]), kind: "setdev"}},
		{"the mutant hangs in the cleanup", passed(nil, plain...), died(model.Hang, 3),
			&mechDiff{at: 3, ref: "passed", mut: "hang at the cleanup after the last op (finalize/destroy of the contexts left): signal SIGSEGV", rule: model.REDestroy, kind: "cleanup"}},
		{"the mutant dies in the setup", passed(nil, plain...), died(model.Crash, conformance.AtSetup),
			&mechDiff{at: conformance.AtSetup, ref: "passed", mut: "crash at the setup before the first op (supported(NULL), resetting hooks and device): signal SIGSEGV", rule: model.RESup, kind: "setup"}},
		{"both die alike", died(model.Crash, 1), died(model.Crash, 1), nil},
		{"both die, elsewhere", died(model.Crash, 1), died(model.Crash, 2),
			&mechDiff{at: 1, ref: "crash at #1 setdev 0: signal SIGSEGV", mut: "crash at #2 kinit c0 dev=0 gen=1: signal SIGSEGV", rule: conformance.EntryRule(ops[1]), kind: "setdev"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, ok := firstDifference(ops, tc.ref, tc.mut)
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

// TestWriteMechanical: the figures, the score over the non-equivalent
// mutants and a gap's script.
func TestWriteMechanical(t *testing.T) {
	run := &MechanicalRun{Sites: 2000, Seed: 1, Control: []string{"control: the plain tmr build against sim:tmr: no difference"}, Rows: []MechanicalRow{
		{ID: "ror-1", Profile: "tmr", Outcome: MechKilled, Change: "f:1 `<` → `<=`", Check: "v-img/defects", ByRule: "V-IMG", Verdict: "fail"},
		{ID: "del-2", Profile: "tmr", Outcome: MechNotCompiling, Compiler: "host_runtime.c:9: error: x"},
		{ID: "swp-3", Profile: "tmr", Outcome: MechEquivalent, DiffCases: 384, DiffRandom: 300},
		{ID: "grd-4", Profile: "tmr", Outcome: MechGap, Change: "g:2 `(x)` → `(0 && (x))`", Gap: &MechanicalGap{Case: "random/seed-4294967297",
			Clauses: []string{"E-PREP"}, Rule: "E-PREP", At: 1, Ref: "#1 prepare c0 -> OK", Mutant: "#1 prepare c0 -> INVALID_STATE", Script: []string{"create c0", "prepare c0"}}},
		{ID: "ret-5", Profile: "tmr", Outcome: MechKilled},
	}}
	run.count()
	if run.Total != 5 || run.Killed != 2 || run.NotCompiling != 1 || run.Equivalent != 1 || run.Gaps != 1 || run.Score != 2.0/3 {
		t.Fatalf("counts %+v", run)
	}
	var b bytes.Buffer
	o := &Options{Sequences: 50, MaxOps: 300}
	if err := WriteMechanical(&b, run, o, MechanicalOptions{DiffSequences: 2000, DiffOps: 200}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"mechanical mutants: 5 of 2000 sites (seed 1); 1 do not compile; of the 4 that do: 2 killed, 1 equivalent, 1 gaps\n",
		"mechanical score: 2/3 (66.7%) over the non-equivalent mutants\n",
		"not distinguished in 384 directed cases and 300 random sequences",
		"gap grd-4 (tmr): g:2 `(x)` → `(0 && (x))`\n  escapes E-PREP (rule E-PREP): the model accepts both answers\n  sim:tmr: #1 prepare c0 -> OK\n  mutant:    #1 prepare c0 -> INVALID_STATE\n  script:\n    create c0\n    prepare c0\n",
		"control: the plain tmr build against sim:tmr: no difference\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
