package abi

import "unsafe"

// Ctx is a DeviceContextHandle: an opaque pointer value create_device_context
// returned. 0 is NULL.
type Ctx uintptr

// Stream is a caller stream (void *caller_stream): an opaque non-NULL value a
// runtime compares by value and never dereferences (D-3). 0 is NULL.
type Stream uintptr

// RunHandle is a RuntimeHandle: the address of caller-owned native-run storage
// of get_runtime_size() bytes at get_runtime_alignment(). 0 is NULL.
type RunHandle uintptr

// DevicePtr is a device address (void *dev_ptr); never dereferenced on the host.
type DevicePtr uintptr

// CommHandle is a CommHandle of the comm group.
type CommHandle uintptr

// Runtime is the host-runtime C ABI with one method per C entry and C-shaped
// arguments, so every malformed call a C caller can make is expressible: a NULL
// (0) context, a span whose pointer and size disagree, a misaligned image, a
// nil out pointer. Pointers are unsafe.Pointer because a runtime behind this
// interface may be C code reading them; the memory must stay alive and must
// not move for the duration of the call (Go heap memory qualifies).
//
// Both backends implement it: sim.Runtime in Go and onboard.Library over any
// shared library. Methods never panic on any argument; a status-returning
// method reports every failure through its Status.
type Runtime interface {
	// CreateDeviceContext returns a new, unlatched context (L-1) naming no
	// device, or 0 on failure.
	CreateDeviceContext() Ctx
	// DestroyDeviceContext frees ctx, unless a program run is outstanding or
	// ctx is kernel-latched and no finalize of it has returned 0, in which case
	// it does nothing (E-DESTROY). NULL is a no-op (S-3).
	DestroyDeviceContext(ctx Ctx)
	// SimplerInit is program-mode init: NULL ctx → INTERNAL (S-3); argument
	// checks → INVALID_ARGUMENT unlatched; latch PROGRAM (L-4; INVALID_STATE on
	// a kernel context, L-2); a device already attached → INVALID_STATE; attach
	// the calling thread to deviceID (E-PINIT).
	SimplerInit(ctx Ctx, deviceID int32, aicpu unsafe.Pointer, aicpuSize uintptr, aicore unsafe.Pointer, aicoreSize uintptr,
		dispatcher unsafe.Pointer, dispatcherSize uintptr, prewarmConfig unsafe.Pointer, enableSDMA int32,
		sdmaWarmup unsafe.Pointer, sdmaWarmupSize uint64) Status
	// FinalizeDevice releases what ctx holds (E-FIN, K-5, K-6, D-1, D-2, D-4,
	// E-CLAIM). NULL → INTERNAL.
	FinalizeDevice(ctx Ctx) Status

	// GetRuntimeSize is the size of native-run storage.
	GetRuntimeSize() uintptr
	// GetRuntimeAlignment is the alignment of native-run storage (a power of
	// two, at least 8).
	GetRuntimeAlignment() uintptr

	// DeviceMalloc allocates program-mode device memory; 0 without a live
	// program init (E-PROG) or for NULL ctx (S-3).
	DeviceMalloc(ctx Ctx, size uintptr) DevicePtr
	// DeviceFree frees program-mode device memory; does nothing without a live
	// program init (E-PROG).
	DeviceFree(ctx Ctx, p DevicePtr)
	// CommittedDeviceMemory is the device memory ctx has committed (M-7); 0 for
	// NULL, a fresh context and after a successful kernel finalize.
	CommittedDeviceMemory(ctx Ctx) uintptr
	// DeviceMemoryInfo writes a DeviceMemoryInfo (16 bytes) to info on success
	// (E-PROG).
	DeviceMemoryInfo(ctx Ctx, info unsafe.Pointer) Status
	// CopyToDevice copies size host bytes to dev (E-PROG).
	CopyToDevice(ctx Ctx, dev DevicePtr, host unsafe.Pointer, size uintptr) Status
	// CopyFromDevice copies size device bytes to host (E-PROG).
	CopyFromDevice(ctx Ctx, host unsafe.Pointer, dev DevicePtr, size uintptr) Status

	// RegisterCallable registers a ChipCallable image under a caller id in
	// program mode (E-PROG).
	RegisterCallable(ctx Ctx, callableID int32, callable unsafe.Pointer) Status
	// UnregisterCallable drops a program-mode registration (E-PROG).
	UnregisterCallable(ctx Ctx, callableID int32) Status
	// Run is prepare + launch + wait + finalize of one program run (E-PROG).
	Run(ctx Ctx, rt RunHandle, callableID int32, args, config, descriptor unsafe.Pointer) Status
	// PrepareRun binds a program run into rt without launching it (E-PROG).
	PrepareRun(ctx Ctx, rt RunHandle, callableID int32, args, config, descriptor unsafe.Pointer) Status
	// LaunchRun launches the run prepared in rt (E-PROG).
	LaunchRun(ctx Ctx, rt RunHandle) Status
	// PollRun returns PollNotReady, PollComplete or a negative status (E-PROG).
	PollRun(ctx Ctx, rt RunHandle) Status
	// WaitRun waits for the run in rt to end (E-PROG).
	WaitRun(ctx Ctx, rt RunHandle) Status
	// FinalizeRun ends and releases the run in rt (E-PROG).
	FinalizeRun(ctx Ctx, rt RunHandle) Status
	// AicpuDlopenCount is a test counter (0 for NULL, S-3).
	AicpuDlopenCount(ctx Ctx) uintptr
	// HostDlopenCount is a test counter (0 for NULL, S-3).
	HostDlopenCount(ctx Ctx) uintptr
	// RunStreamSetCreateCount is a test counter (0 for NULL, S-3).
	RunStreamSetCreateCount(ctx Ctx) uintptr

	// KernelModeSupported is a build constant: 1 for tmr, 0 for refusing, for
	// every ctx including NULL and in every state (E-SUP).
	KernelModeSupported(ctx Ctx) int32
	// KernelModeInit is kernel init (V-INIT, V-CFG, E-KINIT, L-5, K-2, K-7,
	// E-CLAIM, D-1, D-2).
	KernelModeInit(ctx Ctx, deviceID int32, aicpu unsafe.Pointer, aicpuSize uintptr, aicore unsafe.Pointer, aicoreSize uintptr,
		dispatcher unsafe.Pointer, dispatcherSize uintptr, config unsafe.Pointer, contextGeneration uint64) Status
	// KernelModePrepareCallable validates and keeps a ChipCallable image of
	// exactly size bytes and writes the minted id to outID (V-PREP-1, V-PREP-2,
	// E-PREP, V-IMG, M-1..M-7, K-3, K-4, D-2, X-2).
	KernelModePrepareCallable(ctx Ctx, callable unsafe.Pointer, size uintptr, outID *int32) Status
	// KernelModeLaunch enqueues callable id with args (a ChipStorageTaskArgs)
	// on the caller's stream and returns (V-LAUNCH, E-LAUNCH, E-LAUNCH-ASYNC,
	// D-2, D-3, X-2).
	KernelModeLaunch(ctx Ctx, callableID int32, args unsafe.Pointer, stream Stream) Status

	// GetPipelineContract returns the address of the runtime's immutable
	// PipelineContract (144 bytes), checked by consumers with V-CONTRACT.
	GetPipelineContract() unsafe.Pointer
	// SupportsConcurrentNativePrepare is nonzero when a program prepare may
	// overlap another slot's execution.
	SupportsConcurrentNativePrepare(ctx Ctx) int32
	// ArenaBankGMHeapBase is the committed GM heap base of a bank, 0 if none.
	ArenaBankGMHeapBase(ctx Ctx, bank uint32) uint64
	// RetainedTempAddr is the retained temp buffer of a slot, 0 if none.
	RetainedTempAddr(ctx Ctx, slot uint32) uint64

	// EnsureACLReady latches PROGRAM and makes deviceID current on the calling
	// thread (E-ACL).
	EnsureACLReady(ctx Ctx, deviceID int32) Status
	// CreateCommStream returns a new comm stream, or 0.
	CreateCommStream(ctx Ctx) Stream
	// DestroyCommStream destroys a comm stream.
	DestroyCommStream(ctx Ctx, s Stream) Status

	// The comm group: resolved by consumers, never called on the kernel path.
	CommInit(rank, nranks int32, stream Stream, rootinfoPath unsafe.Pointer) CommHandle
	CommAllocWindows(h CommHandle, winSize uintptr, deviceCtxOut *uint64) Status
	CommGetLocalWindowBase(h CommHandle, baseOut *uint64) Status
	CommGetWindowSize(h CommHandle, sizeOut *uintptr) Status
	CommBarrier(h CommHandle) Status
	CommDestroy(h CommHandle) Status
	// The comm domain entries (upstream's comm.h; ChipWorker resolves them
	// since 2026-05..08). rankIDs points at rankCount uint32s; descriptors
	// at CommGlobalDomainDescriptors (288 bytes each).
	CommDeriveContext(h CommHandle, rankIDs unsafe.Pointer, rankCount uintptr, domainRank uint32, windowOffset, windowSize uintptr, deviceCtxOut *uint64) Status
	CommAllocDomainWindows(h CommHandle, allocationID uint64, rankIDs unsafe.Pointer, rankCount uintptr, domainRank uint32, windowSize uintptr, deviceCtxOut, localWindowBaseOut *uint64) Status
	CommReleaseDomainWindows(h CommHandle, allocationID uint64, rankCount uintptr, domainRank uint32) Status
	CommGlobalDomainPrepare(domainID uint64, domainRank, rankCount uint32, windowSize uintptr, profile uint32, descriptorOut unsafe.Pointer, localWindowBaseOut *uint64) Status
	CommGlobalDomainImport(domainID uint64, descriptors unsafe.Pointer, descriptorCount uintptr, deviceCtxOut *uint64) Status
	CommGlobalDomainRelease(domainID uint64) Status

	// HostLogBindState binds the process-owned SimplerHostLogState (16 bytes);
	// nonzero refuses the load.
	HostLogBindState(state unsafe.Pointer) Status
}

