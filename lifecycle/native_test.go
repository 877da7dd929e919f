package lifecycle

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
)

// The program-mode run path as upstream's ChipWorker takes it (issue #31,
// lanes/consumer/chipdiff, docs/upstream.md "ChipWorker and lifecycle,
// action by action"): Run composes the native phases the way ChipWorker's
// run lane does, PrepareNativeRun ... FinalizeNativeRun are ChipWorker's
// native-run phases, Close finishes the runs a caller left before
// finalize_device (E-FIN), and every failure is a StatusError with the
// entry's code or the worker's own refusal (C-ERR).

// runEntries are the calls of the run family the script saw, in order.
func runEntries(f *scriptRuntime) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		if strings.HasPrefix(c.name, "simpler_") && strings.HasSuffix(c.name, "_run") || c.name == "finalize_device" {
			out = append(out, strings.TrimPrefix(c.name, "simpler_"))
		}
	}
	return out
}

func resetCalls(f *scriptRuntime) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = nil
}

// errShape is what a test asserts of an error: the StatusError's Op and
// Code, or "" for nil.
func errShape(err error) string {
	if err == nil {
		return ""
	}
	se, ok := err.(*StatusError)
	if !ok {
		return "not a StatusError: " + err.Error()
	}
	return se.Op + " " + se.Code.String()
}

