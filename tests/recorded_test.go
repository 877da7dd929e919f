package tests

// This file imports no testing package, so that a libFuzzer build
// (fuzz/libfuzzer) can compile it as an ordinary file beside the harness
// of FuzzRecordedTraceAgreesWithLive.
//
// The differential net of recorded sessions (docs/trace.md, issue "Record
// anything, read everything"): an op sequence of the checker's generator
// runs live through the recording runtime over an emitted runtime, the
// checker's model judging every call as it goes; the trace the recorder
// wrote must parse, -check-trace must give the verdict the live model gave
// on the same calls, and -replay on sim must give every answer the
// recording holds. This file holds the harness; the fuzz target and the
// tests over it are in recorder_fuzz_test.go.

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/target/library"

	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/conformance/trace"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/tests/opfuzz"
)

// recordedMaxOps bounds one recorded sequence: every op's calls (and the
// runner's probes around them) become trace lines that are parsed,
// judged and replayed.
const recordedMaxOps = 120

// decodeRecorded is opfuzz.Decode for recorded runs: the same generator and
// op space, but without the fill to 8192 residents (M-4), whose 8192
// prepares would each write the image's hex into the trace.
func decodeRecorded(data []byte) (model.Profile, []op.Op) {
	c := conformance.NewByteChooser(data)
	p := model.ProfileTMR
	if c.IntN(4, "profile") == 3 {
		p = model.ProfileRefusing
	}
	g := opfuzz.NewGenerator(decodeConfig{Profile: p, Slots: 4, Devices: 3, HoldMs: holdMs, MaxHolds: 1, MaxOps: recordedMaxOps, NoFill: true})
	for !c.Exhausted() && len(g.Ops()) < recordedMaxOps {
		g.Next(c)
	}
	return p, g.Ops()
}

// recordedFakes are the emitted fakes of both profiles the recorded runs
// record over, built once per process.
var recordedFakes = sync.OnceValues(func() (map[model.Profile]*emittedRuntime, error) {
	out := map[model.Profile]*emittedRuntime{}
	for _, p := range profiles {
		a, err := buildEmitted(emit.Config{Profile: p.emit})
		if err != nil {
			return nil, err
		}
		if out[p.model], err = newEmittedRuntime(a); err != nil {
			return nil, err
		}
	}
	return out, nil
})

// recorderBytes is the recording runtime (kernel revision, hooks), built
// once per process; every run loads a private copy, since the recorder
// reads its environment when it is loaded.
var recorderBytes = sync.OnceValues(func() ([]byte, error) {
	art, err := emit.BuildRecorder(emit.RecorderConfig{}, emit.BuildOptions{})
	if err != nil {
		return nil, err
	}
	return os.ReadFile(art.RuntimePath)
})

// recordEnvMu serializes setting the recorder's environment and loading it
// (the recorder reads SIMABI_RECORD_* in its constructor, from the C
// environment, which os.Setenv updates in a cgo-free process through
// purego's fakecgo and in a cgo one through libc's setenv).
var recordEnvMu sync.Mutex

// loadRecorder loads the recorder at rec with its environment pointing at
// target and the trace file, and restores the environment.
func loadRecorder(rec, target, trace string) (*onboard.Library, error) {
	recordEnvMu.Lock()
	defer recordEnvMu.Unlock()
	env := map[string]string{"SIMABI_RECORD_TARGET": target, "SIMABI_RECORD_FILE": trace,
		"SIMABI_RECORD_PRELOAD": "", "SIMABI_RECORD_IMAGE_LIMIT": ""}
	old := map[string]*string{}
	for k, v := range env {
		if o, ok := os.LookupEnv(k); ok {
			old[k] = &o
		} else {
			old[k] = nil
		}
		os.Setenv(k, v)
	}
	defer func() {
		for k, o := range old {
			if o == nil {
				os.Unsetenv(k)
			} else {
				os.Setenv(k, *o)
			}
		}
	}()
	return onboard.Open(rec, onboard.Options{BindKernelWhenUnsupported: true})
}

// recordedRun is one sequence run live through the recorder.
type recordedRun struct {
	ops   []op.Op
	live  *conformance.Result
	trace *op.Trace
	check *trace.Outcome
	text  string // the trace file
}

