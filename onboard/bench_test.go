package onboard

import (
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// hotPath is an emitted tmr runtime with one kernel context initialized on
// device 0 of the calling thread, one prepared callable (id 0) and task args
// matching it: everything a launch needs. The caller must have locked its
// goroutine to the OS thread.
type hotPath struct {
	l     *Library
	hooks abi.SimHooks
	ctx   abi.Ctx
	img   []byte
	args  *abi.TaskArgs
	id    *int32
	cfg   []byte
}

func newHotPath(tb testing.TB) *hotPath {
	tb.Helper()
	path := emitted(tb, tmrConfig())
	l, err := Open(path, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	hooks, ok := l.Hooks()
	if !ok {
		tb.Fatal("emitted runtime without hooks")
	}
	h := &hotPath{l: l, hooks: hooks, img: emittest.Image("noop"), args: emittest.TaskArgs(0x1000, 0x2000, 4, 1), id: new(int32), cfg: defaultConfig()}
	if st := hooks.SimSetCurrentDevice(0); st != abi.OK {
		tb.Fatalf("set device: %v", st)
	}
	h.newContext(tb)
	tb.Cleanup(func() {
		h.closeContext(tb)
		_ = l.Close()
	})
	return h
}

func (h *hotPath) newContext(tb testing.TB) {
	h.ctx = h.l.CreateDeviceContext()
	if st := h.l.KernelModeInit(h.ctx, 0, nil, 0, nil, 0, nil, 0, abi.Ptr(h.cfg), 1); st != abi.OK {
		tb.Fatalf("kernel init: %v", st)
	}
	if st := h.l.KernelModePrepareCallable(h.ctx, abi.Ptr(h.img), uintptr(len(h.img)), h.id); st != abi.OK || *h.id != 0 {
		tb.Fatalf("prepare: %v id %d", st, *h.id)
	}
}

func (h *hotPath) closeContext(tb testing.TB) {
	h.hooks.SimSyncStream(streamA)
	if st := h.l.FinalizeDevice(h.ctx); st != abi.OK {
		tb.Fatalf("finalize: %v", st)
	}
	h.l.DestroyDeviceContext(h.ctx)
}

// syncEvery bounds the stream's queue in launch benchmarks: every launch
// enqueues a work item (E-LAUNCH-ASYNC), so both launch benchmarks complete
// the stream every syncEvery launches, inside the timed loop.
const syncEvery = 4096

// BenchmarkKernelModeLaunch: simpler_kernel_mode_launch of the emitted
// runtime through onboard (0 allocs/op; target ≤ 150 ns/op on 2 cores).
func BenchmarkKernelModeLaunch(b *testing.B) {
	lockThread(b)
	h := newHotPath(b)
	var rt abi.Runtime = h.l // through the interface, as a consumer calls it
	ctx, args := h.ctx, h.args.Pointer()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if st := rt.KernelModeLaunch(ctx, 0, args, streamA); st != abi.OK {
			b.Fatalf("launch: %v", st)
		}
		if i++; i%syncEvery == 0 {
			h.hooks.SimSyncStream(streamA)
		}
	}
}

// BenchmarkRawSyscallLaunch is the floor: purego.SyscallN of the same symbol,
// with its variadic argument list (which the compiler heap-allocates: 1
// alloc/op).
func BenchmarkRawSyscallLaunch(b *testing.B) {
	lockThread(b)
	h := newHotPath(b)
	fn := h.l.t[abi.EntryKernelLaunch]
	ctx, args := h.ctx, h.args.Pointer()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r1, _, _ := purego.SyscallN(fn, uintptr(ctx), 0, uintptr(args), uintptr(streamA))
		if int32(r1) != 0 {
			b.Fatalf("launch: %d", int32(r1))
		}
		if i++; i%syncEvery == 0 {
			h.hooks.SimSyncStream(streamA)
		}
	}
}

// BenchmarkKernelModePrepare: a successful prepare of a 9.5 KB image; every
// 8000 prepares the context is finalized and a fresh one initialized (M-4
// caps residents at 8192), inside the timed loop.
func BenchmarkKernelModePrepare(b *testing.B) {
	lockThread(b)
	h := newHotPath(b)
	img, size := abi.Ptr(h.img), uintptr(len(h.img))
	id := h.id
	b.ReportAllocs()
	n := 1
	for b.Loop() {
		if n == 8000 {
			h.closeContext(b)
			h.newContext(b)
			n = 1
		}
		if st := h.l.KernelModePrepareCallable(h.ctx, img, size, id); st != abi.OK {
			b.Fatalf("prepare %d: %v", n, st)
		}
		n++
	}
}

