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
// recording adds per call (at most 2 µs on 2 cores). fake+write is the
// fake's launch followed by one write(2) of a trace line to a file on /tmp:
// recorder - (fake+write) is what the recorder costs beyond the write(2) per
// line that docs/trace.md requires. cpu-ns/op is the calling thread's CPU
// time per call, which waiting for a CPU on a loaded machine does not
// inflate.
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
	floor, err := os.OpenFile(filepath.Join(dir, "floor.ops"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer floor.Close()
	for _, bc := range []struct {
		name, path string
		line       *os.File
	}{{"fake", fake, nil}, {"recorder", rec, nil}, {"fake+write", fake, floor}} {
		b.Run(bc.name, func(b *testing.B) { benchmarkLaunch(b, bc.path, bc.line) })
	}
}

// floorLine is a launch's trace line, which fake+write appends with one
// write(2) per call to a file on /tmp beside the recorder's: the part of the
// recorder's cost that any recorder writing a line per call pays.
var floorLine = []byte("@1000001-1000002 t0 dev=0 launch c1 id=0 args=raw(t=2,s=1,as=0101) stream=s0 -> 0\n")

func benchmarkLaunch(b *testing.B, path string, line *os.File) {
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
		if line != nil {
			if _, err := syscall.Write(int(line.Fd()), floorLine); err != nil {
				b.Fatal(err)
			}
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
