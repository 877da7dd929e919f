package lifecycle

// Tests of the Worker against scriptRuntime, the scripted Go runtime of
// fake_test.go (upstream's _FakeKernelChip, in Go). The same cases against
// the emitted fake runtime and against sim are in emit_test.go and
// sim_test.go.

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
)

// Construction touches nothing native; the default mode is program.
// (§6.3 TestConstruction.)
func TestNewTouchesNothing(t *testing.T) {
	for _, mode := range []Mode{Program, Kernel} {
		f := newScript()
		w := scriptWorker(mode, f)
		if got := w.Mode(); got != mode {
			t.Errorf("Mode() = %v, want %v", got, mode)
		}
		if n := f.ncalls(); n != 0 {
			t.Errorf("%v: New made %d native calls", mode, n)
		}
		if l, p, _, _, _ := f.snapshot(); l+p != 0 {
			t.Errorf("%v: New loaded the runtime (%d loads, %d probe loads)", mode, l, p)
		}
		if w.Initialized() || w.KernelModeSupported() {
			t.Errorf("%v: a new worker reads initialized or supported", mode)
		}
	}
	if (Config{}).Mode != Program {
		t.Error("the zero Mode is not Program")
	}
	if w := New(Config{Loader: scriptLoader{newScript()}}); w.Mode() != Program || w.budget != DefaultCloseBudget {
		t.Errorf("defaults: mode %v budget %v", w.Mode(), w.budget)
	}
}

