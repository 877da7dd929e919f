package sim

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
)

// noPanic runs f and turns a panic into a test failure naming the call.
func noPanic(t *testing.T, name string, f func() abi.Status) (st abi.Status) {
	t.Helper()
	defer func() {
		if v := recover(); v != nil {
			t.Errorf("%s panicked: %v", name, v)
			st = math.MinInt32
		}
	}()
	return f()
}

// highPtr is a non-NULL pointer n bytes below the top of the address space:
// a span of more than n bytes at it wraps (no C caller can pass one without
// crashing a C runtime; the simulator refuses it instead of panicking).
func highPtr(n int) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(nil), -n) }

// TestCopyHugeSizesNeverPanic: copy_to_device_ctx / copy_from_device_ctx
// check the device range before they view the host memory, so a size that
// cannot be a valid range returns INVALID_ARGUMENT, as in the emitted
// runtime, instead of panicking in unsafe.Slice; a valid device range whose
// host span wraps is INVALID_ARGUMENT too (semantics §10).
func TestCopyHugeSizesNeverPanic(t *testing.T) {
	r := newTMR(t)
	ctx := programCtx(t, r, 0)
	p := r.DeviceMalloc(ctx, 256)
	host := make([]byte, 256)
	h := abi.Ptr(host)
	for _, size64 := range []uint64{257, 1 << 40, 1 << 48, 1<<48 + 1, 1 << 62, 1 << 63, math.MaxUint64 - 1, math.MaxUint64} {
		size := uintptr(size64)
		if uint64(size) != size64 {
			continue // does not fit a 32-bit size_t
		}
		to := noPanic(t, fmt.Sprintf("copy_to(size %#x)", size), func() abi.Status { return r.CopyToDevice(ctx, p, h, size) })
		from := noPanic(t, fmt.Sprintf("copy_from(size %#x)", size), func() abi.Status { return r.CopyFromDevice(ctx, h, p, size) })
		if to != iaS || from != iaS {
			t.Errorf("size %#x: copy_to = %v, copy_from = %v, want IA", size, to, from)
		}
	}
	for _, hp := range []unsafe.Pointer{highPtr(16), highPtr(255)} {
		to := noPanic(t, "copy_to(high host)", func() abi.Status { return r.CopyToDevice(ctx, p, hp, 256) })
		from := noPanic(t, "copy_from(high host)", func() abi.Status { return r.CopyFromDevice(ctx, hp, p, 256) })
		if to != iaS || from != iaS {
			t.Errorf("host span that wraps: copy_to = %v, copy_from = %v, want IA", to, from)
		}
	}
	want(t, "copy_to at the end of the allocation", r.CopyToDevice(ctx, p+255, h, 1), okS)
	want(t, "copy_from the whole allocation", r.CopyFromDevice(ctx, h, p, 256), okS)
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
}

// TestWrappingSpansNeverPanic: every entry that views a fixed-size struct
// of the caller (the kernel CallConfig, the prewarm and program CallConfig,
// launch args, run args and descriptor, DeviceMemoryInfo, the host log
// state, a registered image's header) refuses a span that wraps with its
// argument code instead of panicking.
func TestWrappingSpansNeverPanic(t *testing.T) {
	r := newTMR(t)
	setDevice(t, r, 0)
	hi := highPtr(8) // every struct viewed is at least 16 bytes
	kctx := r.CreateDeviceContext()
	pctx := programCtx(t, r, 1)
	ready := readyCtx(t, r)
	want(t, "register", r.RegisterCallable(pctx, 0, abi.Ptr(noopImage(t, 0))), okS)
	desc := descBytes(nil, 0)
	args := emptyArgs()
	calls := []struct {
		name string
		f    func() abi.Status
	}{
		{"kernel init config", func() abi.Status {
			return r.KernelModeInit(kctx, 0, nil, 0, nil, 0, nil, 0, hi, 1)
		}},
		{"simpler_init prewarm", func() abi.Status {
			return r.SimplerInit(r.CreateDeviceContext(), 0, nil, 0, nil, 0, nil, 0, hi, 0, nil, 0)
		}},
		{"launch args", func() abi.Status { return r.KernelModeLaunch(ready, 0, hi, streamA) }},
		{"prepare_run args", func() abi.Status { return r.PrepareRun(pctx, 1, 0, hi, abi.Ptr(runCfg), abi.Ptr(desc)) }},
		{"prepare_run descriptor", func() abi.Status { return r.PrepareRun(pctx, 1, 0, args.Pointer(), nil, hi) }},
		{"prepare_run config", func() abi.Status {
			return r.PrepareRun(pctx, 1, 0, args.Pointer(), hi, abi.Ptr(desc))
		}},
		{"run config", func() abi.Status { return r.Run(pctx, 1, 0, args.Pointer(), hi, abi.Ptr(desc)) }},
		{"device_memory_info", func() abi.Status { return r.DeviceMemoryInfo(pctx, hi) }},
		{"host_log_bind_state", func() abi.Status { return r.HostLogBindState(hi) }},
		{"register_callable", func() abi.Status { return r.RegisterCallable(pctx, 1, hi) }},
	}
	for _, c := range calls {
		want := iaS
		if c.name == "host_log_bind_state" {
			want = abi.HostBindRefused // the binder refuses with -1 (docs/contract.md)
		}
		if st := noPanic(t, c.name, c.f); st != want {
			t.Errorf("%s with a span that wraps = %v, want %v", c.name, st, want)
		}
	}
	if s := state(t, r, kctx); s.Mode != latch.Unlatched {
		t.Fatalf("a refused kernel init latched the context: %v", s.Mode)
	}
	want(t, "finalize", r.FinalizeDevice(ready), okS)
}

