package sim

import (
	"math"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
)

// readyCtx returns a kernel context on device 0 with the no-op image
// prepared as id 0 (ReadyEnqueued).
func readyCtx(t testing.TB, r *Runtime) abi.Ctx {
	t.Helper()
	setDevice(t, r, 0)
	ctx := kernelCtx(t, r, 0)
	mustPrepare(t, r, ctx, noopImage(t, 0), 0)
	return ctx
}

// TestLaunchValidation is V-LAUNCH: NULL ctx, args or stream, or an id
// outside [0, 8192) → IA in both profiles and every state; ids 0 and 8191
// pass it (LaunchChecksPointersAndIdRange).
func TestLaunchValidation(t *testing.T) {
	args := emptyArgs()
	tests := []struct {
		name string
		run  func(r *Runtime, ctx abi.Ctx) abi.Status
		want func(p Profile, ready bool) abi.Status
	}{
		{"NULL ctx", func(r *Runtime, _ abi.Ctx) abi.Status { return launch(r, 0, 0, args, streamA) }, ia},
		{"NULL args", func(r *Runtime, ctx abi.Ctx) abi.Status { return r.KernelModeLaunch(ctx, 0, nil, streamA) }, ia},
		{"NULL stream", func(r *Runtime, ctx abi.Ctx) abi.Status { return launch(r, ctx, 0, args, 0) }, ia},
		{"id -1", func(r *Runtime, ctx abi.Ctx) abi.Status { return launch(r, ctx, -1, args, streamA) }, ia},
		{"id 8192", func(r *Runtime, ctx abi.Ctx) abi.Status { return launch(r, ctx, 8192, args, streamA) }, ia},
		{"id MaxInt32", func(r *Runtime, ctx abi.Ctx) abi.Status { return launch(r, ctx, math.MaxInt32, args, streamA) }, ia},
		{"id 0", func(r *Runtime, ctx abi.Ctx) abi.Status { return launch(r, ctx, 0, args, streamA) },
			func(p Profile, ready bool) abi.Status {
				if p == TMR && ready {
					return okS
				}
				return isS
			}},
		{"id 8191", func(r *Runtime, ctx abi.Ctx) abi.Status { return launch(r, ctx, 8191, args, streamA) },
			func(p Profile, ready bool) abi.Status {
				if p == TMR && ready {
					return nrS
				}
				return isS
			}},
	}
	for _, p := range []Profile{TMR, Refusing} {
		for _, ready := range []bool{false, true} {
			for _, tc := range tests {
				name := string(p) + "/fresh/" + tc.name
				if ready {
					name = string(p) + "/ready/" + tc.name
				}
				t.Run(name, func(t *testing.T) {
					r := New(p, Options{})
					setDevice(t, r, 0)
					ctx := r.CreateDeviceContext()
					if ready && p == TMR {
						ctx = readyCtx(t, r)
					}
					want(t, "launch", tc.run(r, ctx), tc.want(p, ready))
				})
			}
		}
	}
}

func ia(Profile, bool) abi.Status { return iaS }

