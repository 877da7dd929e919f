package onboard

import (
	"unsafe"

	"github.com/simabi/simabi/abi"
)

// Every method below calls its entry through the pointer resolved at Open.
// An entry that is not bound (a probe library, a legacy build's kernel and
// device_memory_info_ctx entries, the trio of a build whose supported is 0,
// any entry after Close) is not called: status methods return UNSUPPORTED,
// queries return 0. Status returns are C ints: the low 32 bits,
// sign-extended.
//
// Memory: every pointer argument must be Go heap memory or C memory that
// stays alive and unmoved for the duration of the call; it is converted to
// uintptr in the call expression of a go:uintptrescapes helper (callargs.go),
// which keeps a Go object alive until the call returns (and makes it escape
// to the heap).

// status is the C int in the low 32 bits of r1.
func status(r1 uintptr) abi.Status { return abi.Status(int32(r1)) }

// legacySDMAMask is the required_mask handed to a legacy build's
// simpler_provision_dma_workspace when enable_sdma is nonzero: the SDMA
// engine bit.
const legacySDMAMask = 1

// CreateDeviceContext calls create_device_context.
func (l *Library) CreateDeviceContext() abi.Ctx {
	return abi.Ctx(query0(l.t[abi.EntryCreateDeviceContext]))
}

// DestroyDeviceContext calls destroy_device_context.
func (l *Library) DestroyDeviceContext(ctx abi.Ctx) {
	query1(l.t[abi.EntryDestroyDeviceContext], uintptr(ctx))
}

// SimplerInit calls simpler_init. The spans, prewarmConfig and sdmaWarmup
// must be Go heap or C memory that stays alive and unmoved during the call.
//
// Legacy builds: simpler_init has 9 parameters (through prewarm_config,
// which the caller must encode in the legacy 1144-byte layout,
// abi.CallConfig.EncodeLegacy), and SDMA is provisioned by
// simpler_provision_dma_workspace. Onboard's choice: an inconsistent warm-up
// span (V-SPAN) is refused with the legacy generic code -1 before anything is
// called, so the context stays unlatched as E-PINIT requires; then the
// 9-parameter init is called; when it returns 0 and enableSDMA != 0 or a
// warm-up span is given, simpler_provision_dma_workspace(ctx, mask,
// sdmaWarmup, sdmaWarmupSize) is called with mask 1 (the SDMA engine) when
// enableSDMA != 0, else 0. A provisioning failure calls finalize_device, so
// the context ends program-latched and unattached (a later simpler_init may
// succeed, E-PINIT), and returns the provisioning code.
func (l *Library) SimplerInit(ctx abi.Ctx, deviceID int32, aicpu unsafe.Pointer, aicpuSize uintptr, aicore unsafe.Pointer, aicoreSize uintptr,
	dispatcher unsafe.Pointer, dispatcherSize uintptr, prewarmConfig unsafe.Pointer, enableSDMA int32,
	sdmaWarmup unsafe.Pointer, sdmaWarmupSize uint64) abi.Status {
	fn := l.t[abi.EntrySimplerInit]
	if fn == 0 {
		return abi.Unsupported
	}
	if l.profile != abi.ProfileLegacy {
		r1 := call12(fn, uintptr(ctx), uintptr(deviceID), uintptr(aicpu), aicpuSize, uintptr(aicore), aicoreSize, uintptr(dispatcher), dispatcherSize, uintptr(prewarmConfig), uintptr(enableSDMA), uintptr(sdmaWarmup), uintptr(sdmaWarmupSize))
		return status(r1)
	}
	if (sdmaWarmup == nil) != (sdmaWarmupSize == 0) {
		return abi.LegacyGeneric
	}
	r1 := call9(fn, uintptr(ctx), uintptr(deviceID), uintptr(aicpu), aicpuSize, uintptr(aicore), aicoreSize, uintptr(dispatcher), dispatcherSize, uintptr(prewarmConfig))
	if st := status(r1); st != abi.OK || (enableSDMA == 0 && sdmaWarmupSize == 0) {
		return st
	}
	prov := l.t[abi.EntryProvisionDMAWorkspace]
	if prov == 0 {
		return abi.Unsupported
	}
	mask := uintptr(0)
	if enableSDMA != 0 {
		mask = legacySDMAMask
	}
	r1 = call4(prov, uintptr(ctx), mask, uintptr(sdmaWarmup), uintptr(sdmaWarmupSize))
	if st := status(r1); st != abi.OK {
		if fin := l.t[abi.EntryFinalizeDevice]; fin != 0 {
			call1(fin, uintptr(ctx))
		}
		return st
	}
	return abi.OK
}

