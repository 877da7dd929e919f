package onboard

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/validation"
)

// Options configure Open.
type Options struct {
	// Preloads are loaded RTLD_NOW|RTLD_GLOBAL before the runtime, once per
	// path per process, and stay loaded for the process (a simulator's
	// companion library).
	Preloads []string
	// LogLevel is the threshold of the SimplerHostLogState bound into the
	// runtime and into every preload that exports the binder; 0 means
	// abi.DefaultLogLevel (TIMING, 25, upstream's default). It must be one of
	// the six levels of docs/contract.md: upstream's binder refuses any other value,
	// and Open refuses it before loading anything.
	LogLevel abi.LogLevel
	// HostLog, when not the zero value, is bound as it is instead of the
	// state LogLevel describes (a test of a runtime's binder may want a state
	// it must refuse). Onboard keeps one 16-byte copy per distinct state
	// alive for the process.
	HostLog abi.HostLogState
	// ProbeOnly makes Open behave as OpenProbe (C-PROBE).
	ProbeOnly bool
	// BindKernelWhenUnsupported binds the kernel trio of a build whose
	// supported returned 0 when all three resolve, so a checker can drive the
	// structural checks (V-INIT, V-PREP-2, V-LAUNCH) of a refusing build. The
	// trio stays optional; the profile stays refusing.
	BindKernelWhenUnsupported bool
	// Inspect loads for a checker: a rule the library breaks at bind time
	// does not fail the load but is recorded in Library.BindFindings (a
	// PipelineContract that is NULL or fails V-CONTRACT; a NULL from
	// create_device_context while supported is asked, in which case
	// supported(NULL) answers, E-SUP). A consumer never sets it: C-BIND-2
	// refuses such a library.
	Inspect bool
}

// BindFinding is a rule a library broke while it was bound (Options.Inspect).
type BindFinding struct {
	Rule   string `json:"rule"` // a rule ID of the contract (V-CONTRACT, L-1)
	Detail string `json:"detail"`
}

// NotRuntimeError is a shared library that loads but exports none of the
// entries of a host runtime.
type NotRuntimeError struct{ Path string }

func (e *NotRuntimeError) Error() string {
	return "onboard: " + e.Path + ": not a host runtime (it exports none of the entries of docs/contract.md)"
}

// BindError is a load refused because required symbols did not resolve
// (C-BIND-1). The library was closed again; nothing was published.
type BindError struct {
	Path    string
	Profile abi.Profile // the shape the library was bound as
	// Missing are the consumer set's requirements (abi.ConsumerSet) that did
	// not resolve, each with its group and what requires it.
	Missing []abi.ConsumerRequirement
}

func (e *BindError) Error() string {
	return "onboard: " + e.Path + ": missing required symbols: " + abi.FormatMissing(e.Missing)
}

// ErrClosed is returned by Close of a library that was closed already.
var ErrClosed = errors.New("onboard: library already closed")

// table holds one function pointer per entry, indexed by the entry; 0 = not
// bound.
type table [abi.NumEntries]uintptr

// bound reports whether every entry of es is bound.
func (t *table) bound(es ...abi.Entry) bool {
	for _, e := range es {
		if t[e] == 0 {
			return false
		}
	}
	return true
}

// unbind forgets the pointers of es.
func (t *table) unbind(es ...abi.Entry) {
	for _, e := range es {
		t[e] = 0
	}
}

// The entries bound or published together.
var (
	// probeEntries are the entries C-PROBE binds.
	probeEntries   = []abi.Entry{abi.EntryHostLogBindState, abi.EntryCreateDeviceContext, abi.EntryDestroyDeviceContext, abi.EntryKernelSupported}
	kernelTrio     = []abi.Entry{abi.EntryKernelInit, abi.EntryKernelPrepare, abi.EntryKernelLaunch}
	hookEntries    = []abi.Entry{abi.EntrySimSetCurrentDevice, abi.EntrySimCurrentDevice, abi.EntrySimSyncStream, abi.EntrySimInject}
	controlEntries = []abi.Entry{abi.EntrySimHoldGate, abi.EntrySimGateState, abi.EntrySimReset}
)

func isProbeEntry(e abi.Entry) bool { return slices.Contains(probeEntries, e) }

