package sim

import (
	"github.com/simabi/simabi/sim/semantics"
	"unsafe"

	"github.com/simabi/simabi/abi"
)

// Native-run storage of the program run family (semantics §10).
const (
	RuntimeSize      = semantics.RuntimeSize
	RuntimeAlignment = semantics.RuntimeAlignment
)

// GetRuntimeSize is get_runtime_size: 64.
func (r *Runtime) GetRuntimeSize() uintptr { return RuntimeSize }

// GetRuntimeAlignment is get_runtime_alignment: 64.
func (r *Runtime) GetRuntimeAlignment() uintptr { return RuntimeAlignment }

// GetPipelineContract is get_pipeline_contract: the address of this
// instance's immutable abi.SimulatedProgramContract (144 bytes, 8-aligned).
func (r *Runtime) GetPipelineContract() unsafe.Pointer { return unsafe.Pointer(&r.contract[0]) }

// SupportsConcurrentNativePrepare is supports_concurrent_native_prepare_ctx: 0.
func (r *Runtime) SupportsConcurrentNativePrepare(ctx abi.Ctx) int32 {
	r.lookup(ctx)
	return 0
}

// ArenaBankGMHeapBase is get_arena_bank_gm_heap_base_ctx: 0 (no arena is
// simulated).
func (r *Runtime) ArenaBankGMHeapBase(ctx abi.Ctx, bank uint32) uint64 {
	r.lookup(ctx)
	return 0
}

// RetainedTempAddr is get_retained_temp_addr_ctx: 0.
func (r *Runtime) RetainedTempAddr(ctx abi.Ctx, slot uint32) uint64 {
	r.lookup(ctx)
	return 0
}

// CreateCommStream is create_comm_stream_ctx: 0 (comm is not simulated).
func (r *Runtime) CreateCommStream(ctx abi.Ctx) abi.Stream {
	r.lookup(ctx)
	return 0
}

// DestroyCommStream is destroy_comm_stream_ctx: NULL ctx → IA, else 0.
func (r *Runtime) DestroyCommStream(ctx abi.Ctx, s abi.Stream) abi.Status {
	if r.lookup(ctx) == nil {
		return abi.InvalidArgument
	}
	return abi.OK
}

// CommInit is comm_init: 0 (no communicator).
func (r *Runtime) CommInit(rank, nranks int32, stream abi.Stream, rootinfoPath unsafe.Pointer) abi.CommHandle {
	return 0
}

// CommAllocWindows is comm_alloc_windows: NULL handle or out → IA, else
// UNSUPPORTED.
func (r *Runtime) CommAllocWindows(h abi.CommHandle, winSize uintptr, deviceCtxOut *uint64) abi.Status {
	if h == 0 || deviceCtxOut == nil {
		return abi.InvalidArgument
	}
	return abi.Unsupported
}

// CommGetLocalWindowBase is comm_get_local_window_base: NULL handle or out →
// IA, else UNSUPPORTED.
func (r *Runtime) CommGetLocalWindowBase(h abi.CommHandle, baseOut *uint64) abi.Status {
	if h == 0 || baseOut == nil {
		return abi.InvalidArgument
	}
	return abi.Unsupported
}

// CommGetWindowSize is comm_get_window_size: NULL handle or out → IA, else
// UNSUPPORTED.
func (r *Runtime) CommGetWindowSize(h abi.CommHandle, sizeOut *uintptr) abi.Status {
	if h == 0 || sizeOut == nil {
		return abi.InvalidArgument
	}
	return abi.Unsupported
}

// CommBarrier is comm_barrier: NULL handle → IA, else UNSUPPORTED.
func (r *Runtime) CommBarrier(h abi.CommHandle) abi.Status {
	if h == 0 {
		return abi.InvalidArgument
	}
	return abi.Unsupported
}

// CommDestroy is comm_destroy: NULL handle → IA, else UNSUPPORTED.
func (r *Runtime) CommDestroy(h abi.CommHandle) abi.Status {
	if h == 0 {
		return abi.InvalidArgument
	}
	return abi.Unsupported
}

// The comm domain entries: not simulated yet; every call fails with -1, the
// comm backend's failure (upstream's comm.h: nonzero on failure).

// CommDeriveContext is comm_derive_context.
func (r *Runtime) CommDeriveContext(h abi.CommHandle, rankIDs unsafe.Pointer, rankCount uintptr, domainRank uint32, windowOffset, windowSize uintptr, deviceCtxOut *uint64) abi.Status {
	return -1
}

// CommAllocDomainWindows is comm_alloc_domain_windows.
func (r *Runtime) CommAllocDomainWindows(h abi.CommHandle, allocationID uint64, rankIDs unsafe.Pointer, rankCount uintptr, domainRank uint32, windowSize uintptr, deviceCtxOut, localWindowBaseOut *uint64) abi.Status {
	return -1
}

// CommReleaseDomainWindows is comm_release_domain_windows.
func (r *Runtime) CommReleaseDomainWindows(h abi.CommHandle, allocationID uint64, rankCount uintptr, domainRank uint32) abi.Status {
	return -1
}

// CommGlobalDomainPrepare is comm_global_domain_prepare.
func (r *Runtime) CommGlobalDomainPrepare(domainID uint64, domainRank, rankCount uint32, windowSize uintptr, profile uint32, descriptorOut unsafe.Pointer, localWindowBaseOut *uint64) abi.Status {
	return -1
}

// CommGlobalDomainImport is comm_global_domain_import.
func (r *Runtime) CommGlobalDomainImport(domainID uint64, descriptors unsafe.Pointer, descriptorCount uintptr, deviceCtxOut *uint64) abi.Status {
	return -1
}

// CommGlobalDomainRelease is comm_global_domain_release.
func (r *Runtime) CommGlobalDomainRelease(domainID uint64) abi.Status {
	return -1
}

// HostLogBindState is simpler_host_log_bind_state: NULL, abi_version ≠ 1,
// struct_size < 16 or a threshold that is not a log level → -1 (docs/contract.md; the
// binder upstream compiles into every host library refuses exactly these).
func (r *Runtime) HostLogBindState(state unsafe.Pointer) abi.Status {
	if state == nil {
		return abi.HostBindRefused
	}
	b, ok := callerBytes(state, abi.HostLogStateSize)
	if !ok {
		return abi.HostBindRefused
	}
	s, _ := abi.DecodeHostLogState(b)
	if !s.Bindable() {
		return abi.HostBindRefused
	}
	return abi.OK
}
