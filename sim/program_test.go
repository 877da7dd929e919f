package sim

import (
	"testing"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
)

func pinit(r *Runtime, ctx abi.Ctx, dev int32) abi.Status {
	return r.SimplerInit(ctx, dev, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0)
}

// programCtx returns a context with a live program init on dev.
func programCtx(t testing.TB, r *Runtime, dev int32) abi.Ctx {
	t.Helper()
	lockThread(t)
	ctx := r.CreateDeviceContext()
	want(t, "simpler_init", pinit(r, ctx, dev), okS)
	return ctx
}

func descBytes(accepted *int32, value int32) []byte {
	b := abi.AlignedBytes(abi.NativeRunDescSize, 8)
	_ = abi.NativeRunDescriptor{AcceptedState: uintptr(unsafe.Pointer(accepted)), AcceptedValue: value}.Encode(b)
	return b
}

// TestProgramInit is E-PINIT (and L-4): NULL → INTERNAL; device_id < 0, an
// inconsistent binary or SDMA span, or a prewarm config failing the program
// CallConfig checks → IA, unlatched; latch PROGRAM; a device already
// attached → IS; success attaches the calling thread to the device (one
// SetDevice); re-init after a successful finalize is allowed.
func TestProgramInit(t *testing.T) {
	buf := make([]byte, 8)
	p := abi.Ptr(buf)
	cfg := func(f func(c *abi.CallConfig)) unsafe.Pointer { return abi.Ptr(cfgWith(f)) }
	tests := []struct {
		name string
		run  func(r *Runtime, ctx abi.Ctx) abi.Status
		want abi.Status
	}{
		{"device -1", func(r *Runtime, ctx abi.Ctx) abi.Status { return pinit(r, ctx, -1) }, iaS},
		{"aicpu span", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.SimplerInit(ctx, 0, p, 0, nil, 0, nil, 0, nil, 0, nil, 0)
		}, iaS},
		{"aicore span", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.SimplerInit(ctx, 0, nil, 0, nil, 8, nil, 0, nil, 0, nil, 0)
		}, iaS},
		{"dispatcher span", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.SimplerInit(ctx, 0, nil, 0, nil, 0, p, 0, nil, 0, nil, 0)
		}, iaS},
		{"sdma span", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.SimplerInit(ctx, 0, nil, 0, nil, 0, nil, 0, nil, 1, nil, 64)
		}, iaS},
		{"prewarm threads 1", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.SimplerInit(ctx, 0, nil, 0, nil, 0, nil, 0, cfg(func(c *abi.CallConfig) { c.AicpuThreadNum = 1 }), 0, nil, 0)
		}, iaS},
		{"prewarm swimlane without prefix", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.SimplerInit(ctx, 0, nil, 0, nil, 0, nil, 0, cfg(func(c *abi.CallConfig) { c.EnableChipSwimlane = 1 }), 0, nil, 0)
		}, iaS},
		{"prewarm ring heap 8", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.SimplerInit(ctx, 0, nil, 0, nil, 0, nil, 0, cfg(func(c *abi.CallConfig) { c.RingHeap[0] = 8 }), 0, nil, 0)
		}, iaS},
		{"prewarm with pmu is fine in program mode", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.SimplerInit(ctx, 0, p, 8, p, 8, nil, 0, cfg(func(c *abi.CallConfig) { c.EnablePMU = 1 }), 1, p, 8)
		}, okS},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTMR(t)
			lockThread(t)
			ctx := r.CreateDeviceContext()
			want(t, "simpler_init", tc.run(r, ctx), tc.want)
			if tc.want != okS {
				wantState(t, r, ctx, ContextState{Mode: latch.Unlatched, DeviceID: -1}, "Mode", "Attached", "DeviceID")
				want(t, "kernel init still possible", r.SimSetCurrentDevice(0), okS)
				want(t, "kernel init", kinit(r, ctx, 0, configBytes(), 1), okS)
			}
		})
	}
	t.Run("attach, refuse a second init, re-init after finalize", func(t *testing.T) {
		r := newTMR(t)
		lockThread(t)
		acl := r.ACL()
		before := acl.Counters()
		ctx := r.CreateDeviceContext()
		want(t, "simpler_init", pinit(r, ctx, 3), okS)
		if r.SimCurrentDevice() != 3 {
			t.Fatal("simpler_init did not make the device current")
		}
		wantState(t, r, ctx, ContextState{Mode: latch.Program, Attached: true, DeviceID: 3}, "Mode", "Attached", "DeviceID")
		want(t, "second simpler_init", pinit(r, ctx, 4), isS)
		want(t, "kernel init on a program context", kinit(r, ctx, 3, configBytes(), 1), isS)
		want(t, "finalize", r.FinalizeDevice(ctx), okS)
		wantState(t, r, ctx, ContextState{Mode: latch.Program, DeviceID: -1}, "Mode", "Attached", "DeviceID")
		want(t, "finalize again", r.FinalizeDevice(ctx), okS)
		want(t, "re-init", pinit(r, ctx, 4), okS)
		if d := counterDelta(before, acl.Counters()); d != (ACLCounters{SetDevice: 2, ResetDevice: 1}) {
			t.Fatalf("ACL calls %+v, want two SetDevice and one ResetDevice", d)
		}
	})
	t.Run("NULL", func(t *testing.T) {
		want(t, "simpler_init(NULL)", pinit(newTMR(t), 0, 0), intS)
	})
}

