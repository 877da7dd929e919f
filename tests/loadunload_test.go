package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// inChild runs test (a top-level test of this package) in a fresh process of
// this test binary with env added, and fails t with its output when it fails
// or does not run. A test that needs a process of its own (what is loaded,
// and how much memory it holds) checks os.Getenv of its marker and does its
// work there.
func inChild(t *testing.T, test string, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in a child process: %v\n%s", test, err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: "+test)) {
		t.Fatalf("%s did not run in the child process:\n%s", test, out)
	}
	return string(out)
}

const loadUnloadChild = "SIMABI_LOAD_UNLOAD_CHILD"

// Load/unload cycles of each library (U-1: a runtime whose contexts are all
// destroyed can be unloaded, and a consumer that reloads it must not pay for
// it each time): 1,000 cycles of load, a kernel session, a program session, a
// context left behind, unload grow the resident set by less than 1 MiB after
// the first 100 (the first cycles map the ACL and warm the allocators).
func TestLoadUnloadDoesNotGrow(t *testing.T) {
	if which := os.Getenv(loadUnloadChild); which != "" {
		loadUnloadCycles(t, which)
		return
	}
	if testing.Short() {
		t.Skip("1,000 load/unload cycles per library")
	}
	emittest.Build(t, emit.Config{Profile: emit.ProfileTMR}) // skips without a compiler
	for _, which := range []string{"fake", "recorder"} {
		t.Run(which, func(t *testing.T) {
			out := inChild(t, "TestLoadUnloadDoesNotGrow", loadUnloadChild+"="+which)
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, "grew") {
					t.Log(strings.TrimSpace(line))
				}
			}
		})
	}
}

func loadUnloadCycles(t *testing.T, which string) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fake := emittest.Build(t, emit.Config{Profile: emit.ProfileTMR})
	lib := fake.RuntimePath
	if which == "recorder" {
		rec, err := emit.BuildRecorder(emit.RecorderConfig{}, emit.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lib = rec.RuntimePath
		t.Setenv("SIMABI_RECORD_TARGET", fake.RuntimePath)
		t.Setenv("SIMABI_RECORD_FILE", filepath.Join(t.TempDir(), "trace-%p.ops"))
	}
	img := emittest.Image("noop")
	args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
	cfg := abi.AlignedBytes(abi.CallConfigSize, 8)
	stream := abi.Stream(0x5a00)
	cycle := func(i int) {
		l, err := onboard.Open(lib, onboard.Options{})
		if err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		h, ok := l.Hooks()
		if !ok {
			t.Fatal("no hooks")
		}
		h.SimSetCurrentDevice(0)
		k := l.CreateDeviceContext()
		id := int32(-1)
		steps := []abi.Status{
			l.KernelModeInit(k, 0, nil, 0, nil, 0, nil, 0, abi.Ptr(cfg), uint64(i+1)),
			l.KernelModePrepareCallable(k, abi.Ptr(img), uintptr(len(img)), &id),
			l.KernelModeLaunch(k, id, args.Pointer(), stream),
			h.SimSyncStream(stream),
			l.KernelModeLaunch(k, id, args.Pointer(), stream), // left pending at the unload
			l.FinalizeDevice(k),
		}
		l.DestroyDeviceContext(k)
		p := l.CreateDeviceContext()
		steps = append(steps, l.SimplerInit(p, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0))
		if l.DeviceMalloc(p, 4096) == 0 {
			t.Fatalf("cycle %d: device_malloc_ctx returned NULL", i)
		}
		// p is left behind, attached and holding device memory: the unload
		// releases it.
		for j, st := range steps {
			if st != abi.OK {
				t.Fatalf("cycle %d: step %d = %v", i, j, st)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatalf("cycle %d: close: %v", i, err)
		}
	}
	const warm, cycles = 100, 1000
	for i := range warm {
		cycle(i)
	}
	before := residentBytes(t)
	for i := warm; i < cycles; i++ {
		cycle(i)
	}
	after := residentBytes(t)
	grew := after - before
	t.Logf("%s: %d load/unload cycles after %d grew the resident set by %d B (%d B per cycle)", which, cycles-warm, warm, grew, grew/(cycles-warm))
	if grew >= 1<<20 {
		t.Fatalf("%s: %d load/unload cycles grew the resident set by %d B (%.1f KiB per cycle), want < 1 MiB in all",
			which, cycles-warm, grew, float64(grew)/1024/float64(cycles-warm))
	}
}

// residentBytes is the process's resident set after the Go heap returned
// what it could, so that what is left is what the libraries keep.
func residentBytes(t *testing.T) int64 {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		t.Fatalf("/proc/self/statm: %q", b)
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(fmt.Errorf("/proc/self/statm: %w", err))
	}
	return pages * int64(os.Getpagesize())
}