// TestLaunchPrecedence sets up two simultaneous defects and checks which one
// E-LAUNCH reports: V-LAUNCH → state → gate → no prepare → D-2 → NR → counts
// and address spaces → stream switch → enqueue. Every refusal before the
// enqueue changes nothing.
func TestLaunchPrecedence(t *testing.T) {
	hostArgs := func(t *testing.T) *abi.TaskArgs {
		a := abi.NewTaskArgs()
		tn, _ := abi.ContiguousTensor(0x1000, abi.Float32, 4)
		tn.AddressSpace = abi.HostSpace
		if err := a.AddTensor(tn); err != nil {
			t.Fatal(err)
		}
		return a
	}
	oneTensor := build(t, spec("test.one", 0, abi.DirIn))
	tests := []struct {
		name   string
		faults []Fault
		setup  func(t *testing.T, r *Runtime) abi.Ctx
		id     int32
		args   func(t *testing.T) *abi.TaskArgs
		stream abi.Stream
		want   abi.Status
	}{
		{name: "V-LAUNCH beats not kernel", setup: func(t *testing.T, r *Runtime) abi.Ctx { return r.CreateDeviceContext() },
			id: 8192, want: iaS},
		{name: "no prepare beats not resident (IS, not NR)", setup: func(t *testing.T, r *Runtime) abi.Ctx { return kernelCtx(t, r, 0) },
			id: 5, want: isS},
		{name: "no prepare beats device mismatch", setup: func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := kernelCtx(t, r, 0)
			setDevice(t, r, 1)
			return ctx
		}, id: 0, want: isS},
		{name: "device mismatch beats not resident", setup: func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := readyCtx(t, r)
			setDevice(t, r, 1)
			return ctx
		}, id: 7, want: isS},
		{name: "not resident beats count mismatch", setup: func(t *testing.T, r *Runtime) abi.Ctx { return readyCtx(t, r) }, id: 1,
			args: func(t *testing.T) *abi.TaskArgs { a := emptyArgs(); a.SetCounts(3, 1); return a }, want: nrS},
		{name: "count mismatch beats stream switch", setup: func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := readyCtx(t, r)
			want(t, "launch on A", launch(r, ctx, 0, emptyArgs(), streamA), okS)
			return ctx
		}, id: 0, args: func(t *testing.T) *abi.TaskArgs { a := emptyArgs(); a.SetCounts(0, 1); return a }, stream: streamB, want: iaS},
		{name: "host tensor beats stream switch", setup: func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := readyCtx(t, r)
			mustPrepare(t, r, ctx, oneTensor, 1)
			want(t, "launch on A", launch(r, ctx, 0, emptyArgs(), streamA), okS)
			return ctx
		}, id: 1, args: hostArgs, stream: streamB, want: iaS},
		{name: "stream switch beats enqueue failure", faults: []Fault{{abi.SiteLaunchEnqueue, 0, 0}},
			setup: func(t *testing.T, r *Runtime) abi.Ctx {
				ctx := readyCtx(t, r)
				want(t, "launch on A", launch(r, ctx, 0, emptyArgs(), streamA), okS)
				want(t, "inject 4", r.SimInject(abi.SiteLaunchEnqueue, 1, -1070), okS)
				return ctx
			}, id: 0, stream: streamB, want: piS},
		{name: "poisoned beats device mismatch", setup: func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := readyCtx(t, r)
			want(t, "inject 4", r.SimInject(abi.SiteLaunchEnqueue, 1, -1071), okS)
			want(t, "poisoning launch", launch(r, ctx, 0, emptyArgs(), streamA), -1071)
			setDevice(t, r, 1)
			return ctx
		}, id: 0, want: isS},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTMR(t, tc.faults...)
			setDevice(t, r, 0)
			ctx := tc.setup(t, r)
			a := emptyArgs()
			if tc.args != nil {
				a = tc.args(t)
			}
			s := tc.stream
			if s == 0 {
				s = streamA
			}
			before := state(t, r, ctx)
			pendingA, pendingB := r.PendingLaunches(streamA), r.PendingLaunches(streamB)
			want(t, "launch", launch(r, ctx, tc.id, a, s), tc.want)
			if d := diffStates(before, state(t, r, ctx)); d != "" {
				t.Fatalf("a refused launch changed the context:\n%s", d)
			}
			if r.PendingLaunches(streamA) != pendingA || r.PendingLaunches(streamB) != pendingB {
				t.Fatal("a refused launch enqueued work")
			}
			if tc.faults != nil && r.FaultsRemaining()[abi.SiteLaunchEnqueue] != 1 {
				t.Fatal("site 4 was reached")
			}
		})
	}
}