// FinalizeDevice calls finalize_device.
func (l *Library) FinalizeDevice(ctx abi.Ctx) abi.Status {
	return status1(l.t[abi.EntryFinalizeDevice], uintptr(ctx))
}

// GetRuntimeSize calls get_runtime_size.
func (l *Library) GetRuntimeSize() uintptr { return query0(l.t[abi.EntryGetRuntimeSize]) }

// GetRuntimeAlignment calls get_runtime_alignment.
func (l *Library) GetRuntimeAlignment() uintptr { return query0(l.t[abi.EntryGetRuntimeAlignment]) }

// DeviceMalloc calls device_malloc_ctx.
func (l *Library) DeviceMalloc(ctx abi.Ctx, size uintptr) abi.DevicePtr {
	return abi.DevicePtr(query2(l.t[abi.EntryDeviceMalloc], uintptr(ctx), size))
}

// DeviceFree calls device_free_ctx.
func (l *Library) DeviceFree(ctx abi.Ctx, p abi.DevicePtr) {
	query2(l.t[abi.EntryDeviceFree], uintptr(ctx), uintptr(p))
}

// CommittedDeviceMemory calls committed_device_memory_ctx.
func (l *Library) CommittedDeviceMemory(ctx abi.Ctx) uintptr {
	return query1(l.t[abi.EntryCommittedDeviceMemory], uintptr(ctx))
}

// DeviceMemoryInfo calls device_memory_info_ctx; info (16 bytes) must be Go
// heap or C memory alive and unmoved during the call. A legacy build has no
// such entry: UNSUPPORTED.
func (l *Library) DeviceMemoryInfo(ctx abi.Ctx, info unsafe.Pointer) abi.Status {
	return status2(l.t[abi.EntryDeviceMemoryInfo], uintptr(ctx), uintptr(info))
}

// CopyToDevice calls copy_to_device_ctx; host must be Go heap or C memory
// alive and unmoved during the call.
func (l *Library) CopyToDevice(ctx abi.Ctx, dev abi.DevicePtr, host unsafe.Pointer, size uintptr) abi.Status {
	return status4(l.t[abi.EntryCopyToDevice], uintptr(ctx), uintptr(dev), uintptr(host), size)
}

// CopyFromDevice calls copy_from_device_ctx; host must be Go heap or C memory
// alive and unmoved during the call.
func (l *Library) CopyFromDevice(ctx abi.Ctx, host unsafe.Pointer, dev abi.DevicePtr, size uintptr) abi.Status {
	return status4(l.t[abi.EntryCopyFromDevice], uintptr(ctx), uintptr(host), uintptr(dev), size)
}

// RegisterCallable calls simpler_register_callable; callable must be Go heap
// or C memory alive and unmoved during the call.
func (l *Library) RegisterCallable(ctx abi.Ctx, callableID int32, callable unsafe.Pointer) abi.Status {
	return status3(l.t[abi.EntryRegisterCallable], uintptr(ctx), uintptr(callableID), uintptr(callable))
}

// UnregisterCallable calls simpler_unregister_callable.
func (l *Library) UnregisterCallable(ctx abi.Ctx, callableID int32) abi.Status {
	return status2(l.t[abi.EntryUnregisterCallable], uintptr(ctx), uintptr(callableID))
}

