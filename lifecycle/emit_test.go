package lifecycle

// The consumer test catalogue (consumer-semantics.md §6.1, §6.2's probe
// items and §6.3) against the emitted fake runtime, loaded through onboard
// like any shared library. Statuses the worker never makes itself (-91, -92,
// -93, -77, -1000 from simpler_init) prove a code came through the ABI; the
// fake's invariant aborts (F-3: must-not-call, a freed handle, a live context
// at unload or exit in strict mode) prove a refusal skipped an entry, a
// failed teardown kept its context, or a worker leaked nothing. Every case
// runs in a child process (the test binary re-executed for that one test),
// so an abort fails one test instead of the run, the process exit runs the
// strict leak check, and each case gets a fresh copy of the library.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

var (
	fakesMu sync.Mutex
	fakes   = map[string]*emit.Artifacts{}
)

// sourceEdits change an emitted runtime where no knob reaches: the
// PipelineContract (C-BIND-2).
var sourceEdits = map[string][2]string{
	"contract-abi-v2": {"    .abi_version = 1,\n", "    .abi_version = 2,\n"},
}

// buildFake builds (or finds in emit's cache) the fake of cfg, with the named
// source edits applied; it skips the test when no C compiler is available.
func buildFake(t *testing.T, cfg emit.Config, edits ...string) *emit.Artifacts {
	t.Helper()
	key := fmt.Sprintf("%s|%s|%q|%q|%q", cfg.Profile, cfg.Mutant, cfg.Omit, cfg.Knobs.Strings(), edits)
	fakesMu.Lock()
	defer fakesMu.Unlock()
	if a, ok := fakes[key]; ok {
		return a
	}
	src, err := emit.Source(cfg)
	if err != nil {
		t.Fatalf("emit.Source(%s): %v", key, err)
	}
	for _, e := range edits {
		ed, ok := sourceEdits[e]
		if !ok || strings.Count(src.Runtime, ed[0]) != 1 {
			t.Fatalf("source edit %q does not apply", e)
		}
		src.Runtime = strings.Replace(src.Runtime, ed[0], ed[1], 1)
	}
	a := emittest.BuildSources(t, src)
	fakes[key] = a
	return a
}

func knobs(t *testing.T, kv ...string) emit.Knobs {
	t.Helper()
	var k emit.Knobs
	for _, s := range kv {
		if err := emit.ParseKnob(s, &k); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

// strictTMR is the tmr fake with the strict-consumer knob and more knobs.
func strictTMR(t *testing.T, kv ...string) emit.Config {
	return emit.Config{Profile: emit.ProfileTMR, Knobs: knobs(t, append([]string{"strict=true"}, kv...)...)}
}

// fakeSpec is one case of the catalogue against the fake: a body run with
// the path of the fake built from cfg (and of alt, for retries). A case with
// abort set must die with an output containing it (an F-3 invariant abort of
// the fake); it runs in a child process of its own. Every other case runs, as
// a subtest, in one shared child process: a failure there is reported for its
// case, and an abort (the failure mode of a kept-or-destroyed mistake) kills
// only that child and is reported for the case that was running.
type fakeSpec struct {
	name  string
	cfg   emit.Config
	alt   *emit.Config
	edits []string // sourceEdits applied to cfg's runtime
	abort string
	body  func(t *testing.T, path, altPath string)
}

func (c fakeSpec) run(t *testing.T) {
	lockThread(t)
	cfg := c.cfg
	if m := os.Getenv(recordMutantEnv); m != "" {
		cfg.Mutant = m
	}
	var path string
	if dir := os.Getenv(recordDirEnv); dir != "" {
		if len(c.cfg.Omit) > 0 {
			t.Skip("recorded: the recorder exports every entry of its revision, so a target's missing symbol is answered, not absent (docs/trace.md)")
		}
		path = recordThrough(t, dir, c, cfg)
	} else {
		path = buildFake(t, cfg, c.edits...).RuntimePath
	}
	var alt string
	if c.alt != nil {
		alt = buildFake(t, *c.alt).RuntimePath
	}
	c.body(t, path, alt)
}

// TestFakeCatalogue runs fakeCatalogue: see fakeSpec.
func TestFakeCatalogue(t *testing.T) {
	cases := fakeCatalogue(t)
	const shared = "catalogue"
	switch body := os.Getenv(childEnv); {
	case body == shared:
		for _, c := range cases {
			if c.abort == "" {
				t.Run(c.name, c.run)
			}
		}
		return
	case strings.HasPrefix(body, shared+"/"):
		for _, c := range cases {
			if shared+"/"+c.name == body {
				c.run(t)
			}
		}
		return
	case body != "":
		t.Skip("a child process runs only its own case")
	}
	for _, c := range cases { // build in the parent, so children find every fake cached
		buildFake(t, c.cfg, c.edits...)
		if c.alt != nil {
			buildFake(t, *c.alt)
		}
	}
	out, code := runChild(t, "^TestFakeCatalogue$", shared)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.abort != "" {
				out, code := runChild(t, "^TestFakeCatalogue$", shared+"/"+c.name)
				switch {
				case code == 0:
					t.Fatalf("child exited 0, want an abort with %q:\n%s", c.abort, out)
				case !strings.Contains(out, c.abort):
					t.Fatalf("child died (%d) without %q:\n%s", code, c.abort, out)
				}
				return
			}
			if strings.Contains(out, "--- PASS: TestFakeCatalogue/"+c.name+" ") {
				return
			}
			if strings.Contains(out, "--- SKIP: TestFakeCatalogue/"+c.name+" ") {
				t.Skip("skipped in the shared child:\n" + caseOutput(out, "TestFakeCatalogue/"+c.name))
			}
			t.Fatalf("case failed in the shared child (exit %d):\n%s", code, caseOutput(out, "TestFakeCatalogue/"+c.name))
		})
	}
}

