package lifecycle

import (
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim"
)

// BenchmarkLaunch compares Worker.Launch over sim with the raw sim launch it
// wraps, side by side in one run: the same callable (no tensors, no
// scalars), the same args and stream, the stream synchronized outside the
// timer every syncEvery launches so the queue's buffers stay at a working
// size. The difference is the worker's checks: mode, stream, args, gate,
// state, id bitmap and OS thread (C-ID, C-GATE, C-THREAD).
func BenchmarkLaunch(b *testing.B) {
	const syncEvery = 4096
	const stream abi.Stream = 0x5eed
	spec := abi.ChipCallableSpec{FuncName: "noop"}
	img, err := spec.Build()
	if err != nil {
		b.Fatal(err)
	}
	args := abi.NewTaskArgs()
	loop := func(b *testing.B, rt *sim.Runtime, launch func() abi.Status) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if st := launch(); st != abi.OK {
				b.Fatalf("launch %d: %v", i, st)
			}
			if i%syncEvery == syncEvery-1 {
				b.StopTimer()
				rt.SimSyncStream(stream)
				b.StartTimer()
			}
		}
		b.StopTimer()
		rt.SimSyncStream(stream)
	}

	b.Run("raw-sim", func(b *testing.B) {
		lockThread(b)
		rt := newSim(b, sim.TMR)
		ctx := rt.CreateDeviceContext()
		cfg := kernelConfig().Bytes()
		if st := rt.KernelModeInit(ctx, 0, nil, 0, nil, 0, nil, 0, abi.Ptr(cfg), NextGeneration()); st != abi.OK {
			b.Fatal(st)
		}
		id := int32(-1)
		if st := rt.KernelModePrepareCallable(ctx, abi.Ptr(img), uintptr(len(img)), &id); st != abi.OK {
			b.Fatal(st)
		}
		p := args.Pointer()
		loop(b, rt, func() abi.Status { return rt.KernelModeLaunch(ctx, id, p, stream) })
		rt.FinalizeDevice(ctx)
		rt.DestroyDeviceContext(ctx)
	})

	b.Run("worker-sim", func(b *testing.B) {
		lockThread(b)
		rt := newSim(b, sim.TMR)
		w := simWorker(rt, Kernel, 0)
		if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
			b.Fatal(err)
		}
		id, err := w.PrepareCallable(img)
		if err != nil {
			b.Fatal(err)
		}
		loop(b, rt, func() abi.Status {
			if err := w.Launch(id, args, stream); err != nil {
				return abi.Internal
			}
			return abi.OK
		})
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	})
}
