//go:build linux

// The upstream lane builds upstream's simulator, which is Linux-only, and
// this file follows its threads by Linux thread id (gettid, /proc).

package tests

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ebitengine/purego"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/internal/osthread"
	"github.com/simabi/simabi/lifecycle"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// The upstream lane's recorded session (docs/trace.md, docs/upstream.md): a
// program-mode lifecycle — Init with upstream's executor binaries, register
// the lane's one-task callable, Run it twice, unregister, Close — through
// the recording runtime over one of upstream's simulator builds. The trace
// must check clean but for findings the live abicheck run of the same build
// reports (its abicheck.json in the build folder). Runs only in the lane:
//
//	SIMABI_UPSTREAM_BUILD=build/upstream/a2a3-tensormap_and_ringbuffer \
//	SIMABI_UPSTREAM_TRACE=build/upstream/a2a3-tensormap_and_ringbuffer/session-%p.ops \
//	go test ./tests -run TestUpstream_recordedLifecycleSession
func TestUpstream_recordedLifecycleSession(t *testing.T) {
	dir := os.Getenv("SIMABI_UPSTREAM_BUILD")
	if dir == "" {
		t.Skip("SIMABI_UPSTREAM_BUILD is not set: the upstream lane (make upstream) sets it")
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	callable := read("callables/one-task.callable")
	aicpu, aicore := read("libaicpu_kernel.so"), read("libaicore_kernel.so")

	// A legacy build without the simulation hooks: the recorder of that
	// revision, a private copy (it reads its environment when loaded).
	recPath := privateRecorder(t, emit.RecorderConfig{Revision: abi.RevLegacy, NoHooks: true})
	tracePattern := os.Getenv("SIMABI_UPSTREAM_TRACE")
	if tracePattern == "" {
		tracePattern = filepath.Join(t.TempDir(), "session-%p.ops")
	}
	t.Setenv("SIMABI_RECORD_TARGET", filepath.Join(dir, "libhost_runtime.so"))
	t.Setenv("SIMABI_RECORD_PRELOAD", filepath.Join(dir, "libcpu_sim_context.so"))
	t.Setenv("SIMABI_RECORD_FILE", tracePattern)

	// The session runs on an OS thread of its own that exits when it ends,
	// and the test holds a reference of its own to upstream's library from
	// Init until that thread is gone. Upstream's builds leave per-thread
	// destructors on the thread that runs a callable: tensormap_and_
	// ringbuffer a pthread key (common/log/include/common/strace.h:80-92,
	// U-1: it crashes when it runs after the unload), host_build_graph a C++
	// thread_local (HostGraphState, src/a2a3/runtime/host_build_graph/host/
	// dep_gen_host_graph.cpp:232-235, first used by runtime_maker.cpp:537),
	// for which glibc keeps the library mapped through the dlclose that
	// closes it (dl-close.c skips an object whose l_tls_dtor_count is
	// nonzero). A session on the test's own thread kept the host_build_graph
	// builds mapped to the end of the process. With the reference dropped
	// after the thread exited, both run their destructors on mapped code
	// and the library must then be gone: nothing of ours may keep it.
	target := filepath.Join(dir, "libhost_runtime.so")
	var msg string
	var hold uintptr
	tid := onExitingThread(func() { hold, msg = recordSession(recPath, target, aicpu, aicore, callable) })
	if hold != 0 {
		if !osthread.WaitGone(tid, 5*time.Second) {
			t.Fatalf("thread %d did not exit within 5 s of its goroutine", tid)
		}
		if err := purego.Dlclose(hold); err != nil {
			t.Fatalf("dlclose %s (the test's reference): %v", target, err)
		}
	}
	if msg != "" {
		t.Fatal(msg)
	}
	if slices.Contains(emittest.MappedRuntimes(nil), target) {
		t.Errorf("%s is still mapped after its worker closed, the worker's thread exited and the test dropped its reference: something of ours keeps it", target)
	}

	tracePath := strings.ReplaceAll(tracePattern, "%p", fmt.Sprint(os.Getpid()))
	tr, tc := judgeTraceFile(t, tracePath)
	live := liveFindingRules(t, filepath.Join(dir, "abicheck.json"))
	var flagged []string
	for _, rr := range tc.Report().Rules {
		if rr.Verdict != model.Fail {
			continue
		}
		flagged = append(flagged, rr.Rule)
		if !live[rr.Rule] {
			t.Errorf("%s: %s fail, which the live run of this build does not report: %s", tracePath, rr.Rule, op.Abbreviate(rr.Detail))
		}
	}
	t.Logf("%s: %d calls, %d judged; flagged: %v (live run's findings: %v)", tracePath, len(tr.Calls), tc.Result.Checked, flagged, slices.Sorted(maps.Keys(live)))
	for _, want := range []string{"pinit", "register", "prepare_run", "launch_run", "finalize_run", "unregister", "finalize"} {
		if !traceHas(tr, want) {
			t.Errorf("the trace has no %s call", want)
		}
	}
}

// onExitingThread runs fn on an OS thread that exits when fn returns (its
// goroutine stays locked to it), and returns that thread's id. Go keeps the
// process's main thread when a goroutine locked to it ends, so a goroutine
// that finds itself there holds it while another takes a thread that can
// exit. fn's calls all run on that one thread (C-THREAD).
func onExitingThread(fn func()) int {
	tids := make(chan int, 1)
	elsewhere := make(chan struct{})
	var run func()
	run = func() {
		runtime.LockOSThread()
		if osthread.TID() == os.Getpid() {
			go run()
			<-elsewhere
			runtime.UnlockOSThread()
			return
		}
		close(elsewhere)
		fn()
		tids <- osthread.TID()
	}
	go run()
	return <-tids
}

// recordSession drives the lane's program-mode lifecycle through the
// recorder on the calling (locked) thread and returns a reference to the
// recorded library (target) taken right after Init (0 if none), and "" or
// what failed.
func recordSession(recPath, target string, aicpu, aicore, callable []byte) (uintptr, string) {
	w := lifecycle.New(lifecycle.Config{Mode: lifecycle.Program, DeviceID: 0, Loader: onboard.Loader{Path: recPath}})
	if err := w.Init(lifecycle.InitConfig{Aicpu: aicpu, Aicore: aicore}); err != nil {
		return 0, fmt.Sprintf("Init through the recorder: %v", err)
	}
	// RTLD_NOLOAD: a reference to the copy the recorder loaded, nothing run.
	hold, err := purego.Dlopen(target, purego.RTLD_NOW|purego.RTLD_LOCAL|rtldNoLoad)
	if err != nil {
		return 0, fmt.Sprintf("%s is not loaded after Init through the recorder: %v", target, err)
	}
	msg := func() string {
		if err := w.RegisterCallable(0, callable); err != nil {
			return fmt.Sprintf("RegisterCallable: %v", err)
		}
		for i := 0; i < 2; i++ {
			if err := w.Run(0, abi.NewTaskArgs(), nil); err != nil {
				return fmt.Sprintf("Run %d: %v", i, err)
			}
		}
		if err := w.UnregisterCallable(0); err != nil {
			return fmt.Sprintf("UnregisterCallable: %v", err)
		}
		if err := w.Close(); err != nil {
			return fmt.Sprintf("Close: %v", err)
		}
		return ""
	}()
	return hold, msg
}

// rtldNoLoad is RTLD_NOLOAD of glibc's dlfcn.h.
const rtldNoLoad = 0x4

// liveFindingRules reads the rules with a fail, crash, hang or known
// finding from an abicheck -json report.
func liveFindingRules(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the live run's report: %v (run the lane's abicheck first)", err)
	}
	var r struct { // docs/abicheck.md, "JSON": schema abicheck/v2
		Targets []struct {
			Findings []struct {
				Rule    string `json:"rule"`
				Verdict string `json:"verdict"`
			} `json:"findings"`
		} `json:"targets"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	rules := map[string]bool{}
	for _, tg := range r.Targets {
		for _, f := range tg.Findings {
			rules[f.Rule] = true
		}
	}
	return rules
}

func traceHas(tr *op.Trace, word string) bool {
	for _, c := range tr.Calls {
		if strings.Contains(c.Text, " "+word+" ") {
			return true
		}
	}
	return false
}
