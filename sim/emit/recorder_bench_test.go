package emit

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
)

// BenchmarkRecorderKernelModeLaunch: simpler_kernel_mode_launch through
// onboard into the emitted fake directly (fake) and into the recording
// runtime over a copy of the same fake (recorder), in the same run, the
// recorder writing its trace to a file on /tmp. The difference is what
// recording adds per call (at most 2 µs on 2 cores); cpu-ns/op is the
// calling thread's CPU time per call, which waiting for a CPU on a loaded
// machine does not inflate.
//
//	go test ./sim/emit -run '^$' -bench BenchmarkRecorderKernelModeLaunch -benchmem
func BenchmarkRecorderKernelModeLaunch(b *testing.B) {
	fake := freshFake(b, Config{Profile: ProfileTMR})
	target := freshFake(b, Config{Profile: ProfileTMR})
	rec := freshRecorder(b, RecorderConfig{})
	dir, err := os.MkdirTemp("/tmp", "simabi-rec-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	b.Setenv("SIMABI_RECORD_TARGET", target)
	b.Setenv("SIMABI_RECORD_FILE", filepath.Join(dir, "trace-%p.ops"))
	b.Setenv("SIMABI_RECORD_PRELOAD", "")
	b.Setenv("SIMABI_RECORD_IMAGE_LIMIT", "")
	for _, bc := range []struct{ name, path string }{{"fake", fake}, {"recorder", rec}} {
		b.Run(bc.name, func(b *testing.B) { benchmarkLaunch(b, bc.path) })
	}
}

func benchmarkLaunch(b *testing.B, path string) {
	runtime.LockOSThread() // the current device is per thread; the thread exits with this goroutine
	l, err := onboard.Open(path, onboard.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	hooks, ok := l.Hooks()
	if !ok {
		b.Fatal("no hooks")
	}
	f := newKernelFixture(b)
	if st := hooks.SimSetCurrentDevice(0); st != abi.OK {
		b.Fatalf("set device: %v", st)
	}
	ctx := l.CreateDeviceContext()
	defer l.DestroyDeviceContext(ctx)
	if st := l.KernelModeInit(ctx, 0, nil, 0, nil, 0, nil, 0, abi.Ptr(f.cfg), 1); st != abi.OK {
		b.Fatalf("kernel init: %v", st)
	}
	var id int32
	if st := l.KernelModePrepareCallable(ctx, abi.Ptr(f.img), uintptr(len(f.img)), &id); st != abi.OK {
		b.Fatalf("prepare: %v", st)
	}
	var rt abi.Runtime = l
	args := f.args.Pointer()
	b.ReportAllocs()
	cpu0 := threadCPU(b)
	i := 0
	for b.Loop() {
		if st := rt.KernelModeLaunch(ctx, id, args, sessionStream); st != abi.OK {
			b.Fatalf("launch: %v", st)
		}
		if i++; i%4096 == 0 { // bound the stream's queue (every launch enqueues a work item)
			hooks.SimSyncStream(sessionStream)
		}
	}
	b.StopTimer()
	// The CPU time of this (locked) thread per call, user and system: what
	// the call costs with the time spent waiting for a CPU on a busy machine
	// left out.
	b.ReportMetric(float64(threadCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
	hooks.SimSyncStream(sessionStream)
	if st := l.FinalizeDevice(ctx); st != abi.OK {
		b.Fatalf("finalize: %v", st)
	}
}

// threadCPU is the calling OS thread's user and system CPU time in ns.
func threadCPU(tb testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

const rusageThread = 1 // RUSAGE_THREAD (Linux)