// The catalogue recorded (docs/trace.md): with recordDirEnv set, each case
// loads a private copy of the recording runtime in front of its fake, and
// the trace goes to DIR/CASE.KIND-PID.ops, KIND "plain" when the fake answers
// as the contract's model does (no knob but strict and must_not_call, no
// source edit) and "knobbed" otherwise; with recordMutantEnv set too, the
// fake is that mutant. tests/recorder_lifecycle_test.go runs the catalogue
// so and checks every trace with abicheck's trace checker.
const (
	recordDirEnv    = "SIMABI_LIFECYCLE_RECORD"
	recordMutantEnv = "SIMABI_LIFECYCLE_MUTANT"
)

func recordThrough(t *testing.T, dir string, c fakeSpec, cfg emit.Config) string {
	t.Helper()
	rec, err := emit.BuildRecorder(emit.RecorderConfig{Revision: cfg.Profile.Revision()}, emit.BuildOptions{})
	if err != nil {
		t.Fatalf("emit.BuildRecorder: %v", err)
	}
	// Fault sites armed by a knob are armed through simabi_inject instead,
	// after the load, so that the trace says what was injected and the
	// checker's model knows it.
	armed := cfg.Knobs.Fail
	cfg.Knobs.Fail = nil
	fake := buildFake(t, cfg, c.edits...)
	// A private copy of the fake too: the trace is then all that ran on
	// its target (a case that failed before it leaves nothing behind in it).
	targetDir := t.TempDir()
	target := copyFile(t, fake.RuntimePath, targetDir)
	copyFile(t, fake.ACLPath, targetDir)
	kind := "plain"
	if len(c.edits) > 0 {
		kind = "knobbed"
	}
	for _, k := range cfg.Knobs.Strings() {
		// strict and must_not_call watch the consumer; every other knob
		// changes an answer of the runtime where the trace cannot show it.
		if !strings.HasPrefix(k, "strict=") && !strings.HasPrefix(k, "must_not_call=") {
			kind = "knobbed"
		}
	}
	// The recorder reads its environment when it is loaded: a copy per case
	// is loaded afresh (a case's body loads it after this returns).
	path := copyFile(t, rec.RuntimePath, t.TempDir())
	t.Setenv("SIMABI_RECORD_TARGET", target)
	t.Setenv("SIMABI_RECORD_FILE", fmt.Sprintf("%s/%s.%s-%%p.ops", dir, strings.ReplaceAll(c.name, "/", "_"), kind))
	t.Setenv("SIMABI_RECORD_PRELOAD", "")
	if len(armed) > 0 {
		h := fakeDevice(t, path) // keeps the copy (and its target) loaded for the case
		if rc := h.SimSetCurrentDevice(-1); rc != 0 {
			t.Fatalf("SimSetCurrentDevice(-1): %v", rc)
		}
		sites := make([]int32, 0, len(armed))
		for s := range armed {
			sites = append(sites, s)
		}
		slices.Sort(sites)
		for _, s := range sites {
			if rc := h.SimInject(s, armed[s].Count, armed[s].Code); rc != 0 {
				t.Fatalf("SimInject(%d): %v", s, rc)
			}
		}
	}
	return path
}

