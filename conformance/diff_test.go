package conformance

import (
	"github.com/simabi/simabi/conformance/op"

	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
)

func TestDiffText(t *testing.T) {
	ops := op.MustParseScript("create c0\nsupported null\n")
	a := History{Entries: []Entry{{Op: ops[0], Obs: op.Observation{HandleCreated: true}}, {Op: ops[1], Obs: op.Observation{Call: op.CallObs{Value: 1}}}}}
	b := History{Entries: []Entry{{Op: ops[0], Obs: op.Observation{HandleCreated: true}}, {Op: ops[1], Obs: op.Observation{Call: op.CallObs{Value: 0}}}}}
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
	e := Entry{Op: op.MustParse("prepare c0 img=valid() rep=10")}
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

// TestDiffTwoThreadOps: RunDiff compares only what the rules determine.
// Which racer of a racekinit wins and whether a held launch overlapped
// the prepare are the scheduler's: the canonical line renders a race
// and a holdprepare as unordered pairs and leaves the overlap to the
// annotation; when the two runs took different branches, that op is compared
// without the branch and the rest is not compared. Same branches are
// compared in full.
func TestDiffTwoThreadOps(t *testing.T) {
	ops := op.MustParseScript(`racekinit c0 c1 dev=0 gen=1
holdlaunch c0 ms=20 img=valid() id=0 stream=s0
holdprepare c0 ms=20 img=valid() img2=valid()
holdprepare c0 ms=20 img=valid() img2=valid(t=1)
prepare c0 img=valid()
`)
	ok := func(out int32) op.CallObs { return op.CallObs{Status: abi.OK, Out: out} }
	is := op.CallObs{Status: abi.InvalidState, Out: -1}
	hist := func(race [2]op.CallObs, hlOverlap bool, hl op.CallObs, hp1, hp2 [2]op.CallObs, last op.CallObs) History {
		return History{Entries: []Entry{
			{Op: ops[0], Obs: op.Observation{Call: race[0], Second: race[1]}},
			{Op: ops[1], Obs: op.Observation{Call: ok(1), Second: hl, Overlap: hlOverlap}, memDir: "up"},
			{Op: ops[2], Obs: op.Observation{Call: hp1[0], Second: hp1[1], Overlap: true}, memDir: "same"},
			{Op: ops[3], Obs: op.Observation{Call: hp2[0], Second: hp2[1], Overlap: true}, memDir: "same"},
			{Op: ops[4], Obs: op.Observation{Call: last}, memDir: "same"},
		}}
	}
	base := hist([2]op.CallObs{{Status: abi.OK}, is}, true, is, [2]op.CallObs{ok(2), ok(3)}, [2]op.CallObs{ok(4), ok(5)}, ok(6))
	if l := base.Entries[0].Line(0); l != "#0 racekinit c0 c1 dev=0 gen=1 -> {INVALID_STATE, OK}" {
		t.Errorf("race line %q", l)
	}
	if l := base.Entries[1].Line(1); strings.Contains(l, "overlapped") || !strings.HasSuffix(l, "-> OK out=1 | INVALID_STATE mem=up") {
		t.Errorf("holdlaunch line %q", l)
	}
	if l := base.Lines()[1]; !strings.HasSuffix(l, "[overlapped]") {
		t.Errorf("holdlaunch annotated %q", l)
	}
	if l := base.Lines()[0]; !strings.HasSuffix(l, "[c0 OK, c1 INVALID_STATE]") {
		t.Errorf("race annotated %q", l)
	}
	prepFailed := hist([2]op.CallObs{{Status: abi.OK}, is}, false, ok(0), [2]op.CallObs{ok(2), ok(3)}, [2]op.CallObs{ok(4), ok(5)}, ok(6))
	prepFailed.Entries[1].Obs.Call = is
	for _, c := range []struct {
		name     string
		h        History
		want     string // a substring of the diff; "" for none
		compared int
	}{
		{"identical", base, "", 5},
		{"the other racer won: the rest is not compared",
			hist([2]op.CallObs{is, {Status: abi.OK}}, true, ok(9), [2]op.CallObs{is, is}, [2]op.CallObs{is, is}, is), "", 1},
		{"same race, the held launch ran after the prepare: compared up to its prepare",
			hist([2]op.CallObs{{Status: abi.OK}, is}, false, ok(0), [2]op.CallObs{is, is}, [2]op.CallObs{is, is}, is), "", 2},
		{"the held launch's prepare differs", prepFailed,
			"+ #1 holdlaunch c0 ms=20 img=valid() id=0 stream=s0 -> INVALID_STATE out=-1 mem=up", 2},
		{"identical images in the other order: compared on",
			hist([2]op.CallObs{{Status: abi.OK}, is}, true, is, [2]op.CallObs{ok(3), ok(2)}, [2]op.CallObs{ok(4), ok(5)}, ok(7)),
			"+ #4 prepare c0 img=valid() -> OK out=7", 5},
		{"different images in the other order: the rest is not compared",
			hist([2]op.CallObs{{Status: abi.OK}, is}, true, is, [2]op.CallObs{ok(2), ok(3)}, [2]op.CallObs{ok(5), ok(4)}, ok(7)), "", 4},
		{"a held launch that overlapped in both runs and differs",
			hist([2]op.CallObs{{Status: abi.OK}, is}, true, ok(0), [2]op.CallObs{ok(2), ok(3)}, [2]op.CallObs{ok(4), ok(5)}, ok(6)),
			"+ #1 holdlaunch c0 ms=20 img=valid() id=0 stream=s0 -> OK out=1 | OK mem=up", 5},
	} {
		d := Diff(base, c.h)
		_, n := CompareSteps(base.Steps(), c.h.Steps())
		if n != c.compared || (c.want == "") != (d == "") || !strings.Contains(d, c.want) {
			t.Errorf("%s: compared %d (want %d), diff:\n%s(want %q)", c.name, n, c.compared, d, c.want)
		}
	}
}