// C-ERR: Run goes through prepare, launch, poll and (when not ready) wait,
// then finalize, never simpler_run; each failure is its entry's code; a
// failure after the launch poisons later Runs (IS, no native call), a
// failure before it does not (upstream chip_run_lane.cpp's finish and
// poison_with).
func TestRun_phasesAsChipWorker_CERR(t *testing.T) {
	const bad, worse abi.Status = -93, -94
	tests := []struct {
		name     string
		script   map[string][]abi.Status
		calls    []string
		err      string
		poisoned bool
	}{
		{"poll ready", map[string][]abi.Status{"simpler_poll_run": {abi.PollComplete}},
			[]string{"prepare_run", "launch_run", "poll_run", "finalize_run"}, "", false},
		{"poll not ready: wait", nil,
			[]string{"prepare_run", "launch_run", "poll_run", "wait_run", "finalize_run"}, "", false},
		{"prepare fails", map[string][]abi.Status{"simpler_prepare_run": {bad}},
			[]string{"prepare_run"}, "simpler_prepare_run STATUS(-93)", false},
		{"launch fails, still in flight", map[string][]abi.Status{"simpler_launch_run": {bad}},
			[]string{"prepare_run", "launch_run", "poll_run", "finalize_run"}, "simpler_launch_run STATUS(-93)", false},
		{"launch fails, complete: its finalize reports it", map[string][]abi.Status{"simpler_launch_run": {bad}, "simpler_poll_run": {abi.PollComplete}},
			[]string{"prepare_run", "launch_run", "poll_run", "finalize_run"}, "simpler_launch_run STATUS(-93)", true},
		{"poll fails", map[string][]abi.Status{"simpler_poll_run": {bad}},
			[]string{"prepare_run", "launch_run", "poll_run", "wait_run", "finalize_run"}, "simpler_poll_run STATUS(-93)", true},
		{"poll fails and so does finalize", map[string][]abi.Status{"simpler_poll_run": {bad}, "simpler_finalize_run": {worse}},
			[]string{"prepare_run", "launch_run", "poll_run", "wait_run", "finalize_run"}, "simpler_finalize_run STATUS(-94)", true},
		{"wait fails", map[string][]abi.Status{"simpler_wait_run": {bad}},
			[]string{"prepare_run", "launch_run", "poll_run", "wait_run", "finalize_run"}, "simpler_wait_run STATUS(-93)", true},
		{"finalize fails", map[string][]abi.Status{"simpler_finalize_run": {bad}},
			[]string{"prepare_run", "launch_run", "poll_run", "wait_run", "finalize_run"}, "simpler_finalize_run STATUS(-93)", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lockThread(t)
			f := newScript()
			f.runScript = tc.script
			w := initScript(t, Program, f)
			if err := w.RegisterCallable(0, testImage(t)); err != nil {
				t.Fatal(err)
			}
			resetCalls(f)
			err := w.Run(0, abi.NewTaskArgs(), nil)
			if diff := cmp.Diff(tc.err, errShape(err)); diff != "" {
				t.Errorf("Run's error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.calls, runEntries(f)); diff != "" {
				t.Errorf("Run's calls (-want +got):\n%s", diff)
			}
			resetCalls(f)
			f.runScript = nil
			err = w.Run(0, abi.NewTaskArgs(), nil)
			if tc.poisoned {
				wantCode(t, err, abi.InvalidState)
				wantContains(t, err, "poisoned", tc.err[:strings.IndexByte(tc.err, ' ')])
				if n := f.ncalls(); n != 0 {
					t.Errorf("a poisoned Run made %d native calls", n)
				}
			} else if err != nil {
				t.Errorf("the next Run: %v", err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if n := f.count("simpler_run"); n != 0 {
				t.Errorf("simpler_run called %d times", n)
			}
			noViolations(t, f)
		})
	}
}

// C-ERR: a Run's CallConfig is checked as upstream's CallConfig::validate
// checks it, before any native call (IA); the descriptor is ChipWorker's
// for a direct run: slot 0, run_id and dispatch_id 0, the worker's next
// direct generation (a refused config spends one too, as the lane's does),
// a new epoch per prepare.
func TestRun_configAndDescriptorAsChipWorker_CERR(t *testing.T) {
	lockThread(t)
	f := newScript()
	f.runScript = map[string][]abi.Status{"simpler_poll_run": {abi.PollComplete, abi.PollComplete, abi.PollComplete}}
	w := initScript(t, Program, f)
	defer w.Close()
	if err := w.RegisterCallable(0, testImage(t)); err != nil {
		t.Fatal(err)
	}
	badRing := &abi.CallConfig{}
	badRing.RingTaskWindow[2] = 1000
	diag := &abi.CallConfig{EnableDepGen: 1}
	diagPrefixed := &abi.CallConfig{EnableDepGen: 1}
	if err := diagPrefixed.SetOutputPrefix("/tmp/out"); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		cfg  *abi.CallConfig
		code abi.Status
	}{{nil, abi.OK}, {badRing, abi.InvalidArgument}, {diag, abi.InvalidArgument}, {diagPrefixed, abi.OK}} {
		n := f.ncalls()
		err := w.Run(0, abi.NewTaskArgs(), step.cfg)
		if step.code == abi.OK {
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		wantCode(t, err, step.code)
		if f.ncalls() != n {
			t.Error("a refused config reached the runtime")
		}
	}
	var gens []uint64
	for _, d := range f.descs {
		if d.PipelineSlot != 0 || d.ArenaBank != 0 || d.RunID != 0 || d.DispatchID != 0 || d.AcceptedState != 0 {
			t.Errorf("descriptor %+v: want slot 0, bank 0, run_id 0, dispatch_id 0, no accepted_state", d)
		}
		gens = append(gens, d.Generation)
	}
	if diff := cmp.Diff([]uint64{1, 4}, gens); diff != "" {
		t.Errorf("direct generations (-want +got):\n%s", diff)
	}
	if len(f.descs) == 2 && f.descs[1].RunEpoch <= f.descs[0].RunEpoch {
		t.Errorf("run epochs %d then %d", f.descs[0].RunEpoch, f.descs[1].RunEpoch)
	}
}

// C-ERR, C-MODE, C-SINGLE: the native-run phases refuse what ChipWorker
// refuses, before any native call: a bad lease, a stale token or one in the
// wrong phase, a second run while one is unfinished, a stale generation; a
// kernel worker and a closed one refuse every phase.
func TestNativeRun_refusals_CERR_CMODE_CSINGLE(t *testing.T) {
	lockThread(t)
	f := newScript()
	w := initScript(t, Program, f)
	if err := w.RegisterCallable(0, testImage(t)); err != nil {
		t.Fatal(err)
	}
	args := abi.NewTaskArgs()
	r, err := w.PrepareNativeRun(0, args, nil, NativeRunLease{Generation: 3})
	if err != nil {
		t.Fatal(err)
	}
	refused := func(name string, code abi.Status, err error) {
		t.Helper()
		n := f.ncalls()
		if err == nil {
			t.Fatalf("%s: not refused", name)
		}
		wantCode(t, err, code)
		if f.ncalls() != n {
			t.Errorf("%s: refused after a native call", name)
		}
	}
	refused("poll before launch", abi.InvalidState, func() error { _, err := w.PollNativeRun(r); return err }())
	refused("wait before launch", abi.InvalidState, w.WaitNativeRun(r))
	refused("a second prepare", abi.InvalidState, func() error { _, err := w.PrepareNativeRun(0, args, nil, NativeRunLease{Generation: 4}); return err }())
	refused("a Run beside it", abi.InvalidState, w.Run(0, args, nil))
	if err := w.LaunchNativeRun(r); err != nil {
		t.Fatal(err)
	}
	refused("launch twice", abi.InvalidState, w.LaunchNativeRun(r))
	f.runScript = map[string][]abi.Status{"simpler_wait_run": {-93}}
	if err := w.WaitNativeRun(r); err != nil {
		t.Fatalf("wait returns no code of its own: %v", err)
	}
	if ready, err := w.PollNativeRun(r); !ready || err != nil {
		t.Fatalf("poll after wait: %v, %v (want true without a call)", ready, err)
	}
	if diff := cmp.Diff("simpler_wait_run STATUS(-93)", errShape(w.FinalizeNativeRun(r))); diff != "" {
		t.Errorf("finalize reports the wait's code (-want +got):\n%s", diff)
	}
	refused("finalize a stale token", abi.InvalidState, w.FinalizeNativeRun(r))
	refused("launch a stale token", abi.InvalidState, w.LaunchNativeRun(r))
	refused("generation 0", abi.InvalidArgument, func() error { _, err := w.PrepareNativeRun(0, args, nil, NativeRunLease{}); return err }())
	refused("slot past the depth", abi.InvalidArgument, func() error {
		_, err := w.PrepareNativeRun(0, args, nil, NativeRunLease{Slot: 1, Generation: 5})
		return err
	}())
	refused("a stale generation", abi.InvalidState, func() error { _, err := w.PrepareNativeRun(0, args, nil, NativeRunLease{Generation: 2}); return err }())
	refused("nil args", abi.InvalidArgument, func() error { _, err := w.PrepareNativeRun(0, nil, nil, NativeRunLease{Generation: 3}); return err }())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	refused("prepare after Close", abi.InvalidState, func() error { _, err := w.PrepareNativeRun(0, args, nil, NativeRunLease{Generation: 9}); return err }())
	refused("finalize after Close", abi.InvalidState, w.FinalizeNativeRun(r))

	kf := newScript()
	kw := initScript(t, Kernel, kf)
	defer kw.Close()
	for name, err := range map[string]error{
		"prepare":  func() error { _, err := kw.PrepareNativeRun(0, args, nil, NativeRunLease{Generation: 1}); return err }(),
		"launch":   kw.LaunchNativeRun(r),
		"poll":     func() error { _, err := kw.PollNativeRun(r); return err }(),
		"wait":     kw.WaitNativeRun(r),
		"finalize": kw.FinalizeNativeRun(r),
	} {
		wantCode(t, err, abi.InvalidState)
		wantContains(t, err, "C-MODE")
		_ = name
	}
	noViolations(t, f)
	noViolations(t, kf)
}

// E-FIN: finalize_device refuses while a native run is outstanding, so Close
// first finishes what the caller left, as ChipWorker's finalize does
// (chip_worker.cpp:905-928): a launched run is waited for, every run is
// finalized, whatever the codes.
func TestClose_finishesNativeRuns_EFIN(t *testing.T) {
	for _, tc := range []struct {
		name   string
		launch bool
		calls  []string
	}{
		{"prepared", false, []string{"finalize_run", "finalize_device"}},
		{"launched", true, []string{"wait_run", "finalize_run", "finalize_device"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lockThread(t)
			f := newScript()
			w := initScript(t, Program, f)
			if err := w.RegisterCallable(0, testImage(t)); err != nil {
				t.Fatal(err)
			}
			r, err := w.PrepareNativeRun(0, abi.NewTaskArgs(), nil, NativeRunLease{Generation: 1})
			if err != nil {
				t.Fatal(err)
			}
			if tc.launch {
				if err := w.LaunchNativeRun(r); err != nil {
					t.Fatal(err)
				}
			}
			f.runScript = map[string][]abi.Status{"simpler_finalize_run": {-93}}
			resetCalls(f)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.calls, runEntries(f)); diff != "" {
				t.Errorf("Close's calls (-want +got):\n%s", diff)
			}
			noViolations(t, f)
		})
	}
}

// E-PROG: DeviceFree passes every address on, 0 included, as ChipWorker's
// free does (chip_worker.cpp:1078-1083); the runtime ignores what is not a
// live allocation of the context.
func TestDeviceFree_forwardsEveryAddress_EPROG(t *testing.T) {
	lockThread(t)
	f := newScript()
	w := initScript(t, Program, f)
	defer w.Close()
	for _, p := range []abi.DevicePtr{0, 0x1000} {
		if err := w.DeviceFree(p); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.count("device_free_ctx"); n != 2 {
		t.Errorf("device_free_ctx called %d times, want 2", n)
	}
}