// copyFile copies the file at src into dir under its own name.
func copyFile(t *testing.T, src, dir string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

func fakeCatalogue(t *testing.T) []fakeSpec {
	var specs []fakeSpec
	add := func(c fakeSpec) {
		c.name = strings.ReplaceAll(c.name, " ", "_") // as t.Run names it
		specs = append(specs, c)
	}
	fakeProgramInitOnBothProfiles(t, add)
	fakeMissingKernelSymbolAllowsRetry(t, add)
	fakeProgramInitFailureAllowsRetry(t, add)
	fakeSupportedOnlyWhileBound(t, add)
	fakeRefusalsSkipTeardown(t, add)
	fakeKernelInitFailureCarriesStatus(t, add)
	fakeInitFailureWithFailedTeardownOwesRetry(t, add)
	fakePrepareAndLaunchCodes(t, add)
	fakePrepareWithoutID(t, add)
	fakeLaunchRefusedBeforeEntry(t, add)
	fakeKernelTeardownFailureRetriable(t, add)
	fakeProgramTeardownFailureNotRaised(t, add)
	fakeStateMachine(t, add)
	fakeProbe(t, add)
	fakeInadmissibleContract(t, add)
	fakeProbeLoadFailures(t, add)
	fakeAbandonedWorkerIsPinnedNotFinalized(t, add)
	fakeLaunchDuringBlockedPrepare(t, add)
	return specs
}

// caseOutput cuts the part of a child's -test.v output that belongs to one
// subtest (up to the next case), or returns all of it.
func caseOutput(out, name string) string {
	i := strings.Index(out, "=== RUN   "+name+"\n")
	if i < 0 {
		return out
	}
	rest := out[i+1:]
	if j := strings.Index(rest, "\n=== RUN   "); j >= 0 {
		return out[i : i+1+j]
	}
	return out[i:]
}

// fakeDevice makes device 0 current on the calling (locked) thread as the
// fake at path sees it, through its simulation hook; the extra handle stays
// open for the test (it shares the loaded copy with the worker's).
func fakeDevice(t *testing.T, path string) abi.SimHooks {
	t.Helper()
	lib, err := onboard.Open(path, onboard.Options{})
	if err != nil {
		t.Fatalf("onboard.Open: %v", err)
	}
	t.Cleanup(func() { _ = lib.Close() })
	h, ok := lib.Hooks()
	if !ok {
		t.Fatal("the fake exports no simulation hooks")
	}
	if rc := h.SimSetCurrentDevice(0); rc != 0 {
		t.Fatalf("SimSetCurrentDevice: %v", rc)
	}
	return h
}

func fakeWorker(mode Mode, path string) *Worker {
	lg, _ := newLogger()
	return New(Config{Mode: mode, DeviceID: 0, Loader: onboard.Loader{Path: path}, Logger: lg})
}

// seqLoader loads through its loaders in turn (the last one repeats): a
// retry of Init on the same worker reaches a fixed runtime, as upstream's
// tests retry init with a good library after a broken one.
type seqLoader struct {
	mu sync.Mutex
	ls []abi.Loader
	n  int
}

func (s *seqLoader) next() abi.Loader {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.ls[min(s.n, len(s.ls)-1)]
	s.n++
	return l
}
func (s *seqLoader) Load() (abi.LoadedRuntime, error)      { return s.next().Load() }
func (s *seqLoader) LoadProbe() (abi.LoadedRuntime, error) { return s.next().LoadProbe() }
func (s *seqLoader) String() string                        { return "seq" }

// ---- §6.1 TestChipWorkerKernelSymbols ----

// §6.1 test_unsupported_runtime_still_exports_lifecycle_symbols and
// test_supported_runtime_with_complete_lifecycle_symbols: program Init works
// on both profiles; no kernel entry is called; after Close the worker is
// uninitialized (C-MODE, C-SUPPORTED, C-SINGLE).
func fakeProgramInitOnBothProfiles(t *testing.T, add func(fakeSpec)) {
	for _, p := range []emit.Profile{emit.ProfileTMR, emit.ProfileRefusing} {
		func(sub string) {
			cfg := emit.Config{Profile: p, Knobs: knobs(t, "strict=true",
				"must_not_call=simpler_kernel_mode_init,simpler_kernel_mode_prepare_callable,simpler_kernel_mode_launch")}
			add(fakeSpec{name: "ProgramInitOnBothProfiles_" + sub, cfg: cfg, body: func(t *testing.T, path, _ string) {
				w := fakeWorker(Program, path)
				if err := w.Init(InitConfig{}); err != nil {
					t.Fatal(err)
				}
				if got, want := w.KernelModeSupported(), p == emit.ProfileTMR; got != want {
					t.Errorf("KernelModeSupported = %v, want %v", got, want)
				}
				_, err := w.PrepareCallable(testImage(t))
				wantCode(t, err, abi.InvalidState)
				wantCode(t, w.Launch(0, abi.NewTaskArgs(), 1), abi.InvalidState)
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if w.Initialized() || w.KernelModeSupported() {
					t.Error("initialized after Close")
				}
			}})
		}(string(p))
	}
}

// §6.1 test_missing_required_kernel_symbol_allows_retry (C-BIND-1): a runtime
// missing a kernel entry while supported is 1 (or missing supported) fails
// the load with the symbol's name; nothing is left; the same worker then
// initializes a complete runtime.
func fakeMissingKernelSymbolAllowsRetry(t *testing.T, add func(fakeSpec)) {
	for _, sym := range []string{abi.EntryKernelInit.Name(), abi.EntryKernelPrepare.Name(), abi.EntryKernelLaunch.Name(), abi.EntryKernelSupported.Name()} {
		func(sub string) {
			broken := emit.Config{Profile: emit.ProfileTMR, Omit: []string{sym}, Knobs: knobs(t, "strict=true")}
			good := strictTMR(t)
			add(fakeSpec{name: "MissingKernelSymbolAllowsRetry_" + sub, cfg: broken, alt: &good, body: func(t *testing.T, path, goodPath string) {
				for _, mode := range []Mode{Program, Kernel} {
					lg, _ := newLogger()
					w := New(Config{Mode: mode, Loader: &seqLoader{ls: []abi.Loader{onboard.Loader{Path: path}, onboard.Loader{Path: goodPath}}}, Logger: lg})
					err := w.Init(InitConfig{Config: kernelConfig()})
					wantCode(t, err, abi.Internal)
					wantContains(t, err, sym)
					var be *onboard.BindError
					if !errors.As(err, &be) {
						t.Errorf("the load error is not the loader's *onboard.BindError: %v", err)
					}
					if w.Initialized() || w.KernelModeSupported() {
						t.Fatal("initialized after a failed load")
					}
					fakeDevice(t, goodPath)
					if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
						t.Fatalf("%v retry: %v", mode, err)
					}
					if err := w.Close(); err != nil {
						t.Fatal(err)
					}
				}
			}})
		}(sym)
	}
}