// TestEnsureACLReady is E-ACL (and L-4): NULL → IA; device_id < 0 → IA,
// unlatched; a kernel context → IS; otherwise latch PROGRAM, aclInit once per
// instance, make the device current on the calling thread (a repeat with
// another device switches it) → 0. It does not attach: program entries
// still refuse with IS and simpler_init still succeeds.
func TestEnsureACLReady(t *testing.T) {
	r := newTMR(t)
	lockThread(t)
	acl := r.ACL()
	before := acl.Counters()
	ctx := r.CreateDeviceContext()
	want(t, "NULL", r.EnsureACLReady(0, 0), iaS)
	want(t, "device -1", r.EnsureACLReady(ctx, -1), iaS)
	wantState(t, r, ctx, ContextState{Mode: latch.Unlatched}, "Mode")
	want(t, "first", r.EnsureACLReady(ctx, 2), okS)
	if r.SimCurrentDevice() != 2 {
		t.Fatal("device not current")
	}
	want(t, "repeat with another device", r.EnsureACLReady(ctx, 5), okS)
	if r.SimCurrentDevice() != 5 {
		t.Fatal("device not switched")
	}
	other := r.CreateDeviceContext()
	want(t, "another context", r.EnsureACLReady(other, 5), okS)
	if d := counterDelta(before, acl.Counters()); d != (ACLCounters{Init: 1, SetDevice: 3}) {
		t.Fatalf("ACL calls %+v, want one Init (per instance) and three SetDevice", d)
	}
	wantState(t, r, ctx, ContextState{Mode: latch.Program}, "Mode", "Attached")
	want(t, "register without attach", r.RegisterCallable(ctx, 0, abi.Ptr(noopImage(t, 0))), isS)
	want(t, "simpler_init after ensure", pinit(r, ctx, 5), okS)
	k := kernelCtx(t, r, 5)
	want(t, "kernel context", r.EnsureACLReady(k, 5), isS)
}

