package lifecycle

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/internal/osthread"
)

// scriptRuntime is a scripted abi.LoadedRuntime in Go, the counterpart of
// upstream's Python _FakeKernelChip: it returns scripted statuses, records
// every call with its OS thread, blocks in hooks so tests can overlap calls,
// and records invariant violations (an unknown or destroyed handle, a call of
// a forbidden entry, supported asked on a context a program init touched, a
// live context at unload) instead of aborting. Tests assert violations() is
// empty.
type scriptRuntime struct {
	// The entries lifecycle never calls answer UNSUPPORTED or 0.
	abi.UnsupportedRuntime

	mu sync.Mutex

	// Script.
	supported       int32
	kernelInitRC    abi.Status
	simplerInitRC   abi.Status
	prepareRC       abi.Status
	prepareIDs      []int32 // ids to mint, in order; then 0, 1, 2, ...
	prepareNoID     bool    // a successful prepare writes no id
	launchRC        abi.Status
	finalizeFails   int        // the first N finalize_device calls fail ...
	finalizeCode    abi.Status // ... with this code (default -77)
	forbidden       map[string]bool
	onPrepare       func() // called without mu, inside the entry
	onLaunch        func()
	onFinalize      func()
	onKernelInit    func()
	loadErr         error // next Load fails (then cleared)
	probeErr        error // next LoadProbe fails (then cleared)
	runtimeSize     uintptr
	runtimeAlign    uintptr
	createReturns0  bool
	committedKernel uintptr
	pipeline        abi.Pipeline // the contract Contract reports ("": the single slot)
	concurrent      int32        // what supports_concurrent_native_prepare_ctx answers

	// Observations.
	next       abi.Ctx
	live       map[abi.Ctx]*scriptCtx
	created    int
	destroyed  int
	loads      int
	probeLoads int
	closes     int
	calls      []scriptCall
	violated   []string
	minted     int32
	launches   []scriptLaunch
	kinits     []scriptKernelInit
	prepared   [][]byte // the image spans passed to successful prepares
	prewarms   [][]byte // the prewarm configs simpler_init got (CallConfigSize bytes each)
	runConfigs [][]byte // the configs simpler_run and simpler_prepare_run got
	mallocs    abi.DevicePtr
	// runScript queues the statuses of the run family's entries, by entry
	// name, each answered once in order; an entry without one answers 0
	// (simpler_poll_run's 0 is "not ready").
	runScript map[string][]abi.Status
	descs     []abi.NativeRunDescriptor // the descriptors simpler_prepare_run got
	storages  []abi.RunHandle           // the run storage simpler_prepare_run got
}

type scriptCtx struct {
	programTouched bool
	kernelTouched  bool
}

type scriptCall struct {
	name   string
	ctx    abi.Ctx
	thread uint64
}

type scriptLaunch struct {
	id     int32
	args   unsafe.Pointer
	stream abi.Stream
}

type scriptKernelInit struct {
	device     int32
	aicpuN     uintptr
	aicoreN    uintptr
	dispN      uintptr
	config     []byte
	generation uint64
}

func newScript() *scriptRuntime {
	return &scriptRuntime{supported: 1, finalizeCode: -77, runtimeSize: 64, runtimeAlign: 64,
		next: 0x1000, live: map[abi.Ctx]*scriptCtx{}, forbidden: map[string]bool{}}
}

func (f *scriptRuntime) violate(format string, a ...any) {
	f.violated = append(f.violated, fmt.Sprintf(format, a...))
}

// enter records a call of name on ctx; for a context entry it checks the
// handle. It returns the context (nil for NULL or an invalid handle).
func (f *scriptRuntime) enter(name string, ctx abi.Ctx, isCtxEntry bool) *scriptCtx {
	f.calls = append(f.calls, scriptCall{name, ctx, osthread.ID()})
	if f.forbidden[name] {
		f.violate("must not call %s", name)
	}
	if !isCtxEntry || ctx == 0 {
		return nil
	}
	c := f.live[ctx]
	if c == nil {
		f.violate("%s on an unknown or destroyed handle %#x", name, uintptr(ctx))
	}
	return c
}

