package sim

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/simabi/simabi/abi"
)

// wideImage is a callable named name with 256 tensor entries and one scalar.
func wideImage(t testing.TB, name string) []byte {
	sig := make([]abi.ArgDirection, 0, abi.ChipMaxTensorArgs)
	for i := 0; i < abi.ChipMaxTensorArgs-1; i++ {
		sig = append(sig, abi.DirIn)
	}
	sig = append(sig, abi.DirScalar)
	return build(t, spec(name, 64, sig...))
}

// wideArgs are args for wideImage: 255 device tensors (the first two are in
// and out of n bytes each as UINT8) and one scalar.
func wideArgs(t testing.TB, in, out abi.DevicePtr, n uint32) *abi.TaskArgs {
	t.Helper()
	a := abi.NewTaskArgs()
	for i := 0; i < abi.ChipMaxTensorArgs-1; i++ {
		p := uint64(0x1000 + 0x100*i)
		switch i {
		case 0:
			p = uint64(in)
		case 1:
			p = uint64(out)
		}
		tn, err := abi.ContiguousTensor(p, abi.Uint8, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.AddTensor(tn); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.AddScalar(7); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestPendingLaunchMemoryBounded is E-LAUNCH-ASYNC with wide args: a pending
// launch keeps a bounded snapshot (what the simulated kernels read: the
// first two tensor records and the first scalar, as the emitted runtime)
// whatever tensor_count is, so 4096 pending launches of 255 tensors hold
// well under 1 KiB each, not the 32 KiB of their records; the kernel still
// runs on the snapshot after the caller wiped args; and once the free list
// holds the working set, launching it and synchronizing allocates nothing.
func TestPendingLaunchMemoryBounded(t *testing.T) {
	const pending, n = 4096, 256
	r := newTMR(t)
	setDevice(t, r, 0)
	ctx := kernelCtx(t, r, 0)
	mustPrepare(t, r, ctx, wideImage(t, KernelCopyBytes), 0)
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i*7 + 1)
	}
	in := devAlloc(t, r, src)
	out := devAlloc(t, r, make([]byte, n))
	a := wideArgs(t, in, out, n)
	p := a.Pointer()

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < pending; i++ {
		if st := r.KernelModeLaunch(ctx, 0, p, streamA); st != okS {
			t.Fatalf("launch %d = %v", i, st)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / pending
	t.Logf("%d pending launches of %d tensors: %d heap bytes each", pending, abi.ChipMaxTensorArgs-1, per)
	if per > 1024 {
		t.Fatalf("a pending launch of %d tensors holds %d heap bytes, want <= 1024", abi.ChipMaxTensorArgs-1, per)
	}
	a.Wipe() // E-LAUNCH-ASYNC: every launch snapshotted its args
	want(t, "sync", r.SimSyncStream(streamA), okS)
	if got := devRead(t, r, out, n); string(got) != string(src) {
		t.Fatal("copy_bytes over the snapshot did not copy in to out")
	}

	a = wideArgs(t, in, out, n)
	p = a.Pointer()
	allocs := testing.AllocsPerRun(5, func() {
		for i := 0; i < pending; i++ {
			r.KernelModeLaunch(ctx, 0, p, streamA)
		}
		if st := r.SimSyncStream(streamA); st != okS {
			t.Fatal(st)
		}
	})
	if allocs != 0 {
		t.Fatalf("%d launches and a synchronize: %v allocs, want 0", pending, allocs)
	}
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
}

// TestNewStreamIsO1: a stream value's first use costs O(1) amortized, not a
// copy of the table of every stream used so far (semantics §4: one FIFO per
// stream value, created on first use), for launches on new values and for
// ACL.CreateStream alike.
func TestNewStreamIsO1(t *testing.T) {
	const warm, measured = 10000, 1000
	r := newTMR(t)
	ctx := readyCtx(t, r)
	args := emptyArgs()
	s := func(i int) abi.Stream { return abi.Stream(0x10_0000 + 0x40*i) }
	use := func(i int) {
		if st := launch(r, ctx, 0, args, s(i)); st != okS {
			t.Fatalf("launch on stream %d = %v", i, st)
		}
		if st := r.SimSyncStream(s(i)); st != okS {
			t.Fatal(st)
		}
	}
	for i := 0; i < warm; i++ {
		use(i)
	}
	n := bytesAllocated(func() {
		for i := warm; i < warm+measured; i++ {
			use(i)
		}
	})
	if per := n / measured; per > 4096 {
		t.Fatalf("a new stream value with %d in use allocates %d bytes on average, want O(1) (<= 4096)", warm, per)
	}
	acl := r.ACL()
	for i := 0; i < warm; i++ {
		acl.CreateStream()
	}
	n = bytesAllocated(func() {
		for i := 0; i < measured; i++ {
			acl.CreateStream()
		}
	})
	if per := n / measured; per > 4096 {
		t.Fatalf("ACL.CreateStream with %d streams allocates %d bytes on average, want O(1) (<= 4096)", 2*warm, per)
	}
}

// TestSynchronizeDeviceOrder: ACL.SynchronizeDevice synchronizes the streams
// in the order of their first launch, so with site 8 armed for one pass and
// two streams pending, the item that fails (and does not run) is always the
// one on the stream first launched on (E-LAUNCH-ASYNC, semantics §4).
func TestSynchronizeDeviceOrder(t *testing.T) {
	for i := 0; i < 16; i++ {
		for _, firstA := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d/firstA=%v", i, firstA), func(t *testing.T) {
				r := newTMR(t)
				sA, sB := abi.Stream(0x1000*(i+1)), abi.Stream(0x1000*(i+1)+0x40*(i+1))
				setDevice(t, r, 0)
				ctxA := kernelCtx(t, r, 0)
				mustPrepare(t, r, ctxA, addImage(t), 0)
				in := devAlloc(t, r, f32([]float32{1, 2}))
				outA, outB := devAlloc(t, r, make([]byte, 8)), devAlloc(t, r, make([]byte, 8))
				setDevice(t, r, 1)
				ctxB := kernelCtx(t, r, 1)
				mustPrepare(t, r, ctxB, addImage(t), 0)
				launchOn := func(dev int32, ctx abi.Ctx, out abi.DevicePtr, s abi.Stream) {
					t.Helper()
					setDevice(t, r, dev)
					want(t, "launch", launch(r, ctx, 0, addArgs(t, in, out, 2, 1), s), okS)
				}
				if firstA {
					launchOn(0, ctxA, outA, sA)
					launchOn(1, ctxB, outB, sB)
				} else {
					launchOn(1, ctxB, outB, sB)
					launchOn(0, ctxA, outA, sA)
				}
				want(t, "inject 8", r.SimInject(abi.SiteAsyncDeviceFail, 1, -1080), okS)
				if st := r.ACL().SynchronizeDevice(); st != -1080 {
					t.Fatalf("SynchronizeDevice = %d, want -1080", st)
				}
				gotA, gotB := fromF32(devRead(t, r, outA, 8)), fromF32(devRead(t, r, outB, 8))
				ranA, ranB := gotA[1] == 3, gotB[1] == 3
				if ranA == firstA || ranB != firstA {
					t.Fatalf("first launched on %s: ran A %v, B %v; want the first stream's item failed, the other's ran",
						map[bool]string{true: "A", false: "B"}[firstA], ranA, ranB)
				}
				if r.PendingLaunches(sA) != 0 || r.PendingLaunches(sB) != 0 {
					t.Fatal("SynchronizeDevice left work pending")
				}
			})
		}
	}
}
