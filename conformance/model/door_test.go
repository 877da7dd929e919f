package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The one door: the engine changes a state only through Step, Park and
// JoinParked, and reads it through State.Model's queries.

// TestStepRecordsUnmade_X2: a call the runner did not make is an
// observation with Unmade set; Step records the skip under UnmadeRule and
// walks nothing (the create it stands for makes no context).
func TestStepRecordsUnmade_X2(t *testing.T) {
	s := NewState(ModelOptions{DrivenCompletion: true, DeviceKnown: true, Device: -1, Simulated: true})
	o := MustParse("create c0")
	const why = "X-2: the target does not model fault site 7 (UNSUPPORTED)"
	s, got := Step(s, 4, 0, o, &Observation{Unmade: why, UnmadeRule: uint8(RX2)})
	want := []Finding{{Index: 4, Op: o, Rule: RX2, Verdict: Skip, Detail: why}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("Step's findings (-want +got):\n%s", d)
	}
	m := s.Model()
	if n := m.Tally()[RX2][Skip]; n != 1 {
		t.Errorf("tally of X-2 skips = %d, want 1", n)
	}
	if m.SlotLive(0) || m.Checked() != 0 {
		t.Errorf("an unmade create was walked: c0 live %v, checked %d; want false, 0", m.SlotLive(0), m.Checked())
	}
}

// TestReleasedUntilJoined_ECOMM8: the rank that arrives last releases the
// parked one; Released lists it until JoinParked judges it, and reading it
// changes nothing.
func TestReleasedUntilJoined_ECOMM8(t *testing.T) {
	s := NewState(ModelOptions{DrivenCompletion: true, DeviceKnown: true, Device: -1, Simulated: true})
	ops := MustParseScript(`cinit h0 rank=0 nranks=2 path=p0
cinit h1 rank=1 nranks=2 path=p0
calloc h0 win=64
calloc h1 win=64
`)
	for i, o := range ops[:2] {
		s, _ = Step(s, i, 0, o, nil)
	}
	if why := s.Model().CommWaits(ops[2]); why == "" {
		t.Fatal("h0's calloc does not wait for h1: the test needs a parked call")
	}
	s = Park(s, 2, ops[2], nil)
	if got := s.Model().Released(); len(got) != 0 {
		t.Fatalf("Released before the last rank arrived = %v, want none", got)
	}
	s, _ = Step(s, 3, 0, ops[3], nil)
	for range 2 { // a read leaves it listed
		if d := cmp.Diff([]int{2}, s.Model().Released()); d != "" {
			t.Fatalf("Released after h1's calloc (-want +got):\n%s", d)
		}
	}
	s = JoinParked(s, 2, 3)
	if got := s.Model().Released(); len(got) != 0 {
		t.Errorf("Released after JoinParked = %v, want none", got)
	}
}

// TestResumesPredictsAgain_X1: a model with Resumes (the generator's)
// that loses track (racing kernel inits with fault site 1 armed) predicts
// again, with the calling thread's device unknown; one without stays lost.
func TestResumesPredictsAgain_X1(t *testing.T) {
	ops := MustParseScript(`create c0
create c1
setdev 0
inject site=1 count=1 code=-1234
racekinit c0 c1 dev=0 gen=1
`)
	for _, resumes := range []bool{false, true} {
		s := NewState(ModelOptions{DrivenCompletion: true, DeviceKnown: true, Device: -1, Simulated: true, Resumes: resumes})
		lostAt := -1
		for i, o := range ops {
			s, _ = Step(s, i, 0, o, nil)
			if lost, _ := s.Model().Lost(); lost && lostAt < 0 {
				lostAt = i
			}
		}
		lost, _ := s.Model().Lost()
		_, known := s.Model().Device()
		if resumes && (lost || known || lostAt >= 0) {
			t.Errorf("Resumes: lost %v (at #%d), device known %v; want never lost, device unknown", lost, lostAt, known)
		}
		if !resumes && (!lost || lostAt != 4) {
			t.Errorf("without Resumes: lost %v at #%d; want true at #4 (racing inits with site 1 armed)", lost, lostAt)
		}
	}
}