// TestProgramEntriesWithoutLiveInit is E-PROG: on a fresh, kernel-latched,
// ensure-only or finalized program context, every program-only entry returns
// IS before checking its other arguments (here all malformed), latches
// nothing and changes nothing; device_malloc_ctx returns NULL and
// device_free_ctx does nothing.
func TestProgramEntriesWithoutLiveInit(t *testing.T) {
	setups := []struct {
		name  string
		setup func(t *testing.T, r *Runtime) abi.Ctx
		mode  latch.Mode
	}{
		{"fresh", func(t *testing.T, r *Runtime) abi.Ctx { return r.CreateDeviceContext() }, latch.Unlatched},
		{"kernel", func(t *testing.T, r *Runtime) abi.Ctx { return readyCtx(t, r) }, latch.Kernel},
		{"ensure only", func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := r.CreateDeviceContext()
			want(t, "ensure", r.EnsureACLReady(ctx, 0), okS)
			return ctx
		}, latch.Program},
		{"program finalized", func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := programCtx(t, r, 0)
			want(t, "finalize", r.FinalizeDevice(ctx), okS)
			return ctx
		}, latch.Program},
	}
	entries := []struct {
		name string
		call func(r *Runtime, ctx abi.Ctx) abi.Status
	}{
		{"register", func(r *Runtime, ctx abi.Ctx) abi.Status { return r.RegisterCallable(ctx, -1, nil) }},
		{"unregister", func(r *Runtime, ctx abi.Ctx) abi.Status { return r.UnregisterCallable(ctx, 9000) }},
		{"run", func(r *Runtime, ctx abi.Ctx) abi.Status { return r.Run(ctx, 0, -1, nil, nil, nil) }},
		{"prepare_run", func(r *Runtime, ctx abi.Ctx) abi.Status { return r.PrepareRun(ctx, 0, -1, nil, nil, nil) }},
		{"launch_run", func(r *Runtime, ctx abi.Ctx) abi.Status { return r.LaunchRun(ctx, 0) }},
		{"poll_run", func(r *Runtime, ctx abi.Ctx) abi.Status { return r.PollRun(ctx, 0) }},
		{"wait_run", func(r *Runtime, ctx abi.Ctx) abi.Status { return r.WaitRun(ctx, 0) }},
		{"finalize_run", func(r *Runtime, ctx abi.Ctx) abi.Status { return r.FinalizeRun(ctx, 0) }},
		{"device_memory_info", func(r *Runtime, ctx abi.Ctx) abi.Status { return r.DeviceMemoryInfo(ctx, nil) }},
		{"copy_to_device", func(r *Runtime, ctx abi.Ctx) abi.Status { return r.CopyToDevice(ctx, 0, nil, 64) }},
		{"copy_from_device", func(r *Runtime, ctx abi.Ctx) abi.Status { return r.CopyFromDevice(ctx, nil, 0, 64) }},
	}
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			r := newTMR(t)
			setDevice(t, r, 0)
			ctx := s.setup(t, r)
			before := state(t, r, ctx)
			for _, e := range entries {
				want(t, e.name, e.call(r, ctx), isS)
			}
			if p := r.DeviceMalloc(ctx, 64); p != 0 {
				t.Fatalf("device_malloc_ctx = %#x", p)
			}
			r.DeviceFree(ctx, firstDevAddr)
			after := state(t, r, ctx)
			if after.Mode != s.mode {
				t.Fatalf("mode %v, want %v", after.Mode, s.mode)
			}
			if d := diffStates(before, after); d != "" {
				t.Fatalf("changed:\n%s", d)
			}
		})
	}
}

