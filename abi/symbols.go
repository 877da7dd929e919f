package abi

import (
	"fmt"
	"strings"
)

// Group is the group of an entry in docs/contract.md's entry table.
type Group string

// Entry groups.
const (
	GroupLifecycle    Group = "lifecycle"
	GroupSizing       Group = "sizing"
	GroupDeviceMemory Group = "device memory"
	GroupProgramRuns  Group = "program runs"
	GroupKernelMode   Group = "kernel mode"
	GroupPipeline     Group = "pipeline"
	GroupACLStream    Group = "ACL / stream"
	GroupComm         Group = "comm"
	GroupHostLog      Group = "host log"
	GroupSimHooks     Group = "simulation hooks"
	// GroupSimControl are the optional hooks through which a checker drives
	// a simulated runtime to a state instead of waiting for it (a prepare
	// parked holding its gate) and reuses one loaded runtime (reset).
	GroupSimControl Group = "simulation control"
	GroupLegacy     Group = "legacy"
)

// Simulation reports whether g is one of the simulated runtimes' optional
// hook groups (neither required of a runtime nor exported by a real one).
func (g Group) Simulation() bool { return g == GroupSimHooks || g == GroupSimControl }

// Revision is a set of ABI revisions.
type Revision uint8

// Revisions.
const (
	// RevKernel is the target "kernel ABI, minted ids" revision.
	RevKernel Revision = 1 << iota
	// RevLegacy is the pre-kernel-ABI revision (upstream before Sep 2026).
	RevLegacy
)

// Has reports whether r includes o.
func (r Revision) Has(o Revision) bool { return r&o != 0 }

// String names a single revision as traces and reports do ("kernel",
// "legacy"); a set prints its members joined by "+".
func (r Revision) String() string {
	var names []string
	if r.Has(RevKernel) {
		names = append(names, "kernel")
	}
	if r.Has(RevLegacy) {
		names = append(names, "legacy")
	}
	if rest := r &^ (RevKernel | RevLegacy); rest != 0 || len(names) == 0 {
		names = append(names, fmt.Sprintf("revision(%#x)", uint8(rest)))
	}
	return strings.Join(names, "+")
}

// Requirement says when a consumer must resolve a symbol (C-BIND-1).
type Requirement uint8

// Requirements.
const (
	// Required symbols fail the load when missing.
	Required Requirement = iota
	// RequiredWhenSupported symbols (the kernel trio) are required only when
	// simpler_kernel_mode_supported returns nonzero on a fresh context.
	RequiredWhenSupported
	// Optional symbols are used when present (the simulation hooks).
	Optional
)

func (q Requirement) String() string {
	switch q {
	case Required:
		return "required"
	case RequiredWhenSupported:
		return "required when supported"
	default:
		return "optional"
	}
}

// Symbol is one exported entry.
type Symbol struct {
	Name      string
	Group     Group
	Revisions Revision
	Required  Requirement
	// Proto is the C prototype of the target revision (of the legacy one for
	// legacy-only symbols).
	Proto string
}

// LegacySimplerInitProto is simpler_init in the legacy revision: 9 parameters,
// ending at prewarm_config (SDMA is provisioned by simpler_provision_dma_workspace).
const LegacySimplerInitProto = "int simpler_init(DeviceContextHandle ctx, int device_id, const uint8_t *aicpu, size_t aicpu_size, const uint8_t *aicore, size_t aicore_size, const uint8_t *dispatcher, size_t dispatcher_size, const CallConfig *prewarm_config)"