// Library is a loaded host runtime. It implements abi.Runtime and
// abi.LoadedRuntime; every method is safe for concurrent use (the runtime's
// own rules decide what concurrent calls mean), except Close, which must not
// race any other call. After Close every method returns UNSUPPORTED (a
// status) or 0 without calling anything.
type Library struct {
	t         table
	path      string
	handle    uintptr
	profile   abi.Profile
	supported int32
	probe     bool
	hooks     *simHooks
	control   *simControl
	timeout   *simCommTimeout
	contract  abi.PipelineContract
	findings  []BindFinding

	closeOnce sync.Once
}

var _ abi.LoadedRuntime = (*Library)(nil)

// Path is the path the library was opened from.
func (l *Library) Path() string { return l.path }

// Profile is what Open detected: tmr (simpler_kernel_mode_supported
// returned nonzero on a fresh context; the kernel trio is required and
// bound), refusing (it returned 0: the trio is absent, or present but not
// bound unless Options.BindKernelWhenUnsupported, and kernel methods then
// return UNSUPPORTED without calling anything), or legacy (no kernel
// entries, a simpler_provision_dma_workspace: program mode only, legacy
// status values that Library.Translate maps for reports).
func (l *Library) Profile() abi.Profile { return l.profile }

// Revision is the ABI revision detected at Open.
func (l *Library) Revision() abi.Revision { return l.profile.Revision() }

// Supported is what simpler_kernel_mode_supported returned on a fresh context
// at Open (0 for a legacy build).
func (l *Library) Supported() int32 { return l.supported }

// Probe reports whether the library was opened by OpenProbe: only the host
// log, create, destroy and supported entries are bound.
func (l *Library) Probe() bool { return l.probe }

// KernelBound reports whether the kernel trio is bound (always for Kernel;
// for a refusing build only with Options.BindKernelWhenUnsupported).
func (l *Library) KernelBound() bool { return l.t.bound(kernelTrio...) }

// Control returns the simulation control hooks when all three resolved
// (simabi_hold_gate, simabi_gate_state, simabi_reset).
func (l *Library) Control() (abi.SimControl, bool) {
	if l.control == nil {
		return nil, false
	}
	return l.control, true
}

// CommTimeout returns the comm timeout hook (simabi_comm_timeout_ms) when
// it resolved.
func (l *Library) CommTimeout() (abi.SimCommTimeout, bool) {
	if l.timeout == nil {
		return nil, false
	}
	return l.timeout, true
}

// HasHooks reports whether all four simulation hooks resolved.
func (l *Library) HasHooks() bool { return l.hooks != nil }

// Hooks returns the simulation hooks when all four resolved.
func (l *Library) Hooks() (abi.SimHooks, bool) {
	if l.hooks == nil {
		return nil, false
	}
	return l.hooks, true
}

// Contract is the PipelineContract the library exported at Open (the zero
// value for a probe).
func (l *Library) Contract() abi.PipelineContract { return l.contract }

// BindFindings are the rules the library broke at bind time (only with
// Options.Inspect; without it such a library does not load).
func (l *Library) BindFindings() []BindFinding { return l.findings }

// Translate maps a status returned by this library onto the current table for
// reports: for a legacy build -1 → INTERNAL, -2 → UNSUPPORTED, -3 →
// PREPARED_INCOMPATIBLE (abi.TranslateLegacy); otherwise s unchanged.
func (l *Library) Translate(s abi.Status) abi.Status {
	if l.profile == abi.ProfileLegacy {
		return abi.TranslateLegacy(s)
	}
	return s
}

// Open loads the runtime at path and binds it (C-BIND-1, C-BIND-2). On any
// failure the library is closed again and the error names path: a
// *LoadError (dlopen, host-log binding, probe context, contract) or a
// *BindError (missing required symbols, each with its group).
func Open(path string, opts Options) (*Library, error) {
	return open(path, opts, opts.ProbeOnly)
}

// OpenProbe loads the runtime at path binding only simpler_host_log_bind_state,
// create_device_context, destroy_device_context and
// simpler_kernel_mode_supported (C-PROBE), and asks supported on a fresh
// context that it destroys again. Only those four entries may be called on
// the result; Close it when done.
func OpenProbe(path string, opts Options) (*Library, error) {
	return open(path, opts, true)
}

// ProbeKernelModeSupported is C-PROBE end to end: load with the probe binding,
// create a fresh context, ask simpler_kernel_mode_supported, destroy the
// context, unload. It takes no device and leaks no context. A legacy build
// answers false.
func ProbeKernelModeSupported(path string, opts Options) (bool, error) {
	l, err := OpenProbe(path, opts)
	if err != nil {
		return false, err
	}
	supported := l.supported != 0
	if err := l.Close(); err != nil {
		return supported, err
	}
	return supported, nil
}