// TestLaunchArgumentChecks is E-LAUNCH's argument step: tensor_count and
// scalar_count must equal the callable's signature counts, and each of the
// first tensor_count tensors must be DEVICE (IA, clean). Launch reads no
// other field and does not check the alignment of args.
func TestLaunchArgumentChecks(t *testing.T) {
	r := newTMR(t)
	setDevice(t, r, 0)
	ctx := kernelCtx(t, r, 0)
	img := build(t, spec("test.two_one", 0, abi.DirIn, abi.DirOut, abi.DirScalar))
	mustPrepare(t, r, ctx, img, 0)
	mk := func(spaces []abi.AddressSpace, scalars int) *abi.TaskArgs {
		a := abi.NewTaskArgs()
		for _, sp := range spaces {
			tn, _ := abi.ContiguousTensor(0x42, abi.Float32, 8)
			tn.AddressSpace = sp
			_ = a.AddTensor(tn)
		}
		for i := 0; i < scalars; i++ {
			_ = a.AddScalar(uint64(i))
		}
		return a
	}
	dev, host := abi.DeviceSpace, abi.HostSpace
	tests := []struct {
		name string
		args *abi.TaskArgs
		want abi.Status
	}{
		{"exact", mk([]abi.AddressSpace{dev, dev}, 1), okS},
		{"one tensor short", mk([]abi.AddressSpace{dev}, 1), iaS},
		{"one tensor more", mk([]abi.AddressSpace{dev, dev, dev}, 1), iaS},
		{"no scalar", mk([]abi.AddressSpace{dev, dev}, 0), iaS},
		{"two scalars", mk([]abi.AddressSpace{dev, dev}, 2), iaS},
		{"first tensor HOST", mk([]abi.AddressSpace{host, dev}, 1), iaS},
		{"second tensor HOST", mk([]abi.AddressSpace{dev, host}, 1), iaS},
		{"address space 7", func() *abi.TaskArgs {
			a := mk([]abi.AddressSpace{dev, dev}, 1)
			a.Bytes()[abi.ChipTensorSize+abi.TensorAddressSpaceOff] = 7
			return a
		}(), iaS},
		{"HOST tensor past tensor_count is not read", func() *abi.TaskArgs {
			a := mk([]abi.AddressSpace{dev, dev}, 1)
			a.Bytes()[2*abi.ChipTensorSize+abi.TensorAddressSpaceOff] = byte(host)
			return a
		}(), okS},
		{"garbage in unchecked fields", func() *abi.TaskArgs {
			a := mk([]abi.AddressSpace{dev, dev}, 1)
			b := a.Bytes()
			b[abi.TensorDTypeOff] = 0xEE
			le.PutUint32(b[abi.TensorNDimsOff:], 99)
			le.PutUint64(b[abi.TensorAddrOff:], 0)
			return a
		}(), okS},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			setDevice(t, r, 0) // a subtest runs on a goroutine (and thread) of its own (D-2)
			want(t, "launch", launch(r, ctx, 0, tc.args, streamA), tc.want)
			wantState(t, r, ctx, ContextState{Phase: latch.ReadyEnqueued}, "Phase", "PoisonCause")
		})
	}
	// Misaligned args: launch does not check the alignment of args.
	raw := make([]byte, abi.TaskArgsSize+8)
	copy(raw[1:], mk([]abi.AddressSpace{dev, dev}, 1).Bytes())
	want(t, "launch with misaligned args", r.KernelModeLaunch(ctx, 0, ptrOf(&raw[1]), streamA), okS)
	want(t, "sync", r.SimSyncStream(streamA), okS) // the no-op kernel runs whatever the tensors say
}

