package lifecycle

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit/emittest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) { os.Exit(emittest.Released("lifecycle", code, onboard.Preloaded)) }))
}

// lockThread wires the calling test goroutine to its OS thread for the rest
// of the test: the worker's Init thread must stay its thread (C-THREAD), and
// the current device of a runtime is per OS thread (D-2).
func lockThread(t testing.TB) {
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
}

// onOtherThread runs f on a goroutine locked to another OS thread (the
// caller's goroutine holds its own thread locked, so the two differ) and
// waits for it.
func onOtherThread(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		f()
	}()
	<-done
}

// testImage is a canonical ChipCallable image: tensors [in, out] and one
// scalar, the signature of sim's add-scalar kernel.
func testImage(t testing.TB) []byte {
	t.Helper()
	spec := abi.ChipCallableSpec{
		Signature: []abi.ArgDirection{abi.DirIn, abi.DirOut, abi.DirScalar},
		FuncName:  "simabi.add_scalar_f32",
		Binary:    []byte{0xde, 0xad, 0xbe, 0xef},
	}
	img, err := spec.Build()
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// misaligned returns a copy of img whose first byte is not 16-byte aligned.
func misaligned(img []byte) []byte {
	raw := abi.AlignedBytes(len(img)+1, abi.ChipCallableAlign)
	b := raw[1 : 1+len(img)]
	copy(b, img)
	return b
}

// testArgs are task args matching testImage: two device tensors of n
// float32 at in and out, and scalar s.
func testArgs(t testing.TB, in, out abi.DevicePtr, n uint32, s float32) *abi.TaskArgs {
	t.Helper()
	a := abi.NewTaskArgs()
	for _, p := range []abi.DevicePtr{in, out} {
		tn, err := abi.ContiguousTensor(uint64(p), abi.Float32, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.AddTensor(tn); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.AddScalarFloat32(s); err != nil {
		t.Fatal(err)
	}
	return a
}

func kernelConfig() *abi.CallConfig { return &abi.CallConfig{} }

// wantCode asserts err is a *StatusError with code (C-ERR) and returns it.
func wantCode(t testing.TB, err error, code abi.Status) *StatusError {
	t.Helper()
	if err == nil {
		t.Fatalf("got nil error, want %v", code)
	}
	var se *StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %q (%T) is not a *StatusError", err, err)
	}
	if se.Code != code {
		t.Fatalf("error %q has code %v, want %v", err, se.Code, code)
	}
	return se
}

func wantContains(t testing.TB, err error, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

// logBuffer is a slog destination safe for the cleanup goroutine.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newLogger() (*slog.Logger, *logBuffer) {
	lb := &logBuffer{}
	return newLoggerTo(lb), lb
}

func newLoggerTo(lb *logBuffer) *slog.Logger { return slog.New(slog.NewTextHandler(lb, nil)) }

// scriptWorker makes a worker over f.
func scriptWorker(mode Mode, f *scriptRuntime) *Worker {
	lg, _ := newLogger()
	return New(Config{Mode: mode, DeviceID: 0, Loader: scriptLoader{f}, Logger: lg})
}

// initScript makes and initializes a worker over f, failing the test on error.
func initScript(t testing.TB, mode Mode, f *scriptRuntime) *Worker {
	t.Helper()
	w := scriptWorker(mode, f)
	if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
		t.Fatalf("Init: %v", err)
	}
	return w
}

func noViolations(t testing.TB, f *scriptRuntime) {
	t.Helper()
	if v := f.violations(); len(v) > 0 {
		t.Errorf("scripted runtime invariants violated: %q", v)
	}
}

// ---- child processes ----

// childEnv selects the body a re-executed test binary runs.
const childEnv = "SIMABI_LIFECYCLE_CHILD"

// runChild re-executes the test binary to run test (its ^name$) with the
// child env set to body, and returns the combined output and exit code.
// Cases whose failure mode is an abort of the emitted runtime (F-3) run this
// way, so that an abort fails one test instead of killing the run.
func runChild(t *testing.T, test, body string, extraEnv ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.v")
	// The child's temporary files go under this test's: a child that
	// aborts (as the abort cases must) runs no cleanup of its own.
	cmd.Env = append(append(os.Environ(), childEnv+"="+body, "TMPDIR="+t.TempDir()), extraEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), code
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("child %s/%s hung; output:\n%s", test, body, out.String())
		return "", -1
	}
}