// TestProgramDeviceMemory: device_malloc_ctx (64-byte aligned, committed
// grows), device_memory_info_ctx, copies in and out of one allocation of
// this context (IA otherwise), device_free_ctx (committed shrinks), and the
// 32 GiB ceiling.
func TestProgramDeviceMemory(t *testing.T) {
	r := newTMR(t)
	ctx := programCtx(t, r, 0)
	other := programCtx(t, r, 0)
	if z := r.DeviceMalloc(ctx, 0); z == 0 || r.CommittedDeviceMemory(ctx) != 0 {
		t.Fatalf("E-PROG.33: malloc(0) = %#x, committed %d; want a pointer and 0", z, r.CommittedDeviceMemory(ctx))
	}
	p := r.DeviceMalloc(ctx, 100)
	q := r.DeviceMalloc(ctx, 28)
	foreign := r.DeviceMalloc(other, 64)
	aclPtr, _ := r.ACL().Malloc(64)
	if p == 0 || q == 0 || p%64 != 0 || q%64 != 0 {
		t.Fatalf("allocations %#x %#x", p, q)
	}
	if got := r.CommittedDeviceMemory(ctx); got != 128 {
		t.Fatalf("committed = %d, want 128", got)
	}
	var info [abi.DeviceMemoryInfoSize]byte
	want(t, "info", r.DeviceMemoryInfo(ctx, ptrOf(&info)), okS)
	mi, _ := abi.DecodeDeviceMemoryInfo(info[:])
	if mi != (abi.DeviceMemoryInfo{FreeBytes: DeviceMemoryTotal - 128, TotalBytes: DeviceMemoryTotal}) {
		t.Fatalf("info %+v", mi)
	}
	want(t, "info NULL", r.DeviceMemoryInfo(ctx, nil), iaS)
	host := []byte("0123456789abcdef0123456789abcdef")
	back := make([]byte, len(host))
	tests := []struct {
		name string
		st   abi.Status
		want abi.Status
	}{
		{"to", r.CopyToDevice(ctx, p+10, abi.Ptr(host), uintptr(len(host))), okS},
		{"from", r.CopyFromDevice(ctx, abi.Ptr(back), p+10, uintptr(len(back))), okS},
		{"size 0 with NULLs", r.CopyToDevice(ctx, 0, nil, 0), okS},
		{"dev 0", r.CopyToDevice(ctx, 0, abi.Ptr(host), 4), iaS},
		{"host NULL", r.CopyFromDevice(ctx, nil, p, 4), iaS},
		{"past the allocation", r.CopyToDevice(ctx, p+90, abi.Ptr(host), 11), iaS},
		{"across two allocations", r.CopyToDevice(ctx, p+96, abi.Ptr(host), 32), iaS},
		{"another context's allocation", r.CopyToDevice(ctx, foreign, abi.Ptr(host), 4), iaS},
		{"an ACL allocation", r.CopyFromDevice(ctx, abi.Ptr(back), aclPtr, 4), iaS},
	}
	for _, tc := range tests {
		if tc.st != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.st, tc.want)
		}
	}
	if string(back) != string(host) {
		t.Fatalf("round trip %q", back)
	}
	r.DeviceFree(ctx, foreign) // not this context's: nothing
	r.DeviceFree(ctx, p+1)     // not an allocation start: nothing
	r.DeviceFree(ctx, p)
	if got := r.CommittedDeviceMemory(ctx); got != 28 {
		t.Fatalf("committed after free = %d, want 28", got)
	}
	want(t, "copy into freed", r.CopyToDevice(ctx, p, abi.Ptr(host), 4), iaS)
	if r.DeviceMalloc(ctx, uintptr(hbmBytes)) != 0 {
		t.Fatal("an allocation past the 32 GiB succeeded")
	}
	if _, st := r.ACL().Malloc(uintptr(hbmBytes)); st != ACLErrorBadAlloc {
		t.Fatalf("ACL malloc past 32 GiB = %d", st)
	}
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
	if r.CommittedDeviceMemory(ctx) != 0 || r.CommittedDeviceMemory(other) != 64 {
		t.Fatal("finalize did not drop exactly this context's allocations")
	}
}

