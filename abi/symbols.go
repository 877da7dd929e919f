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

// Symbol is the row of one entry.
type Symbol struct {
	Entry     Entry
	Name      string
	Group     Group
	Revisions Revision
	Required  Requirement
	// Proto is the C prototype of the target revision (of the legacy one for
	// legacy-only symbols).
	Proto string
	// ChipWorker says since which upstream change ChipWorker at 6ebaf77
	// resolves the symbol at init; "" when it does not (C-BIND-1's legacy
	// consumer set).
	ChipWorker string
}

// LegacySimplerInitProto is simpler_init in the legacy revision: 9 parameters,
// ending at prewarm_config (SDMA is provisioned by simpler_provision_dma_workspace).
const LegacySimplerInitProto = "int simpler_init(DeviceContextHandle ctx, int device_id, const uint8_t *aicpu, size_t aicpu_size, const uint8_t *aicore, size_t aicore_size, const uint8_t *dispatcher, size_t dispatcher_size, const CallConfig *prewarm_config)"

// Entry is one entry of the host runtime C ABI: the index of its row in
// Symbols, the one place its name, prototype and requirements are declared.
type Entry uint8

// The entries, in the order of docs/contract.md's entry table.
const (
	EntryCreateDeviceContext Entry = iota
	EntryDestroyDeviceContext
	EntrySimplerInit
	EntryFinalizeDevice
	EntryGetRuntimeSize
	EntryGetRuntimeAlignment
	EntryDeviceMalloc
	EntryDeviceFree
	EntryCommittedDeviceMemory
	EntryDeviceMemoryInfo
	EntryCopyToDevice
	EntryCopyFromDevice
	EntryRegisterCallable
	EntryUnregisterCallable
	EntryRun
	EntryPrepareRun
	EntryLaunchRun
	EntryPollRun
	EntryWaitRun
	EntryFinalizeRun
	EntryAicpuDlopenCount
	EntryHostDlopenCount
	EntryRunStreamSetCreateCount
	EntryKernelSupported
	EntryKernelInit
	EntryKernelPrepare
	EntryKernelLaunch
	EntryGetPipelineContract
	EntrySupportsConcurrentPrepare
	EntryArenaBankGMHeapBase
	EntryRetainedTempAddr
	EntryEnsureACLReady
	EntryCreateCommStream
	EntryDestroyCommStream
	EntryCommInit
	EntryCommAllocWindows
	EntryCommGetLocalWindowBase
	EntryCommGetWindowSize
	EntryCommBarrier
	EntryCommDestroy
	EntryCommDeriveContext
	EntryCommAllocDomainWindows
	EntryCommReleaseDomainWindows
	EntryCommGlobalDomainPrepare
	EntryCommGlobalDomainImport
	EntryCommGlobalDomainRelease
	EntryHostLogBindState
	EntrySimSetCurrentDevice
	EntrySimCurrentDevice
	EntrySimSyncStream
	EntrySimInject
	EntrySimHoldGate
	EntrySimGateState
	EntrySimReset
	EntrySimCommTimeout
	EntryProvisionDMAWorkspace
	// NumEntries is the number of entries.
	NumEntries
)

const both = RevKernel | RevLegacy