// Symbol names, for call sites that bind them.
const (
	SymCreateDeviceContext       = "create_device_context"
	SymDestroyDeviceContext      = "destroy_device_context"
	SymSimplerInit               = "simpler_init"
	SymFinalizeDevice            = "finalize_device"
	SymGetRuntimeSize            = "get_runtime_size"
	SymGetRuntimeAlignment       = "get_runtime_alignment"
	SymDeviceMalloc              = "device_malloc_ctx"
	SymDeviceFree                = "device_free_ctx"
	SymCommittedDeviceMemory     = "committed_device_memory_ctx"
	SymDeviceMemoryInfo          = "device_memory_info_ctx"
	SymCopyToDevice              = "copy_to_device_ctx"
	SymCopyFromDevice            = "copy_from_device_ctx"
	SymRegisterCallable          = "simpler_register_callable"
	SymUnregisterCallable        = "simpler_unregister_callable"
	SymRun                       = "simpler_run"
	SymPrepareRun                = "simpler_prepare_run"
	SymLaunchRun                 = "simpler_launch_run"
	SymPollRun                   = "simpler_poll_run"
	SymWaitRun                   = "simpler_wait_run"
	SymFinalizeRun               = "simpler_finalize_run"
	SymAicpuDlopenCount          = "get_aicpu_dlopen_count"
	SymHostDlopenCount           = "get_host_dlopen_count"
	SymRunStreamSetCreateCount   = "get_run_stream_set_create_count"
	SymKernelSupported           = "simpler_kernel_mode_supported"
	SymKernelInit                = "simpler_kernel_mode_init"
	SymKernelPrepare             = "simpler_kernel_mode_prepare_callable"
	SymKernelLaunch              = "simpler_kernel_mode_launch"
	SymGetPipelineContract       = "get_pipeline_contract"
	SymSupportsConcurrentPrepare = "supports_concurrent_native_prepare_ctx"
	SymArenaBankGMHeapBase       = "get_arena_bank_gm_heap_base_ctx"
	SymRetainedTempAddr          = "get_retained_temp_addr_ctx"
	SymEnsureACLReady            = "ensure_acl_ready_ctx"
	SymCreateCommStream          = "create_comm_stream_ctx"
	SymDestroyCommStream         = "destroy_comm_stream_ctx"
	SymCommInit                  = "comm_init"
	SymCommAllocWindows          = "comm_alloc_windows"
	SymCommGetLocalWindowBase    = "comm_get_local_window_base"
	SymCommGetWindowSize         = "comm_get_window_size"
	SymCommBarrier               = "comm_barrier"
	SymCommDestroy               = "comm_destroy"
	SymCommDeriveContext         = "comm_derive_context"
	SymCommAllocDomainWindows    = "comm_alloc_domain_windows"
	SymCommReleaseDomainWindows  = "comm_release_domain_windows"
	SymCommGlobalDomainPrepare   = "comm_global_domain_prepare"
	SymCommGlobalDomainImport    = "comm_global_domain_import"
	SymCommGlobalDomainRelease   = "comm_global_domain_release"
	SymHostLogBindState          = "simpler_host_log_bind_state"
	SymSimSetCurrentDevice       = "simabi_set_current_device"
	SymSimCurrentDevice          = "simabi_current_device"
	SymSimSyncStream             = "simabi_sync_stream"
	SymSimInject                 = "simabi_inject"
	SymSimHoldGate               = "simabi_hold_gate"
	SymSimGateState              = "simabi_gate_state"
	SymSimReset                  = "simabi_reset"
	SymSimCommTimeout            = "simabi_comm_timeout_ms"
	SymProvisionDMAWorkspace     = "simpler_provision_dma_workspace"
)

const both = RevKernel | RevLegacy

