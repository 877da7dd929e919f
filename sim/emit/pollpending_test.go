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
			f := newProgramFixture(t)
			// A thread of its own: simpler_init binds the calling thread
			// to device 0, which must not outlive the test (the fake ACL is
			// one per process).
			var got, failed []string
			onFreshThread(func() { got, failed = pollSession(l, f, tc.pending) })
			for _, m := range failed {
				t.Error(m)
			}
			if len(failed) == 0 {
				if d := cmp.Diff(tc.want, got); d != "" {
					t.Errorf("poll_pending=%d (-want +got):\n%s", tc.pending, d)
				}
			}
		})
	}
}

// pollSession runs the program session of TestPollPending_F2_firstPollsNotReady
// on the calling thread: what each poll, wait and finalize_run answered, and
// what went wrong on the way.
func pollSession(l *onboard.Library, f *programFixture, pending int32) (got, failed []string) {
	fail := func(format string, a ...any) { failed = append(failed, fmt.Sprintf(format, a...)) }
	c := l.CreateDeviceContext()
	defer l.DestroyDeviceContext(c)
	if st := l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0); st != 0 {
		fail("simpler_init = %d", st)
		return
	}
	storage := abi.AlignedBytes(int(l.GetRuntimeSize()), int(l.GetRuntimeAlignment()))
	rt := abi.RunHandle(uintptr(unsafe.Pointer(unsafe.SliceData(storage))))
	if st := l.RegisterCallable(c, 0, abi.Ptr(f.img)); st != 0 {
		fail("register = %d", st)
		return
	}
	add := func(what string, st abi.Status) { got = append(got, what+" "+strconv.Itoa(int(st))) }
	launch := func() {
		if st := l.PrepareRun(c, rt, 0, f.args.Pointer(), abi.Ptr(f.cfg), abi.Ptr(f.desc)); st != 0 {
			fail("prepare_run = %d", st)
		}
		if st := l.LaunchRun(c, rt); st != 0 {
			fail("launch_run = %d", st)
		}
	}
	launch()
	for i := int32(0); i < pending+1; i++ {
		add("poll", l.PollRun(c, rt))
	}
	add("poll", l.PollRun(c, rt))
	add("finalize", l.FinalizeRun(c, rt))
	launch()
	if pending > 0 {
		add("poll", l.PollRun(c, rt)) // pending again after the next launch
	}
	add("wait", l.WaitRun(c, rt))
	add("poll", l.PollRun(c, rt))
	add("finalize", l.FinalizeRun(c, rt))
	if st := l.FinalizeDevice(c); st != 0 {
		fail("finalize_device = %d", st)
	}
	return got, failed
}
