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

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/lifecycle"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit"
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

	runtime.LockOSThread() // the worker's Init thread stays its thread (C-THREAD)
	defer runtime.UnlockOSThread()
	w := lifecycle.New(lifecycle.Config{Mode: lifecycle.Program, DeviceID: 0, Loader: onboard.Loader{Path: recPath}})
	if err := w.Init(lifecycle.InitConfig{Aicpu: aicpu, Aicore: aicore}); err != nil {
		t.Fatalf("Init through the recorder: %v", err)
	}
	if err := w.RegisterCallable(0, callable); err != nil {
		t.Fatalf("RegisterCallable: %v", err)
	}
	for i := 0; i < 2; i++ {
		if err := w.Run(0, abi.NewTaskArgs(), nil); err != nil {
			t.Fatalf("Run %d: %v", i, err)
		}
	}
	if err := w.UnregisterCallable(0); err != nil {
		t.Fatalf("UnregisterCallable: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
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
	for _, want := range []string{"pinit", "register", "run", "unregister", "finalize"} {
		if !traceHas(tr, want) {
			t.Errorf("the trace has no %s call", want)
		}
	}
}

// liveFindingRules reads the rules with a fail, crash, hang or known
// finding from an abicheck -json report.
func liveFindingRules(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the live run's report: %v (run the lane's abicheck first)", err)
	}
	var r struct {
		Findings []struct {
			Rule    string `json:"rule"`
			Verdict string `json:"verdict"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	rules := map[string]bool{}
	for _, f := range r.Findings {
		rules[f.Rule] = true
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