// Run calls simpler_run; args, config and descriptor must be Go heap or C
// memory alive and unmoved during the call. rt is native-run storage the
// runtime may use until the run is finalized: it must stay alive and unmoved
// that long.
func (l *Library) Run(ctx abi.Ctx, rt abi.RunHandle, callableID int32, args, config, descriptor unsafe.Pointer) abi.Status {
	return l.runCall(l.t[abi.EntryRun], ctx, rt, callableID, args, config, descriptor)
}

// PrepareRun calls simpler_prepare_run (memory as for Run).
func (l *Library) PrepareRun(ctx abi.Ctx, rt abi.RunHandle, callableID int32, args, config, descriptor unsafe.Pointer) abi.Status {
	return l.runCall(l.t[abi.EntryPrepareRun], ctx, rt, callableID, args, config, descriptor)
}

func (l *Library) runCall(fn uintptr, ctx abi.Ctx, rt abi.RunHandle, callableID int32, args, config, descriptor unsafe.Pointer) abi.Status {
	if fn == 0 {
		return abi.Unsupported
	}
	r1 := call6(fn, uintptr(ctx), uintptr(rt), uintptr(callableID), uintptr(args), uintptr(config), uintptr(descriptor))
	return status(r1)
}

// LaunchRun calls simpler_launch_run.
func (l *Library) LaunchRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	return status2(l.t[abi.EntryLaunchRun], uintptr(ctx), uintptr(rt))
}

// PollRun calls simpler_poll_run (0 not ready, 1 complete, <0 error).
func (l *Library) PollRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	return status2(l.t[abi.EntryPollRun], uintptr(ctx), uintptr(rt))
}

// WaitRun calls simpler_wait_run.
func (l *Library) WaitRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	return status2(l.t[abi.EntryWaitRun], uintptr(ctx), uintptr(rt))
}

// FinalizeRun calls simpler_finalize_run.
func (l *Library) FinalizeRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	return status2(l.t[abi.EntryFinalizeRun], uintptr(ctx), uintptr(rt))
}

// AicpuDlopenCount calls get_aicpu_dlopen_count.
func (l *Library) AicpuDlopenCount(ctx abi.Ctx) uintptr {
	return query1(l.t[abi.EntryAicpuDlopenCount], uintptr(ctx))
}

// HostDlopenCount calls get_host_dlopen_count.
func (l *Library) HostDlopenCount(ctx abi.Ctx) uintptr {
	return query1(l.t[abi.EntryHostDlopenCount], uintptr(ctx))
}

// RunStreamSetCreateCount calls get_run_stream_set_create_count.
func (l *Library) RunStreamSetCreateCount(ctx abi.Ctx) uintptr {
	return query1(l.t[abi.EntryRunStreamSetCreateCount], uintptr(ctx))
}

// KernelModeSupported calls simpler_kernel_mode_supported (hot path: no
// allocation). A legacy build answers 0 without a call.
func (l *Library) KernelModeSupported(ctx abi.Ctx) int32 {
	return int32(query1(l.t[abi.EntryKernelSupported], uintptr(ctx)))
}

// KernelModeInit calls simpler_kernel_mode_init. The spans and config (1148
// packed bytes) must be Go heap or C memory alive and unmoved during the call
// (the runtime copies the config). Without a bound trio (legacy, or a build
// whose supported is 0): UNSUPPORTED, nothing called.
func (l *Library) KernelModeInit(ctx abi.Ctx, deviceID int32, aicpu unsafe.Pointer, aicpuSize uintptr, aicore unsafe.Pointer, aicoreSize uintptr,
	dispatcher unsafe.Pointer, dispatcherSize uintptr, config unsafe.Pointer, contextGeneration uint64) abi.Status {
	fn := l.t[abi.EntryKernelInit]
	if fn == 0 {
		return abi.Unsupported
	}
	r1 := call10(fn, uintptr(ctx), uintptr(deviceID), uintptr(aicpu), aicpuSize, uintptr(aicore), aicoreSize, uintptr(dispatcher), dispatcherSize, uintptr(config), uintptr(contextGeneration))
	return status(r1)
}