// TestEagerLaunch reproduces upstream's eager kernel-mode check
// (test_kernel_eager_launch_executes_fresh_tensor_and_scalar_snapshots):
// supported is 1; one prepare raises committed memory; two launches over
// 16,384 float32 elements with scalars 1.25 and -3.5, each with the host
// args wiped straight after launch returns, give exact results; launches do
// not change committed memory; round one's output is intact after round
// two; after finalize committed memory is 0 and prepare and launch are
// refused. No forbidden ACL call is made by the runtime (D-1): the only
// synchronizes are the test's own. (E-LAUNCH-ASYNC, M-7, D-1, D-3, K-6)
func TestEagerLaunch(t *testing.T) {
	const n = 16384
	r := newTMR(t)
	setDevice(t, r, 0)
	acl := r.ACL()
	stream, st := acl.CreateStream()
	if st != 0 {
		t.Fatal(st)
	}
	ctx := kernelCtx(t, r, 0)
	if r.KernelModeSupported(ctx) != 1 {
		t.Fatal("supported != 1 after init")
	}
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)*0.37 - 1000
	}
	dIn := devAlloc(t, r, f32(in))
	dOut1 := devAlloc(t, r, make([]byte, 4*n))
	dOut2 := devAlloc(t, r, make([]byte, 4*n))
	before := acl.Counters()

	mustPrepare(t, r, ctx, addImage(t), 0)
	committed := r.CommittedDeviceMemory(ctx)
	if committed == 0 {
		t.Fatal("committed memory did not grow at prepare")
	}
	round := func(out abi.DevicePtr, s float32) {
		t.Helper()
		a := addArgs(t, dIn, out, n, s)
		want(t, "launch", launch(r, ctx, 0, a, stream), okS)
		a.Wipe() // E-LAUNCH-ASYNC: the launch snapshotted its args
		if got := r.CommittedDeviceMemory(ctx); got != committed {
			t.Fatalf("launch changed committed memory: %d → %d", committed, got)
		}
		if st := acl.SynchronizeStream(stream); st != 0 {
			t.Fatalf("synchronize = %d", st)
		}
	}
	check := func(out abi.DevicePtr, s float32) {
		t.Helper()
		got := fromF32(devRead(t, r, out, 4*n))
		for i := range in {
			if wantV := in[i] + s; got[i] != wantV {
				t.Fatalf("out[%d] = %v, want %v (scalar %v)", i, got[i], wantV, s)
			}
		}
	}
	round(dOut1, 1.25)
	check(dOut1, 1.25)
	round(dOut2, -3.5)
	check(dOut2, -3.5)
	check(dOut1, 1.25) // round one's output intact
	if got := r.CommittedDeviceMemory(ctx); got != committed {
		t.Fatalf("committed after launches = %d, want %d", got, committed)
	}

	want(t, "finalize", r.FinalizeDevice(ctx), okS)
	if got := r.CommittedDeviceMemory(ctx); got != 0 {
		t.Fatalf("committed after finalize = %d", got)
	}
	id, st2 := prepare(r, ctx, addImage(t))
	if st2 != isS || id != -1 {
		t.Fatalf("prepare after finalize = (%d, %v)", id, st2)
	}
	want(t, "launch after finalize", launch(r, ctx, 0, addArgs(t, dIn, dOut1, n, 1), stream), isS)
	after := acl.Counters()
	wantDelta := ACLCounters{SynchronizeStream: 2}
	if d := counterDelta(before, after); d != wantDelta {
		t.Fatalf("D-1: ACL calls during the kernel lifecycle = %+v, want only the test's two synchronizes", d)
	}
	r.DestroyDeviceContext(ctx)
	if r.LiveContexts() != 0 {
		t.Fatal("destroy after finalize did not free the context")
	}
}

func counterDelta(a, b ACLCounters) ACLCounters {
	return ACLCounters{Init: b.Init - a.Init, Finalize: b.Finalize - a.Finalize, SetDevice: b.SetDevice - a.SetDevice,
		ResetDevice: b.ResetDevice - a.ResetDevice, SynchronizeStream: b.SynchronizeStream - a.SynchronizeStream,
		SynchronizeDevice: b.SynchronizeDevice - a.SynchronizeDevice, CreateStream: b.CreateStream - a.CreateStream,
		DestroyStream: b.DestroyStream - a.DestroyStream, GetDevice: b.GetDevice - a.GetDevice}
}

// TestStreamSwitch is E-LAUNCH's stream-switch gate (PI, clean) and its
// clearing by a synchronize of the previous stream; the same stream is
// always admitted (P15). The runtime never synchronizes the caller's stream
// itself (D-3): work stays pending until the caller synchronizes.
func TestStreamSwitch(t *testing.T) {
	r := newTMR(t)
	ctx := readyCtx(t, r)
	a := emptyArgs()
	want(t, "launch on A", launch(r, ctx, 0, a, streamA), okS)
	want(t, "second launch on A while pending", launch(r, ctx, 0, a, streamA), okS)
	before := state(t, r, ctx)
	want(t, "launch on B while A pending", launch(r, ctx, 0, a, streamB), piS)
	if d := diffStates(before, state(t, r, ctx)); d != "" {
		t.Fatalf("PI changed the context:\n%s", d)
	}
	if r.PendingLaunches(streamA) != 2 || r.PendingLaunches(streamB) != 0 {
		t.Fatal("D-3: pending work changed without a caller synchronize")
	}
	want(t, "sync A", r.SimSyncStream(streamA), okS)
	want(t, "launch on B after A completed", launch(r, ctx, 0, a, streamB), okS)
	wantState(t, r, ctx, ContextState{LastStream: streamB}, "LastStream")
	want(t, "back to A while B pending", launch(r, ctx, 0, a, streamA), piS)
	// Another context's launches on B do not matter to this context's gate,
	// but a synchronize of B completes every context's work on it.
	setDevice(t, r, 1)
	other := kernelCtx(t, r, 1)
	mustPrepare(t, r, other, noopImage(t, 0), 0)
	want(t, "other context on B", launch(r, other, 0, a, streamB), okS)
	setDevice(t, r, 0)
	want(t, "sync B", r.SimSyncStream(streamB), okS)
	if r.PendingLaunches(streamB) != 0 {
		t.Fatal("sync left work pending")
	}
	want(t, "back to A after B completed", launch(r, ctx, 0, a, streamA), okS)
	want(t, "sync A", r.SimSyncStream(streamA), okS)
}