func open(path string, opts Options, probe bool) (*Library, error) {
	if path == "" {
		// dlopen("") returns the main program, whose symbols are not a runtime.
		return nil, &LoadError{Path: path, Step: "dlopen", Err: errors.New("empty library path")}
	}
	st := opts.HostLog
	if st == (abi.HostLogState{}) {
		l := opts.LogLevel
		if l == 0 {
			l = abi.DefaultLogLevel
		}
		if !l.Valid() {
			return nil, &LoadError{Path: path, Step: "host-log state", Err: fmt.Errorf("log level %d is not one of 10, 20, 25, 30, 40, 60 (docs/contract.md)", int32(l))}
		}
		st = abi.HostLogStateAt(l)
	}
	state := hostLogState(st)
	for _, p := range opts.Preloads {
		if err := preload(p, state); err != nil {
			return nil, err
		}
	}
	h, err := dlopen(path, runtimeMode)
	if err != nil {
		return nil, &LoadError{Path: path, Step: "dlopen", Err: err}
	}
	l, err := bind(path, h, state, opts, probe)
	if err != nil {
		_ = dlclose(h)
		return nil, err
	}
	return l, nil
}

// bind fills a private table and returns the published Library, or an error
// (the caller closes h).
func bind(path string, h uintptr, state *[abi.HostLogStateSize]byte, opts Options, probe bool) (*Library, error) {
	var t table
	n := 0
	for _, s := range abi.Symbols {
		if probe && !isProbeEntry(s.Entry) && s.Entry != abi.EntryProvisionDMAWorkspace {
			continue
		}
		if t[s.Entry] = dlsym(h, s.Name); t[s.Entry] != 0 {
			n++
		}
	}
	if n == 0 {
		return nil, &NotRuntimeError{Path: path}
	}
	l := &Library{path: path, handle: h, probe: probe}

	// The shape: a library with no supported entry and a provision entry is
	// legacy; anything else is bound as the kernel ABI.
	l.profile = abi.ProfileTMR
	if t[abi.EntryKernelSupported] == 0 && t[abi.EntryProvisionDMAWorkspace] != 0 {
		l.profile = abi.ProfileLegacy
	}

	// Host log first, before any other entry is called (docs/contract.md "host log").
	if fn := t[abi.EntryHostLogBindState]; fn != 0 {
		if st := bindHostLog(fn, state); st != abi.OK {
			return nil, &LoadError{Path: path, Step: abi.EntryHostLogBindState.Name(), Status: st}
		}
	}
	asked, err := l.askSupported(&t, opts)
	if err != nil {
		return nil, err
	}
	if missing := missingSymbols(&t, l.profile, probe, asked, l.supported); len(missing) > 0 {
		return nil, &BindError{Path: path, Profile: l.profile, Missing: missing}
	}

	// The kernel trio of a build that reports no support: unbound unless asked
	// for, and then only all three together.
	if l.profile != abi.ProfileTMR && !(l.profile == abi.ProfileRefusing && opts.BindKernelWhenUnsupported && t.bound(kernelTrio...)) {
		t.unbind(kernelTrio...)
	}
	if l.profile == abi.ProfileLegacy {
		t.unbind(abi.EntryKernelSupported, abi.EntryDeviceMemoryInfo)
	}
	if !probe {
		if err := l.checkContract(t[abi.EntryGetPipelineContract], opts); err != nil {
			return nil, err
		}
	}
	l.t = t // publish
	if !probe {
		l.attachHooks()
	}
	return l, nil
}

// askSupported asks supported on a fresh context when the probe set
// resolved, and reports whether it asked; a build answering 0 is refusing.
func (l *Library) askSupported(t *table, opts Options) (bool, error) {
	if l.profile != abi.ProfileTMR || !t.bound(probeEntries...) {
		return false, nil
	}
	ctx := call0(t[abi.EntryCreateDeviceContext])
	if ctx == 0 {
		if !opts.Inspect {
			return false, &LoadError{Path: l.path, Step: abi.EntryCreateDeviceContext.Name() + " (asking " + abi.EntryKernelSupported.Name() + ")", Err: errors.New("returned NULL")}
		}
		l.findings = append(l.findings, BindFinding{Rule: "L-1", Detail: abi.EntryCreateDeviceContext.Name() + " returned NULL while " + abi.EntryKernelSupported.Name() + " was asked (supported(NULL) answered instead, E-SUP)"})
		l.supported = int32(call1(t[abi.EntryKernelSupported], 0))
	} else {
		l.supported = int32(call1(t[abi.EntryKernelSupported], ctx))
		call1(t[abi.EntryDestroyDeviceContext], ctx)
	}
	if l.supported == 0 {
		l.profile = abi.ProfileRefusing
	}
	return true, nil
}