// KernelModePrepareCallable calls simpler_kernel_mode_prepare_callable (hot
// path: no allocation). callable (size bytes) and outID must be Go heap or C
// memory alive and unmoved during the call; outID escapes to the heap, so a
// caller that prepares in a loop keeps one id variable outside it. Without a
// bound trio: -1 is written through a non-nil outID (V-PREP-1) and
// UNSUPPORTED returned, nothing called.
func (l *Library) KernelModePrepareCallable(ctx abi.Ctx, callable unsafe.Pointer, size uintptr, outID *int32) abi.Status {
	fn := l.t[abi.EntryKernelPrepare]
	if fn == 0 {
		if outID != nil {
			*outID = -1
		}
		return abi.Unsupported
	}
	r1 := call4(fn, uintptr(ctx), uintptr(callable), size, uintptr(unsafe.Pointer(outID)))
	return status(r1)
}

// KernelModeLaunch calls simpler_kernel_mode_launch (hot path: no
// allocation). args (a ChipStorageTaskArgs) must be Go heap or C memory alive
// and unmoved during the call; the runtime snapshots it (E-LAUNCH-ASYNC).
// Without a bound trio: UNSUPPORTED, nothing called.
func (l *Library) KernelModeLaunch(ctx abi.Ctx, callableID int32, args unsafe.Pointer, stream abi.Stream) abi.Status {
	return status4(l.t[abi.EntryKernelLaunch], uintptr(ctx), uintptr(callableID), uintptr(args), uintptr(stream))
}

// GetPipelineContract calls get_pipeline_contract: the address of the
// runtime's immutable 144-byte PipelineContract, in the library's memory
// (valid until Close).
func (l *Library) GetPipelineContract() unsafe.Pointer {
	// Not query0: with it inlined here go1.26.8's compiler panics
	// (disjointTypes) compiling a caller that copies the contract.
	fn := l.t[abi.EntryGetPipelineContract]
	if fn == 0 {
		return nil
	}
	r1 := call0(fn)
	return *(*unsafe.Pointer)(unsafe.Pointer(&r1))
}

// SupportsConcurrentNativePrepare calls supports_concurrent_native_prepare_ctx.
func (l *Library) SupportsConcurrentNativePrepare(ctx abi.Ctx) int32 {
	return int32(query1(l.t[abi.EntrySupportsConcurrentPrepare], uintptr(ctx)))
}

// ArenaBankGMHeapBase calls get_arena_bank_gm_heap_base_ctx.
func (l *Library) ArenaBankGMHeapBase(ctx abi.Ctx, bank uint32) uint64 {
	return uint64(query2(l.t[abi.EntryArenaBankGMHeapBase], uintptr(ctx), uintptr(bank)))
}

// RetainedTempAddr calls get_retained_temp_addr_ctx.
func (l *Library) RetainedTempAddr(ctx abi.Ctx, slot uint32) uint64 {
	return uint64(query2(l.t[abi.EntryRetainedTempAddr], uintptr(ctx), uintptr(slot)))
}

// EnsureACLReady calls ensure_acl_ready_ctx; it makes deviceID current on the
// calling OS thread (lock the goroutine to its thread first).
func (l *Library) EnsureACLReady(ctx abi.Ctx, deviceID int32) abi.Status {
	return status2(l.t[abi.EntryEnsureACLReady], uintptr(ctx), uintptr(deviceID))
}

// CreateCommStream calls create_comm_stream_ctx.
func (l *Library) CreateCommStream(ctx abi.Ctx) abi.Stream {
	return abi.Stream(query1(l.t[abi.EntryCreateCommStream], uintptr(ctx)))
}

// DestroyCommStream calls destroy_comm_stream_ctx.
func (l *Library) DestroyCommStream(ctx abi.Ctx, s abi.Stream) abi.Status {
	return status2(l.t[abi.EntryDestroyCommStream], uintptr(ctx), uintptr(s))
}

// CommInit calls comm_init; rootinfoPath (a NUL-terminated string) must be
// Go heap or C memory alive and unmoved during the call.
func (l *Library) CommInit(rank, nranks int32, stream abi.Stream, rootinfoPath unsafe.Pointer) abi.CommHandle {
	fn := l.t[abi.EntryCommInit]
	if fn == 0 {
		return 0
	}
	r1 := call4(fn, uintptr(rank), uintptr(nranks), uintptr(stream), uintptr(rootinfoPath))
	return abi.CommHandle(r1)
}