// SimHooks are the optional simulation hooks of docs/contract.md, through which a
// checker drives the borrowed-device and stream rules without ACL.
type SimHooks interface {
	// SimSetCurrentDevice sets the calling OS thread's current device as the
	// runtime sees it (-1 = none); returns 0.
	SimSetCurrentDevice(dev int32) Status
	// SimCurrentDevice is the calling OS thread's current device, -1 when none.
	SimCurrentDevice() int32
	// SimSyncStream completes every launch enqueued on s so far, by any
	// context; returns 0, an injected asynchronous failure (site 8), or
	// INVALID_ARGUMENT for NULL (E-LAUNCH-ASYNC).
	SimSyncStream(s Stream) Status
	// SimInject makes the next count passes through site fail with code.
	SimInject(site, count, code int32) Status
}

// SimControl are the optional simulation control hooks of docs/contract.md:
// a checker drives a simulated runtime to a state instead of waiting for it,
// and reuses one loaded runtime.
type SimControl interface {
	// SimHoldGate with hold 1 arms ctx: the next prepare of ctx that takes
	// its submission gate parks right after taking it (where fault site 7
	// holds it), holding the gate, until SimHoldGate(ctx, 0), which releases
	// a parked prepare or disarms. Returns 0; INVALID_ARGUMENT for NULL ctx
	// or a hold other than 0 or 1.
	SimHoldGate(ctx Ctx, hold int32) Status
	// SimGateState is GateParked when a prepare of ctx is parked holding its
	// gate, plus GateWaiter for each call of ctx blocked waiting for the
	// gate; 0 for NULL.
	SimGateState(ctx Ctx) int32
	// SimReset returns the runtime to the state of a fresh load: every
	// context (live or destroyed) and claim gone, handles and fault sites as
	// new, stream queues and run storages empty. What the process's ACL
	// holds (current devices, streams, counters) is not the runtime's and
	// stays. No call of the runtime may be in progress. Returns 0.
	SimReset() Status
}