// TestProgramRuns covers registration and the run family (semantics §10):
// argument and state refusals in their order, accepted_state written at
// launch, poll/wait/finalize over Prepared/Launched/Completed, numerics of
// the simulated kernel, a kernel fault as the run's result, and an
// outstanding run blocking finalize_device (E-FIN: INTERNAL, nothing torn
// down) and destroy (E-DESTROY).
func TestProgramRuns(t *testing.T) {
	r := newTMR(t)
	ctx := programCtx(t, r, 0)
	img := addImage(t)
	want(t, "register NULL", r.RegisterCallable(ctx, 0, nil), iaS)
	want(t, "register id -1", r.RegisterCallable(ctx, -1, abi.Ptr(img)), iaS)
	want(t, "register id 8192", r.RegisterCallable(ctx, 8192, abi.Ptr(img)), iaS)
	bad := abi.AlignedBytes(len(img), 16)
	copy(bad, img)
	le.PutUint32(bad[abi.ChipSignatureOff:], 9)
	want(t, "register malformed", r.RegisterCallable(ctx, 0, abi.Ptr(bad)), iaS)
	withKid := build(t, abi.ChipCallableSpec{FuncName: KernelAddScalarF32, Signature: []abi.ArgDirection{abi.DirIn, abi.DirOut, abi.DirScalar},
		Binary: make([]byte, 10), Children: []abi.ChildKernel{{FuncID: 7, Binary: make([]byte, 100)}}})
	want(t, "register", r.RegisterCallable(ctx, 0, abi.Ptr(img)), okS)
	want(t, "register with a child", r.RegisterCallable(ctx, 1, abi.Ptr(withKid)), okS)
	want(t, "register again", r.RegisterCallable(ctx, 0, abi.Ptr(img)), isS)
	if r.AicpuDlopenCount(ctx) != 2 || r.HostDlopenCount(ctx) != 0 || r.RunStreamSetCreateCount(ctx) != 0 {
		t.Fatal("counters")
	}

	n := uint32(64)
	in := r.DeviceMalloc(ctx, uintptr(4*n))
	out := r.DeviceMalloc(ctx, uintptr(4*n))
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = float32(i) / 3
	}
	hv := f32(vals)
	want(t, "copy in", r.CopyToDevice(ctx, in, abi.Ptr(hv), uintptr(len(hv))), okS)
	args := addArgs(t, in, out, n, 2.5)
	// accepted_state must not move: Go heap memory (a returned slice), not a
	// local that could live on a growing stack.
	acceptedBuf := abi.AlignedBytes(4, 4)
	accepted := (*int32)(unsafe.Pointer(&acceptedBuf[0]))
	desc := descBytes(accepted, 42)
	rt := abi.RunHandle(0x7000)
	pr := func(rt abi.RunHandle, id int32, a unsafe.Pointer, cfg unsafe.Pointer, d unsafe.Pointer) abi.Status {
		return r.PrepareRun(ctx, rt, id, a, cfg, d)
	}
	badCfg := cfgWith(func(c *abi.CallConfig) { c.AicpuThreadNum = 9 })
	short := emptyArgs()
	for _, tc := range []struct {
		name string
		st   abi.Status
		want abi.Status
	}{
		{"rt 0 beats unregistered", pr(0, 5, args.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), iaS},
		{"args NULL", pr(rt, 0, nil, abi.Ptr(runCfg), abi.Ptr(desc)), iaS},
		{"config NULL", pr(rt, 0, args.Pointer(), nil, abi.Ptr(desc)), iaS}, // upstream c_api_shared.cpp:617
		{"desc NULL", pr(rt, 0, args.Pointer(), abi.Ptr(runCfg), nil), iaS},
		{"id 8192", pr(rt, 8192, args.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), iaS},
		{"bad config beats unregistered", pr(rt, 5, args.Pointer(), abi.Ptr(badCfg), abi.Ptr(desc)), iaS},
		{"unregistered", pr(rt, 5, args.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), nrS},
		{"counts", pr(rt, 0, short.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), iaS},
		{"launch without a run", r.LaunchRun(ctx, rt), isS},
		{"launch rt 0", r.LaunchRun(ctx, 0), iaS},
		{"poll without a run", r.PollRun(ctx, rt), isS},
		{"prepare", pr(rt, 0, args.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), okS},
		{"rt busy beats counts", pr(rt, 0, short.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), isS},
		{"unregistered beats rt busy", pr(rt, 5, args.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), nrS},
		{"poll Prepared", r.PollRun(ctx, rt), abi.PollNotReady},
		{"wait Prepared", r.WaitRun(ctx, rt), isS},
	} {
		if tc.st != tc.want {
			t.Fatalf("%s = %v, want %v", tc.name, tc.st, tc.want)
		}
	}
	args.Wipe() // the run snapshotted its args
	want(t, "launch", r.LaunchRun(ctx, rt), okS)
	if *accepted != 42 {
		t.Fatalf("accepted_state = %d", *accepted)
	}
	want(t, "launch twice", r.LaunchRun(ctx, rt), isS)
	// An outstanding (launched) run blocks teardown and registration changes.
	want(t, "finalize_device with a run outstanding", r.FinalizeDevice(ctx), intS)
	want(t, "unregister with a run outstanding", r.UnregisterCallable(ctx, 1), isS)
	want(t, "register with a run outstanding", r.RegisterCallable(ctx, 2, abi.Ptr(img)), isS)
	r.DestroyDeviceContext(ctx)
	if _, ok := r.Inspect(ctx); !ok {
		t.Fatal("destroy with a run outstanding was not refused")
	}
	want(t, "poll Launched runs it", r.PollRun(ctx, rt), abi.PollComplete)
	want(t, "poll Completed", r.PollRun(ctx, rt), abi.PollComplete)
	want(t, "wait Completed", r.WaitRun(ctx, rt), okS)
	back := make([]byte, 4*n)
	want(t, "copy out", r.CopyFromDevice(ctx, abi.Ptr(back), out, uintptr(len(back))), okS)
	for i, v := range fromF32(back) {
		if v != vals[i]+2.5 {
			t.Fatalf("out[%d] = %v", i, v)
		}
	}
	want(t, "finalize_run", r.FinalizeRun(ctx, rt), okS)
	want(t, "finalize_run again", r.FinalizeRun(ctx, rt), isS)
	want(t, "finalize_run of a Prepared run", pr(rt, 0, addArgs(t, in, out, n, 1).Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), okS)
	want(t, "drop Prepared", r.FinalizeRun(ctx, rt), okS)

	// A faulting kernel: the run's result is -5 at poll, wait and finalize.
	faulty := addArgs(t, in, 0x42, n, 1)
	want(t, "prepare faulty", pr(rt, 0, faulty.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), okS)
	want(t, "launch faulty", r.LaunchRun(ctx, rt), okS)
	want(t, "poll faulty", r.PollRun(ctx, rt), KernelFaultCode)
	want(t, "wait faulty", r.WaitRun(ctx, rt), KernelFaultCode)
	want(t, "finalize faulty", r.FinalizeRun(ctx, rt), KernelFaultCode)
	// simpler_run: the whole family; the first failure; nothing left behind.
	want(t, "run", r.Run(ctx, rt, 1, addArgs(t, in, out, n, -1).Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), okS)
	want(t, "run faulty", r.Run(ctx, rt, 0, faulty.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), KernelFaultCode)
	want(t, "run unregistered", r.Run(ctx, rt, 9, faulty.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), nrS)
	wantState(t, r, ctx, ContextState{ProgramRuns: 0, ProgramCallables: 2, AicpuDlopens: 2, Attached: true},
		"ProgramRuns", "ProgramCallables", "AicpuDlopens", "Attached", "OutstandingRun")
	want(t, "unregister", r.UnregisterCallable(ctx, 1), okS)
	want(t, "unregister again", r.UnregisterCallable(ctx, 1), okS)
	want(t, "unregister 8192", r.UnregisterCallable(ctx, 8192), iaS)
	want(t, "finalize_device", r.FinalizeDevice(ctx), okS)
	wantState(t, r, ctx, ContextState{Mode: latch.Program, DeviceID: -1}, "Mode", "ProgramRuns", "ProgramCallables", "Attached",
		"ProgramAllocations", "Committed", "DeviceID")
	r.DestroyDeviceContext(ctx)
	if _, ok := r.Inspect(ctx); ok {
		t.Fatal("not freed")
	}
}

