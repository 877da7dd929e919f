package emit

import (
	"runtime"
	"strconv"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
)

// F-2, E-PROG.17: with poll_pending=N a launched run answers NOT_READY to
// its first N polls, as upstream's simulator does to the first poll after a
// launch, then completes; wait_run completes it whatever is left; the count
// starts again with the next launch. Without the knob the first poll
// completes it. Each profile's codes: legacy polls answer the same 0 and 1.
func TestPollPending_F2_firstPollsNotReady(t *testing.T) {
	for _, tc := range []struct {
		profile Profile
		pending int32
		want    []string
	}{
		{ProfileLegacy, 2, []string{"poll 0", "poll 0", "poll 1", "poll 1", "finalize 0", "poll 0", "wait 0", "poll 1", "finalize 0"}},
		{ProfileTMR, 1, []string{"poll 0", "poll 1", "poll 1", "finalize 0", "poll 0", "wait 0", "poll 1", "finalize 0"}},
		{ProfileTMR, 0, []string{"poll 1", "poll 1", "finalize 0", "wait 0", "poll 1", "finalize 0"}},
	} {
		t.Run(string(tc.profile), func(t *testing.T) {
			var knobs Knobs
			if tc.pending > 0 {
				knobs.PollPending = tc.pending
			}
			l, err := onboard.Open(freshFake(t, Config{Profile: tc.profile, Knobs: knobs}), onboard.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			f := newProgramFixture(t)
			c := l.CreateDeviceContext()
			defer l.DestroyDeviceContext(c)
			if st := l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0); st != 0 {
				t.Fatalf("simpler_init = %d", st)
			}
			storage := abi.AlignedBytes(int(l.GetRuntimeSize()), int(l.GetRuntimeAlignment()))
			rt := abi.RunHandle(uintptr(unsafe.Pointer(unsafe.SliceData(storage))))
			if st := l.RegisterCallable(c, 0, abi.Ptr(f.img)); st != 0 {
				t.Fatalf("register = %d", st)
			}
			var got []string
			add := func(what string, st abi.Status) { got = append(got, what+" "+strconv.Itoa(int(st))) }
			launch := func() {
				if st := l.PrepareRun(c, rt, 0, f.args.Pointer(), abi.Ptr(f.cfg), abi.Ptr(f.desc)); st != 0 {
					t.Fatalf("prepare_run = %d", st)
				}
				if st := l.LaunchRun(c, rt); st != 0 {
					t.Fatalf("launch_run = %d", st)
				}
			}
			launch()
			for i := int32(0); i < tc.pending+1; i++ {
				add("poll", l.PollRun(c, rt))
			}
			add("poll", l.PollRun(c, rt))
			add("finalize", l.FinalizeRun(c, rt))
			launch()
			if tc.pending > 0 {
				add("poll", l.PollRun(c, rt)) // pending again after the next launch
			}
			add("wait", l.WaitRun(c, rt))
			add("poll", l.PollRun(c, rt))
			add("finalize", l.FinalizeRun(c, rt))
			if st := l.FinalizeDevice(c); st != 0 {
				t.Fatalf("finalize_device = %d", st)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("poll_pending=%d (-want +got):\n%s", tc.pending, d)
			}
		})
	}
}
