package sim

import (
	"unsafe"

	"github.com/simabi/simabi/abi"
)

// GetRuntimeSize is get_runtime_size: the run storage of the instance's
// pipeline (Options.Pipeline; semantics §10).
func (r *Runtime) GetRuntimeSize() uintptr { return uintptr(r.pipeline.RuntimeSize) }

// GetRuntimeAlignment is get_runtime_alignment: the pipeline's, 64.
func (r *Runtime) GetRuntimeAlignment() uintptr { return uintptr(r.pipeline.RuntimeAlignment) }

// GetPipelineContract is get_pipeline_contract: the address of this
// instance's immutable contract, its pipeline's (144 bytes, 8-aligned).
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

// Contract is the instance's PipelineContract, as a consumer reads it
// through get_pipeline_contract (onboard.Library.Contract's counterpart).
func (r *Runtime) Contract() abi.PipelineContract { return r.pipeline.Contract }
