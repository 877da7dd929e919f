package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

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

// Load/unload cycles of each library (U-1: a runtime whose contexts are all
// destroyed can be unloaded, and a consumer that reloads it must not pay for
// it each time): a C consumer (testdata/loadunload.c) runs 1,000 cycles of
// load, a kernel session with a launch left pending, a program context left
// attached with device memory, unload. After the first 100 cycles (which map
// the fake ACL and warm the allocators) its resident set grows by less than
// 1 MiB. The consumer is C so that only the libraries' memory is measured:
// a Go driver's heap (and the race detector's shadow of it) moves the
// resident set by as much as the budget.
func TestLoadUnloadDoesNotGrow(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 load/unload cycles per library")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("skipping: no C compiler")
	}
	fake := emittest.Build(t, emit.Config{Profile: emit.ProfileTMR})
	rec, err := emit.BuildRecorder(emit.RecorderConfig{}, emit.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "loadunload")
	if out, err := exec.Command(cc, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-o", exe,
		filepath.Join("testdata", "loadunload.c"), "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	const cycles, warm = 1000, 100
	for _, c := range []struct {
		name, lib string
		env       []string
	}{
		{"fake", fake.RuntimePath, nil},
		{"recorder", rec.RuntimePath, []string{"SIMABI_RECORD_TARGET=" + fake.RuntimePath,
			"SIMABI_RECORD_FILE=" + filepath.Join(t.TempDir(), "trace-%p.ops")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(exe, c.lib, strconv.Itoa(cycles), strconv.Itoa(warm))
			cmd.Env = append(os.Environ(), c.env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("loadunload %s: %v\n%s", c.name, err, stderr.String())
			}
			var atWarm, atEnd int64
			if _, err := fmt.Sscanf(stdout.String(), "rss %d %d", &atWarm, &atEnd); err != nil {
				t.Fatalf("loadunload printed %q: %v", stdout.String(), err)
			}
			grew := atEnd - atWarm
			t.Logf("%s: %d load/unload cycles after %d grew the resident set by %d B (%d B per cycle)", c.name, cycles-warm, warm, grew, grew/(cycles-warm))
			if grew >= 1<<20 {
				t.Fatalf("%s: %d load/unload cycles grew the resident set by %d B (%.1f KiB per cycle), want < 1 MiB in all",
					c.name, cycles-warm, grew, float64(grew)/1024/float64(cycles-warm))
			}
		})
	}
}