// checkContract is C-BIND-2: the exported PipelineContract must pass
// V-CONTRACT (with Options.Inspect a failure is a finding instead).
func (l *Library) checkContract(fn uintptr, opts Options) error {
	r1 := call0(fn)
	if r1 == 0 {
		if !opts.Inspect {
			return &LoadError{Path: l.path, Step: abi.EntryGetPipelineContract.Name(), Err: errors.New("returned NULL")}
		}
		l.findings = append(l.findings, BindFinding{Rule: "V-CONTRACT", Detail: abi.EntryGetPipelineContract.Name() + " returned NULL"})
		return nil
	}
	src := unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&r1))), abi.PipelineContractSize)
	c, err := abi.DecodePipelineContract(src)
	if err == nil {
		err = validation.CheckContract(c)
	}
	switch {
	case err != nil && opts.Inspect:
		l.findings = append(l.findings, BindFinding{Rule: "V-CONTRACT", Detail: abi.EntryGetPipelineContract.Name() + ": " + err.Error()})
	case err != nil:
		return &LoadError{Path: l.path, Step: "C-BIND-2 " + abi.EntryGetPipelineContract.Name(), Err: err}
	}
	l.contract = c
	return nil
}

// attachHooks publishes the simulation hooks and control hooks that
// resolved as a whole, and the comm timeout hook.
func (l *Library) attachHooks() {
	if l.t.bound(hookEntries...) {
		l.hooks = &simHooks{&l.t}
	}
	if l.t.bound(controlEntries...) {
		l.control = &simControl{&l.t}
	}
	if l.t.bound(abi.EntrySimCommTimeout) {
		l.timeout = &simCommTimeout{&l.t}
	}
}

// missingSymbols lists the required symbols of revision rev that did not
// resolve; the entries required only when supported count only when
// supported was asked and answered 1.
func missingSymbols(t *table, rev abi.Profile, probe, asked bool, supported int32) []abi.ConsumerRequirement {
	r := abi.RevKernel
	if rev == abi.ProfileLegacy {
		r = abi.RevLegacy
	}
	resolved := func(name string) bool {
		s, ok := abi.LookupSymbol(name)
		return ok && t[s.Entry] != 0
	}
	// C-BIND-1's required set is the consumer set of the revision (abi), so
	// the loader and the export check cannot drift apart.
	var missing []abi.ConsumerRequirement
	for _, m := range abi.MissingExports(abi.ConsumerOf(r), resolved, asked && supported != 0) {
		if probe && !isProbeEntry(m.Entry) {
			continue
		}
		missing = append(missing, m)
	}
	return missing
}

// Close unloads the library (dlclose). It does not finalize or destroy
// contexts: that is the consumer's job before Close. After Close every method
// returns UNSUPPORTED or 0 without calling anything; a second Close returns
// ErrClosed.
func (l *Library) Close() error {
	err := ErrClosed
	l.closeOnce.Do(func() {
		l.t = table{} // unbinds the hooks too
		err = dlclose(l.handle)
		if err != nil {
			err = &LoadError{Path: l.path, Step: "dlclose", Err: err}
		}
	})
	return err
}

// Loader opens shared libraries for a consumer (abi.Loader).
type Loader struct {
	Path    string
	Options Options
}

var _ abi.Loader = Loader{}

// Load opens Path with every required symbol bound (C-BIND-1) and its
// PipelineContract checked (C-BIND-2).
func (ld Loader) Load() (abi.LoadedRuntime, error) {
	l, err := Open(ld.Path, ld.Options)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// LoadProbe opens Path with the probe binding (C-PROBE).
func (ld Loader) LoadProbe() (abi.LoadedRuntime, error) {
	l, err := OpenProbe(ld.Path, ld.Options)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// String is the path.
func (ld Loader) String() string { return ld.Path }