// Symbols is the symbol table of docs/contract.md, in the order of its
// entry table: row e is entry e. ChipWorker is the upstream change since
// which ChipWorker at 6ebaf77 resolves the symbol (git log -S of the name
// over src/common/worker/chip_worker.cpp, the earliest commit), "" when it
// does not.
var Symbols = [NumEntries]Symbol{
	{EntryCreateDeviceContext, "create_device_context", GroupLifecycle, both, Required, "DeviceContextHandle create_device_context(void)", "ChipWorker since 87f961c (#483, 2026-04-08)"},
	{EntryDestroyDeviceContext, "destroy_device_context", GroupLifecycle, both, Required, "void destroy_device_context(DeviceContextHandle ctx)", "ChipWorker since 87f961c (#483, 2026-04-08)"},
	{EntrySimplerInit, "simpler_init", GroupLifecycle, both, Required, "int simpler_init(DeviceContextHandle ctx, int device_id, const uint8_t *aicpu, size_t aicpu_size, const uint8_t *aicore, size_t aicore_size, const uint8_t *dispatcher, size_t dispatcher_size, const CallConfig *prewarm_config, int enable_sdma, const void *sdma_warmup, uint64_t sdma_warmup_size)", "ChipWorker since 86a666c (#703, 2026-04-30)"},
	{EntryFinalizeDevice, "finalize_device", GroupLifecycle, both, Required, "int finalize_device(DeviceContextHandle ctx)", "ChipWorker since 147df1f (#442, 2026-04-03)"},
	{EntryGetRuntimeSize, "get_runtime_size", GroupSizing, both, Required, "size_t get_runtime_size(void)", "ChipWorker since 31f4b25 (#416, 2026-03-31)"},
	{EntryGetRuntimeAlignment, "get_runtime_alignment", GroupSizing, both, Required, "size_t get_runtime_alignment(void)", "ChipWorker since 87dce62 (#1574, 2026-08-02)"},
	{EntryDeviceMalloc, "device_malloc_ctx", GroupDeviceMemory, both, Required, "void *device_malloc_ctx(DeviceContextHandle ctx, size_t size)", "ChipWorker since 093c0b3 (#579, 2026-04-18)"},
	{EntryDeviceFree, "device_free_ctx", GroupDeviceMemory, both, Required, "void device_free_ctx(DeviceContextHandle ctx, void *dev_ptr)", "ChipWorker since 093c0b3 (#579, 2026-04-18)"},
	{EntryCommittedDeviceMemory, "committed_device_memory_ctx", GroupDeviceMemory, both, Required, "size_t committed_device_memory_ctx(DeviceContextHandle ctx)", "ChipWorker since ce81c97 (#1592, 2026-07-30)"},
	{EntryDeviceMemoryInfo, "device_memory_info_ctx", GroupDeviceMemory, RevKernel, Required, "int device_memory_info_ctx(DeviceContextHandle ctx, DeviceMemoryInfo *info)", ""},
	{EntryCopyToDevice, "copy_to_device_ctx", GroupDeviceMemory, both, Required, "int copy_to_device_ctx(DeviceContextHandle ctx, void *dev_ptr, const void *host_ptr, size_t size)", "ChipWorker since 093c0b3 (#579, 2026-04-18)"},
	{EntryCopyFromDevice, "copy_from_device_ctx", GroupDeviceMemory, both, Required, "int copy_from_device_ctx(DeviceContextHandle ctx, void *host_ptr, const void *dev_ptr, size_t size)", "ChipWorker since 093c0b3 (#579, 2026-04-18)"},
	{EntryRegisterCallable, "simpler_register_callable", GroupProgramRuns, both, Required, "int simpler_register_callable(DeviceContextHandle ctx, int32_t callable_id, const void *callable)", "ChipWorker since 11d03d9 (#1210, 2026-06-30)"},
	{EntryUnregisterCallable, "simpler_unregister_callable", GroupProgramRuns, both, Required, "int simpler_unregister_callable(DeviceContextHandle ctx, int32_t callable_id)", "ChipWorker since 11d03d9 (#1210, 2026-06-30)"},
	{EntryRun, "simpler_run", GroupProgramRuns, both, Required, "int simpler_run(DeviceContextHandle ctx, RuntimeHandle runtime, int32_t callable_id, const void *args, const CallConfig *config, const NativeRunDescriptor *descriptor)", "ChipWorker since 11d03d9 (#1210, 2026-06-30)"},
	{EntryPrepareRun, "simpler_prepare_run", GroupProgramRuns, both, Required, "int simpler_prepare_run(DeviceContextHandle ctx, RuntimeHandle runtime, int32_t callable_id, const void *args, const CallConfig *config, const NativeRunDescriptor *descriptor)", "ChipWorker since 87dce62 (#1574, 2026-08-02)"},
	{EntryLaunchRun, "simpler_launch_run", GroupProgramRuns, both, Required, "int simpler_launch_run(DeviceContextHandle ctx, RuntimeHandle runtime)", "ChipWorker since 87dce62 (#1574, 2026-08-02)"},
	{EntryPollRun, "simpler_poll_run", GroupProgramRuns, both, Required, "int simpler_poll_run(DeviceContextHandle ctx, RuntimeHandle runtime)", "ChipWorker since 87dce62 (#1574, 2026-08-02)"},
	{EntryWaitRun, "simpler_wait_run", GroupProgramRuns, both, Required, "int simpler_wait_run(DeviceContextHandle ctx, RuntimeHandle runtime)", "ChipWorker since 87dce62 (#1574, 2026-08-02)"},
	{EntryFinalizeRun, "simpler_finalize_run", GroupProgramRuns, both, Required, "int simpler_finalize_run(DeviceContextHandle ctx, RuntimeHandle runtime)", "ChipWorker since 87dce62 (#1574, 2026-08-02)"},
	{EntryAicpuDlopenCount, "get_aicpu_dlopen_count", GroupProgramRuns, both, Required, "size_t get_aicpu_dlopen_count(DeviceContextHandle ctx)", "ChipWorker since c3c1ce0 (#710, 2026-05-11)"},
	{EntryHostDlopenCount, "get_host_dlopen_count", GroupProgramRuns, both, Required, "size_t get_host_dlopen_count(DeviceContextHandle ctx)", "ChipWorker since c3c1ce0 (#710, 2026-05-11)"},
	{EntryRunStreamSetCreateCount, "get_run_stream_set_create_count", GroupProgramRuns, both, Required, "size_t get_run_stream_set_create_count(DeviceContextHandle ctx)", "ChipWorker since 0ded81c (#1464, 2026-07-26)"},
	{EntryKernelSupported, "simpler_kernel_mode_supported", GroupKernelMode, RevKernel, Required, "int simpler_kernel_mode_supported(DeviceContextHandle ctx)", ""},
	{EntryKernelInit, "simpler_kernel_mode_init", GroupKernelMode, RevKernel, RequiredWhenSupported, "int simpler_kernel_mode_init(DeviceContextHandle ctx, int device_id, const uint8_t *aicpu, size_t aicpu_size, const uint8_t *aicore, size_t aicore_size, const uint8_t *dispatcher, size_t dispatcher_size, const CallConfig *config, uint64_t context_generation)", ""},
	{EntryKernelPrepare, "simpler_kernel_mode_prepare_callable", GroupKernelMode, RevKernel, RequiredWhenSupported, "int simpler_kernel_mode_prepare_callable(DeviceContextHandle ctx, const void *callable, size_t callable_size, int32_t *out_callable_id)", ""},
	{EntryKernelLaunch, "simpler_kernel_mode_launch", GroupKernelMode, RevKernel, RequiredWhenSupported, "int simpler_kernel_mode_launch(DeviceContextHandle ctx, int32_t callable_id, const void *args, void *caller_stream)", ""},
	{EntryGetPipelineContract, "get_pipeline_contract", GroupPipeline, both, Required, "const PipelineContract *get_pipeline_contract(void)", "ChipWorker since 05c76c0 (#1463, 2026-07-26)"},
	{EntrySupportsConcurrentPrepare, "supports_concurrent_native_prepare_ctx", GroupPipeline, both, Required, "int supports_concurrent_native_prepare_ctx(DeviceContextHandle ctx)", "ChipWorker since 2a650f2 (#1587, 2026-08-03)"},
	{EntryArenaBankGMHeapBase, "get_arena_bank_gm_heap_base_ctx", GroupPipeline, both, Required, "uint64_t get_arena_bank_gm_heap_base_ctx(DeviceContextHandle ctx, uint32_t bank)", "ChipWorker since e51c3ae (#1540, 2026-07-29)"},
	{EntryRetainedTempAddr, "get_retained_temp_addr_ctx", GroupPipeline, both, Required, "uint64_t get_retained_temp_addr_ctx(DeviceContextHandle ctx, uint32_t slot)", "ChipWorker since e51c3ae (#1540, 2026-07-29)"},
	{EntryEnsureACLReady, "ensure_acl_ready_ctx", GroupACLStream, both, Required, "int ensure_acl_ready_ctx(DeviceContextHandle ctx, int device_id)", "ChipWorker since 20a077f (#597, 2026-04-20)"},
	{EntryCreateCommStream, "create_comm_stream_ctx", GroupACLStream, both, Required, "void *create_comm_stream_ctx(DeviceContextHandle ctx)", "ChipWorker since 20a077f (#597, 2026-04-20)"},
	{EntryDestroyCommStream, "destroy_comm_stream_ctx", GroupACLStream, both, Required, "int destroy_comm_stream_ctx(DeviceContextHandle ctx, void *stream)", "ChipWorker since 20a077f (#597, 2026-04-20)"},
	{EntryCommInit, "comm_init", GroupComm, both, Required, "CommHandle comm_init(int rank, int nranks, void *stream, const char *rootinfo_path)", "ChipWorker since 20a077f (#597, 2026-04-20)"},
	{EntryCommAllocWindows, "comm_alloc_windows", GroupComm, both, Required, "int comm_alloc_windows(CommHandle h, size_t win_size, uint64_t *device_ctx_out)", "ChipWorker since 20a077f (#597, 2026-04-20)"},
	{EntryCommGetLocalWindowBase, "comm_get_local_window_base", GroupComm, both, Required, "int comm_get_local_window_base(CommHandle h, uint64_t *base_out)", "ChipWorker since 20a077f (#597, 2026-04-20)"},
	{EntryCommGetWindowSize, "comm_get_window_size", GroupComm, both, Required, "int comm_get_window_size(CommHandle h, size_t *size_out)", "ChipWorker since 20a077f (#597, 2026-04-20)"},
	{EntryCommBarrier, "comm_barrier", GroupComm, both, Required, "int comm_barrier(CommHandle h)", "ChipWorker since 20a077f (#597, 2026-04-20)"},
	{EntryCommDestroy, "comm_destroy", GroupComm, both, Required, "int comm_destroy(CommHandle h)", "ChipWorker since 20a077f (#597, 2026-04-20)"},
	{EntryCommDeriveContext, "comm_derive_context", GroupComm, both, Required, "int comm_derive_context(CommHandle h, const uint32_t *rank_ids, size_t rank_count, uint32_t domain_rank, size_t window_offset, size_t window_size, uint64_t *device_ctx_out)", "ChipWorker since 5fd3f10 (#752, 2026-05-19)"},
	{EntryCommAllocDomainWindows, "comm_alloc_domain_windows", GroupComm, both, Required, "int comm_alloc_domain_windows(CommHandle h, uint64_t allocation_id, const uint32_t *rank_ids, size_t rank_count, uint32_t domain_rank, size_t window_size, uint64_t *device_ctx_out, uint64_t *local_window_base_out)", "ChipWorker since 7b97dfd (#817, 2026-05-20)"},
	{EntryCommReleaseDomainWindows, "comm_release_domain_windows", GroupComm, both, Required, "int comm_release_domain_windows(CommHandle h, uint64_t allocation_id, size_t rank_count, uint32_t domain_rank)", "ChipWorker since 7b97dfd (#817, 2026-05-20)"},
	{EntryCommGlobalDomainPrepare, "comm_global_domain_prepare", GroupComm, both, Required, "int comm_global_domain_prepare(uint64_t domain_id, uint32_t domain_rank, uint32_t rank_count, size_t window_size, uint32_t profile, CommGlobalDomainDescriptor *descriptor_out, uint64_t *local_window_base_out)", "ChipWorker since 60ab6ab (#1456, 2026-08-08)"},
	{EntryCommGlobalDomainImport, "comm_global_domain_import", GroupComm, both, Required, "int comm_global_domain_import(uint64_t domain_id, const CommGlobalDomainDescriptor *descriptors, size_t descriptor_count, uint64_t *device_ctx_out)", "ChipWorker since 60ab6ab (#1456, 2026-08-08)"},
	{EntryCommGlobalDomainRelease, "comm_global_domain_release", GroupComm, both, Required, "int comm_global_domain_release(uint64_t domain_id)", "ChipWorker since 60ab6ab (#1456, 2026-08-08)"},
	{EntryHostLogBindState, "simpler_host_log_bind_state", GroupHostLog, both, Required, "int simpler_host_log_bind_state(SimplerHostLogState *state)", "ChipWorker since f4cd9cb (#1845, 2026-08-18), through host_log_binding.h"},
	{EntrySimSetCurrentDevice, "simabi_set_current_device", GroupSimHooks, both, Optional, "int simabi_set_current_device(int32_t dev)", ""},
	{EntrySimCurrentDevice, "simabi_current_device", GroupSimHooks, both, Optional, "int32_t simabi_current_device(void)", ""},
	{EntrySimSyncStream, "simabi_sync_stream", GroupSimHooks, both, Optional, "int simabi_sync_stream(void *stream)", ""},
	{EntrySimInject, "simabi_inject", GroupSimHooks, both, Optional, "int simabi_inject(int32_t site, int32_t count, int32_t code)", ""},
	{EntrySimHoldGate, "simabi_hold_gate", GroupSimControl, both, Optional, "int simabi_hold_gate(DeviceContextHandle ctx, int32_t hold)", ""},
	{EntrySimGateState, "simabi_gate_state", GroupSimControl, both, Optional, "int32_t simabi_gate_state(DeviceContextHandle ctx)", ""},
	{EntrySimReset, "simabi_reset", GroupSimControl, both, Optional, "int simabi_reset(void)", ""},
	{EntrySimCommTimeout, "simabi_comm_timeout_ms", GroupSimControl, both, Optional, "int32_t simabi_comm_timeout_ms(int32_t ms)", ""},
	{EntryProvisionDMAWorkspace, "simpler_provision_dma_workspace", GroupLegacy, RevLegacy, Required, "int simpler_provision_dma_workspace(DeviceContextHandle ctx, uint32_t required_mask, const void *sdma_warmup, uint64_t size)", "ChipWorker since 717d703 (#1406, 2026-07-22)"},
}

// Name is the entry's C name.
func (e Entry) Name() string {
	if e >= NumEntries {
		return fmt.Sprintf("entry(%d)", uint8(e))
	}
	return Symbols[e].Name
}

func (e Entry) String() string { return e.Name() }

// ProtoIn is the symbol's C prototype in revision rev.
func (s Symbol) ProtoIn(rev Revision) string {
	if rev == RevLegacy && s.Entry == EntrySimplerInit {
		return LegacySimplerInitProto
	}
	return s.Proto
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
