package conformance

import (
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
)

// TestDiffSimEmitted runs the same random sequences (and the directed
// catalogue) on sim and on the emitted runtime and requires identical
// histories (F-1: the two simulated runtimes behave call for call alike).
func TestDiffSimEmitted(t *testing.T) {
	a := emittedBuild(t, emit.Config{Profile: emit.ProfileTMR})
	f := emittedFactory(t, a)
	var seqs [][]Op
	n := 20
	if testing.Short() || raceEnabled {
		n = 4
	}
	for i := 0; i < n; i++ {
		seqs = append(seqs, Generate(GenOptions{Seed: uint64(900 + i), Ops: 300, Caps: ^Caps(0), HoldMs: 20}))
	}
	for _, c := range Catalogue() {
		if !c.Slow && c.AppliesTo(ProfileTMR) {
			seqs = append(seqs, c.Ops())
		}
	}
	for i, ops := range seqs {
		et, release, err := f()
		if err != nil {
			t.Fatal(err)
		}
		d, ra, rb := RunDiff(simTarget(sim.TMR), et, ops, Options{})
		release()
		if d != "" {
			t.Errorf("sequence %d: sim and the emitted runtime differ:\n%s", i, d)
		}
		if ra.Failed() || rb.Failed() {
			t.Errorf("sequence %d: findings sim %v, emitted %v", i, ra.Findings, rb.Findings)
		}
	}
}

func TestDiffText(t *testing.T) {
	ops := MustParseScript("create c0\nsupported null\n")
	a := History{Entries: []Entry{{Op: ops[0], Obs: Observation{HandleCreated: true}}, {Op: ops[1], Obs: Observation{Call: CallObs{Value: 1}}}}}
	b := History{Entries: []Entry{{Op: ops[0], Obs: Observation{HandleCreated: true}}, {Op: ops[1], Obs: Observation{Call: CallObs{Value: 0}}}}}
	if d := Diff(a, a); d != "" {
		t.Fatalf("a history differs from itself:\n%s", d)
	}
	d := Diff(a, b)
	if !strings.Contains(d, "- #1 supported null -> 1") || !strings.Contains(d, "+ #1 supported null -> 0") || strings.Contains(d, "create") {
		t.Fatalf("diff:\n%s", d)
	}
}

// The run-length summary of a repeated op folds consecutive ids and one
// repeated out, and keeps the two kinds of run apart: a runtime that leaves
// the same wrong value in out on every one of 8192 failing prepares renders
// as one run, not 8192.
func TestRepeatSummary(t *testing.T) {
	e := Entry{Op: MustParse("prepare c0 img=valid() rep=10")}
	for _, c := range []struct {
		st  abi.Status
		out int32
	}{{abi.OK, 0}, {abi.OK, 1}, {abi.OK, 2}, {abi.OK, 2}, {abi.InvalidState, -1}, {abi.InvalidState, -1},
		{abi.InvalidState, 7}, {abi.InvalidState, 7}, {abi.InvalidState, 7}, {abi.InvalidState, 8}} {
		e.addRep(c.st, c.out)
	}
	want := "OK out=0..2 x3; OK out=2 x1; INVALID_STATE out=-1 x2; INVALID_STATE out=7 x3; INVALID_STATE out=8 x1"
	if got := e.Result(); got != want {
		t.Fatalf("summary\n got %s\nwant %s", got, want)
	}
}
