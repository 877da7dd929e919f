package onboard

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/validation"
)

// stubCount calls an int-returning, argument-less export of the library at
// path (loaded or not; the reference is dropped again).
func stubCount(t *testing.T, path, name string) int32 {
	t.Helper()
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		t.Fatal(err)
	}
	defer purego.Dlclose(h)
	fn, err := purego.Dlsym(h, name)
	if err != nil {
		t.Fatal(err)
	}
	r1, _, _ := purego.SyscallN(fn)
	return int32(r1)
}

func mustOpen(t *testing.T, path string, opts Options) *Library {
	t.Helper()
	l, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// C-BIND-1: a complete library binds; the host log is bound once with the
// process-owned state; supported is asked at open; all hooks resolve.
func TestCBind1StubComplete(t *testing.T) {
	path := buildStub(t, stubSpec{Supported: 1})
	l := mustOpen(t, path, Options{})
	if l.Profile() != abi.ProfileTMR || l.Supported() != 1 || !l.KernelBound() || !l.HasHooks() || l.Path() != path {
		t.Fatalf("revision %v supported %d kernel bound %v hooks %v path %q", l.Profile(), l.Supported(), l.KernelBound(), l.HasHooks(), l.Path())
	}
	if n := stubCount(t, path, "stub_host_log_call_count"); n != 1 {
		t.Fatalf("simpler_host_log_bind_state called %d times, want 1", n)
	}
	h, _ := purego.Dlopen(path, purego.RTLD_NOW)
	defer purego.Dlclose(h)
	fn, _ := purego.Dlsym(h, "stub_host_log_last_state")
	r1, _, _ := purego.SyscallN(fn)
	if r1 != uintptr(unsafe.Pointer(hostLogState(abi.HostLogState{}))) {
		t.Fatalf("host log bound with %#x, want the process-owned default state", r1)
	}
	got, _ := abi.DecodeHostLogState(hostLogState(abi.HostLogState{})[:])
	if got != abi.DefaultHostLogState() {
		t.Fatalf("default host log state %+v", got)
	}
	if l.Contract() != abi.SimulatedProgramContract() {
		t.Fatalf("contract %+v", l.Contract())
	}
}

// C-BIND-1: every missing required symbol is named with its group, in one
// line, and nothing is left loaded.
func TestCBind1StubMissingNamesEverySymbol(t *testing.T) {
	path := buildStub(t, stubSpec{Supported: 1, Omit: []string{abi.EntryRun.Name(), abi.EntryCommBarrier.Name(), abi.EntryKernelLaunch.Name()}})
	_, err := Open(path, Options{})
	var be *BindError
	if !errors.As(err, &be) {
		t.Fatalf("Open: %v, want *BindError", err)
	}
	want := "onboard: " + path + ": missing required symbols: simpler_run (program runs), simpler_kernel_mode_launch (kernel mode), comm_barrier (comm); required by the kernel revision's consumer (C-BIND-1)"
	if err.Error() != want {
		t.Fatalf("error\n got %q\nwant %q", err, want)
	}
	if be.Path != path || len(be.Missing) != 3 {
		t.Fatalf("BindError %+v", be)
	}
}

// C-BIND-1: the kernel trio is optional when supported returns 0; by default
// it is not bound and kernel methods refuse with UNSUPPORTED.
func TestCBind1StubUnsupportedTrioOptional(t *testing.T) {
	path := buildStub(t, stubSpec{Supported: 0, Omit: kernelTrioNames})
	l := mustOpen(t, path, Options{})
	if l.Profile() != abi.ProfileRefusing || l.Supported() != 0 || l.KernelBound() {
		t.Fatalf("revision %v supported %d bound %v", l.Profile(), l.Supported(), l.KernelBound())
	}
	id := int32(7)
	if st := l.KernelModePrepareCallable(1, nil, 0, &id); st != abi.Unsupported || id != -1 {
		t.Fatalf("prepare: %v id %d", st, id)
	}
	if st := l.KernelModeLaunch(1, 0, nil, 1); st != abi.Unsupported {
		t.Fatalf("launch: %v", st)
	}
	if st := l.KernelModeInit(1, 0, nil, 0, nil, 0, nil, 0, nil, 1); st != abi.Unsupported {
		t.Fatalf("init: %v", st)
	}

	// Present but unsupported: not bound by default, bound on request.
	path = buildStub(t, stubSpec{Supported: 0})
	l = mustOpen(t, path, Options{})
	if l.Profile() != abi.ProfileRefusing || l.KernelBound() {
		t.Fatalf("revision %v bound %v", l.Profile(), l.KernelBound())
	}
	l2 := mustOpen(t, path, Options{BindKernelWhenUnsupported: true})
	if l2.Profile() != abi.ProfileRefusing || !l2.KernelBound() {
		t.Fatalf("with BindKernelWhenUnsupported: revision %v bound %v", l2.Profile(), l2.KernelBound())
	}
	if st := l2.KernelModeLaunch(1, 0, nil, 1); st != abi.OK {
		t.Fatalf("bound launch: %v", st)
	}
}

// C-BIND-1: a refused host-log binding fails the load, naming the code as
// what it is: upstream's binder refuses with -1, which is not a device code.
func TestCBind1StubHostLogRefused(t *testing.T) {
	for _, tc := range []struct {
		code int32
		text string
	}{{-1, "simpler_host_log_bind_state returned -1"}, {int32(abi.InvalidArgument), "simpler_host_log_bind_state returned -1004 (INVALID_ARGUMENT)"}} {
		path := buildStub(t, stubSpec{Supported: 1, HostLogReturn: tc.code})
		_, err := Open(path, Options{})
		var le *LoadError
		if !errors.As(err, &le) || le.Status != abi.Status(tc.code) || !strings.Contains(err.Error(), path) ||
			!strings.HasSuffix(err.Error(), tc.text) || strings.Contains(err.Error(), "SCOPE_DEADLOCK") {
			t.Fatalf("Open with a binder returning %d: %v", tc.code, err)
		}
	}
	path := buildStub(t, stubSpec{Supported: 1, Omit: []string{abi.EntryHostLogBindState.Name()}})
	_, err := Open(path, Options{})
	if err == nil || !strings.Contains(err.Error(), "simpler_host_log_bind_state (host log)") {
		t.Fatalf("Open without binder: %v", err)
	}
}

// A custom host-log state is bound instead of the default one.
func TestCBind1StubCustomHostLog(t *testing.T) {
	path := buildStub(t, stubSpec{Supported: 1, Extra: "\n"})
	st := abi.DefaultHostLogState()
	st.Threshold = 3
	st.ClockAnchorPID = 42
	l := mustOpen(t, path, Options{HostLog: st})
	_ = l
	h, _ := purego.Dlopen(path, purego.RTLD_NOW)
	defer purego.Dlclose(h)
	fn, _ := purego.Dlsym(h, "stub_host_log_last_state")
	r1, _, _ := purego.SyscallN(fn)
	if r1 != uintptr(unsafe.Pointer(hostLogState(st))) {
		t.Fatal("custom host-log state not the one bound")
	}
}

// C-BIND-2: a NULL or inadmissible PipelineContract fails the load with
// V-CONTRACT's reason.
func TestCBind2StubContract(t *testing.T) {
	path := buildStub(t, stubSpec{Supported: 1, NullContract: true})
	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "get_pipeline_contract: returned NULL") {
		t.Fatalf("NULL contract: %v", err)
	}
	bad := abi.SimulatedProgramContract()
	bad.PipelineDepth = 3
	path = buildStub(t, stubSpec{Supported: 1, Contract: &bad})
	_, err := Open(path, Options{})
	var ce *validation.ContractError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "pipeline_depth 3 outside [1, 2]") || !strings.Contains(err.Error(), path) {
		t.Fatalf("inadmissible contract: %v", err)
	}
	// The probe binding does not read the contract (C-PROBE).
	if ok, err := ProbeKernelModeSupported(path, Options{}); err != nil || !ok {
		t.Fatalf("probe: %v %v", ok, err)
	}
}