func (f *scriptRuntime) violations() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.violated)
}

// count is the number of calls of name so far.
func (f *scriptRuntime) count(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c.name == name {
			n++
		}
	}
	return n
}

// callsOf returns the calls of name.
func (f *scriptRuntime) callsOf(name string) []scriptCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []scriptCall
	for _, c := range f.calls {
		if c.name == name {
			out = append(out, c)
		}
	}
	return out
}

func (f *scriptRuntime) ncalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

func (f *scriptRuntime) liveContexts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.live)
}

func (f *scriptRuntime) snapshot() (loads, probeLoads, closes, created, destroyed int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.loads, f.probeLoads, f.closes, f.created, f.destroyed
}

// scriptLoader opens its scriptRuntime; every Load and LoadProbe returns the
// same instance.
type scriptLoader struct{ f *scriptRuntime }

func (l scriptLoader) Load() (abi.LoadedRuntime, error) {
	l.f.mu.Lock()
	defer l.f.mu.Unlock()
	l.f.loads++
	if err := l.f.loadErr; err != nil {
		l.f.loadErr = nil
		return nil, err
	}
	return l.f, nil
}

func (l scriptLoader) LoadProbe() (abi.LoadedRuntime, error) {
	l.f.mu.Lock()
	defer l.f.mu.Unlock()
	l.f.probeLoads++
	if err := l.f.probeErr; err != nil {
		l.f.probeErr = nil
		return nil, err
	}
	return l.f, nil
}

func (l scriptLoader) String() string { return "script" }

var errScriptNoLibrary = errors.New("script: no such library")

// ---- abi.LoadedRuntime ----

func (f *scriptRuntime) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closes++
	if len(f.live) > 0 {
		f.violate("unloaded with %d live context(s)", len(f.live))
	}
	return nil
}

func (f *scriptRuntime) CreateDeviceContext() abi.Ctx {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enter("create_device_context", 0, false)
	if f.createReturns0 {
		return 0
	}
	f.next += 0x10
	f.live[f.next] = &scriptCtx{}
	f.created++
	return f.next
}

func (f *scriptRuntime) DestroyDeviceContext(ctx abi.Ctx) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.enter("destroy_device_context", ctx, true) != nil {
		delete(f.live, ctx)
		f.destroyed++
	}
}

func (f *scriptRuntime) SimplerInit(ctx abi.Ctx, deviceID int32, aicpu unsafe.Pointer, aicpuSize uintptr, aicore unsafe.Pointer, aicoreSize uintptr,
	dispatcher unsafe.Pointer, dispatcherSize uintptr, prewarmConfig unsafe.Pointer, enableSDMA int32,
	sdmaWarmup unsafe.Pointer, sdmaWarmupSize uint64) abi.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.enter("simpler_init", ctx, true)
	if c != nil {
		c.programTouched = true
	}
	if prewarmConfig != nil {
		f.prewarms = append(f.prewarms, slices.Clone(unsafe.Slice((*byte)(prewarmConfig), abi.CallConfigSize)))
	}
	return f.simplerInitRC
}

func (f *scriptRuntime) FinalizeDevice(ctx abi.Ctx) abi.Status {
	f.mu.Lock()
	f.enter("finalize_device", ctx, true)
	hook := f.onFinalize
	rc := abi.OK
	if f.finalizeFails > 0 {
		f.finalizeFails--
		rc = f.finalizeCode
	}
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
	return rc
}

func (f *scriptRuntime) GetRuntimeSize() uintptr {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enter("get_runtime_size", 0, false)
	return f.runtimeSize
}

func (f *scriptRuntime) GetRuntimeAlignment() uintptr {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enter("get_runtime_alignment", 0, false)
	return f.runtimeAlign
}

func (f *scriptRuntime) DeviceMalloc(ctx abi.Ctx, size uintptr) abi.DevicePtr {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enter("device_malloc_ctx", ctx, true)
	f.mallocs += 0x10000
	return f.mallocs
}