// Symbols is the symbol table of docs/contract.md, in the order of its entry table.
var Symbols = []Symbol{
	{SymCreateDeviceContext, GroupLifecycle, both, Required, "DeviceContextHandle create_device_context(void)"},
	{SymDestroyDeviceContext, GroupLifecycle, both, Required, "void destroy_device_context(DeviceContextHandle ctx)"},
	{SymSimplerInit, GroupLifecycle, both, Required, "int simpler_init(DeviceContextHandle ctx, int device_id, const uint8_t *aicpu, size_t aicpu_size, const uint8_t *aicore, size_t aicore_size, const uint8_t *dispatcher, size_t dispatcher_size, const CallConfig *prewarm_config, int enable_sdma, const void *sdma_warmup, uint64_t sdma_warmup_size)"},
	{SymFinalizeDevice, GroupLifecycle, both, Required, "int finalize_device(DeviceContextHandle ctx)"},
	{SymGetRuntimeSize, GroupSizing, both, Required, "size_t get_runtime_size(void)"},
	{SymGetRuntimeAlignment, GroupSizing, both, Required, "size_t get_runtime_alignment(void)"},
	{SymDeviceMalloc, GroupDeviceMemory, both, Required, "void *device_malloc_ctx(DeviceContextHandle ctx, size_t size)"},
	{SymDeviceFree, GroupDeviceMemory, both, Required, "void device_free_ctx(DeviceContextHandle ctx, void *dev_ptr)"},
	{SymCommittedDeviceMemory, GroupDeviceMemory, both, Required, "size_t committed_device_memory_ctx(DeviceContextHandle ctx)"},
	{SymDeviceMemoryInfo, GroupDeviceMemory, RevKernel, Required, "int device_memory_info_ctx(DeviceContextHandle ctx, DeviceMemoryInfo *info)"},
	{SymCopyToDevice, GroupDeviceMemory, both, Required, "int copy_to_device_ctx(DeviceContextHandle ctx, void *dev_ptr, const void *host_ptr, size_t size)"},
	{SymCopyFromDevice, GroupDeviceMemory, both, Required, "int copy_from_device_ctx(DeviceContextHandle ctx, void *host_ptr, const void *dev_ptr, size_t size)"},
	{SymRegisterCallable, GroupProgramRuns, both, Required, "int simpler_register_callable(DeviceContextHandle ctx, int32_t callable_id, const void *callable)"},
	{SymUnregisterCallable, GroupProgramRuns, both, Required, "int simpler_unregister_callable(DeviceContextHandle ctx, int32_t callable_id)"},
	{SymRun, GroupProgramRuns, both, Required, "int simpler_run(DeviceContextHandle ctx, RuntimeHandle runtime, int32_t callable_id, const void *args, const CallConfig *config, const NativeRunDescriptor *descriptor)"},
	{SymPrepareRun, GroupProgramRuns, both, Required, "int simpler_prepare_run(DeviceContextHandle ctx, RuntimeHandle runtime, int32_t callable_id, const void *args, const CallConfig *config, const NativeRunDescriptor *descriptor)"},
	{SymLaunchRun, GroupProgramRuns, both, Required, "int simpler_launch_run(DeviceContextHandle ctx, RuntimeHandle runtime)"},
	{SymPollRun, GroupProgramRuns, both, Required, "int simpler_poll_run(DeviceContextHandle ctx, RuntimeHandle runtime)"},
	{SymWaitRun, GroupProgramRuns, both, Required, "int simpler_wait_run(DeviceContextHandle ctx, RuntimeHandle runtime)"},
	{SymFinalizeRun, GroupProgramRuns, both, Required, "int simpler_finalize_run(DeviceContextHandle ctx, RuntimeHandle runtime)"},
	{SymAicpuDlopenCount, GroupProgramRuns, both, Required, "size_t get_aicpu_dlopen_count(DeviceContextHandle ctx)"},
	{SymHostDlopenCount, GroupProgramRuns, both, Required, "size_t get_host_dlopen_count(DeviceContextHandle ctx)"},
	{SymRunStreamSetCreateCount, GroupProgramRuns, both, Required, "size_t get_run_stream_set_create_count(DeviceContextHandle ctx)"},
	{SymKernelSupported, GroupKernelMode, RevKernel, Required, "int simpler_kernel_mode_supported(DeviceContextHandle ctx)"},
	{SymKernelInit, GroupKernelMode, RevKernel, RequiredWhenSupported, "int simpler_kernel_mode_init(DeviceContextHandle ctx, int device_id, const uint8_t *aicpu, size_t aicpu_size, const uint8_t *aicore, size_t aicore_size, const uint8_t *dispatcher, size_t dispatcher_size, const CallConfig *config, uint64_t context_generation)"},
	{SymKernelPrepare, GroupKernelMode, RevKernel, RequiredWhenSupported, "int simpler_kernel_mode_prepare_callable(DeviceContextHandle ctx, const void *callable, size_t callable_size, int32_t *out_callable_id)"},
	{SymKernelLaunch, GroupKernelMode, RevKernel, RequiredWhenSupported, "int simpler_kernel_mode_launch(DeviceContextHandle ctx, int32_t callable_id, const void *args, void *caller_stream)"},
	{SymGetPipelineContract, GroupPipeline, both, Required, "const PipelineContract *get_pipeline_contract(void)"},
	{SymSupportsConcurrentPrepare, GroupPipeline, both, Required, "int supports_concurrent_native_prepare_ctx(DeviceContextHandle ctx)"},
	{SymArenaBankGMHeapBase, GroupPipeline, both, Required, "uint64_t get_arena_bank_gm_heap_base_ctx(DeviceContextHandle ctx, uint32_t bank)"},
	{SymRetainedTempAddr, GroupPipeline, both, Required, "uint64_t get_retained_temp_addr_ctx(DeviceContextHandle ctx, uint32_t slot)"},
	{SymEnsureACLReady, GroupACLStream, both, Required, "int ensure_acl_ready_ctx(DeviceContextHandle ctx, int device_id)"},
	{SymCreateCommStream, GroupACLStream, both, Required, "void *create_comm_stream_ctx(DeviceContextHandle ctx)"},
	{SymDestroyCommStream, GroupACLStream, both, Required, "int destroy_comm_stream_ctx(DeviceContextHandle ctx, void *stream)"},
	{SymCommInit, GroupComm, both, Required, "CommHandle comm_init(int rank, int nranks, void *stream, const char *rootinfo_path)"},
	{SymCommAllocWindows, GroupComm, both, Required, "int comm_alloc_windows(CommHandle h, size_t win_size, uint64_t *device_ctx_out)"},
	{SymCommGetLocalWindowBase, GroupComm, both, Required, "int comm_get_local_window_base(CommHandle h, uint64_t *base_out)"},
	{SymCommGetWindowSize, GroupComm, both, Required, "int comm_get_window_size(CommHandle h, size_t *size_out)"},
	{SymCommBarrier, GroupComm, both, Required, "int comm_barrier(CommHandle h)"},
	{SymCommDestroy, GroupComm, both, Required, "int comm_destroy(CommHandle h)"},
	{SymCommDeriveContext, GroupComm, both, Required, "int comm_derive_context(CommHandle h, const uint32_t *rank_ids, size_t rank_count, uint32_t domain_rank, size_t window_offset, size_t window_size, uint64_t *device_ctx_out)"},
	{SymCommAllocDomainWindows, GroupComm, both, Required, "int comm_alloc_domain_windows(CommHandle h, uint64_t allocation_id, const uint32_t *rank_ids, size_t rank_count, uint32_t domain_rank, size_t window_size, uint64_t *device_ctx_out, uint64_t *local_window_base_out)"},
	{SymCommReleaseDomainWindows, GroupComm, both, Required, "int comm_release_domain_windows(CommHandle h, uint64_t allocation_id, size_t rank_count, uint32_t domain_rank)"},
	{SymCommGlobalDomainPrepare, GroupComm, both, Required, "int comm_global_domain_prepare(uint64_t domain_id, uint32_t domain_rank, uint32_t rank_count, size_t window_size, uint32_t profile, CommGlobalDomainDescriptor *descriptor_out, uint64_t *local_window_base_out)"},
	{SymCommGlobalDomainImport, GroupComm, both, Required, "int comm_global_domain_import(uint64_t domain_id, const CommGlobalDomainDescriptor *descriptors, size_t descriptor_count, uint64_t *device_ctx_out)"},
	{SymCommGlobalDomainRelease, GroupComm, both, Required, "int comm_global_domain_release(uint64_t domain_id)"},
	{SymHostLogBindState, GroupHostLog, both, Required, "int simpler_host_log_bind_state(SimplerHostLogState *state)"},
	{SymSimSetCurrentDevice, GroupSimHooks, both, Optional, "int simabi_set_current_device(int32_t dev)"},
	{SymSimCurrentDevice, GroupSimHooks, both, Optional, "int32_t simabi_current_device(void)"},
	{SymSimSyncStream, GroupSimHooks, both, Optional, "int simabi_sync_stream(void *stream)"},
	{SymSimInject, GroupSimHooks, both, Optional, "int simabi_inject(int32_t site, int32_t count, int32_t code)"},
	{SymSimHoldGate, GroupSimControl, both, Optional, "int simabi_hold_gate(DeviceContextHandle ctx, int32_t hold)"},
	{SymSimGateState, GroupSimControl, both, Optional, "int32_t simabi_gate_state(DeviceContextHandle ctx)"},
	{SymSimReset, GroupSimControl, both, Optional, "int simabi_reset(void)"},
	{SymSimCommTimeout, GroupSimControl, both, Optional, "int32_t simabi_comm_timeout_ms(int32_t ms)"},
	{SymProvisionDMAWorkspace, GroupLegacy, RevLegacy, Required, "int simpler_provision_dma_workspace(DeviceContextHandle ctx, uint32_t required_mask, const void *sdma_warmup, uint64_t size)"},
}

// LookupSymbol finds a symbol by name.
func LookupSymbol(name string) (Symbol, bool) {
	for _, s := range Symbols {
		if s.Name == name {
			return s, true
		}
	}
	return Symbol{}, false
}

// KernelTrio is the set of kernel entries a consumer resolves only when the
// build reports support (C-BIND-1).
var KernelTrio = []string{SymKernelInit, SymKernelPrepare, SymKernelLaunch}

// SymbolsOf returns the symbols of revision rev with requirement req, in table
// order.
func SymbolsOf(rev Revision, req Requirement) []Symbol {
	var out []Symbol
	for _, s := range Symbols {
		if s.Revisions.Has(rev) && s.Required == req {
			out = append(out, s)
		}
	}
	return out
}

// ExportedBy returns every symbol a runtime of revision rev exports, hooks
// excluded: what an nm -D of a complete build must show.
func ExportedBy(rev Revision) []Symbol {
	var out []Symbol
	for _, s := range Symbols {
		if s.Revisions.Has(rev) && !s.Group.Simulation() {
			out = append(out, s)
		}
	}
	return out
}