// BenchmarkRawSyscallPrepare is the floor for prepare.
func BenchmarkRawSyscallPrepare(b *testing.B) {
	lockThread(b)
	h := newHotPath(b)
	fn := h.l.t[abi.EntryKernelPrepare]
	img, size := abi.Ptr(h.img), uintptr(len(h.img))
	id := h.id
	b.ReportAllocs()
	n := 1
	for b.Loop() {
		if n == 8000 {
			h.closeContext(b)
			h.newContext(b)
			n = 1
		}
		r1, _, _ := purego.SyscallN(fn, uintptr(h.ctx), uintptr(img), size, uintptr(unsafe.Pointer(id)))
		if int32(r1) != 0 {
			b.Fatalf("prepare %d: %d", n, int32(r1))
		}
		n++
	}
}

// BenchmarkKernelModeSupported: simpler_kernel_mode_supported through onboard.
func BenchmarkKernelModeSupported(b *testing.B) {
	lockThread(b)
	h := newHotPath(b)
	ctx := h.ctx
	b.ReportAllocs()
	for b.Loop() {
		if h.l.KernelModeSupported(ctx) != 1 {
			b.Fatal("supported != 1")
		}
	}
}

// BenchmarkRawSyscallSupported is the floor for supported.
func BenchmarkRawSyscallSupported(b *testing.B) {
	lockThread(b)
	h := newHotPath(b)
	fn := h.l.t[abi.EntryKernelSupported]
	ctx := h.ctx
	b.ReportAllocs()
	for b.Loop() {
		if r1, _, _ := purego.SyscallN(fn, uintptr(ctx)); int32(r1) != 1 {
			b.Fatal("supported != 1")
		}
	}
}

// TestHotPathAllocs: launch, prepare and supported through onboard allocate
// nothing per call (testing.AllocsPerRun). Skipped under -race, where
// sync.Pool drops pooled argument blocks on purpose.
func TestHotPathAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	lockThread(t)
	h := newHotPath(t)
	var rt abi.Runtime = h.l
	ctx, args := h.ctx, h.args.Pointer()
	img, size, id := abi.Ptr(h.img), uintptr(len(h.img)), h.id
	if n := testing.AllocsPerRun(1000, func() {
		if st := rt.KernelModeLaunch(ctx, 0, args, streamA); st != abi.OK {
			t.Fatalf("launch: %v", st)
		}
	}); n != 0 {
		t.Errorf("KernelModeLaunch: %v allocs per call, want 0", n)
	}
	h.hooks.SimSyncStream(streamA)
	if n := testing.AllocsPerRun(1000, func() {
		if st := rt.KernelModePrepareCallable(ctx, img, size, id); st != abi.OK {
			t.Fatalf("prepare: %v", st)
		}
	}); n != 0 {
		t.Errorf("KernelModePrepareCallable: %v allocs per call, want 0", n)
	}
	if n := testing.AllocsPerRun(1000, func() {
		if rt.KernelModeSupported(ctx) != 1 {
			t.Fatal("supported != 1")
		}
	}); n != 0 {
		t.Errorf("KernelModeSupported: %v allocs per call, want 0", n)
	}
}

// BenchmarkRegisterFuncLaunch is the alternative onboard did not take:
// purego.RegisterFunc into a typed func (reflection per call, several
// allocations per call).
func BenchmarkRegisterFuncLaunch(b *testing.B) {
	lockThread(b)
	h := newHotPath(b)
	var launch func(ctx uintptr, id int32, args unsafe.Pointer, stream uintptr) int32
	purego.RegisterFunc(&launch, h.l.t[abi.EntryKernelLaunch])
	ctx, args := uintptr(h.ctx), h.args.Pointer()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if st := launch(ctx, 0, args, uintptr(streamA)); st != 0 {
			b.Fatalf("launch: %d", st)
		}
		if i++; i%syncEvery == 0 {
			h.hooks.SimSyncStream(streamA)
		}
	}
}
