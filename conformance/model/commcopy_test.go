package model

import (
	"strconv"
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
)

// E-PROG.28: what the model expects of a word copied through a program
// context into and out of comm windows: 0 and the word last written
// through any mapping of the segment while the word lies inside one window
// of the mapping the reference goes through (past a derived window's end
// but inside its base window too), IA past the mapping's window and for a
// window after its release; the other mapping of its segment still reads
// what it held.
func TestModelCommCopy_EPROG28(t *testing.T) {
	runExpectScript(t, simulated, `
create c0
ccopy c0 h0 idx=0 put=1                => INVALID_STATE rule=E-PROG
pinit c0 dev=0
cinit h0 rank=0 nranks=1 path=p0
cinit h1 rank=0 nranks=1 path=p0
calloc h0 win=64
calloc h1 win=64
ccopy c0 h0 idx=0 off=8 put=77         => OK rule=E-PROG
ccopy c0 h1 idx=0 off=8                => OK rule=E-PROG value=77
cmem h0 idx=0 off=16 put=78
ccopy c0 h1 idx=0 off=16               => OK value=78
ccopy c0 h0 idx=0 off=56               => OK value=0
ccopy c0 h0 idx=0 off=64 put=9         => INVALID_ARGUMENT rule=E-PROG tol=INTERNAL
ccopy c0 h0 idx=1 put=9                => INVALID_ARGUMENT rule=E-PROG
cderive h0 n=1 rank=0 off=32 win=16
ccopy c0 h0.d0 idx=0 off=16 put=7      => OK rule=E-PROG
ccopy c0 h1 idx=0 off=48               => OK value=7
ccopy c0 h0.d0 idx=0 off=32            => INVALID_ARGUMENT rule=E-PROG
dalloc h0 a=1 n=1 rank=0 win=64
dalloc h1 a=1 n=1 rank=0 win=64
ccopy c0 h0.a1 idx=0 put=11            => OK rule=E-PROG
drelease h0 a=1 n=1 rank=0
ccopy c0 h0.a1 idx=0 put=13            => INVALID_ARGUMENT rule=E-PROG
ccopy c0 h1.a1 idx=0                   => OK value=11
gprep d=1 rank=0 n=2 win=64
gprep d=2 rank=1 n=2 win=64
ccopy c0 d1.local idx=0 put=21         => OK rule=E-PROG
ccopy c0 d1 idx=0                      => INVALID_ARGUMENT rule=E-PROG
gimport d=1 descs=d1,d2
ccopy c0 d1 idx=0                      => OK value=21
ccopy c0 d1 idx=1 off=8 put=22         => OK
ccopy c0 d2.local idx=0 off=8          => OK value=22
ccopy c0 d1 idx=2                      => INVALID_ARGUMENT
grelease d=2
ccopy c0 d2.local idx=0 off=8 put=24   => INVALID_ARGUMENT rule=E-PROG
ccopy c0 d1 idx=1 off=8                => OK value=22
grelease d=1
cdestroy h0
ccopy c0 h0 idx=0 off=8 put=30         => INVALID_ARGUMENT rule=E-PROG
ccopy c0 h1 idx=0 off=8                => OK value=77
`)
}

// On a legacy build the refusals are its generic -1 (read as INTERNAL),
// and a copy into a window is 0, as upstream's memcpy answers.
func TestModelCommCopyLegacy_EPROG28(t *testing.T) {
	legacy := simulated
	legacy.Profile = ProfileLegacy
	runExpectScript(t, legacy, `
create c0
pinit c0 dev=0
gprep d=1 rank=0 n=1 win=64
ccopy c0 d1.local idx=0 put=21         => OK rule=E-PROG
ccopy c0 d1.local idx=0 off=64 put=1   => INTERNAL rule=E-PROG
grelease d=1
ccopy c0 d1.local idx=0 put=22         => INTERNAL rule=E-PROG
`)
}

// The model judges what the two mutants of E-PROG.28 answer: a window
// copy refused (the old behaviour) is a failure of E-PROG, and so is a
// copy at a released window's address that went through.
func TestModelCommCopyJudged_EPROG28(t *testing.T) {
	ops := MustParseScript(`
create c0
pinit c0 dev=0
gprep d=1 rank=0 n=1 win=64
ccopy c0 d1.local idx=0 put=21
grelease d=1
ccopy c0 d1.local idx=0 put=22
`)
	for _, tc := range []struct {
		mutant string
		at     int
		st     abi.Status
		want   string
	}{
		{"copy-refuses-comm-window", 3, abi.InvalidArgument, "E-PROG #3 want OK"},
		{"copy-into-released-window", 5, abi.OK, "E-PROG #5 want INVALID_ARGUMENT"},
	} {
		m := newModel(simulated)
		for i, o := range ops {
			obs := &Observation{}
			switch i {
			case 0:
				obs.HandleCreated, obs.Call.Value = true, 1
			case 5:
				obs.Call.Status = abi.InvalidArgument
			}
			if i == tc.at {
				obs.Call.Status = tc.st
			}
			m.step(i, 0, o, obs)
		}
		var got []string
		for _, f := range m.Findings() {
			if f.Verdict == Fail {
				got = append(got, f.Rule.String()+" #"+strconv.Itoa(f.Index)+" "+f.Detail)
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
			t.Errorf("%s: failures\n  %s\nwant one beginning %q", tc.mutant, strings.Join(got, "\n  "), tc.want)
		}
	}
}