// E-FIN "Outstanding native run": a run is outstanding from the successful
// prepare_run that opened it until finalize_run of its storage returns,
// launched or not, completed or not. While it is, finalize_device returns
// INTERNAL with nothing torn down, destroy is refused (E-DESTROY) and the
// callable registry does not change; simpler_run holds one only while it
// runs. Run storage holding a run refuses a second prepare from any context.
// runCfg is a valid program CallConfig: prepare_run refuses a NULL one.
var runCfg = cfgWith(func(*abi.CallConfig) {})

func TestOutstandingRunFromPrepareToFinalizeRun(t *testing.T) {
	r := newTMR(t)
	ctx := programCtx(t, r, 0)
	img := build(t, abi.ChipCallableSpec{FuncName: "noop"})
	want(t, "register", r.RegisterCallable(ctx, 0, abi.Ptr(img)), okS)
	args := emptyArgs()
	acceptedBuf := abi.AlignedBytes(4, 4)
	desc := descBytes((*int32)(unsafe.Pointer(&acceptedBuf[0])), 7)
	rt := abi.RunHandle(0x9000)
	blocked := func(stage string) {
		t.Helper()
		want(t, "finalize_device with a "+stage+" run", r.FinalizeDevice(ctx), intS)
		want(t, "unregister with a "+stage+" run", r.UnregisterCallable(ctx, 0), isS)
		want(t, "register with a "+stage+" run", r.RegisterCallable(ctx, 1, abi.Ptr(img)), isS)
		r.DestroyDeviceContext(ctx)
		if _, ok := r.Inspect(ctx); !ok {
			t.Fatalf("destroy with a %s run was not refused", stage)
		}
		wantState(t, r, ctx, ContextState{Mode: latch.Program, Attached: true, DeviceID: 0, ProgramCallables: 1, ProgramRuns: 1,
			AicpuDlopens: 1, OutstandingRun: true}, "Mode", "Attached", "DeviceID", "ProgramCallables", "ProgramRuns", "OutstandingRun")
	}
	// Prepared, never launched: outstanding until finalize_run.
	want(t, "prepare_run", r.PrepareRun(ctx, rt, 0, args.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), okS)
	blocked("prepared")
	want(t, "finalize_run of a never-launched run", r.FinalizeRun(ctx, rt), okS)
	// Launched, then completed: outstanding until finalize_run.
	want(t, "prepare_run", r.PrepareRun(ctx, rt, 0, args.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), okS)
	want(t, "launch_run", r.LaunchRun(ctx, rt), okS)
	blocked("launched")
	want(t, "wait_run", r.WaitRun(ctx, rt), okS)
	blocked("completed")
	// The storage holds the run for every context.
	other := programCtx(t, r, 1)
	want(t, "register on another context", r.RegisterCallable(other, 0, abi.Ptr(img)), okS)
	want(t, "prepare_run of another context on busy storage", r.PrepareRun(other, rt, 0, args.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), isS)
	want(t, "launch_run of another context's run", r.LaunchRun(other, rt), isS)
	want(t, "finalize_run", r.FinalizeRun(ctx, rt), okS)
	want(t, "prepare_run on the storage now free", r.PrepareRun(other, rt, 0, args.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), okS)
	want(t, "finalize_run", r.FinalizeRun(other, rt), okS)
	// simpler_run leaves nothing outstanding.
	want(t, "simpler_run", r.Run(ctx, rt, 0, args.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)), okS)
	want(t, "finalize_device", r.FinalizeDevice(ctx), okS)
	want(t, "finalize_device", r.FinalizeDevice(other), okS)
}

// Fault site 10: a program teardown that fails is returned by finalize_device
// and the context is detached anyway, so the next finalize returns 0 and a
// program init may follow (E-FIN, docs/contract.md fault site 10).
func TestProgramTeardownFailureSite10(t *testing.T) {
	r := newTMR(t)
	ctx := programCtx(t, r, 0)
	want(t, "inject site 10", r.SimInject(abi.SiteProgramTeardown, 1, -1234), okS)
	want(t, "finalize_device with a failing teardown", r.FinalizeDevice(ctx), abi.Status(-1234))
	wantState(t, r, ctx, ContextState{Mode: latch.Program, DeviceID: -1}, "Mode", "Attached", "DeviceID")
	want(t, "finalize_device again", r.FinalizeDevice(ctx), okS)
	want(t, "simpler_init after it", pinit(r, ctx, 0), okS)
	want(t, "finalize_device", r.FinalizeDevice(ctx), okS)
	if r.FaultsRemaining()[abi.SiteProgramTeardown] != 0 {
		t.Fatal("site 10 still armed")
	}
	ref := New(Refusing, Options{})
	want(t, "refusing models no site 10", ref.SimInject(abi.SiteProgramTeardown, 1, -1234), abi.Unsupported)
}