// TestCallerSpanOK pins the bounds callerBytes accepts: exactly the spans
// unsafe.Slice accepts.
func TestCallerSpanOK(t *testing.T) {
	top := highPtr(16)
	for _, tc := range []struct {
		p    unsafe.Pointer
		n    uint64
		want bool
	}{
		{nil, 0, false},
		{nil, 1, false},
		{top, 0, true},
		{top, 16, true},
		{top, 17, false},
		{highPtr(1), 1, true},
		{highPtr(1), 2, false},
		{unsafe.Pointer(&[1]byte{}), math.MaxInt, true},
		{unsafe.Pointer(&[1]byte{}), math.MaxInt + 1, false},
		{unsafe.Pointer(&[1]byte{}), math.MaxUint64, false},
	} {
		if got := callerSpanOK(tc.p, tc.n); got != tc.want {
			t.Errorf("callerSpanOK(%p, %#x) = %v, want %v", tc.p, tc.n, got, tc.want)
		}
		if tc.want && tc.n <= 16 {
			if b, ok := callerBytes(tc.p, tc.n); !ok || uint64(len(b)) != tc.n {
				t.Errorf("callerBytes(%p, %d) = %d bytes, %v", tc.p, tc.n, len(b), ok)
			}
		}
	}
}

// TestHugeDeviceAllocations: device_malloc_ctx and ACL.Malloc accept any size
// up to the 32 GiB of simulated HBM without the process dying (the Go heap
// cannot commit 31 GiB on a smaller host; large allocations are lazily
// committed mappings, as in the emitted fake ACL), and the memory works at
// both ends (semantics §7, §10).
func TestHugeDeviceAllocations(t *testing.T) {
	if !mmapAvailable || unsafe.Sizeof(uintptr(0)) < 8 {
		t.Skip("large allocations live on the Go heap here")
	}
	const big = 31 << 30
	r := newTMR(t)
	ctx := programCtx(t, r, 0)
	p := r.DeviceMalloc(ctx, big)
	if p == 0 {
		t.Fatal("device_malloc_ctx(31 GiB) = NULL")
	}
	if got := r.CommittedDeviceMemory(ctx); got != big {
		t.Fatalf("committed = %d", got)
	}
	host := []byte{1, 2, 3, 4}
	back := make([]byte, 4)
	for _, at := range []abi.DevicePtr{p, p + big - 4} {
		want(t, "copy_to", r.CopyToDevice(ctx, at, abi.Ptr(host), 4), okS)
		want(t, "copy_from", r.CopyFromDevice(ctx, abi.Ptr(back), at, 4), okS)
		if string(back) != string(host) {
			t.Fatalf("round trip at %#x: %v", at, back)
		}
	}
	if q, st := r.ACL().Malloc(2 << 30); st != ACLErrorBadAlloc || q != 0 {
		t.Fatalf("ACL malloc past the 32 GiB = (%#x, %d)", q, st)
	}
	q, st := r.ACL().Malloc(1 << 30)
	if st != 0 {
		t.Fatalf("ACL malloc of the last GiB = %d", st)
	}
	if st := r.ACL().CopyToDevice(q+(1<<30)-1, []byte{9}); st != 0 {
		t.Fatal(st)
	}
	if st := r.ACL().Free(q); st != 0 {
		t.Fatal(st)
	}
	r.DeviceFree(ctx, p)
	if r.ACL().LiveDeviceBytes() != 0 {
		t.Fatal("memory left after freeing both")
	}
	q, st = r.ACL().Malloc(big)
	if st != 0 {
		t.Fatalf("ACL malloc(31 GiB) after the free = %d", st)
	}
	if st := r.ACL().CopyToDevice(q+big-1, []byte{7}); st != 0 {
		t.Fatal(st)
	}
	if st := r.ACL().Free(q); st != 0 {
		t.Fatal(st)
	}
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
}