// TestAsyncDeviceFailure is E-LAUNCH-ASYNC with site 8: the failure is
// delivered once, by the next synchronize of the stream with pending work;
// the failing item (the first pending one) does not run, the stream's other
// work still runs; no context state changes and later launches are admitted.
// A synchronize with no pending work consumes no site-8 pass.
func TestAsyncDeviceFailure(t *testing.T) {
	r := newTMR(t)
	setDevice(t, r, 0)
	ctx := kernelCtx(t, r, 0)
	mustPrepare(t, r, ctx, addImage(t), 0)
	in := devAlloc(t, r, f32([]float32{1, 2, 3, 4}))
	outs := []abi.DevicePtr{devAlloc(t, r, make([]byte, 16)), devAlloc(t, r, make([]byte, 16)), devAlloc(t, r, make([]byte, 16))}
	want(t, "inject 8", r.SimInject(abi.SiteAsyncDeviceFail, 1, -1080), okS)
	want(t, "sync with nothing pending", r.SimSyncStream(streamA), okS)
	if r.FaultsRemaining()[abi.SiteAsyncDeviceFail] != 1 {
		t.Fatal("an idle synchronize consumed the site-8 pass")
	}
	for i, o := range outs {
		want(t, "launch", launch(r, ctx, 0, addArgs(t, in, o, 4, float32(i+1)), streamA), okS)
	}
	before := state(t, r, ctx)
	want(t, "sync", r.SimSyncStream(streamA), -1080)
	if d := diffStates(before, state(t, r, ctx)); d != "" {
		t.Fatalf("an asynchronous failure changed the context:\n%s", d)
	}
	if got := fromF32(devRead(t, r, outs[0], 16)); got[0] != 0 {
		t.Fatalf("the failed item ran: %v", got)
	}
	for i, o := range outs[1:] {
		s := float32(i + 2)
		if got := fromF32(devRead(t, r, o, 16)); got[3] != 4+s {
			t.Fatalf("item %d did not run: %v", i+1, got)
		}
	}
	want(t, "next sync", r.SimSyncStream(streamA), okS)
	want(t, "later launch", launch(r, ctx, 0, addArgs(t, in, outs[0], 4, 10), streamA), okS)
	want(t, "sync", r.SimSyncStream(streamA), okS)
	if got := fromF32(devRead(t, r, outs[0], 16)); got[0] != 11 {
		t.Fatalf("later launch result %v", got)
	}
	// Through ACL as well: the caller's synchronize sees the same failure.
	want(t, "inject 8", r.SimInject(abi.SiteAsyncDeviceFail, 1, -1081), okS)
	want(t, "launch", launch(r, ctx, 0, addArgs(t, in, outs[0], 4, 10), streamA), okS)
	if st := r.ACL().SynchronizeStream(streamA); st != -1081 {
		t.Fatalf("ACL synchronize = %d", st)
	}
}