// C-ERR: Init refuses bad arguments with INVALID_ARGUMENT before loading
// anything, leaves the worker uninitialized, and a correct Init then works.
// (§6.3 TestInitArguments; §6.1 TestCallConfig's ring validation; §6.1
// TestChipWorkerStateMachine negative device_id.)
func TestInitArgumentsRefusedBeforeLoad(t *testing.T) {
	lockThread(t)
	ring := func(mut func(c *abi.CallConfig)) *abi.CallConfig {
		c := kernelConfig()
		mut(c)
		return c
	}
	cases := []struct {
		name   string
		mode   Mode
		device int32
		cfg    InitConfig
		want   string
	}{
		{"kernel without config", Kernel, 0, InitConfig{}, "requires InitConfig.Config"},
		{"kernel with EnableSDMA", Kernel, 0, InitConfig{Config: kernelConfig(), EnableSDMA: true}, "SDMA"},
		{"kernel with SDMA warm-up", Kernel, 0, InitConfig{Config: kernelConfig(), SDMAWarmup: []byte{1}}, "SDMA"},
		{"negative device", Kernel, -1, InitConfig{Config: kernelConfig()}, "DeviceID"},
		{"program negative device", Program, -1, InitConfig{}, "DeviceID"},
		{"ring task window 3", Kernel, 0, InitConfig{Config: ring(func(c *abi.CallConfig) { c.RingTaskWindow[0] = 3 })}, "ring 0"},
		{"ring task window 48", Kernel, 0, InitConfig{Config: ring(func(c *abi.CallConfig) { c.RingTaskWindow[1] = 48 })}, "ring 1"},
		{"ring heap 512", Kernel, 0, InitConfig{Config: ring(func(c *abi.CallConfig) { c.RingHeap[2] = 512 })}, "ring 2"},
		{"ring dep pool 3", Kernel, 0, InitConfig{Config: ring(func(c *abi.CallConfig) { c.RingDepPool[3] = 3 })}, "ring 3"},
		{"ring dep pool 2^31", Kernel, 0, InitConfig{Config: ring(func(c *abi.CallConfig) { c.RingDepPool[0] = 1 << 31 })}, "ring 0"},
		{"program prewarm ring", Program, 0, InitConfig{Config: ring(func(c *abi.CallConfig) { c.RingHeap[0] = 512 })}, "ring 0"},
		{"unknown mode", Mode(7), 0, InitConfig{Config: kernelConfig()}, "unknown execution mode"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lockThread(t)
			f := newScript()
			lg, _ := newLogger()
			w := New(Config{Mode: tc.mode, DeviceID: tc.device, Loader: scriptLoader{f}, Logger: lg})
			err := w.Init(tc.cfg)
			se := wantCode(t, err, abi.InvalidArgument)
			if se.Op != "Worker.Init" {
				t.Errorf("Op = %q", se.Op)
			}
			wantContains(t, err, tc.want)
			if n := f.ncalls(); n != 0 {
				t.Errorf("refused Init made %d native calls", n)
			}
			if l, _, _, _, _ := f.snapshot(); l != 0 {
				t.Errorf("refused Init loaded the runtime")
			}
			if w.Initialized() {
				t.Error("refused Init left the worker initialized")
			}
			if tc.mode == Kernel && tc.device >= 0 { // then a correct Init reaches READY
				if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
					t.Fatalf("correct Init after a refusal: %v", err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			}
			noViolations(t, f)
		})
	}
	t.Run("nil loader", func(t *testing.T) {
		lockThread(t)
		w := New(Config{Mode: Kernel})
		wantCode(t, w.Init(InitConfig{Config: kernelConfig()}), abi.InvalidArgument)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// C-GEN: generations come from a process-wide counter 1, 2, 3, ...; Init
// takes the next one unless the caller gives its own.
func TestGenerationCounter(t *testing.T) {
	lockThread(t)
	a := NextGeneration()
	b := NextGeneration()
	if a == 0 || b != a+1 {
		t.Fatalf("NextGeneration: %d then %d, want n then n+1 (n >= 1)", a, b)
	}
	f := newScript()
	w := initScript(t, Kernel, f)
	defer w.Close()
	if got := f.kinits[0].generation; got != b+1 {
		t.Errorf("Init passed generation %d, want the next of the process counter %d", got, b+1)
	}
	f2 := newScript()
	w2 := scriptWorker(Kernel, f2)
	if err := w2.Init(InitConfig{Config: kernelConfig(), Generation: 77}); err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if got := f2.kinits[0].generation; got != 77 {
		t.Errorf("a caller generation was replaced: got %d, want 77", got)
	}
	if c := NextGeneration(); c != b+2 {
		t.Errorf("a caller-supplied generation consumed the counter: next %d, want %d", c, b+2)
	}
}

// §6.3 TestInitRouting: Init reaches READY through one load and one kernel
// init carrying the device, the binaries, the config and a generation, with
// nothing prepared.
func TestKernelInitRouting(t *testing.T) {
	lockThread(t)
	f := newScript()
	lg, _ := newLogger()
	w := New(Config{Mode: Kernel, DeviceID: 3, Loader: scriptLoader{f}, Logger: lg})
	cfg := kernelConfig()
	cfg.AicpuThreadNum = 3
	if err := cfg.SetOutputPrefix("/tmp/out"); err != nil {
		t.Fatal(err)
	}
	if err := w.Init(InitConfig{Aicpu: []byte{1, 2}, Aicore: []byte{3}, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	if l, p, _, created, _ := f.snapshot(); l != 1 || p != 0 || created != 1 {
		t.Errorf("loads %d, probe loads %d, contexts %d; want 1, 0, 1", l, p, created)
	}
	want := []string{"create_device_context", "simpler_kernel_mode_supported", "simpler_kernel_mode_init"}
	var got []string
	for _, c := range f.calls {
		got = append(got, c.name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("native calls %q, want %q", got, want)
	}
	ki := f.kinits[0]
	if ki.device != 3 || ki.aicpuN != 2 || ki.aicoreN != 1 || ki.dispN != 0 || ki.generation == 0 {
		t.Errorf("kernel init got %+v", ki)
	}
	if !slices.Equal(ki.config, cfg.Bytes()) {
		t.Error("kernel init did not get the caller's config bytes")
	}
	if !w.Initialized() || !w.KernelModeSupported() || len(w.native.images) != 0 {
		t.Error("not READY with nothing prepared")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	noViolations(t, f)
}

// C-KINIT, C-OWED, C-ERR: the failure paths of kernel Init.
// (§6.1 test_unsupported_kernel_init_is_typed_with_its_code,
// test_kernel_init_failure_carries_the_entry_status,
// test_refusals_before_any_resource_skip_the_device_teardown,
// test_init_failure_with_a_failed_teardown_owes_a_retry; §6.3 TestInitRouting
// "a raising kernel_init rolls back ... with one finalize on the calling
// thread" and "a failed kernel init arms no GC pin".)
func TestKernelInitFailurePaths(t *testing.T) {
	cases := []struct {
		name          string
		supported     int32
		rc            abi.Status
		finalizeFails int
		wantCode      abi.Status
		wantFinalize  int
		wantOwed      bool
		wantUnsup     bool
		wantMsg       []string
	}{
		{name: "INVALID_ARGUMENT skips finalize", supported: 1, rc: abi.InvalidArgument, wantCode: abi.InvalidArgument,
			wantMsg: []string{"simpler_kernel_mode_init failed with INVALID_ARGUMENT(-1004)"}},
		{name: "UNSUPPORTED skips finalize", supported: 1, rc: abi.Unsupported, wantCode: abi.Unsupported, wantUnsup: true,
			wantMsg: []string{"simpler_kernel_mode_init failed with UNSUPPORTED(-1001)"}},
		{name: "other status finalizes first", supported: 1, rc: -91, wantCode: -91, wantFinalize: 1,
			wantMsg: []string{"simpler_kernel_mode_init failed with", "(-91)"}},
		{name: "INVALID_STATE finalizes first", supported: 1, rc: abi.InvalidState, wantCode: abi.InvalidState, wantFinalize: 1},
		{name: "failed teardown owes a retry", supported: 1, rc: -91, finalizeFails: 1, wantCode: -91, wantFinalize: 1, wantOwed: true,
			wantMsg: []string{"simpler_kernel_mode_init failed with", "(-91)", "finalize_device failed with", "(-77)", "Close"}},
		{name: "supported 0 is UNSUPPORTED before the entry", supported: 0, wantCode: abi.Unsupported, wantUnsup: true,
			wantMsg: []string{"does not support kernel mode"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lockThread(t)
			f := newScript()
			f.supported, f.kernelInitRC, f.finalizeFails = tc.supported, tc.rc, tc.finalizeFails
			pinned := PinnedWorkers()
			w := scriptWorker(Kernel, f)
			err := w.Init(InitConfig{Config: kernelConfig()})
			wantCode(t, err, tc.wantCode)
			wantContains(t, err, tc.wantMsg...)
			if got := errors.Is(err, ErrUnsupported); got != tc.wantUnsup {
				t.Errorf("errors.Is(err, ErrUnsupported) = %v, want %v", got, tc.wantUnsup)
			}
			if tc.supported == 0 && f.count("simpler_kernel_mode_init") != 0 {
				t.Error("the kernel init entry was reached on a runtime whose supported is 0")
			}
			fin := f.callsOf("finalize_device")
			if len(fin) != tc.wantFinalize {
				t.Fatalf("finalize_device called %d times, want %d", len(fin), tc.wantFinalize)
			}
			if len(fin) == 1 && fin[0].thread != f.callsOf("simpler_kernel_mode_init")[0].thread {
				t.Error("the rollback finalize ran on another OS thread than the init")
			}
			if w.Initialized() || w.KernelModeSupported() {
				t.Error("a failed Init reads initialized or supported (C-SUPPORTED)")
			}
			if w.armed || PinnedWorkers() != pinned {
				t.Error("a failed kernel Init armed the GC pin (C-LEAK)")
			}
			_, _, closes, _, _ := f.snapshot()
			if tc.wantOwed {
				if !w.TeardownOwed() || f.liveContexts() != 1 || closes != 0 {
					t.Fatalf("owed: TeardownOwed %v, live %d, unloads %d; want true, 1, 0", w.TeardownOwed(), f.liveContexts(), closes)
				}
				// C-OWED: Init refuses with IS; only Close reaches the context.
				before := f.ncalls()
				wantCode(t, w.Init(InitConfig{Config: kernelConfig()}), abi.InvalidState)
				_, perr := w.PrepareCallable(testImage(t))
				wantCode(t, perr, abi.InvalidState)
				_, cerr := w.CommittedDeviceMemory()
				wantCode(t, cerr, abi.InvalidState)
				if f.ncalls() != before {
					t.Error("an owed worker made a native call outside Close")
				}
				if err := w.Close(); err != nil {
					t.Fatalf("Close of an owed worker: %v", err)
				}
				if f.count("finalize_device") != 2 || f.liveContexts() != 0 {
					t.Error("Close did not retry the teardown and destroy the context")
				}
			} else {
				if w.TeardownOwed() || f.liveContexts() != 0 || closes != 1 {
					t.Fatalf("not owed: TeardownOwed %v, live %d, unloads %d; want false, 0, 1", w.TeardownOwed(), f.liveContexts(), closes)
				}
				// Nothing is left: the same worker may Init again.
				f.supported, f.kernelInitRC = 1, abi.OK
				if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
					t.Fatalf("re-Init after a clean failure: %v", err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			}
			noViolations(t, f)
		})
	}
}

// C-SUPPORTED: KernelModeSupported is false whenever the worker is not
// initialized and never calls the runtime. (§6.1
// test_supported_is_false_whenever_no_runtime_is_bound.)
func TestKernelModeSupportedOnlyWhileInitialized(t *testing.T) {
	lockThread(t)
	f := newScript()
	f.finalizeFails = 1
	w := scriptWorker(Kernel, f)
	if w.KernelModeSupported() {
		t.Error("true before Init")
	}
	if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
		t.Fatal(err)
	}
	n := f.count("simpler_kernel_mode_supported")
	if !w.KernelModeSupported() {
		t.Error("false after a successful kernel Init")
	}
	if f.count("simpler_kernel_mode_supported") != n {
		t.Error("KernelModeSupported called the runtime")
	}
	wantCode(t, w.Close(), -77)
	if w.KernelModeSupported() {
		t.Error("true after a failed teardown")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.KernelModeSupported() {
		t.Error("true after Close")
	}
	// Program mode answers for the runtime it is bound to.
	for _, sup := range []int32{0, 1} {
		f := newScript()
		f.supported = sup
		w := initScript(t, Program, f)
		if got := w.KernelModeSupported(); got != (sup != 0) {
			t.Errorf("program worker on supported=%d: %v", sup, got)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		noViolations(t, f)
	}
}

// C-PROBE: the probe loads for probing only, makes a fresh context, asks,
// destroys it and unloads; it needs no Init and no device; the answer is
// cached, an error is not. (§6.2 TestChipWorkerKernelProbe; §6.3
// TestKernelModeSupported.)
func TestProbeKernelMode(t *testing.T) {
	for _, sup := range []int32{0, 1} {
		for _, mode := range []Mode{Program, Kernel} {
			f := newScript()
			f.supported = sup
			w := scriptWorker(mode, f)
			got, err := w.ProbeKernelMode()
			if err != nil || got != (sup != 0) {
				t.Fatalf("%v probe on supported=%d: %v, %v", mode, sup, got, err)
			}
			loads, probes, closes, created, destroyed := f.snapshot()
			if loads != 0 || probes != 1 || closes != 1 || created != 1 || destroyed != 1 || f.liveContexts() != 0 {
				t.Errorf("probe: loads %d probe-loads %d unloads %d created %d destroyed %d", loads, probes, closes, created, destroyed)
			}
			var names []string
			for _, c := range f.calls {
				names = append(names, c.name)
			}
			if want := []string{"create_device_context", "simpler_kernel_mode_supported", "destroy_device_context"}; !slices.Equal(names, want) {
				t.Errorf("probe calls %q, want %q (no device, nothing else)", names, want)
			}
			if w.Initialized() {
				t.Error("the probe initialized the worker")
			}
			if got2, err := w.ProbeKernelMode(); err != nil || got2 != got {
				t.Error("cached answer differs")
			}
			if _, p, _, _, _ := f.snapshot(); p != 1 {
				t.Error("the answer was not cached")
			}
			noViolations(t, f)
		}
	}
	t.Run("READY kernel worker answers true without probing", func(t *testing.T) {
		lockThread(t)
		f := newScript()
		w := initScript(t, Kernel, f)
		defer w.Close()
		if ok, err := w.ProbeKernelMode(); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if _, p, _, _, _ := f.snapshot(); p != 0 {
			t.Error("probed")
		}
	})
	t.Run("a load error propagates and is not cached", func(t *testing.T) {
		f := newScript()
		f.probeErr = errScriptNoLibrary
		w := scriptWorker(Kernel, f)
		_, err := w.ProbeKernelMode()
		wantCode(t, err, abi.Internal)
		if !errors.Is(err, errScriptNoLibrary) {
			t.Errorf("the loader's error is not wrapped: %v", err)
		}
		if f.count("create_device_context") != 0 {
			t.Error("a context was created")
		}
		if ok, err := w.ProbeKernelMode(); !ok || err != nil {
			t.Errorf("after the error cleared: %v, %v", ok, err)
		}
	})
	t.Run("package function", func(t *testing.T) {
		f := newScript()
		f.supported = 0
		if ok, err := ProbeKernelModeSupported(scriptLoader{f}); ok || err != nil {
			t.Fatal(ok, err)
		}
		f.createReturns0 = true
		_, err := ProbeKernelModeSupported(scriptLoader{f})
		wantCode(t, err, abi.Internal)
		wantContains(t, err, "create_device_context")
		_, err = ProbeKernelModeSupported(nil)
		wantCode(t, err, abi.InvalidArgument)
	})
}

// C-IMG, C-ERR: PrepareCallable returns the id the runtime minted and keeps
// the image it passed until Close. (§6.1
// test_prepare_returns_the_id_the_runtime_minted,
// test_prepare_keeps_the_callable_under_the_minted_id,
// test_failed_prepare_keeps_nothing,
// test_prepare_success_without_an_id_is_an_internal_error; §6.3 TestPrepare.)
func TestPrepareCallable(t *testing.T) {
	lockThread(t)
	f := newScript()
	f.prepareIDs = []int32{5, 42}
	w := initScript(t, Kernel, f)
	img := testImage(t)
	id, err := w.PrepareCallable(img)
	if err != nil || id != 5 {
		t.Fatalf("PrepareCallable = %d, %v; want the minted 5", id, err)
	}
	if kept := w.native.images[5]; unsafe.SliceData(kept) != unsafe.SliceData(img) {
		t.Error("an aligned image was not passed and kept as is")
	}
	mis := misaligned(img)
	id2, err := w.PrepareCallable(mis)
	if err != nil || id2 != 42 {
		t.Fatalf("second PrepareCallable = %d, %v; want 42", id2, err)
	}
	kept := w.native.images[42]
	if uintptr(unsafe.Pointer(unsafe.SliceData(kept)))%16 != 0 || !slices.Equal(kept, img) {
		t.Error("a misaligned image was not copied into an aligned buffer")
	}
	if unsafe.SliceData(f.prepared[1]) != unsafe.SliceData(kept) {
		t.Error("the kept buffer is not the one the runtime got")
	}
	if w.gate.held.Load() {
		t.Error("prepare left the gate held")
	}

	// A failing status is forwarded and keeps nothing.
	f.prepareRC = -92
	_, err = w.PrepareCallable(img)
	se := wantCode(t, err, -92)
	if se.Op != "simpler_kernel_mode_prepare_callable" {
		t.Errorf("Op = %q", se.Op)
	}
	wantContains(t, err, "simpler_kernel_mode_prepare_callable failed with", "(-92)")
	if len(w.native.images) != 2 || len(w.native.orphans) != 0 {
		t.Error("a failed prepare kept something")
	}

	// Success without an id is INTERNAL; the image is kept, nothing launchable.
	f.prepareRC, f.prepareNoID = abi.OK, true
	id3, err := w.PrepareCallable(img)
	wantCode(t, err, abi.Internal)
	wantContains(t, err, "without a callable id")
	if id3 != -1 || len(w.native.orphans) != 1 {
		t.Errorf("id %d, orphans %d", id3, len(w.native.orphans))
	}
	if w.gate.held.Load() {
		t.Error("the gate is held after the INTERNAL error")
	}
	wantCode(t, w.Launch(-1, abi.NewTaskArgs(), 1), abi.InvalidArgument)
	// An id outside the id space is no id either.
	f.prepareNoID, f.prepareIDs = false, []int32{abi.MaxRegisteredCallableIDs}
	_, err = w.PrepareCallable(img)
	wantCode(t, err, abi.Internal)
	wantContains(t, err, "got 8192")
	if len(w.native.orphans) != 2 {
		t.Error("the image of an out-of-range id was not kept")
	}
	wantCode(t, w.Launch(abi.MaxRegisteredCallableIDs, abi.NewTaskArgs(), 1), abi.InvalidArgument)

	// An empty image is refused before the entry.
	n := f.ncalls()
	_, err = w.PrepareCallable(nil)
	wantCode(t, err, abi.InvalidArgument)
	if f.ncalls() != n {
		t.Error("an empty image reached the runtime")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.native != nil {
		t.Error("Close kept the images")
	}
	_, err = w.PrepareCallable(img)
	wantCode(t, err, abi.InvalidState)
	wantContains(t, err, "closed")
	noViolations(t, f)
}

// Before Init, prepare and launch refuse with INVALID_STATE. (§6.1
// test_unbound_kernel_entries_refuse_with_invalid_state; §6.3 TestPrepare,
// TestLaunch "refused before init".)
func TestKernelOpsBeforeInit(t *testing.T) {
	f := newScript()
	w := scriptWorker(Kernel, f)
	_, err := w.PrepareCallable(testImage(t))
	wantCode(t, err, abi.InvalidState)
	wantContains(t, err, "not initialized")
	wantCode(t, w.Launch(0, abi.NewTaskArgs(), 1), abi.InvalidState)
	if f.ncalls() != 0 {
		t.Error("native calls before Init")
	}
}

// C-ID: Launch forwards (id, args, stream) unchanged, and checks, before any
// native call and in this order: mode (IS) → stream 0 (IA) → args nil (IA) →
// gate held (IS) → not initialized or closed (IS) → id not minted (IA).
// (§6.1 test_null_launch_stream_is_refused_before_the_entry,
// test_prepare_and_launch_failures_carry_their_codes; §6.3 TestLaunch.)
func TestLaunchChecks(t *testing.T) {
	lockThread(t)
	f := newScript()
	w := initScript(t, Kernel, f)
	id, err := w.PrepareCallable(testImage(t))
	if err != nil {
		t.Fatal(err)
	}
	args := abi.NewTaskArgs()
	if err := w.Launch(id, args, 0xabc); err != nil {
		t.Fatal(err)
	}
	l := f.launches[0]
	if l.id != id || l.args != args.Pointer() || l.stream != 0xabc {
		t.Errorf("launch got (%d, %p, %#x), want (%d, %p, 0xabc)", l.id, l.args, l.stream, id, args.Pointer())
	}

	prog := initScript(t, Program, newScript())
	defer prog.Close()
	fresh := scriptWorker(Kernel, newScript())
	holdGate := func(w *Worker) func() {
		if !w.gate.tryLock() {
			t.Fatal("gate busy")
		}
		return w.gate.unlock
	}
	type step struct {
		name  string
		w     *Worker
		id    int32
		args  *abi.TaskArgs
		strm  abi.Stream
		hold  bool
		code  abi.Status
		parts []string
	}
	cases := []step{
		{"mode before everything", prog, 9999, nil, 0, true, abi.InvalidState, []string{"kernel-mode"}},
		{"stream before args", w, id, nil, 0, true, abi.InvalidArgument, []string{"stream"}},
		{"args before gate", w, id, nil, 1, true, abi.InvalidArgument, []string{"args"}},
		{"zero-value TaskArgs", w, id, &abi.TaskArgs{}, 1, false, abi.InvalidArgument, []string{"args"}},
		{"gate before state", fresh, 9999, args, 1, true, abi.InvalidState, []string{"gate"}},
		{"state before id", fresh, 9999, args, 1, false, abi.InvalidState, []string{"not initialized"}},
		{"unknown id", w, id + 1, args, 1, false, abi.InvalidArgument, []string{"not returned by this worker"}},
		{"negative id", w, -1, args, 1, false, abi.InvalidArgument, []string{"not returned"}},
		{"id past the id space", w, abi.MaxRegisteredCallableIDs, args, 1, false, abi.InvalidArgument, []string{"not returned"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := f.ncalls()
			var release func()
			if tc.hold {
				release = holdGate(tc.w)
			}
			err := tc.w.Launch(tc.id, tc.args, tc.strm)
			if release != nil {
				release()
			}
			se := wantCode(t, err, tc.code)
			if se.Op != "Worker.Launch" {
				t.Errorf("Op = %q", se.Op)
			}
			wantContains(t, err, tc.parts...)
			if f.ncalls() != before {
				t.Error("a refused launch reached the runtime")
			}
		})
	}

	f.launchRC = -93
	err = w.Launch(id, args, 1)
	se := wantCode(t, err, -93)
	if se.Op != "simpler_kernel_mode_launch" {
		t.Errorf("Op = %q", se.Op)
	}
	wantContains(t, err, "simpler_kernel_mode_launch failed with", "(-93)")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	before := f.ncalls()
	wantCode(t, w.Launch(id, args, 1), abi.InvalidState) // closed
	if f.ncalls() != before {
		t.Error("a launch after Close reached the runtime")
	}
	noViolations(t, f)
}

// C-MODE: a kernel worker refuses every program operation and a program
// worker refuses the kernel operations, with IS, before any native call, at
// NEW and at READY; committed device memory works in both. (§6.3
// TestModeGuards.)
func TestModeGuards(t *testing.T) {
	lockThread(t)
	img := testImage(t)
	args := abi.NewTaskArgs()
	programOps := map[string]func(w *Worker) error{
		"RegisterCallable":   func(w *Worker) error { return w.RegisterCallable(0, img) },
		"UnregisterCallable": func(w *Worker) error { return w.UnregisterCallable(0) },
		"Run":                func(w *Worker) error { return w.Run(0, args, nil) },
		"DeviceMalloc":       func(w *Worker) error { _, err := w.DeviceMalloc(64); return err },
		"DeviceFree":         func(w *Worker) error { return w.DeviceFree(0x1000) },
		"CopyToDevice":       func(w *Worker) error { return w.CopyToDevice(0x1000, []byte{1}) },
		"CopyFromDevice":     func(w *Worker) error { return w.CopyFromDevice(make([]byte, 1), 0x1000) },
		"DeviceMemoryInfo":   func(w *Worker) error { _, err := w.DeviceMemoryInfo(); return err },
	}
	kernelOps := map[string]func(w *Worker) error{
		"PrepareCallable": func(w *Worker) error { _, err := w.PrepareCallable(img); return err },
		"Launch":          func(w *Worker) error { return w.Launch(0, args, 1) },
	}
	check := func(t *testing.T, w *Worker, f *scriptRuntime, ops map[string]func(*Worker) error, want string) {
		for name, op := range ops {
			before := f.ncalls()
			err := op(w)
			wantCode(t, err, abi.InvalidState)
			wantContains(t, err, want, "C-MODE")
			if f.ncalls() != before {
				t.Errorf("%s reached the runtime on the wrong mode", name)
			}
		}
	}
	for _, ready := range []bool{false, true} {
		fk, fp := newScript(), newScript()
		kw, pw := scriptWorker(Kernel, fk), scriptWorker(Program, fp)
		if ready {
			kw, pw = initScript(t, Kernel, fk), initScript(t, Program, fp)
		}
		check(t, kw, fk, programOps, "program-mode")
		check(t, pw, fp, kernelOps, "kernel-mode")
		if ready {
			fk.committedKernel = 4096
			if got, err := kw.CommittedDeviceMemory(); err != nil || got != 4096 {
				t.Errorf("CommittedDeviceMemory on a kernel worker: %d, %v", got, err)
			}
			if _, err := pw.CommittedDeviceMemory(); err != nil {
				t.Errorf("CommittedDeviceMemory on a program worker: %v", err)
			}
		}
		kw.Close()
		pw.Close()
		noViolations(t, fk)
		noViolations(t, fp)
	}
}

// The program-mode operations reach their entries; host-side refusals come
// first. (§6.1 TestChipWorkerStateMachine: register/run/unregister before
// init refuse; test_program_init_failure_after_kernel_symbol_resolution_allows_retry.)
func TestProgramOperations(t *testing.T) {
	lockThread(t)
	f := newScript()
	w := scriptWorker(Program, f)
	img := testImage(t)
	args := abi.NewTaskArgs()
	for name, err := range map[string]error{
		"RegisterCallable":   w.RegisterCallable(0, img),
		"UnregisterCallable": w.UnregisterCallable(0),
		"Run":                w.Run(0, args, nil),
	} {
		wantCode(t, err, abi.InvalidState)
		wantContains(t, err, "not initialized")
		_ = name
	}
	if f.ncalls() != 0 {
		t.Fatal("program ops before Init reached the runtime")
	}

	// simpler_init failing: forwarded, no finalize, destroyed, unloaded; a
	// retry of the same worker succeeds.
	f.simplerInitRC = abi.Internal
	err := w.Init(InitConfig{})
	se := wantCode(t, err, abi.Internal)
	if se.Op != "simpler_init" {
		t.Errorf("Op = %q", se.Op)
	}
	wantContains(t, err, "simpler_init failed with INTERNAL(-1000)")
	if f.count("finalize_device") != 0 || f.liveContexts() != 0 {
		t.Error("a failed simpler_init was finalized or its context kept")
	}
	f.simplerInitRC = abi.OK
	if err := w.Init(InitConfig{EnableSDMA: true, SDMAWarmup: []byte{1, 2}, Config: kernelConfig()}); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(w.native.runStorage)))%64 != 0 || len(w.native.runStorage) != 64 {
		t.Error("native-run storage is not get_runtime_size bytes at get_runtime_alignment")
	}

	if err := w.RegisterCallable(7, misaligned(img)); err != nil {
		t.Fatal(err)
	}
	if kept := w.native.registered[7]; uintptr(unsafe.Pointer(unsafe.SliceData(kept)))%16 != 0 {
		t.Error("a misaligned registration was passed as is")
	}
	bad := slices.Clone(img)
	bad = append(bad, 0) // trailing byte: V-IMG step 6
	n := f.ncalls()
	wantCode(t, w.RegisterCallable(8, bad), abi.InvalidArgument)
	wantCode(t, w.Run(7, nil, nil), abi.InvalidArgument)
	wantCode(t, w.CopyToDevice(0, []byte{1}), abi.InvalidArgument)
	if f.ncalls() != n {
		t.Error("a host-side refusal reached the runtime")
	}
	if err := w.Run(7, args, kernelConfig()); err != nil {
		t.Fatal(err)
	}
	p, err := w.DeviceMalloc(128)
	if err != nil || p == 0 {
		t.Fatal(p, err)
	}
	if err := w.CopyToDevice(p, make([]byte, 128)); err != nil {
		t.Fatal(err)
	}
	if err := w.CopyFromDevice(make([]byte, 128), p); err != nil {
		t.Fatal(err)
	}
	if info, err := w.DeviceMemoryInfo(); err != nil || info.TotalBytes != 1<<30 {
		t.Fatal(info, err)
	}
	if err := w.DeviceFree(p); err != nil {
		t.Fatal(err)
	}
	if err := w.UnregisterCallable(7); err != nil {
		t.Fatal(err)
	}
	if len(w.native.registered) != 0 {
		t.Error("unregister kept the image")
	}
	// Run goes through the phases as upstream's ChipWorker does, never
	// simpler_run (the script's poll answers 0, not ready, so Run waits).
	for _, name := range []string{"simpler_register_callable", "simpler_prepare_run", "simpler_launch_run", "simpler_poll_run",
		"simpler_wait_run", "simpler_finalize_run", "device_malloc_ctx", "copy_to_device_ctx",
		"copy_from_device_ctx", "device_memory_info_ctx", "device_free_ctx", "simpler_unregister_callable"} {
		if f.count(name) != 1 {
			t.Errorf("%s called %d times", name, f.count(name))
		}
	}
	if f.count("simpler_run") != 0 {
		t.Errorf("simpler_run called %d times", f.count("simpler_run"))
	}
	// E-PROG.33: 0 bytes go to the runtime, as ChipWorker passes them.
	if p0, err := w.DeviceMalloc(0); err != nil || p0 == 0 || f.count("device_malloc_ctx") != 2 {
		t.Errorf("DeviceMalloc(0) = %#x, %v with device_malloc_ctx called %d times in all; want the runtime's pointer from a second call",
			p0, err, f.count("device_malloc_ctx"))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	noViolations(t, f)
}

// C-FIN, C-SINGLE, C-THREAD: Close. (§6.3 TestClose; §6.1
// test_kernel_teardown_failure_is_raised_and_retriable,
// test_program_teardown_failure_is_not_raised,
// test_registries_survive_a_failed_native_finalize_until_a_retry_succeeds,
// TestChipWorkerStateMachine "finalize twice is fine" and "init after
// finalize raises".)
func TestClose(t *testing.T) {
	t.Run("finalizes once on the init thread; second Close is a no-op", func(t *testing.T) {
		lockThread(t)
		f := newScript()
		w := initScript(t, Kernel, f)
		if _, err := w.PrepareCallable(testImage(t)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		fin := f.callsOf("finalize_device")
		if len(fin) != 1 || fin[0].thread != f.callsOf("simpler_kernel_mode_init")[0].thread {
			t.Fatalf("finalize calls %+v", fin)
		}
		_, _, closes, _, destroyed := f.snapshot()
		if closes != 1 || destroyed != 1 || w.native != nil || w.armed {
			t.Error("Close did not destroy, unload, release the images and cancel the pin")
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if f.count("finalize_device") != 1 {
			t.Error("second Close finalized again")
		}
		err := w.Init(InitConfig{Config: kernelConfig()})
		wantCode(t, err, abi.InvalidState)
		wantContains(t, err, "closed")
		noViolations(t, f)
	})
	t.Run("Close from another thread is refused and the worker stays usable", func(t *testing.T) {
		lockThread(t)
		f := newScript()
		w := initScript(t, Kernel, f)
		var err error
		onOtherThread(func() { err = w.Close() })
		wantCode(t, err, abi.InvalidState)
		wantContains(t, err, "thread that ran Init", "C-THREAD")
		if !w.Initialized() || f.count("finalize_device") != 0 {
			t.Fatal("a refused Close changed the worker")
		}
		if _, err := w.PrepareCallable(testImage(t)); err != nil {
			t.Fatalf("worker not usable after a refused Close: %v", err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		noViolations(t, f)
	})
	t.Run("failed kernel teardown keeps everything for a retry", func(t *testing.T) {
		lockThread(t)
		f := newScript()
		f.finalizeFails = 1
		w := initScript(t, Kernel, f)
		id, err := w.PrepareCallable(testImage(t))
		if err != nil {
			t.Fatal(err)
		}
		err = w.Close()
		se := wantCode(t, err, -77)
		if se.Op != "finalize_device" {
			t.Errorf("Op = %q", se.Op)
		}
		wantContains(t, err, "finalize_device failed with", "(-77)", "Close again")
		if w.native == nil || len(w.native.images) != 1 || !w.armed || f.liveContexts() != 1 {
			t.Fatal("a failed teardown did not keep the context, the images and the pin")
		}
		if w.Initialized() || w.KernelModeSupported() {
			t.Error("initialized after a failed teardown")
		}
		before := f.ncalls()
		wantCode(t, w.Launch(id, abi.NewTaskArgs(), 1), abi.InvalidState)
		_, err = w.PrepareCallable(testImage(t))
		wantCode(t, err, abi.InvalidState)
		wantCode(t, w.Init(InitConfig{Config: kernelConfig()}), abi.InvalidState)
		if f.ncalls() != before {
			t.Error("refused operations reached the runtime")
		}
		if err := w.Close(); err != nil {
			t.Fatalf("retry: %v", err)
		}
		if f.count("finalize_device") != 2 || w.native != nil || f.liveContexts() != 0 {
			t.Error("the retry did not finalize and clear")
		}
		if err := w.Close(); err != nil || f.count("finalize_device") != 2 {
			t.Error("third Close is not a no-op")
		}
		noViolations(t, f)
	})
	t.Run("program teardown failure is logged, not returned", func(t *testing.T) {
		lockThread(t)
		f := newScript()
		f.finalizeFails = 1
		lg, logs := newLogger()
		w := New(Config{Mode: Program, Loader: scriptLoader{f}, Logger: lg})
		if err := w.Init(InitConfig{}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("program teardown failure returned: %v", err)
		}
		if w.Initialized() || f.liveContexts() != 0 {
			t.Error("not torn down")
		}
		if !strings.Contains(logs.String(), "teardown failed") || !strings.Contains(logs.String(), "-77") {
			t.Errorf("not logged: %q", logs.String())
		}
		noViolations(t, f)
	})
	t.Run("C-SINGLE: after Close every operation is IS", func(t *testing.T) {
		lockThread(t)
		f := newScript()
		w := initScript(t, Program, f)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		before := f.ncalls()
		args := abi.NewTaskArgs()
		for _, err := range []error{
			w.Init(InitConfig{}), w.RegisterCallable(0, testImage(t)), w.UnregisterCallable(0),
			w.Run(0, args, nil), w.DeviceFree(1), w.CopyToDevice(1, []byte{1}), w.CopyFromDevice([]byte{1}, 1),
			func() error { _, err := w.DeviceMalloc(1); return err }(),
			func() error { _, err := w.DeviceMemoryInfo(); return err }(),
			func() error { _, err := w.CommittedDeviceMemory(); return err }(),
		} {
			wantCode(t, err, abi.InvalidState)
		}
		if f.ncalls() != before {
			t.Error("operations after Close reached the runtime")
		}
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	t.Run("Close of a never-initialized worker", func(t *testing.T) {
		f := newScript()
		w := scriptWorker(Kernel, f)
		var err error
		onOtherThread(func() { err = w.Close() }) // no native context: any thread
		if err != nil || f.ncalls() != 0 {
			t.Fatal(err, f.ncalls())
		}
		wantCode(t, w.Init(InitConfig{Config: kernelConfig()}), abi.InvalidState)
	})
}

// C-THREAD: every native call of a worker runs on the OS thread of Init;
// others are refused with IS before any native call.
func TestOtherThreadRefused(t *testing.T) {
	lockThread(t)
	fk, fp := newScript(), newScript()
	kw, pw := initScript(t, Kernel, fk), initScript(t, Program, fp)
	id, err := kw.PrepareCallable(testImage(t))
	if err != nil {
		t.Fatal(err)
	}
	args := abi.NewTaskArgs()
	img := testImage(t)
	var errs []error
	nk, np := fk.ncalls(), fp.ncalls()
	onOtherThread(func() {
		_, e1 := kw.PrepareCallable(img)
		_, e2 := kw.CommittedDeviceMemory()
		_, e3 := pw.DeviceMalloc(64)
		_, e4 := pw.DeviceMemoryInfo()
		errs = append(errs, e1, kw.Launch(id, args, 1), e2, pw.RegisterCallable(1, img), pw.Run(1, args, nil), e3, e4,
			pw.CopyToDevice(1, []byte{1}), pw.DeviceFree(1))
	})
	for i, err := range errs {
		wantCode(t, err, abi.InvalidState)
		if !strings.Contains(err.Error(), "C-THREAD") {
			t.Errorf("error %d: %q does not name C-THREAD", i, err)
		}
	}
	if fk.ncalls() != nk || fp.ncalls() != np {
		t.Error("calls from another thread reached the runtime")
	}
	if kw.gate.held.Load() || pw.gate.held.Load() {
		t.Error("a refused call left the gate held")
	}
	if err := kw.Launch(id, args, 1); err != nil {
		t.Errorf("the init thread cannot launch: %v", err)
	}
	kw.Close()
	pw.Close()
}

// Launch allocates nothing, on success and on refusal.
func TestLaunchAllocatesNothing(t *testing.T) {
	lockThread(t)
	f := newScript()
	w := scriptWorker(Kernel, f)
	w.loader = nopLaunchLoader{f}
	if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	id, err := w.PrepareCallable(testImage(t))
	if err != nil {
		t.Fatal(err)
	}
	args := abi.NewTaskArgs()
	if a := testing.AllocsPerRun(1000, func() {
		if err := w.Launch(id, args, 1); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("Launch allocates %v per call", a)
	}
	if a := testing.AllocsPerRun(1000, func() { _ = w.Launch(id+1, args, 1) }); a != 0 {
		t.Errorf("a refused Launch allocates %v per call", a)
	}
}

// nopLaunch is the scripted runtime with a launch that records nothing.
type nopLaunch struct{ *scriptRuntime }

func (nopLaunch) KernelModeLaunch(abi.Ctx, int32, unsafe.Pointer, abi.Stream) abi.Status {
	return abi.OK
}

type nopLaunchLoader struct{ f *scriptRuntime }

func (l nopLaunchLoader) Load() (abi.LoadedRuntime, error)      { return nopLaunch{l.f}, nil }
func (l nopLaunchLoader) LoadProbe() (abi.LoadedRuntime, error) { return nopLaunch{l.f}, nil }
func (l nopLaunchLoader) String() string                        { return "nop-launch" }

// Load errors keep their cause and carry INTERNAL (C-ERR).
func TestLoadErrorIsWrapped(t *testing.T) {
	lockThread(t)
	f := newScript()
	f.loadErr = errScriptNoLibrary
	w := scriptWorker(Kernel, f)
	err := w.Init(InitConfig{Config: kernelConfig()})
	wantCode(t, err, abi.Internal)
	if !errors.Is(err, errScriptNoLibrary) {
		t.Errorf("cause lost: %v", err)
	}
	wantContains(t, err, "loading script")
	if w.Initialized() || f.ncalls() != 0 {
		t.Fatal("a failed load left state behind")
	}
	f.createReturns0 = true
	err = w.Init(InitConfig{Config: kernelConfig()})
	wantCode(t, err, abi.Internal)
	wantContains(t, err, "create_device_context")
	if _, _, closes, _, _ := f.snapshot(); closes != 1 {
		t.Error("the runtime was not unloaded after create returned NULL")
	}
	f.createReturns0 = false
	if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	noViolations(t, f)
	runtime.KeepAlive(w)
}

// §6.3 TestInitRouting: after a kernel Init that failed (and was finalized
// once, on the calling thread), Close does not finalize again and a later
// Init says the worker is closed (C-SINGLE, C-KINIT).
func TestFailedInitThenClose(t *testing.T) {
	lockThread(t)
	f := newScript()
	f.kernelInitRC = -91
	w := scriptWorker(Kernel, f)
	wantCode(t, w.Init(InitConfig{Config: kernelConfig()}), -91)
	if f.count("finalize_device") != 1 {
		t.Fatal("the failed Init was not finalized once")
	}
	n := f.ncalls()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if f.ncalls() != n {
		t.Error("Close after a failed Init called the runtime")
	}
	err := w.Init(InitConfig{Config: kernelConfig()})
	wantCode(t, err, abi.InvalidState)
	wantContains(t, err, "closed")
	noViolations(t, f)
}

// §6.1 TestChipWorkerPython "finalize during an in-progress init raises":
// Init and Close are serialized; a Close from another goroutine while Init is
// inside the runtime waits for it, and is then refused (C-THREAD: a native
// context exists and the caller is not on the Init thread); the worker stays
// initialized and its own thread closes it.
func TestCloseDuringInit(t *testing.T) {
	lockThread(t)
	f := newScript()
	b := newBlocker()
	f.onKernelInit = b.hook
	w := scriptWorker(Kernel, f)
	closed := make(chan error, 1)
	go func() {
		<-b.entered
		onOtherThread(func() { closed <- w.Close() })
	}()
	go func() {
		<-b.entered
		// Close cannot finish while Init holds the lifecycle mutex.
		select {
		case err := <-closed:
			t.Errorf("Close returned during Init: %v", err)
			closed <- err
		case <-time.After(50 * time.Millisecond):
		}
		close(b.release)
	}()
	if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
		t.Fatal(err)
	}
	err := <-closed
	wantCode(t, err, abi.InvalidState)
	wantContains(t, err, "C-THREAD")
	if !w.Initialized() || f.count("finalize_device") != 0 {
		t.Fatal("the refused Close changed the worker")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	noViolations(t, f)
}

// Program configs reach the runtime in the layout of its revision: a legacy
// build gets upstream's older CallConfig (no capture_clock_anchors, the
// rings 4 bytes earlier), a kernel-revision build the current one; a nil
// run config is the zero config, never NULL (upstream refuses NULL).
func TestProgramConfigs_layoutOfTheRevision(t *testing.T) {
	prewarm := &abi.CallConfig{AicpuThreadNum: 4}
	prewarm.RingTaskWindow[0] = 1024
	run := &abi.CallConfig{}
	run.RingHeap[1] = 4096
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprintf("legacy=%v", legacy), func(t *testing.T) {
			lockThread(t)
			f := newScript()
			var ld abi.Loader = scriptLoader{f}
			encode := func(c *abi.CallConfig) []byte {
				b := make([]byte, abi.CallConfigSize)
				_ = c.Encode(b)
				return b
			}
			if legacy {
				ld = legacyLoader{f}
				encode = func(c *abi.CallConfig) []byte {
					b := make([]byte, abi.CallConfigSize)
					_ = c.EncodeLegacy(b)
					return b
				}
			}
			w := New(Config{Mode: Program, Loader: ld})
			if err := w.Init(InitConfig{Config: prewarm}); err != nil {
				t.Fatal(err)
			}
			if err := w.RegisterCallable(0, testImage(t)); err != nil {
				t.Fatal(err)
			}
			for _, c := range []*abi.CallConfig{run, nil} {
				if err := w.Run(0, abi.NewTaskArgs(), c); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			want := [][]byte{encode(run), encode(&abi.CallConfig{})}
			if diff := cmp.Diff([][]byte{encode(prewarm)}, f.prewarms); diff != "" {
				t.Errorf("prewarm config (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, f.runConfigs); diff != "" {
				t.Errorf("run configs (-want +got):\n%s", diff)
			}
			noViolations(t, f)
		})
	}
}