// CommAllocWindows calls comm_alloc_windows; deviceCtxOut must be Go heap or
// C memory alive and unmoved during the call.
func (l *Library) CommAllocWindows(h abi.CommHandle, winSize uintptr, deviceCtxOut *uint64) abi.Status {
	return status3(l.t[abi.EntryCommAllocWindows], uintptr(h), winSize, uintptr(unsafe.Pointer(deviceCtxOut)))
}

// CommGetLocalWindowBase calls comm_get_local_window_base (baseOut as above).
func (l *Library) CommGetLocalWindowBase(h abi.CommHandle, baseOut *uint64) abi.Status {
	return status2(l.t[abi.EntryCommGetLocalWindowBase], uintptr(h), uintptr(unsafe.Pointer(baseOut)))
}

// CommGetWindowSize calls comm_get_window_size (sizeOut as above).
func (l *Library) CommGetWindowSize(h abi.CommHandle, sizeOut *uintptr) abi.Status {
	return status2(l.t[abi.EntryCommGetWindowSize], uintptr(h), uintptr(unsafe.Pointer(sizeOut)))
}

// CommBarrier calls comm_barrier.
func (l *Library) CommBarrier(h abi.CommHandle) abi.Status {
	return status1(l.t[abi.EntryCommBarrier], uintptr(h))
}

// CommDestroy calls comm_destroy.
func (l *Library) CommDestroy(h abi.CommHandle) abi.Status {
	return status1(l.t[abi.EntryCommDestroy], uintptr(h))
}

// CommDeriveContext calls comm_derive_context; rankIDs and deviceCtxOut must
// be Go heap or C memory alive and unmoved during the call.
func (l *Library) CommDeriveContext(h abi.CommHandle, rankIDs unsafe.Pointer, rankCount uintptr, domainRank uint32, windowOffset, windowSize uintptr, deviceCtxOut *uint64) abi.Status {
	fn := l.t[abi.EntryCommDeriveContext]
	if fn == 0 {
		return abi.Unsupported
	}
	r1 := call7(fn, uintptr(h), uintptr(rankIDs), rankCount, uintptr(domainRank), windowOffset, windowSize, uintptr(unsafe.Pointer(deviceCtxOut)))
	return status(r1)
}

// CommAllocDomainWindows calls comm_alloc_domain_windows (pointers as above).
func (l *Library) CommAllocDomainWindows(h abi.CommHandle, allocationID uint64, rankIDs unsafe.Pointer, rankCount uintptr, domainRank uint32, windowSize uintptr, deviceCtxOut, localWindowBaseOut *uint64) abi.Status {
	fn := l.t[abi.EntryCommAllocDomainWindows]
	if fn == 0 {
		return abi.Unsupported
	}
	r1 := call8(fn, uintptr(h), uintptr(allocationID), uintptr(rankIDs), rankCount, uintptr(domainRank), windowSize,
		uintptr(unsafe.Pointer(deviceCtxOut)), uintptr(unsafe.Pointer(localWindowBaseOut)))
	return status(r1)
}

// CommReleaseDomainWindows calls comm_release_domain_windows.
func (l *Library) CommReleaseDomainWindows(h abi.CommHandle, allocationID uint64, rankCount uintptr, domainRank uint32) abi.Status {
	return status4(l.t[abi.EntryCommReleaseDomainWindows], uintptr(h), uintptr(allocationID), rankCount, uintptr(domainRank))
}