// C-PROBE: the probe binds only host log, create, destroy and supported.
func TestCProbeStub(t *testing.T) {
	var omit []string
	for _, s := range abi.Symbols {
		if !isProbeEntry(s.Entry) {
			omit = append(omit, s.Name)
		}
	}
	path := buildStub(t, stubSpec{Supported: 1, Omit: omit})
	if _, err := Open(path, Options{}); err == nil {
		t.Fatal("Open of a probe-only library succeeded")
	}
	l, err := OpenProbe(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !l.Probe() || l.Supported() != 1 || l.Profile() != abi.ProfileTMR || l.HasHooks() {
		t.Fatalf("probe %v supported %d revision %v hooks %v", l.Probe(), l.Supported(), l.Profile(), l.HasHooks())
	}
	if st := l.FinalizeDevice(1); st != abi.Unsupported {
		t.Fatalf("unbound finalize: %v", st)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	ok, err := ProbeKernelModeSupported(path, Options{})
	if err != nil || !ok {
		t.Fatalf("ProbeKernelModeSupported: %v %v", ok, err)
	}
	l2, err := Open(path, Options{ProbeOnly: true})
	if err != nil || !l2.Probe() {
		t.Fatalf("Open ProbeOnly: %v", err)
	}
	_ = l2.Close()
	// A probe of a library without supported names it.
	path = buildStub(t, stubSpec{Supported: 1, Omit: []string{abi.EntryKernelSupported.Name()}})
	if _, err := OpenProbe(path, Options{}); err == nil || !strings.Contains(err.Error(), "simpler_kernel_mode_supported (kernel mode)") {
		t.Fatalf("probe without supported: %v", err)
	}
}

// C-BIND-1 legacy: no supported, a provision entry: the legacy set binds,
// kernel methods refuse without a call, Translate maps legacy codes.
func TestCBind1StubLegacy(t *testing.T) {
	path := buildStub(t, stubSpec{Legacy: true})
	l := mustOpen(t, path, Options{})
	if l.Profile() != abi.ProfileLegacy || l.Supported() != 0 || l.KernelBound() {
		t.Fatalf("revision %v supported %d", l.Profile(), l.Supported())
	}
	if l.KernelModeSupported(0) != 0 || l.DeviceMemoryInfo(1, nil) != abi.Unsupported {
		t.Fatal("legacy kernel/meminfo entries answered")
	}
	for in, want := range map[abi.Status]abi.Status{-1: abi.Internal, -2: abi.Unsupported, -3: abi.PreparedIncompatible, 0: 0, -1004: -1004} {
		if got := l.Translate(in); got != want {
			t.Fatalf("Translate(%d) = %v, want %v", in, got, want)
		}
	}
	if ok, err := ProbeKernelModeSupported(path, Options{}); err != nil || ok {
		t.Fatalf("legacy probe: %v %v", ok, err)
	}
	// Legacy with a missing legacy symbol names it with its group.
	path = buildStub(t, stubSpec{Legacy: true, Omit: []string{abi.EntryFinalizeRun.Name()}})
	if _, err := Open(path, Options{}); err == nil || !strings.HasSuffix(err.Error(), "missing required symbols: simpler_finalize_run (program runs, ChipWorker since 87dce62 (#1574, 2026-08-02)); required by the legacy consumer, upstream ChipWorker at 6ebaf77 (src/common/worker/chip_worker.cpp)") {
		t.Fatalf("legacy missing: %v", err)
	}
}

// dlopen failure names the path and dlerror's text.
func TestOpenDlopenFailure(t *testing.T) {
	path := "/nonexistent/onboard/libhost_runtime.so"
	_, err := Open(path, Options{})
	var le *LoadError
	var dl purego.Dlerror
	if !errors.As(err, &le) || !errors.As(err, &dl) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "No such file") {
		t.Fatalf("Open: %v", err)
	}
	if _, err := Open(path, Options{Preloads: []string{"/nonexistent/libcpu_sim_context.so"}}); err == nil || !strings.Contains(err.Error(), "libcpu_sim_context.so") {
		t.Fatalf("preload failure: %v", err)
	}
}

// An empty path would make dlopen return the main program; it is refused
// before dlopen with a message that shows the empty path.
func TestOpenEmptyPath(t *testing.T) {
	for _, open := range []func(string, Options) (*Library, error){Open, OpenProbe} {
		_, err := open("", Options{})
		var le *LoadError
		if !errors.As(err, &le) || le.Step != "dlopen" || err.Error() != `onboard: "": dlopen: empty library path` {
			t.Fatalf("open(\"\"): %v", err)
		}
	}
}

// Preloads are loaded RTLD_GLOBAL once per path and bound to the host log.
func TestPreloadOncePerPath(t *testing.T) {
	pre := buildStub(t, stubSpec{Supported: 1, Extra: "EXPORT int preload_marker(void) { return 7; }\n"})
	path := buildStub(t, stubSpec{Supported: 1})
	for range 2 {
		l, err := Open(path, Options{Preloads: []string{pre}})
		if err != nil {
			t.Fatal(err)
		}
		_ = l.Close()
	}
	if !Preloaded(pre) {
		t.Fatal("preload not registered")
	}
	if n := stubCount(t, pre, "stub_host_log_call_count"); n != 1 {
		t.Fatalf("preload host log bound %d times, want 1", n)
	}
	// RTLD_GLOBAL: its symbols are visible process-wide.
	if p, err := purego.Dlsym(purego.RTLD_DEFAULT, "preload_marker"); err != nil || p == 0 {
		t.Fatalf("preload symbol not global: %v", err)
	}
}

// Close unloads; a closed library calls nothing; Close twice is ErrClosed;
// Loader opens through abi.Loader.
func TestCloseAndLoader(t *testing.T) {
	path := buildStub(t, stubSpec{Supported: 1})
	var ld abi.Loader = Loader{Path: path}
	if ld.String() != path {
		t.Fatal(ld.String())
	}
	rt, err := ld.Load()
	if err != nil {
		t.Fatal(err)
	}
	l := rt.(*Library)
	hooks, ok := l.Hooks()
	if !ok {
		t.Fatal("no hooks")
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rt.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
	if rt.KernelModeSupported(0) != 0 || rt.FinalizeDevice(1) != abi.Unsupported || rt.CreateDeviceContext() != 0 ||
		hooks.SimInject(1, 1, -1000) != abi.Unsupported {
		t.Fatal("closed library answered")
	}
	rt, err = ld.LoadProbe()
	if err != nil {
		t.Fatal(err)
	}
	if !rt.(*Library).Probe() {
		t.Fatal("LoadProbe did not probe")
	}
	_ = rt.Close()
	bad := Loader{Path: "/nonexistent/x.so"}
	if rt, err := bad.Load(); err == nil || rt != nil {
		t.Fatalf("Load of a missing path: %v %v", rt, err)
	}
	if rt, err := bad.LoadProbe(); err == nil || rt != nil {
		t.Fatalf("LoadProbe of a missing path: %v %v", rt, err)
	}
}

// kernelTrioNames are the kernel trio's C names (C-BIND-1: required only when
// supported).
var kernelTrioNames = []string{abi.EntryKernelInit.Name(), abi.EntryKernelPrepare.Name(), abi.EntryKernelLaunch.Name()}