// SimCommTimeout is the optional simulation hook that bounds the comm
// family's waits for peers (docs/contract.md F-1, simabi_comm_timeout_ms): a
// checker shortens it to drive the timeout clauses of E-COMM in
// milliseconds instead of upstream's 120 s.
type SimCommTimeout interface {
	// SimCommTimeoutMs with ms >= 1 sets the bound of every wait of the
	// comm family that starts later and returns the previous bound; with
	// ms <= 0 it only returns the bound in force. Milliseconds.
	SimCommTimeoutMs(ms int32) int32
}

// SimGateState's parts.
const (
	GateParked int32 = 1 // a prepare is parked holding the gate
	GateWaiter int32 = 2 // added for each call waiting for the gate
)

// Fault sites of simabi_inject (docs/contract.md).
const (
	SiteInitCreate        int32 = 1 // kernel init, creating its streams and events (K-7)
	SitePrepareCopy       int32 = 2 // prepare, allocate-and-copy (clean failure)
	SitePrepareRegister   int32 = 3 // prepare, device registration (poison, K-4)
	SiteLaunchEnqueue     int32 = 4 // launch, after the enqueue started (poison)
	SiteFinalizeRelease   int32 = 5 // finalize of a kernel context, one release step (K-5)
	SiteFinalizeFatal     int32 = 6 // finalize reaching the release step: fatal device (D-4)
	SitePrepareHoldGate   int32 = 7 // prepare holds the submission gate code ms longer
	SiteAsyncDeviceFail   int32 = 8 // next synchronize of a stream with pending work fails
	SiteInitRollbackFails int32 = 9 // the rollback after a site-1 failure fails too (K-7)
	// SiteProgramTeardown: finalize of a program context with a device
	// attached, its teardown: finalize returns the code and the context is
	// detached anyway, so the next finalize returns 0 (E-FIN).
	SiteProgramTeardown int32 = 10
	FirstSite                 = SiteInitCreate
	LastSite                  = SiteProgramTeardown
)

