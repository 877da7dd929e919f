package conformance_test

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim"
)

// TestBeforeOp: Options.BeforeOp sees the setup, every op in order, then
// the cleanup (what a child process of the CLI streams to its parent), and a
// crash is located at the op that was executing; the hook changes nothing of
// the run (same history, findings, tally on both profiles).
func TestBeforeOp(t *testing.T) {
	for _, p := range []sim.Profile{sim.TMR, sim.Refusing} {
		caps := conformance.CapsOf(target.SimTarget(p))
		prof := model.ProfileTMR
		if p == sim.Refusing {
			prof = model.ProfileRefusing
		}
		for seed := uint64(1); seed <= 5; seed++ {
			ops := conformance.Generate(conformance.GenOptions{Seed: seed, Ops: 150, Caps: caps, Profile: prof})
			want := conformance.FactoryExecutor{Factory: target.SimFactory(p)}.Execute(ops, true)
			var seen []int
			got := conformance.FactoryExecutor{Factory: target.SimFactory(p), Options: conformance.Options{BeforeOp: func(i int) { seen = append(seen, i) }}}.Execute(ops, true)
			if !reflect.DeepEqual(want.History, got.History) || !reflect.DeepEqual(want.Result.Findings, got.Result.Findings) ||
				want.Result.Tally != got.Result.Tally {
				t.Fatalf("%s seed %d: the hook changed the run", p, seed)
			}
			if len(seen) != len(ops)+2 || seen[0] != conformance.AtSetup || seen[len(seen)-1] != len(ops) {
				t.Fatalf("%s seed %d: hook saw %v", p, seed, seen)
			}
			for i := 0; i < len(ops); i++ {
				if seen[i+1] != i {
					t.Fatalf("%s seed %d: hook saw %v", p, seed, seen)
				}
			}
		}
	}
	ops := op.MustParseScript("create c0\nsupported c0\ncommitted c0\n")
	o := conformance.FactoryExecutor{Factory: target.SimFactory(sim.TMR), Options: conformance.Options{BeforeOp: func(i int) {
		if i == 1 {
			panic("boom")
		}
	}}}.Execute(ops, false)
	if o.Verdict != model.Crash || o.At != 1 || !strings.Contains(o.Detail, "boom") {
		t.Fatalf("a panic before op 1: %+v, want a crash at 1", o)
	}
}

// TestOutcomeRecordRoundTrip: an outcome survives the trip through JSON (what
// crosses the process boundary): findings (E-SUP, skips of the refusing
// build's fault sites), tally, profile, history.
func TestOutcomeRecordRoundTrip(t *testing.T) {
	caps := conformance.CapsOf(target.SimTarget(sim.Refusing))
	ops := conformance.Generate(conformance.GenOptions{Seed: 3, Ops: 200, Caps: caps, Profile: model.ProfileRefusing})
	o := conformance.FactoryExecutor{Factory: target.SimFactory(sim.Refusing)}.Execute(ops, true)
	if o.Verdict != model.Pass || o.Result == nil || len(o.History) != len(ops) {
		t.Fatalf("outcome %+v", o)
	}
	b, err := json.Marshal(o.Record())
	if err != nil {
		t.Fatal(err)
	}
	var rec conformance.OutcomeRecord
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
	for v := range model.NumVerdicts {
		var x model.Verdict
		if err := x.UnmarshalText([]byte(v.String())); err != nil || x != v {
			t.Errorf("verdict %v: %v %v", v, x, err)
		}
	}
}