// §6.1 test_program_init_failure_after_kernel_symbol_resolution_allows_retry
// (C-ERR): simpler_init's -1000 is forwarded with its entry, the context is
// destroyed without finalize_device, and the same worker inits a good runtime.
func fakeProgramInitFailureAllowsRetry(t *testing.T, add func(fakeSpec)) {
	broken := strictTMR(t, "status.simpler_init=-1000", "must_not_call=finalize_device")
	good := strictTMR(t)
	add(fakeSpec{name: "ProgramInitFailureAllowsRetry", cfg: broken, alt: &good, body: func(t *testing.T, path, goodPath string) {
		lg, _ := newLogger()
		w := New(Config{Mode: Program, Loader: &seqLoader{ls: []abi.Loader{onboard.Loader{Path: path}, onboard.Loader{Path: goodPath}}}, Logger: lg})
		err := w.Init(InitConfig{})
		se := wantCode(t, err, abi.Internal)
		if se.Op != "simpler_init" {
			t.Errorf("Op %q", se.Op)
		}
		wantContains(t, err, "simpler_init failed with INTERNAL(-1000)")
		if w.Initialized() {
			t.Fatal("initialized")
		}
		if err := w.Init(InitConfig{}); err != nil {
			t.Fatalf("retry: %v", err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}})
}

// ---- §6.1 TestChipWorkerKernelEntryLayer ----

// §6.1 test_supported_is_false_whenever_no_runtime_is_bound (C-SUPPORTED).
func fakeSupportedOnlyWhileBound(t *testing.T, add func(fakeSpec)) {
	add(fakeSpec{name: "SupportedOnlyWhileBound", cfg: strictTMR(t), body: func(t *testing.T, path, _ string) {
		fakeDevice(t, path)
		w := fakeWorker(Kernel, path)
		if w.KernelModeSupported() {
			t.Error("true before Init")
		}
		if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
			t.Fatal(err)
		}
		if !w.KernelModeSupported() {
			t.Error("false after kernel Init")
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if w.KernelModeSupported() {
			t.Error("true after Close")
		}
	}})
}

// §6.1 test_unsupported_kernel_init_is_typed_with_its_code and
// test_refusals_before_any_resource_skip_the_device_teardown (C-KINIT,
// C-ERR): UNSUPPORTED and INVALID_ARGUMENT from the entry are typed with
// their codes and finalize_device is never called (must_not_call would abort
// the child).
func fakeRefusalsSkipTeardown(t *testing.T, add func(fakeSpec)) {
	for _, rc := range []abi.Status{abi.Unsupported, abi.InvalidArgument} {
		func(sub string) {
			cfg := strictTMR(t, fmt.Sprintf("status.simpler_kernel_mode_init=%d", rc), "must_not_call=finalize_device")
			add(fakeSpec{name: "RefusalsSkipTeardown_" + sub, cfg: cfg, body: func(t *testing.T, path, _ string) {
				fakeDevice(t, path)
				w := fakeWorker(Kernel, path)
				err := w.Init(InitConfig{Config: kernelConfig()})
				se := wantCode(t, err, rc)
				if se.Op != "simpler_kernel_mode_init" {
					t.Errorf("Op %q", se.Op)
				}
				if got := errors.Is(err, ErrUnsupported); got != (rc == abi.Unsupported) {
					t.Errorf("errors.Is(err, ErrUnsupported) = %v", got)
				}
				if w.Initialized() || w.TeardownOwed() {
					t.Error("state left")
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			}})
		}(rc.Name())
	}
	// Control: the same scenario with a status that is neither IA nor UNSUP
	// does call finalize_device, and the must-not-call knob catches it.
	func(sub string) {
		cfg := strictTMR(t, "status.simpler_kernel_mode_init=-91", "must_not_call=finalize_device")
		add(fakeSpec{name: "RefusalsSkipTeardown_" + sub, cfg: cfg, abort: "finalize_device was called", body: func(t *testing.T, path, _ string) {
			fakeDevice(t, path)
			_ = fakeWorker(Kernel, path).Init(InitConfig{Config: kernelConfig()})
		}})
	}("control")
}

// §6.1 test_kernel_init_failure_carries_the_entry_status (C-KINIT, C-ERR):
// -91 is forwarded, named, not UNSUPPORTED; the worker finalizes first, then
// destroys (the strict leak check at exit proves nothing is left).
func fakeKernelInitFailureCarriesStatus(t *testing.T, add func(fakeSpec)) {
	add(fakeSpec{name: "KernelInitFailureCarriesStatus", cfg: strictTMR(t, "status.simpler_kernel_mode_init=-91"), body: func(t *testing.T, path, _ string) {
		fakeDevice(t, path)
		w := fakeWorker(Kernel, path)
		err := w.Init(InitConfig{Config: kernelConfig()})
		wantCode(t, err, -91)
		wantContains(t, err, "simpler_kernel_mode_init failed with", "(-91)")
		if errors.Is(err, ErrUnsupported) || w.TeardownOwed() {
			t.Error("typed UNSUPPORTED or owed")
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}})
}

// §6.1 test_init_failure_with_a_failed_teardown_owes_a_retry (C-KINIT,
// C-OWED, C-SUPPORTED): init fails creating its resources (site 1, -91), its
// rollback fails (site 9), and the worker's finalize fails its first release
// step (site 5, -77): the error carries -91 and names -77, Init refuses with
// IS, and Close retries on the kept context (a destroyed context would abort
// the fake: F-3 freed handle).
func fakeInitFailureWithFailedTeardownOwesRetry(t *testing.T, add func(fakeSpec)) {
	cfg := strictTMR(t, "fail.1=1:-91", "fail.9=1:-95", "fail.5=1:-77")
	add(fakeSpec{name: "InitFailureWithFailedTeardownOwesRetry", cfg: cfg, body: func(t *testing.T, path, _ string) {
		fakeDevice(t, path)
		w := fakeWorker(Kernel, path)
		err := w.Init(InitConfig{Config: kernelConfig()})
		wantCode(t, err, -91)
		wantContains(t, err, "simpler_kernel_mode_init failed with", "(-91)", "finalize_device failed with", "(-77)")
		if !w.TeardownOwed() || w.Initialized() || w.KernelModeSupported() {
			t.Fatal("not owed")
		}
		err = w.Init(InitConfig{Config: kernelConfig()})
		wantCode(t, err, abi.InvalidState)
		wantContains(t, err, "C-OWED")
		if err := w.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}})
}

// §6.1 test_prepare_returns_the_id_the_runtime_minted (M-1 through the ABI)
// and test_prepare_and_launch_failures_carry_their_codes (C-ERR).
func fakePrepareAndLaunchCodes(t *testing.T, add func(fakeSpec)) {
	func(sub string) {
		add(fakeSpec{name: "PrepareAndLaunchCodes_" + sub, cfg: strictTMR(t), body: func(t *testing.T, path, _ string) {
			fakeDevice(t, path)
			w := fakeWorker(Kernel, path)
			if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
				t.Fatal(err)
			}
			img := testImage(t)
			for want := int32(0); want < 3; want++ {
				if id, err := w.PrepareCallable(img); err != nil || id != want {
					t.Fatalf("prepare %d: %d, %v", want, id, err)
				}
			}
			if len(w.native.images) != 3 {
				t.Error("images not kept under their ids (C-IMG)")
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}})
	}("minted ids")
	func(sub string) {
		add(fakeSpec{name: "PrepareAndLaunchCodes_" + sub, cfg: strictTMR(t, "status.simpler_kernel_mode_prepare_callable=-92"), body: func(t *testing.T, path, _ string) {
			fakeDevice(t, path)
			w := fakeWorker(Kernel, path)
			if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
				t.Fatal(err)
			}
			id, err := w.PrepareCallable(testImage(t))
			se := wantCode(t, err, -92)
			if id != -1 || se.Op != "simpler_kernel_mode_prepare_callable" || len(w.native.images) != 0 {
				t.Errorf("id %d Op %q images %d", id, se.Op, len(w.native.images))
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}})
	}("prepare -92")
	func(sub string) {
		cfg := strictTMR(t, "status.simpler_kernel_mode_prepare_callable=0", "status.simpler_kernel_mode_launch=-93")
		add(fakeSpec{name: "PrepareAndLaunchCodes_" + sub, cfg: cfg, body: func(t *testing.T, path, _ string) {
			fakeDevice(t, path)
			w := fakeWorker(Kernel, path)
			if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
				t.Fatal(err)
			}
			id, err := w.PrepareCallable(testImage(t))
			if err != nil {
				t.Fatal(err)
			}
			err = w.Launch(id, abi.NewTaskArgs(), 1)
			se := wantCode(t, err, -93)
			if se.Op != "simpler_kernel_mode_launch" {
				t.Errorf("Op %q", se.Op)
			}
			wantContains(t, err, "simpler_kernel_mode_launch failed with", "(-93)")
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}})
	}("launch -93")
}

// §6.1 test_prepare_success_without_an_id_is_an_internal_error (C-ERR,
// C-IMG): INTERNAL, "without a callable id", the image kept, nothing
// launchable (the launch entry must not be called).
func fakePrepareWithoutID(t *testing.T, add func(fakeSpec)) {
	cfg := strictTMR(t, "prepare_writes_id=false", "must_not_call=simpler_kernel_mode_launch")
	add(fakeSpec{name: "PrepareWithoutID", cfg: cfg, body: func(t *testing.T, path, _ string) {
		fakeDevice(t, path)
		w := fakeWorker(Kernel, path)
		if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
			t.Fatal(err)
		}
		id, err := w.PrepareCallable(testImage(t))
		wantCode(t, err, abi.Internal)
		wantContains(t, err, "without a callable id")
		if id != -1 || len(w.native.orphans) != 1 {
			t.Errorf("id %d orphans %d", id, len(w.native.orphans))
		}
		for _, cand := range []int32{-1, 0} {
			wantCode(t, w.Launch(cand, abi.NewTaskArgs(), 1), abi.InvalidArgument)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}})
}

// §6.1 test_unbound_kernel_entries_refuse_with_invalid_state and
// test_null_launch_stream_is_refused_before_the_entry (C-ID): IS before Init;
// a zero stream is IA naming the stream, and the launch entry (must not be
// called) is never reached. The control shows the knob would catch it.
func fakeLaunchRefusedBeforeEntry(t *testing.T, add func(fakeSpec)) {
	func(sub string) {
		cfg := strictTMR(t, "must_not_call=simpler_kernel_mode_launch,simpler_kernel_mode_prepare_callable")
		add(fakeSpec{name: "LaunchRefusedBeforeEntry_" + sub, cfg: cfg, body: func(t *testing.T, path, _ string) {
			fakeDevice(t, path)
			w := fakeWorker(Kernel, path)
			_, err := w.PrepareCallable(testImage(t))
			wantCode(t, err, abi.InvalidState)
			wantCode(t, w.Launch(0, abi.NewTaskArgs(), 1), abi.InvalidState)
			if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
				t.Fatal(err)
			}
			err = w.Launch(0, abi.NewTaskArgs(), 0)
			wantCode(t, err, abi.InvalidArgument)
			wantContains(t, err, "stream")
			wantCode(t, w.Launch(0, nil, 1), abi.InvalidArgument)
			wantCode(t, w.Launch(0, abi.NewTaskArgs(), 1), abi.InvalidArgument) // never minted
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}})
	}("refused")
	func(sub string) {
		cfg := strictTMR(t, "must_not_call=simpler_kernel_mode_launch")
		add(fakeSpec{name: "LaunchRefusedBeforeEntry_" + sub, cfg: cfg, abort: "simpler_kernel_mode_launch was called", body: func(t *testing.T, path, _ string) {
			fakeDevice(t, path)
			w := fakeWorker(Kernel, path)
			if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
				t.Fatal(err)
			}
			id, err := w.PrepareCallable(testImage(t))
			if err != nil {
				t.Fatal(err)
			}
			_ = w.Launch(id, abi.NewTaskArgs(), 1)
		}})
	}("control")
}

// §6.1 test_kernel_teardown_failure_is_raised_and_retriable (C-FIN,
// C-SUPPORTED, C-OWED): Close returns -77 and keeps the context; Init
// refuses; a second Close finalizes (on the kept handle: a destroyed one
// would abort) and the strict exit check finds nothing live.
func fakeKernelTeardownFailureRetriable(t *testing.T, add func(fakeSpec)) {
	add(fakeSpec{name: "KernelTeardownFailureRetriable", cfg: strictTMR(t, "fail.5=1:-77"), body: func(t *testing.T, path, _ string) {
		fakeDevice(t, path)
		w := fakeWorker(Kernel, path)
		if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
			t.Fatal(err)
		}
		err := w.Close()
		se := wantCode(t, err, -77)
		if se.Op != "finalize_device" {
			t.Errorf("Op %q", se.Op)
		}
		wantContains(t, err, "(-77)")
		if w.Initialized() || w.KernelModeSupported() {
			t.Error("initialized after a failed teardown")
		}
		wantCode(t, w.Init(InitConfig{Config: kernelConfig()}), abi.InvalidState)
		if err := w.Close(); err != nil {
			t.Fatalf("retry: %v", err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}})
}

// §6.1 test_program_teardown_failure_is_not_raised (C-FIN): finalize_device
// answering -77 outright, and the failure armed at its fault site (abi.md
// site 10, E-FIN: returned, detached anyway), which a recorded trace shows.
func fakeProgramTeardownFailureNotRaised(t *testing.T, add func(fakeSpec)) {
	for _, v := range [][2]string{{"status", "status.finalize_device=-77"}, {"site_10", "fail.10=1:-77"}} {
		fakeProgramTeardownFailureNotRaisedBy(t, add, "ProgramTeardownFailureNotRaised_"+v[0], v[1])
	}
}

func fakeProgramTeardownFailureNotRaisedBy(t *testing.T, add func(fakeSpec), name, knob string) {
	add(fakeSpec{name: name, cfg: strictTMR(t, knob), body: func(t *testing.T, path, _ string) {
		lg, logs := newLogger()
		w := New(Config{Mode: Program, Loader: onboard.Loader{Path: path}, Logger: lg})
		if err := w.Init(InitConfig{}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("program teardown failure returned: %v", err)
		}
		if w.Initialized() {
			t.Error("initialized")
		}
		if !strings.Contains(logs.String(), "-77") {
			t.Errorf("not logged: %q", logs.String())
		}
	}})
}

// §6.1 TestChipWorkerStateMachine (C-SINGLE, C-ERR): Close twice is fine;
// Init after Close refuses; a nonexistent library fails naming dlopen; a
// negative device is IA; program operations before Init are IS.
func fakeStateMachine(t *testing.T, add func(fakeSpec)) {
	add(fakeSpec{name: "StateMachine", cfg: strictTMR(t), body: func(t *testing.T, path, _ string) {
		w := fakeWorker(Program, path)
		if w.Initialized() || w.DeviceID() != 0 {
			t.Error("fresh worker")
		}
		for name, err := range map[string]error{
			"register":   w.RegisterCallable(0, testImage(t)),
			"run":        w.Run(0, abi.NewTaskArgs(), nil),
			"unregister": w.UnregisterCallable(0),
		} {
			wantCode(t, err, abi.InvalidState)
			wantContains(t, err, "not initialized")
			_ = name
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		err := w.Init(InitConfig{})
		wantCode(t, err, abi.InvalidState)
		wantContains(t, err, "closed")

		missing := fakeWorker(Program, path+".does-not-exist")
		err = missing.Init(InitConfig{})
		wantCode(t, err, abi.Internal)
		wantContains(t, err, "dlopen")

		lg, _ := newLogger()
		neg := New(Config{Mode: Program, DeviceID: -1, Loader: onboard.Loader{Path: path}, Logger: lg})
		wantCode(t, neg.Init(InitConfig{}), abi.InvalidArgument)
	}})
}

// ---- §6.2 TestChipWorkerKernelProbe (C-PROBE) ----

// test_probe_reports_runtime_capability[0/1],
// test_probe_destroys_the_context_it_created[0/1] and
// test_probe_in_fresh_process_needs_no_init: in a fresh process with no
// device, the probe answers the build's capability; its unload is the last
// one, so the strict fake would abort on a leaked context.
func fakeProbe(t *testing.T, add func(fakeSpec)) {
	for _, p := range []emit.Profile{emit.ProfileTMR, emit.ProfileRefusing} {
		func(sub string) {
			cfg := emit.Config{Profile: p, Knobs: knobs(t, "strict=true", "must_not_call=simpler_init,simpler_kernel_mode_init,finalize_device")}
			add(fakeSpec{name: "Probe_" + sub, cfg: cfg, body: func(t *testing.T, path, _ string) {
				ok, err := ProbeKernelModeSupported(onboard.Loader{Path: path})
				if err != nil || ok != (p == emit.ProfileTMR) {
					t.Fatalf("probe: %v %v", ok, err)
				}
				w := fakeWorker(Kernel, path)
				if ok2, err := w.ProbeKernelMode(); err != nil || ok2 != ok {
					t.Fatalf("worker probe: %v %v", ok2, err)
				}
				if w.Initialized() {
					t.Error("the probe initialized the worker")
				}
			}})
		}(string(p))
	}
	// The control: a context left live at exit aborts the strict fake.
	func(sub string) {
		add(fakeSpec{name: "Probe_" + sub, cfg: strictTMR(t), abort: "context-leak", body: func(t *testing.T, path, _ string) {
			lib, err := onboard.Open(path, onboard.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if lib.CreateDeviceContext() == 0 {
				t.Fatal("create")
			}
			_ = lib.Close()
		}})
	}("control: leaked context aborts")
}

// C-BIND-2, C-PROBE: a runtime whose PipelineContract fails V-CONTRACT is
// refused by the load, so Init fails (INTERNAL, wrapping the loader's
// *onboard.LoadError) in both modes and leaves nothing; the probe, which binds
// only the host log, create, destroy and supported, still answers.
func fakeInadmissibleContract(t *testing.T, add func(fakeSpec)) {
	add(fakeSpec{name: "InadmissibleContract", cfg: strictTMR(t, "must_not_call=simpler_init,simpler_kernel_mode_init"),
		edits: []string{"contract-abi-v2"}, body: func(t *testing.T, path, _ string) {
			for _, mode := range []Mode{Program, Kernel} {
				w := fakeWorker(mode, path)
				err := w.Init(InitConfig{Config: kernelConfig()})
				wantCode(t, err, abi.Internal)
				var le *onboard.LoadError
				if !errors.As(err, &le) {
					t.Errorf("%v: not the loader's *onboard.LoadError: %v", mode, err)
				}
				if w.Initialized() {
					t.Errorf("%v: initialized on an inadmissible contract", mode)
				}
				if ok, err := w.ProbeKernelMode(); !ok || err != nil {
					t.Errorf("%v: probe: %v %v", mode, ok, err)
				}
			}
		}})
}

// test_probe_missing_capability_symbol_raises_before_creating_a_context and
// test_probe_nonexistent_library_raises.
func fakeProbeLoadFailures(t *testing.T, add func(fakeSpec)) {
	cfg := emit.Config{Profile: emit.ProfileTMR, Omit: []string{abi.EntryKernelSupported.Name()}, Knobs: knobs(t, "strict=true", "must_not_call=create_device_context")}
	add(fakeSpec{name: "ProbeLoadFailures", cfg: cfg, body: func(t *testing.T, path, _ string) {
		_, err := ProbeKernelModeSupported(onboard.Loader{Path: path})
		wantCode(t, err, abi.Internal)
		wantContains(t, err, abi.EntryKernelSupported.Name())
		_, err = fakeWorker(Kernel, path+".does-not-exist").ProbeKernelMode()
		wantCode(t, err, abi.Internal)
		wantContains(t, err, "dlopen")
	}})
}

// ---- §6.3 over the fake ----

// §6.3 TestGcPin, C-LEAK: a kernel worker dropped without Close is pinned;
// nothing finalizes it (finalize_device must not be called; onboard itself
// creates and destroys a probe context at load, so destroy cannot be marked),
// and its context is still live: the pin holds the only remaining handle of
// the library, and closing it (the last dlclose) makes the strict fake report
// the live context. The leak is the intended outcome. (The fake's check at
// process exit never runs in a Go process: os.Exit skips ELF destructors.)
func fakeAbandonedWorkerIsPinnedNotFinalized(t *testing.T, add func(fakeSpec)) {
	cfg := strictTMR(t, "must_not_call=finalize_device")
	add(fakeSpec{name: "AbandonedWorkerIsPinnedNotFinalized", cfg: cfg, abort: "context-leak", body: func(t *testing.T, path, _ string) {
		dev, err := onboard.Open(path, onboard.Options{})
		if err != nil {
			t.Fatal(err)
		}
		h, _ := dev.Hooks()
		h.SimSetCurrentDevice(0)
		before := PinnedWorkers()
		func() {
			w := fakeWorker(Kernel, path)
			if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
				t.Fatal(err)
			}
		}()
		if !collected(func() bool { return PinnedWorkers() > before }) {
			t.Fatal("not pinned")
		}
		pinnedMu.Lock()
		n := pinned[len(pinned)-1]
		pinnedMu.Unlock()
		if err := dev.Close(); err != nil { // drop the test's own handle
			t.Fatal(err)
		}
		fmt.Println("pinned; unloading the pinned runtime with its context live")
		_ = n.rt.Close()
		t.Error("the last unload did not find the live context")
	}})
}

// §6.3 TestKernelGate over the fake, C-GATE: a prepare held in the runtime
// (site 7: 300 ms) holds the worker's gate; a launch meanwhile fails fast
// without reaching the entry, and a later launch succeeds.
func fakeLaunchDuringBlockedPrepare(t *testing.T, add func(fakeSpec)) {
	add(fakeSpec{name: "LaunchDuringBlockedPrepare", cfg: strictTMR(t, "fail.7=1:300"), body: func(t *testing.T, path, _ string) {
		h := fakeDevice(t, path)
		w := fakeWorker(Kernel, path)
		if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
			t.Fatal(err)
		}
		spec := abi.ChipCallableSpec{FuncName: "noop"}
		img, err := spec.Build()
		if err != nil {
			t.Fatal(err)
		}
		args := abi.NewTaskArgs()
		res := make(chan error, 1)
		go func() {
			for !w.gate.held.Load() {
			}
			res <- w.Launch(0, args, 1)
		}()
		id, err := w.PrepareCallable(img) // holds the gate 300 ms inside the runtime
		if err != nil {
			t.Fatal(err)
		}
		err = <-res
		wantCode(t, err, abi.InvalidState)
		wantContains(t, err, "gate")
		if err := w.Launch(id, args, 1); err != nil {
			t.Fatalf("later launch: %v", err)
		}
		h.SimSyncStream(1)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}})
}
