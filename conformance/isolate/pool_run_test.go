package isolate

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// The test binary is its own child: a Pool re-executes it with ChildEnv set.
func TestMain(m *testing.M) {
	if os.Getenv(ChildEnv) != "" {
		os.Exit(ChildMain())
	}
	os.Exit(emittest.Released("conformance/isolate", m.Run(), onboard.Preloaded))
}

func fake(t *testing.T, cfg emit.Config) string {
	t.Helper()
	return emittest.Path(t, cfg)
}

func ops(t *testing.T, script string) []op.Op {
	t.Helper()
	o, err := op.ParseScript(script)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

const kernelSession = `create c0
setdev 0
kinit c0 dev=0 gen=1
prepare c0 img=valid()
launch c0 id=0 stream=s0
sync s0
finalize c0
destroy c0
`

// A case runs in a child on a fresh instance and comes back judged; a
// crash names the op that was executing and the signal; a hang is killed
// at the case timeout; the pool goes on with a fresh child after each.
func TestPoolVerdicts(t *testing.T) {
	lib := fake(t, emit.Config{Profile: emit.ProfileTMR})
	p, err := NewPool(Config{Lib: lib}, 5*time.Second, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if info := p.Info(); info.Profile != "tmr" || !info.Hooks {
		t.Fatalf("info %+v, want a tmr build with hooks", info)
	}
	for i := 0; i < 2; i++ {
		o := p.Execute(ops(t, kernelSession), false)
		if o.Verdict != model.Pass || o.Result == nil || len(o.Result.Findings) != 0 {
			t.Fatalf("run %d: %+v, want a clean pass", i, o)
		}
	}

	crashing := fake(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Crash: []string{"simpler_kernel_mode_launch"}}})
	pc, err := NewPool(Config{Lib: crashing}, 5*time.Second, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	o := pc.Execute(ops(t, kernelSession), false)
	if o.Verdict != model.Crash || o.At != 4 || !strings.Contains(o.Detail, "SIGABRT") {
		t.Fatalf("crash knob: %+v, want a crash at #4 (launch) by SIGABRT", o)
	}
	if o = pc.Execute(ops(t, "create c0\ndestroy c0\n"), false); o.Verdict != model.Pass {
		t.Fatalf("after a crash: %+v, want a pass in a fresh child", o)
	}

	hanging := fake(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Hang: []string{"simpler_kernel_mode_launch"}}})
	ph, err := NewPool(Config{Lib: hanging}, time.Second, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ph.Close()
	if o = ph.Execute(ops(t, kernelSession), false); o.Verdict != model.Hang || o.At != 4 {
		t.Fatalf("hang knob: %+v, want a hang at #4", o)
	}
}

// U-1: a child that unloaded the library lives on, so a thread the library
// left behind dies in the case that unloaded it, at its unload op, and not
// in a later case.
func TestPoolUnloadLinger_U1(t *testing.T) {
	lib := fake(t, emit.Config{Profile: emit.ProfileTMR, Mutant: "late-thread-leak"})
	p, err := NewPool(Config{Lib: lib}, 5*time.Second, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	o := p.Execute(ops(t, "create c0\npinit c0 dev=0\nfinalize c0\ndestroy c0\nunload\n"), false)
	// The thread wakes 50 ms after the init: while the runner waits for the
	// calling thread to be gone, or while the child lingers after the
	// result; the case's crash at its unload op either way.
	if o.Verdict != model.Crash || o.At != 4 || !strings.Contains(o.Detail, "SIGSEGV") {
		t.Fatalf("%+v, want a crash at #4 unload by SIGSEGV", o)
	}
}

// A library that does not load is a LoadError naming it once.
func TestPoolLoadError(t *testing.T) {
	_, err := NewPool(Config{Lib: "/nonexistent/libhost_runtime.so"}, time.Second, 0, nil)
	var le *LoadError
	if !errors.As(err, &le) || err.Error() != "cannot load /nonexistent/libhost_runtime.so: no such file or directory" {
		t.Fatalf("err %v", err)
	}
}
