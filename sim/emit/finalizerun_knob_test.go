package emit

import (
	"fmt"
	"strconv"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
)

// E-FIN.9, F-2: a run stays outstanding until simpler_finalize_run on its
// storage returns, whatever that call returns. A status knob on
// finalize_run changes the answer, not the rule: the forced call still ends
// the run, so finalize_device and destroy go through after it and the same
// storage takes the next run — for a launched run and for one never
// launched, on each profile, with a failing code and a forced 0.
func TestFinalizeRunKnob_EFIN9_forcedStatusStillEndsTheRun(t *testing.T) {
	for _, tc := range []struct {
		profile Profile
		code    int32
	}{
		{ProfileLegacy, -7},
		{ProfileLegacy, 0},
		{ProfileTMR, int32(abi.Internal)},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.profile, tc.code), func(t *testing.T) {
			knobs := Knobs{Status: map[string]int32{abi.EntryFinalizeRun.Name(): tc.code}}
			l, err := onboard.Open(freshFake(t, Config{Profile: tc.profile, Knobs: knobs}), onboard.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			f := newProgramFixture(t)
			var got []string
			onFreshThread(func() { got = forcedFinalizeSession(l, f) })
			want := []string{
				"prepare_run 0", "launch_run 0", "finalize_run " + strconv.Itoa(int(tc.code)),
				"prepare_run 0", "finalize_run " + strconv.Itoa(int(tc.code)),
				"prepare_run 0", "finalize_run " + strconv.Itoa(int(tc.code)),
				"finalize_device 0",
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("knob status.%s=%d (-want +got):\n%s", abi.EntryFinalizeRun.Name(), tc.code, d)
			}
		})
	}
}

// forcedFinalizeSession prepares and launches a run and finalizes it, then
// prepares one on the same storage and finalizes it unlaunched, then does it
// once more: each prepare can only succeed if the forced finalize_run before
// it freed the storage, and finalize_device only if no run is outstanding
// (E-FIN.2).
func forcedFinalizeSession(l *onboard.Library, f *programFixture) []string {
	var got []string
	add := func(what string, st abi.Status) { got = append(got, what+" "+strconv.Itoa(int(st))) }
	c := l.CreateDeviceContext()
	defer l.DestroyDeviceContext(c)
	if st := l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0); st != 0 {
		return []string{fmt.Sprintf("simpler_init %d", st)}
	}
	storage := abi.AlignedBytes(int(l.GetRuntimeSize()), int(l.GetRuntimeAlignment()))
	rt := abi.RunHandle(uintptr(unsafe.Pointer(unsafe.SliceData(storage))))
	if st := l.RegisterCallable(c, 0, abi.Ptr(f.img)); st != 0 {
		return []string{fmt.Sprintf("register %d", st)}
	}
	add("prepare_run", l.PrepareRun(c, rt, 0, f.args.Pointer(), abi.Ptr(f.cfg), abi.Ptr(f.desc)))
	add("launch_run", l.LaunchRun(c, rt))
	add("finalize_run", l.FinalizeRun(c, rt))
	for range 2 {
		add("prepare_run", l.PrepareRun(c, rt, 0, f.args.Pointer(), abi.Ptr(f.cfg), abi.Ptr(f.desc)))
		add("finalize_run", l.FinalizeRun(c, rt))
	}
	add("finalize_device", l.FinalizeDevice(c))
	return got
}