// TestKernelFaults: a kernel whose requirements fail reports -5 at
// synchronize and writes nothing; no context state changes
// (E-LAUNCH-ASYNC).
func TestKernelFaults(t *testing.T) {
	r := newTMR(t)
	setDevice(t, r, 0)
	ctx := kernelCtx(t, r, 0)
	mustPrepare(t, r, ctx, addImage(t), 0)
	mustPrepare(t, r, ctx, build(t, spec(KernelCopyBytes, 0, abi.DirIn, abi.DirOut)), 1)
	in := devAlloc(t, r, f32([]float32{1, 2, 3, 4}))
	out := devAlloc(t, r, make([]byte, 16))
	short := devAlloc(t, r, make([]byte, 8))
	tensor := func(p abi.DevicePtr, dt abi.DataType, n uint32) abi.ChipTensor {
		tn, _ := abi.ContiguousTensor(uint64(p), dt, n)
		return tn
	}
	argsOf := func(scalar bool, ts ...abi.ChipTensor) *abi.TaskArgs {
		a := abi.NewTaskArgs()
		for _, tn := range ts {
			_ = a.AddTensor(tn)
		}
		if scalar {
			_ = a.AddScalarFloat32(1)
		}
		return a
	}
	offset := tensor(in, abi.Float32, 4)
	offset.StartOffset = 1
	tests := []struct {
		name string
		id   int32
		args *abi.TaskArgs
		want abi.Status
	}{
		{"add ok", 0, argsOf(true, tensor(in, abi.Float32, 4), tensor(out, abi.Float32, 4)), okS},
		{"add int32", 0, argsOf(true, tensor(in, abi.Int32, 4), tensor(out, abi.Float32, 4)), KernelFaultCode},
		{"add out too small", 0, argsOf(true, tensor(in, abi.Float32, 4), tensor(short, abi.Float32, 2)), KernelFaultCode},
		{"add out of device memory", 0, argsOf(true, tensor(in, abi.Float32, 4), tensor(0x42, abi.Float32, 4)), KernelFaultCode},
		{"add range past allocation", 0, argsOf(true, tensor(in, abi.Float32, 5), tensor(out, abi.Float32, 5)), KernelFaultCode},
		{"add start offset", 0, argsOf(true, offset, tensor(out, abi.Float32, 4)), KernelFaultCode},
		{"copy ok", 1, argsOf(false, tensor(in, abi.Uint8, 16), tensor(out, abi.Uint8, 16)), okS},
		{"copy out too small", 1, argsOf(false, tensor(in, abi.Uint8, 16), tensor(short, abi.Uint8, 8)), KernelFaultCode},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			setDevice(t, r, 0)
			_ = r.ACL().CopyToDevice(out, make([]byte, 16))
			_ = r.ACL().CopyToDevice(short, make([]byte, 8))
			want(t, "launch", launch(r, ctx, tc.id, tc.args, streamA), okS)
			want(t, "sync", r.SimSyncStream(streamA), tc.want)
			got := fromF32(devRead(t, r, out, 16))
			switch tc.name {
			case "add ok":
				if got[3] != 5 {
					t.Fatalf("add result %v", got)
				}
			case "copy ok":
				if got[3] != 4 {
					t.Fatalf("copy result %v", got)
				}
			}
			if tc.want != okS {
				if string(devRead(t, r, out, 16)) != string(make([]byte, 16)) || string(devRead(t, r, short, 8)) != string(make([]byte, 8)) {
					t.Fatal("a faulting kernel wrote device memory")
				}
			}
			wantState(t, r, ctx, ContextState{Phase: latch.ReadyEnqueued}, "Phase", "PoisonCause")
		})
	}
}

// TestEnqueueFailurePoisons is K-4 through E-LAUNCH (site 4): the code is
// returned, nothing is appended, the context is poisoned with that cause,
// later dispatch is refused, and finalize still succeeds.
func TestEnqueueFailurePoisons(t *testing.T) {
	r := newTMR(t)
	ctx := readyCtx(t, r)
	want(t, "inject 4", r.SimInject(abi.SiteLaunchEnqueue, 1, -1090), okS)
	want(t, "launch", launch(r, ctx, 0, emptyArgs(), streamA), -1090)
	if r.PendingLaunches(streamA) != 0 {
		t.Fatal("a failed enqueue appended work")
	}
	wantState(t, r, ctx, ContextState{Phase: latch.Poisoned, PoisonCause: -1090}, "Phase", "PoisonCause")
	want(t, "launch when poisoned", launch(r, ctx, 0, emptyArgs(), streamA), isS)
	_, st := prepare(r, ctx, noopImage(t, 0))
	want(t, "prepare when poisoned", st, isS)
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
	wantState(t, r, ctx, ContextState{Phase: latch.Closed, PoisonCause: -1090, Finalized: true}, "Phase", "PoisonCause", "Finalized")
}