// CommGlobalDomainPrepare calls comm_global_domain_prepare; descriptorOut
// (288 bytes) and localWindowBaseOut as above.
func (l *Library) CommGlobalDomainPrepare(domainID uint64, domainRank, rankCount uint32, windowSize uintptr, profile uint32, descriptorOut unsafe.Pointer, localWindowBaseOut *uint64) abi.Status {
	fn := l.t[abi.EntryCommGlobalDomainPrepare]
	if fn == 0 {
		return abi.Unsupported
	}
	r1 := call7(fn, uintptr(domainID), uintptr(domainRank), uintptr(rankCount), windowSize, uintptr(profile),
		uintptr(descriptorOut), uintptr(unsafe.Pointer(localWindowBaseOut)))
	return status(r1)
}

// CommGlobalDomainImport calls comm_global_domain_import; descriptors holds
// descriptorCount descriptors.
func (l *Library) CommGlobalDomainImport(domainID uint64, descriptors unsafe.Pointer, descriptorCount uintptr, deviceCtxOut *uint64) abi.Status {
	return status4(l.t[abi.EntryCommGlobalDomainImport], uintptr(domainID), uintptr(descriptors), descriptorCount, uintptr(unsafe.Pointer(deviceCtxOut)))
}

// CommGlobalDomainRelease calls comm_global_domain_release.
func (l *Library) CommGlobalDomainRelease(domainID uint64) abi.Status {
	return status1(l.t[abi.EntryCommGlobalDomainRelease], uintptr(domainID))
}

// HostLogBindState calls simpler_host_log_bind_state. Open already bound the
// process-owned state; a state passed here must stay alive and unmoved for as
// long as the runtime may read it (for the process, in general).
func (l *Library) HostLogBindState(state unsafe.Pointer) abi.Status {
	return status1(l.t[abi.EntryHostLogBindState], uintptr(state))
}

// The hook groups of a library read their pointers from its table, so that
// Close, which empties the table, unbinds them too.

// simHooks are the simulation hooks of a library (abi.SimHooks).
type simHooks struct{ t *table }

var _ abi.SimHooks = simHooks{}

// SimSetCurrentDevice calls simabi_set_current_device for the calling OS
// thread.
func (h simHooks) SimSetCurrentDevice(dev int32) abi.Status {
	return status1(h.t[abi.EntrySimSetCurrentDevice], uintptr(dev))
}

// SimCurrentDevice calls simabi_current_device (-1 when none, and after
// Close).
func (h simHooks) SimCurrentDevice() int32 {
	fn := h.t[abi.EntrySimCurrentDevice]
	if fn == 0 {
		return -1
	}
	return int32(call0(fn))
}

// SimSyncStream calls simabi_sync_stream.
func (h simHooks) SimSyncStream(s abi.Stream) abi.Status {
	return status1(h.t[abi.EntrySimSyncStream], uintptr(s))
}

// SimInject calls simabi_inject.
func (h simHooks) SimInject(site, count, code int32) abi.Status {
	return status3(h.t[abi.EntrySimInject], uintptr(site), uintptr(count), uintptr(code))
}

// simControl are the simulation control hooks of a library (abi.SimControl).
type simControl struct{ t *table }

var _ abi.SimControl = simControl{}

// SimHoldGate calls simabi_hold_gate.
func (h simControl) SimHoldGate(ctx abi.Ctx, hold int32) abi.Status {
	return status2(h.t[abi.EntrySimHoldGate], uintptr(ctx), uintptr(hold))
}

// SimGateState calls simabi_gate_state (0 after Close).
func (h simControl) SimGateState(ctx abi.Ctx) int32 {
	return int32(query1(h.t[abi.EntrySimGateState], uintptr(ctx)))
}

// SimReset calls simabi_reset.
func (h simControl) SimReset() abi.Status {
	if fn := h.t[abi.EntrySimReset]; fn != 0 {
		return status(call0(fn))
	}
	return abi.Unsupported
}

// simCommTimeout is the comm timeout hook of a library (abi.SimCommTimeout).
type simCommTimeout struct{ t *table }

var _ abi.SimCommTimeout = simCommTimeout{}

// SimCommTimeoutMs calls simabi_comm_timeout_ms (0 after Close).
func (h simCommTimeout) SimCommTimeoutMs(ms int32) int32 {
	return int32(query1(h.t[abi.EntrySimCommTimeout], uintptr(uint32(ms))))
}