func (f *scriptRuntime) DeviceFree(ctx abi.Ctx, p abi.DevicePtr) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enter("device_free_ctx", ctx, true)
}

func (f *scriptRuntime) CommittedDeviceMemory(ctx abi.Ctx) uintptr {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enter("committed_device_memory_ctx", ctx, true)
	return f.committedKernel
}

func (f *scriptRuntime) DeviceMemoryInfo(ctx abi.Ctx, info unsafe.Pointer) abi.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enter("device_memory_info_ctx", ctx, true)
	_ = abi.DeviceMemoryInfo{FreeBytes: 1 << 20, TotalBytes: 1 << 30}.Encode(unsafe.Slice((*byte)(info), abi.DeviceMemoryInfoSize))
	return abi.OK
}

func (f *scriptRuntime) CopyToDevice(ctx abi.Ctx, dev abi.DevicePtr, host unsafe.Pointer, size uintptr) abi.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enter("copy_to_device_ctx", ctx, true)
	return abi.OK
}

func (f *scriptRuntime) CopyFromDevice(ctx abi.Ctx, host unsafe.Pointer, dev abi.DevicePtr, size uintptr) abi.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enter("copy_from_device_ctx", ctx, true)
	return abi.OK
}

func (f *scriptRuntime) RegisterCallable(ctx abi.Ctx, callableID int32, callable unsafe.Pointer) abi.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enter("simpler_register_callable", ctx, true)
	return abi.OK
}

func (f *scriptRuntime) UnregisterCallable(ctx abi.Ctx, callableID int32) abi.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enter("simpler_unregister_callable", ctx, true)
	return abi.OK
}

func (f *scriptRuntime) Run(ctx abi.Ctx, rt abi.RunHandle, callableID int32, args, config, descriptor unsafe.Pointer) abi.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enter("simpler_run", ctx, true)
	if config != nil {
		f.runConfigs = append(f.runConfigs, slices.Clone(unsafe.Slice((*byte)(config), abi.CallConfigSize)))
	}
	return abi.OK
}

func (f *scriptRuntime) PrepareRun(ctx abi.Ctx, rt abi.RunHandle, callableID int32, args, config, descriptor unsafe.Pointer) abi.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enter("simpler_prepare_run", ctx, true)
	if config != nil {
		f.runConfigs = append(f.runConfigs, slices.Clone(unsafe.Slice((*byte)(config), abi.CallConfigSize)))
	}
	if descriptor != nil {
		d, err := abi.DecodeNativeRunDescriptor(unsafe.Slice((*byte)(descriptor), abi.NativeRunDescSize))
		if err != nil {
			f.violate("simpler_prepare_run: descriptor: %v", err)
		}
		f.descs = append(f.descs, d)
	}
	f.storages = append(f.storages, rt)
	return f.scripted("simpler_prepare_run")
}

// scripted is the next queued status of entry name (f.mu held), else 0.
func (f *scriptRuntime) scripted(name string) abi.Status {
	q := f.runScript[name]
	if len(q) == 0 {
		return abi.OK
	}
	f.runScript[name] = q[1:]
	return q[0]
}

func (f *scriptRuntime) simple(name string, ctx abi.Ctx) abi.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enter(name, ctx, true)
	return f.scripted(name)
}

func (f *scriptRuntime) LaunchRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	return f.simple("simpler_launch_run", ctx)
}
func (f *scriptRuntime) PollRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	return f.simple("simpler_poll_run", ctx)
}
func (f *scriptRuntime) WaitRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	return f.simple("simpler_wait_run", ctx)
}
func (f *scriptRuntime) FinalizeRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	return f.simple("simpler_finalize_run", ctx)
}

func (f *scriptRuntime) KernelModeSupported(ctx abi.Ctx) int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.enter("simpler_kernel_mode_supported", ctx, true)
	if c != nil && c.programTouched {
		f.violate("simpler_kernel_mode_supported asked on a context a program init touched")
	}
	return f.supported
}

