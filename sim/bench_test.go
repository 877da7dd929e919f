package sim

import (
	"runtime"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/internal/osthread"
)

// launchBench prepares the hot-path fixture: a ready context on device 0
// (the calling goroutine locked, the device set) with a no-op callable of
// two tensors and one scalar, args to launch it, and warmed stream buffers.
func launchBench(tb testing.TB, id ThreadIdentity) (*Runtime, abi.Ctx, *abi.TaskArgs) {
	r := New(TMR, Options{ThreadIdentity: id})
	setDevice(tb, r, 0)
	ctx := kernelCtx(tb, r, 0)
	mustPrepare(tb, r, ctx, build(tb, spec("bench.noop", 256, abi.DirIn, abi.DirOut, abi.DirScalar)), 0)
	a := abi.NewTaskArgs()
	for i := 0; i < 2; i++ {
		tn, _ := abi.ContiguousTensor(0x1000, abi.Float32, 16384)
		_ = a.AddTensor(tn)
	}
	_ = a.AddScalarFloat32(1.25)
	// Grow both of the stream's buffers (they alternate at each synchronize).
	for round := 0; round < 2; round++ {
		for i := 0; i < 2*syncEvery; i++ {
			if st := launch(r, ctx, 0, a, streamA); st != okS {
				tb.Fatalf("warm-up launch = %v", st)
			}
		}
		if st := r.SimSyncStream(streamA); st != okS {
			tb.Fatal(st)
		}
	}
	return r, ctx, a
}

// syncEvery bounds the queue in the launch benchmark.
const syncEvery = 1024

// BenchmarkKernelModeLaunch measures the launch hot path on a preloaded
// context and one stream; every syncEvery launches the stream is
// synchronized (inside the timer, amortized: running a no-op item is a few
// nanoseconds), so the queue stays bounded and its chunks are reused. "auto"
// is the default thread key (gettid: one system call per launch); "fsbase"
// is the opt-in ThreadIdentityFSBase, for comparison.
func BenchmarkKernelModeLaunch(b *testing.B) {
	for _, id := range []ThreadIdentity{ThreadIdentityAuto, ThreadIdentityFSBase} {
		b.Run(id.String(), func(b *testing.B) {
			r, ctx, a := launchBench(b, id)
			p := a.Pointer()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if st := r.KernelModeLaunch(ctx, 0, p, streamA); st != okS {
					b.Fatal(st)
				}
				if i%syncEvery == syncEvery-1 {
					r.SimSyncStream(streamA)
				}
			}
			b.StopTimer()
			r.SimSyncStream(streamA)
			if id == ThreadIdentityFSBase {
				b.ReportMetric(boolMetric(r.ThreadKeyIsFSBase()), "fsbase")
			}
		})
	}
}

func boolMetric(v bool) float64 {
	if v {
		return 1
	}
	return 0
}

// BenchmarkThreadKey compares the two per-thread keys.
func BenchmarkThreadKey(b *testing.B) {
	b.Run("gettid", func(b *testing.B) {
		var s int
		for i := 0; i < b.N; i++ {
			s += osthread.TID()
		}
		_ = s
	})
	b.Run("fsbase", func(b *testing.B) {
		if !FSBaseThreadKey() {
			b.Skip("RDFSBASE not usable here")
		}
		var s uint64
		for i := 0; i < b.N; i++ {
			s += osthread.ID()
		}
		_ = s
	})
}

// TestLaunchAllocatesNothing asserts the hot path's 0 allocs/op (E-LAUNCH:
// "launch allocates nothing"), and that a synchronize of warmed buffers
// allocates nothing either.
func TestLaunchAllocatesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counting")
	}
	for _, id := range []ThreadIdentity{ThreadIdentityAuto, ThreadIdentityFSBase} {
		t.Run(id.String(), func(t *testing.T) {
			r, ctx, a := launchBench(t, id)
			p := a.Pointer()
			allocs := testing.AllocsPerRun(1000, func() {
				if st := r.KernelModeLaunch(ctx, 0, p, streamA); st != okS {
					t.Fatal(st)
				}
			})
			if allocs != 0 {
				t.Fatalf("launch: %v allocs/op, want 0", allocs)
			}
			allocs = testing.AllocsPerRun(10, func() {
				for i := 0; i < 100; i++ {
					r.KernelModeLaunch(ctx, 0, p, streamA)
				}
				if st := r.SimSyncStream(streamA); st != okS {
					t.Fatal(st)
				}
			})
			if allocs != 0 {
				t.Fatalf("launch+synchronize: %v allocs/op, want 0", allocs)
			}
		})
	}
}

// BenchmarkPrepare64KiB measures prepare of a 64 KiB image (V-IMG, the
// budget, interning by hash and equality). Every 8192 prepares the context
// is replaced outside the timer (COUNT, M-4).
func BenchmarkPrepare64KiB(b *testing.B) {
	r := newTMR(b)
	setDevice(b, r, 0)
	s := spec("bench.64k", 64*kib-abi.ChipCallableSize, abi.DirIn, abi.DirScalar)
	for i := range s.Binary {
		s.Binary[i] = byte(i * 7)
	}
	img := build(b, s)
	fresh := func() abi.Ctx {
		ctx := kernelCtx(b, r, 0)
		return ctx
	}
	ctx := fresh()
	id := int32(0)
	size := uintptr(len(img))
	p := abi.Ptr(img)
	b.SetBytes(int64(len(img)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if st := r.KernelModePrepareCallable(ctx, p, size, &id); st != okS {
			b.StopTimer()
			if st != countS {
				b.Fatal(st)
			}
			want(b, "finalize", r.FinalizeDevice(ctx), okS)
			r.DestroyDeviceContext(ctx)
			ctx = fresh()
			b.StartTimer()
		}
	}
}

// BenchmarkCreateDestroy measures create_device_context +
// destroy_device_context of an unlatched context.
func BenchmarkCreateDestroy(b *testing.B) {
	r := newTMR(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ctx := r.CreateDeviceContext()
		r.DestroyDeviceContext(ctx)
	}
	if r.LiveContexts() != 0 {
		b.Fatal("leaked contexts")
	}
}

// TestResidentsHeap bounds the Go heap of 8192 residents of "1 KiB images"
// (a 9376-byte header and a 1 KiB orchestration binary, each with distinct
// content) on one context: at most 64 MiB (M-4; the image is kept once per
// distinct content with all-zero pages elided, and per-resident metadata is
// small). The caller's single buffer is reused for every image.
func TestResidentsHeap(t *testing.T) {
	r := newTMR(t)
	setDevice(t, r, 0)
	ctx := kernelCtx(t, r, 0)
	s := spec("heap.1k", kib, abi.DirIn, abi.DirOut, abi.DirScalar)
	for i := range s.Binary {
		s.Binary[i] = byte(i*13 + 1)
	}
	img := build(t, s)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := int32(0); i < abi.MaxRegisteredCallableIDs; i++ {
		le.PutUint32(img[abi.ChipStorageOff:], uint32(i)) // distinct content
		mustPrepare(t, r, ctx, img, i)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	delta := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	st := r.Images()
	t.Logf("8192 residents: heap +%d KiB, %d distinct images holding %d KiB", delta/kib, st.Distinct, st.HeldBytes/kib)
	if st.Distinct != abi.MaxRegisteredCallableIDs {
		t.Fatalf("%d distinct images, want 8192", st.Distinct)
	}
	if delta > 64*mib {
		t.Fatalf("8192 residents of 1 KiB images take %d MiB of Go heap, want <= 64 MiB", delta/mib)
	}
	runtime.KeepAlive(r)
}
