package tests

import (
	"github.com/simabi/simabi/conformance/op"

	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/simabi/simabi/conformance/trace"
	"github.com/simabi/simabi/sim/emit"
)

// privateRecorder is a copy of the recording runtime of cfg of the test's
// own: the recorder reads its environment when it is loaded, so a test that
// sets it loads a copy no one loaded before. Skips without a C compiler.
func privateRecorder(t *testing.T, cfg emit.RecorderConfig) string {
	t.Helper()
	rec, err := emit.BuildRecorder(cfg, emit.BuildOptions{})
	if errors.Is(err, emit.ErrNoCompiler) {
		t.Skipf("sim/emit: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(rec.RuntimePath)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "libhost_runtime.so")
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// judgeTraceFile parses the trace at path and checks it as -check-trace does.
func judgeTraceFile(t *testing.T, path string) (*op.Trace, *trace.Outcome) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	tr, err := op.ParseTrace(fh, path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return tr, trace.Check(tr, trace.Options{})
}