func (f *scriptRuntime) KernelModeInit(ctx abi.Ctx, deviceID int32, aicpu unsafe.Pointer, aicpuSize uintptr, aicore unsafe.Pointer, aicoreSize uintptr,
	dispatcher unsafe.Pointer, dispatcherSize uintptr, config unsafe.Pointer, contextGeneration uint64) abi.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.enter("simpler_kernel_mode_init", ctx, true)
	if c != nil {
		c.kernelTouched = true
	}
	var cfg []byte
	if config != nil {
		cfg = slices.Clone(unsafe.Slice((*byte)(config), abi.CallConfigSize))
	}
	f.kinits = append(f.kinits, scriptKernelInit{deviceID, aicpuSize, aicoreSize, dispatcherSize, cfg, contextGeneration})
	if hook := f.onKernelInit; hook != nil {
		f.mu.Unlock()
		hook()
		f.mu.Lock()
	}
	return f.kernelInitRC
}

func (f *scriptRuntime) KernelModePrepareCallable(ctx abi.Ctx, callable unsafe.Pointer, size uintptr, outID *int32) abi.Status {
	f.mu.Lock()
	f.enter("simpler_kernel_mode_prepare_callable", ctx, true)
	hook := f.onPrepare
	f.mu.Unlock()
	if outID != nil {
		*outID = -1
	}
	if hook != nil {
		hook()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.prepareRC != abi.OK {
		return f.prepareRC
	}
	if uintptr(callable)%abi.ChipCallableAlign != 0 {
		f.violate("prepare got a misaligned image %p", callable)
	}
	f.prepared = append(f.prepared, unsafe.Slice((*byte)(callable), size))
	if f.prepareNoID {
		return abi.OK
	}
	var id int32
	if len(f.prepareIDs) > 0 {
		id, f.prepareIDs = f.prepareIDs[0], f.prepareIDs[1:]
	} else {
		id = f.minted
		f.minted++
	}
	*outID = id
	return abi.OK
}

func (f *scriptRuntime) KernelModeLaunch(ctx abi.Ctx, callableID int32, args unsafe.Pointer, stream abi.Stream) abi.Status {
	f.mu.Lock()
	f.enter("simpler_kernel_mode_launch", ctx, true)
	hook := f.onLaunch
	rc := f.launchRC
	f.launches = append(f.launches, scriptLaunch{callableID, args, stream})
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
	return rc
}

var scriptContract = func() []byte {
	b := abi.AlignedBytes(abi.PipelineContractSize, abi.PipelineContractAlign)
	_ = abi.SimulatedProgramContract().Encode(b)
	return b
}()

func (f *scriptRuntime) GetPipelineContract() unsafe.Pointer { return abi.Ptr(scriptContract) }
func (f *scriptRuntime) SupportsConcurrentNativePrepare(ctx abi.Ctx) int32 {
	f.simple("supports_concurrent_native_prepare_ctx", ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.concurrent
}

// Contract is the contract the loader read, as onboard.Library reports it.
func (f *scriptRuntime) Contract() abi.PipelineContract {
	if f.pipeline == "" {
		return abi.SimulatedProgramContract()
	}
	return f.pipeline.Spec().Contract
}

var _ abi.LoadedRuntime = (*scriptRuntime)(nil)

// legacyScript is scriptRuntime reporting the legacy revision, as onboard's
// Library does for a build from before the kernel ABI.
type legacyScript struct{ *scriptRuntime }

func (legacyScript) Revision() abi.Revision { return abi.RevLegacy }

type legacyLoader struct{ f *scriptRuntime }

func (l legacyLoader) Load() (abi.LoadedRuntime, error) {
	rt, err := scriptLoader(l).Load()
	if err != nil {
		return nil, err
	}
	return legacyScript{rt.(*scriptRuntime)}, nil
}
func (l legacyLoader) LoadProbe() (abi.LoadedRuntime, error) { return l.Load() }
func (legacyLoader) String() string                          { return "legacy script" }