// runRecorded runs ops live through a fresh recorder over a fresh instance
// of e, the trace going to dir, and reads and judges the trace.
func runRecorded(e *emittedRuntime, ops []op.Op, dir string) (*recordedRun, error) {
	recLib, err := recorderBytes()
	if err != nil {
		return nil, err
	}
	tgt, tdir, err := e.instance()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tdir)
	rec := filepath.Join(tdir, "recorder", "libhost_runtime.so")
	if err := os.MkdirAll(filepath.Dir(rec), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(rec, recLib, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "trace.ops")
	lib, err := loadRecorder(rec, tgt, path)
	if err != nil {
		return nil, err
	}
	acl, _ := fakeACL(e.a.ACLPath)
	r := conformance.NewRunner(library.Target(lib, acl), conformance.Options{})
	live := r.Run(ops)
	stuck := r.Dirty()
	r.Close()
	// A comm call that never returned (a mutant's hang) keeps a thread
	// inside the recorder: it is not unloaded then (nor after a run the
	// model lost track of, which Dirty also reports), and the call's
	// in-flight record stands for it in the trace.
	if !stuck {
		if err := lib.Close(); err != nil {
			return nil, fmt.Errorf("closing the recorder: %v", err)
		}
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	tr, err := op.ReadTraceFile(path)
	if err != nil {
		return &recordedRun{ops: ops, live: live, text: string(text)}, err
	}
	return &recordedRun{ops: ops, live: live, trace: tr, check: trace.Check(tr, trace.Options{}), text: string(text)}, nil
}

// failedRules are the rules a report fails (fail, crash or hang).
func failedRules(rep *report.Report) []string {
	var out []string
	for _, rr := range rep.Rules {
		if rr.Verdict == model.Fail || rr.Verdict == model.Crash || rr.Verdict == model.Hang {
			out = append(out, rr.Rule)
		}
	}
	sort.Strings(out)
	return out
}

// liveFailedRules are the rules the live model failed.
func liveFailedRules(res *conformance.Result) []string {
	var out []string
	for _, f := range res.Findings {
		if f.Verdict == model.Fail && !slices.Contains(out, f.Rule.String()) {
			out = append(out, f.Rule.String())
		}
	}
	sort.Strings(out)
	return out
}

// traceReport renders what a failing check of a recorded run shows.
func (rr *recordedRun) report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "op log (%d ops):\n%s", len(rr.ops), op.FormatOps(rr.ops))
	if rr.live != nil {
		fmt.Fprintf(&b, "live history:\n%s", clipLines(rr.live.History.String()))
	}
	if rr.check != nil {
		for _, f := range rr.check.Result.Findings {
			if f.Verdict == model.Fail {
				fmt.Fprintf(&b, "trace finding: %s\n", f)
			}
		}
		for _, d := range rr.check.Deaths {
			fmt.Fprintf(&b, "trace death: %v %s\n", d.Verdict, d.Detail)
		}
		if rr.check.Note != "" {
			fmt.Fprintf(&b, "trace note: %s\n", rr.check.Note)
		}
	}
	fmt.Fprintf(&b, "trace:\n%s", clipLines(rr.text))
	return b.String()
}

// agreeOnFake is the verdict check over a runtime that keeps the contract:
// the live model passed every call, so the trace must check clean. (A hold
// op's overlap is certain, not timed: the recorder forwards the control
// hooks, so the runner parks the prepare in the fake.)
func (rr *recordedRun) agreeOnFake() error {
	live := liveFailedRules(rr.live)
	if len(live) > 0 {
		return fmt.Errorf("the live model flagged %v over the fake", live)
	}
	if got := failedRules(rr.check.Report()); len(got) > 0 {
		return fmt.Errorf("-check-trace flagged %v where the live model passed every call", got)
	}
	return nil
}

// replayOnSim replays the trace's consumer side on sim (the profile the
// trace was judged under) and returns the calls that answered differently
// from the recording. Calls from the first one that overlapped a call of
// another thread on are left out: a replay is serial, and which of two
// overlapping calls won is the scheduler's.
func (rr *recordedRun) replayOnSim() ([]string, error) {
	p := sim.TMR
	if rr.check.Profile == model.ProfileRefusing {
		p = sim.Refusing
	}
	ops, calls, left := trace.Ops(rr.trace)
	out := conformance.FactoryExecutor{Factory: target.SimFactory(p)}.Execute(ops, true)
	if out.Verdict != model.Pass {
		return nil, fmt.Errorf("the replay on sim %s at %s: %s", out.Verdict, conformance.OpAt(ops, out.At), out.Detail)
	}
	firstOverlap := firstOverlappingCall(rr.trace)
	var diffs []string
	for _, r := range trace.CompareReplay(rr.trace, ops, calls, left, out.History) {
		if r.Differs() && rr.trace.Calls[r.Call].B < firstOverlap {
			diffs = append(diffs, r.String())
		}
	}
	return diffs, nil
}

// firstOverlappingCall is the B of the first call whose interval overlaps
// a call of another thread (MaxUint64: none).
func firstOverlappingCall(t *op.Trace) uint64 {
	first := ^uint64(0)
	for i := range t.Calls {
		for j := range t.Calls {
			a, b := &t.Calls[i], &t.Calls[j]
			if a.Thread != b.Thread && a.B < b.E && b.B < a.E {
				first = min(first, a.B, b.B)
			}
		}
	}
	return first
}

var errNoCompiler = emit.ErrNoCompiler

// isNoCompiler reports a missing C compiler.
func isNoCompiler(err error) bool { return errors.Is(err, errNoCompiler) }
