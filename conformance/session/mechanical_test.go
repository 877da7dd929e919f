package session

import (
	"bytes"
	"strings"
	"testing"
)

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
