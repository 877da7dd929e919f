package speed

import (
	"os"
	"unsafe"

	"github.com/simabi/simabi/abi"
)

// slowRuntime is a build measurably slower than the one it wraps: every
// entry the package times takes about factor times as long, by spinning
// after the wrapped call for factor-1 times what the call took.
type slowRuntime struct {
	abi.Runtime
	factor float64
	clock  int64 // what a read of the clock costs, in ns
}

// newSlowRuntime wraps rt. What a read of the clock costs is the least of
// 64 measurements, so that a preemption does not inflate it.
func newSlowRuntime(rt abi.Runtime, factor float64) *slowRuntime {
	const reads = 256
	clock := int64(1 << 62)
	for range 64 {
		t0 := now()
		for range reads {
			now()
		}
		clock = min(clock, (now()-t0)/reads)
	}
	return &slowRuntime{Runtime: rt, factor: factor, clock: clock}
}

// stretch spins after a call that took from t0 to t1 on the wrapper's
// clock. A caller timing the unwrapped call reads the clock once in its
// interval besides the call (t1-t0 on this clock); timing the wrapped
// one, it sees the two reads of the wrapper besides, so the spin makes up
// factor times t1-t0 less those: the ratio of what the caller times is
// then about factor even for a call of a few clock ticks.
func (s *slowRuntime) stretch(t0, t1 int64) {
	end := t1 + int64(float64(t1-t0)*(s.factor-1)) - 2*s.clock
	for now() < end {
	}
}

func (s *slowRuntime) CreateDeviceContext() abi.Ctx {
	t0 := now()
	r := s.Runtime.CreateDeviceContext()
	s.stretch(t0, now())
	return r
}

func (s *slowRuntime) DestroyDeviceContext(ctx abi.Ctx) {
	t0 := now()
	s.Runtime.DestroyDeviceContext(ctx)
	s.stretch(t0, now())
}

func (s *slowRuntime) KernelModePrepareCallable(ctx abi.Ctx, callable unsafe.Pointer, size uintptr, outID *int32) abi.Status {
	t0 := now()
	r := s.Runtime.KernelModePrepareCallable(ctx, callable, size, outID)
	s.stretch(t0, now())
	return r
}

func (s *slowRuntime) KernelModeLaunch(ctx abi.Ctx, callableID int32, args unsafe.Pointer, stream abi.Stream) abi.Status {
	t0 := now()
	r := s.Runtime.KernelModeLaunch(ctx, callableID, args, stream)
	s.stretch(t0, now())
	return r
}

func (s *slowRuntime) RegisterCallable(ctx abi.Ctx, callableID int32, callable unsafe.Pointer) abi.Status {
	t0 := now()
	r := s.Runtime.RegisterCallable(ctx, callableID, callable)
	s.stretch(t0, now())
	return r
}

func (s *slowRuntime) UnregisterCallable(ctx abi.Ctx, callableID int32) abi.Status {
	t0 := now()
	r := s.Runtime.UnregisterCallable(ctx, callableID)
	s.stretch(t0, now())
	return r
}

func (s *slowRuntime) Run(ctx abi.Ctx, rt abi.RunHandle, callableID int32, args, config, descriptor unsafe.Pointer) abi.Status {
	t0 := now()
	r := s.Runtime.Run(ctx, rt, callableID, args, config, descriptor)
	s.stretch(t0, now())
	return r
}

func (s *slowRuntime) PrepareRun(ctx abi.Ctx, rt abi.RunHandle, callableID int32, args, config, descriptor unsafe.Pointer) abi.Status {
	t0 := now()
	r := s.Runtime.PrepareRun(ctx, rt, callableID, args, config, descriptor)
	s.stretch(t0, now())
	return r
}

func (s *slowRuntime) LaunchRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	t0 := now()
	r := s.Runtime.LaunchRun(ctx, rt)
	s.stretch(t0, now())
	return r
}

func (s *slowRuntime) PollRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	t0 := now()
	r := s.Runtime.PollRun(ctx, rt)
	s.stretch(t0, now())
	return r
}

func (s *slowRuntime) WaitRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	t0 := now()
	r := s.Runtime.WaitRun(ctx, rt)
	s.stretch(t0, now())
	return r
}

// dyingRuntime is a build whose process dies at its left-th simpler_run: a
// resource it leaks per run, as one of upstream's builds does after about
// two hundred runs of the lane's callable.
type dyingRuntime struct {
	abi.Runtime
	left int
}

func (d *dyingRuntime) Run(ctx abi.Ctx, rt abi.RunHandle, callableID int32, args, config, descriptor unsafe.Pointer) abi.Status {
	if d.left--; d.left <= 0 {
		os.Exit(3)
	}
	return d.Runtime.Run(ctx, rt, callableID, args, config, descriptor)
}