// SiteNames names the fault sites for reports.
var SiteNames = map[int32]string{
	SiteInitCreate:        "init-create",
	SitePrepareCopy:       "prepare-copy",
	SitePrepareRegister:   "prepare-register",
	SiteLaunchEnqueue:     "launch-enqueue",
	SiteFinalizeRelease:   "finalize-release",
	SiteFinalizeFatal:     "finalize-fatal",
	SitePrepareHoldGate:   "prepare-hold-gate",
	SiteAsyncDeviceFail:   "async-device-failure",
	SiteInitRollbackFails: "init-rollback",
	SiteProgramTeardown:   "program-teardown",
}

// CheckInjectArgs is the argument rule of simabi_inject: IA for a site outside
// 1..10, count < 0, or count > 0 with code 0 (sites 6 and 7 excepted, whose
// code is ignored or a duration). It does not decide whether a runtime models
// the site (UNSUPPORTED).
func CheckInjectArgs(site, count, code int32) Status {
	if site < FirstSite || site > LastSite || count < 0 {
		return InvalidArgument
	}
	if count > 0 && code == 0 && site != SiteFinalizeFatal && site != SitePrepareHoldGate {
		return InvalidArgument
	}
	return OK
}

// LoadedRuntime is a runtime a consumer opened and must close again (for a
// shared library: unload it).
type LoadedRuntime interface {
	Runtime
	// Close releases the runtime (dlclose for a library). It does not finalize
	// or destroy contexts: that is the consumer's job before Close.
	Close() error
}

// Loader opens a runtime for a consumer. onboard loads shared libraries and
// sim builds in-process runtimes; lifecycle takes either through this
// interface.
type Loader interface {
	// Load opens the runtime with every required symbol bound (C-BIND-1) and
	// its PipelineContract checked (C-BIND-2).
	Load() (LoadedRuntime, error)
	// LoadProbe opens the runtime binding only the host log, create, destroy
	// and supported entries (C-PROBE); only those may be called on the result.
	LoadProbe() (LoadedRuntime, error)
	// String names the runtime for messages (a path, or "sim:tmr").
	String() string
}
