package abi

import (
	"fmt"
	"strings"
)

// Byte layouts of docs/contract.md ("Layouts"). Offsets are from the start of each
// struct; every multi-byte field is little-endian.

// CoreCallable: a child kernel inside a ChipCallable image.
const (
	CoreSignatureOff    = 0
	CoreSigCountOff     = 128
	CoreBinarySizeOff   = 132
	CoreResolvedAddrOff = 136
	CoreStorageOff      = 144
	CoreCallableSize    = 144 // sizeof(CoreCallable)
	CoreCallableAlign   = 8
	CoreCodeOffset      = 192 // align_up(144, 64): where a child's code starts
)

// ChipCallable: the orchestration image passed to prepare.
const (
	ChipSignatureOff     = 0
	ChipSigCountOff      = 1024
	ChipBinarySizeOff    = 1028
	ChipFuncNameOff      = 1032
	ChipFuncNameLenOff   = 1096
	ChipChildFuncIDsOff  = 1100
	ChipChildOffsetsOff  = 5196
	ChipChildCountOff    = 9292
	ChipConfigNameOff    = 9296
	ChipConfigNameLenOff = 9360
	ChipScalarCountOff   = 9364
	ChipPaddingOff       = 9368
	ChipStorageOff       = 9376
	ChipCallableSize     = 9376 // sizeof(ChipCallable); the V-PREP-2 size floor
	ChipCallableAlign    = 16
)

// ChipTensor: one tensor record of ChipStorageTaskArgs.
const (
	TensorAddrOff            = 0
	TensorBufSizeOff         = 8
	TensorOwnerTaskIDOff     = 16
	TensorStartOffsetOff     = 24
	TensorVersionOff         = 32
	TensorNDimsOff           = 36
	TensorDTypeOff           = 40
	TensorManualDepOff       = 41
	TensorIsContiguousOff    = 42
	TensorAddressSpaceOff    = 43
	TensorShapesOff          = 44
	TensorExtentElemCacheOff = 64
	TensorStridesOff         = 72
	TensorReservedOff        = 92
	ChipTensorSize           = 128
	ChipTensorAlign          = 64
)

// ChipStorageTaskArgs: the args of launch and of the run family.
const (
	TaskArgsTensorsOff     = 0
	TaskArgsScalarsOff     = 32768
	TaskArgsTensorCountOff = 33792
	TaskArgsScalarCountOff = 33796
	TaskArgsSize           = 33856
	TaskArgsAlign          = 64
)

// CallConfig (packed, no padding).
const (
	CfgAicpuThreadNumOff      = 0
	CfgEnableChipSwimlaneOff  = 4
	CfgEnableDumpArgsOff      = 8
	CfgEnablePMUOff           = 12
	CfgEnableDepGenOff        = 16
	CfgEnableScopeStatsOff    = 20
	CfgCaptureClockAnchorsOff = 24
	CfgRingTaskWindowOff      = 28
	CfgRingHeapOff            = 60
	CfgRingDepPoolOff         = 92
	CfgOutputPrefixOff        = 124
	CallConfigSize            = 1148
	CallConfigAlign           = 1
	// LegacyCallConfigSize is the pre-kernel-ABI size (no capture_clock_anchors).
	LegacyCallConfigSize = 1144
)

// DeviceMemoryInfo.
const (
	MemInfoFreeBytesOff  = 0
	MemInfoTotalBytesOff = 8
	DeviceMemoryInfoSize = 16
)

// PipelineResource and PipelineContract.
const (
	ResourceKindOff         = 0
	ResourceClassOff        = 4
	ResourceBytesPerCopyOff = 8
	PipelineResourceSize    = 16

	ContractABIVersionOff    = 0
	ContractResourceCountOff = 4
	ContractPipelineDepthOff = 8
	ContractResourcesOff     = 16
	PipelineContractSize     = 144
	PipelineContractAlign    = 8
)

// NativeRunDescriptor.
const (
	DescPipelineSlotOff  = 0
	DescArenaBankOff     = 4
	DescRunIDOff         = 8
	DescGenerationOff    = 16
	DescDispatchIDOff    = 24
	DescRunEpochOff      = 32
	DescAcceptedStateOff = 40
	DescAcceptedValueOff = 48
	NativeRunDescSize    = 56
	NativeRunDescAlign   = 8
)

// CommGlobalDomainDescriptor (comm_global_domain_prepare / _import; upstream
// src/common/platform_comm/comm.h, COMM_GLOBAL_DOMAIN_DESCRIPTOR_BYTES).
const (
	CommDescVersionOff     = 0
	CommDescProfileOff     = 4
	CommDescDomainRankOff  = 8
	CommDescRankCountOff   = 12
	CommDescMappingSizeOff = 16
	CommDescHandleSizeOff  = 24
	CommDescReservedOff    = 28
	CommDescHandleOff      = 32
	CommDescHandleBytes    = 256 // COMM_GLOBAL_DOMAIN_HANDLE_BYTES
	CommDescSize           = 288 // COMM_GLOBAL_DOMAIN_DESCRIPTOR_BYTES
	CommDescAlign          = 8
)

// Values of a CommGlobalDomainDescriptor (upstream comm.h).
const (
	CommGlobalDomainVersion = 2 // COMM_GLOBAL_DOMAIN_VERSION
	CommProfileSimShm       = 1 // COMM_GLOBAL_DOMAIN_PROFILE_SIM_SHM
	CommProfileA3Fabric     = 2 // COMM_GLOBAL_DOMAIN_PROFILE_A3_FABRIC
)

// CommContext: what a device_ctx_out of the comm family points at
// (upstream src/common/platform_comm/comm_context.h; sizeof 1056).
const (
	CommCtxWorkSpaceOff     = 0
	CommCtxWorkSpaceSizeOff = 8
	CommCtxRankIDOff        = 16
	CommCtxRankNumOff       = 20
	CommCtxWinSizeOff       = 24
	CommCtxWindowsInOff     = 32
	CommCtxWindowsOutOff    = 544
	CommContextSize         = 1056
	CommContextAlign        = 8
	CommMaxRankNum          = 64 // COMM_MAX_RANK_NUM
)

// SimplerHostLogState.
const (
	LogStateABIVersionOff     = 0
	LogStateStructSizeOff     = 4
	LogStateThresholdOff      = 8
	LogStateClockAnchorPIDOff = 12
	HostLogStateSize          = 16
)

// Field describes one member of a C struct for the C declarations generated
// from this package (the layout test and sim/emit both use them).
type Field struct {
	Name   string
	Offset int
	CType  string // element type: int32_t, uint32_t, uint64_t, uint8_t, char, void *, or a struct name
	Elem   int    // element size in bytes
	Count  int    // array length; 0 = scalar, -1 = flexible array member
	Align  int    // explicit _Alignas on this member, 0 for none
}

// StructLayout is one struct of docs/contract.md with its size and alignment.
type StructLayout struct {
	Name   string
	Size   int
	Align  int
	Packed bool
	Fields []Field
}

// Layouts lists every struct of docs/contract.md in dependency order.
var Layouts = []StructLayout{
	{Name: "CoreCallable", Size: CoreCallableSize, Align: CoreCallableAlign, Fields: []Field{
		{Name: "signature", Offset: CoreSignatureOff, CType: "int32_t", Elem: 4, Count: CoreMaxTensorArgs},
		{Name: "sig_count", Offset: CoreSigCountOff, CType: "int32_t", Elem: 4},
		{Name: "binary_size", Offset: CoreBinarySizeOff, CType: "uint32_t", Elem: 4},
		{Name: "resolved_addr", Offset: CoreResolvedAddrOff, CType: "uint64_t", Elem: 8},
		{Name: "storage", Offset: CoreStorageOff, CType: "uint8_t", Elem: 1, Count: -1},
	}},
	{Name: "ChipCallable", Size: ChipCallableSize, Align: ChipCallableAlign, Fields: []Field{
		{Name: "signature", Offset: ChipSignatureOff, CType: "int32_t", Elem: 4, Count: ChipMaxTensorArgs},
		{Name: "sig_count", Offset: ChipSigCountOff, CType: "int32_t", Elem: 4},
		{Name: "binary_size", Offset: ChipBinarySizeOff, CType: "uint32_t", Elem: 4},
		{Name: "func_name", Offset: ChipFuncNameOff, CType: "char", Elem: 1, Count: CallableFuncNameMax},
		{Name: "func_name_len", Offset: ChipFuncNameLenOff, CType: "uint32_t", Elem: 4},
		{Name: "child_func_ids", Offset: ChipChildFuncIDsOff, CType: "int32_t", Elem: 4, Count: MaxChildren},
		{Name: "child_offsets", Offset: ChipChildOffsetsOff, CType: "uint32_t", Elem: 4, Count: MaxChildren},
		{Name: "child_count", Offset: ChipChildCountOff, CType: "int32_t", Elem: 4},
		{Name: "config_name", Offset: ChipConfigNameOff, CType: "char", Elem: 1, Count: CallableFuncNameMax},
		{Name: "config_name_len", Offset: ChipConfigNameLenOff, CType: "uint32_t", Elem: 4},
		{Name: "scalar_count", Offset: ChipScalarCountOff, CType: "int32_t", Elem: 4},
		{Name: "storage", Offset: ChipStorageOff, CType: "uint8_t", Elem: 1, Count: -1, Align: ChipCallableAlign},
	}},
	{Name: "ChipTensor", Size: ChipTensorSize, Align: ChipTensorAlign, Fields: []Field{
		{Name: "buffer_addr", Offset: TensorAddrOff, CType: "uint64_t", Elem: 8, Align: ChipTensorAlign},
		{Name: "buffer_size", Offset: TensorBufSizeOff, CType: "uint64_t", Elem: 8},
		{Name: "owner_task_id", Offset: TensorOwnerTaskIDOff, CType: "uint64_t", Elem: 8},
		{Name: "start_offset", Offset: TensorStartOffsetOff, CType: "uint64_t", Elem: 8},
		{Name: "version", Offset: TensorVersionOff, CType: "int32_t", Elem: 4},
		{Name: "ndims", Offset: TensorNDimsOff, CType: "uint32_t", Elem: 4},
		{Name: "dtype", Offset: TensorDTypeOff, CType: "uint8_t", Elem: 1},
		{Name: "manual_dep", Offset: TensorManualDepOff, CType: "uint8_t", Elem: 1},
		{Name: "is_contiguous", Offset: TensorIsContiguousOff, CType: "uint8_t", Elem: 1},
		{Name: "address_space", Offset: TensorAddressSpaceOff, CType: "uint8_t", Elem: 1},
		{Name: "shapes", Offset: TensorShapesOff, CType: "uint32_t", Elem: 4, Count: MaxTensorDims},
		{Name: "extent_elem_cache", Offset: TensorExtentElemCacheOff, CType: "uint64_t", Elem: 8},
		{Name: "strides", Offset: TensorStridesOff, CType: "uint32_t", Elem: 4, Count: MaxTensorDims},
		{Name: "reserved", Offset: TensorReservedOff, CType: "uint8_t", Elem: 1, Count: ChipTensorSize - TensorReservedOff},
	}},
	{Name: "ChipStorageTaskArgs", Size: TaskArgsSize, Align: TaskArgsAlign, Fields: []Field{
		{Name: "tensors", Offset: TaskArgsTensorsOff, CType: "ChipTensor", Elem: ChipTensorSize, Count: ChipMaxTensorArgs},
		{Name: "scalars", Offset: TaskArgsScalarsOff, CType: "uint64_t", Elem: 8, Count: ChipMaxScalarArgs},
		{Name: "tensor_count", Offset: TaskArgsTensorCountOff, CType: "int32_t", Elem: 4},
		{Name: "scalar_count", Offset: TaskArgsScalarCountOff, CType: "int32_t", Elem: 4},
	}},
	{Name: "CallConfig", Size: CallConfigSize, Align: CallConfigAlign, Packed: true, Fields: []Field{
		{Name: "aicpu_thread_num", Offset: CfgAicpuThreadNumOff, CType: "int32_t", Elem: 4},
		{Name: "enable_chip_swimlane", Offset: CfgEnableChipSwimlaneOff, CType: "int32_t", Elem: 4},
		{Name: "enable_dump_args", Offset: CfgEnableDumpArgsOff, CType: "int32_t", Elem: 4},
		{Name: "enable_pmu", Offset: CfgEnablePMUOff, CType: "int32_t", Elem: 4},
		{Name: "enable_dep_gen", Offset: CfgEnableDepGenOff, CType: "int32_t", Elem: 4},
		{Name: "enable_scope_stats", Offset: CfgEnableScopeStatsOff, CType: "int32_t", Elem: 4},
		{Name: "capture_clock_anchors", Offset: CfgCaptureClockAnchorsOff, CType: "int32_t", Elem: 4},
		{Name: "ring_task_window", Offset: CfgRingTaskWindowOff, CType: "uint64_t", Elem: 8, Count: RuntimeEnvRingCount},
		{Name: "ring_heap", Offset: CfgRingHeapOff, CType: "uint64_t", Elem: 8, Count: RuntimeEnvRingCount},
		{Name: "ring_dep_pool", Offset: CfgRingDepPoolOff, CType: "uint64_t", Elem: 8, Count: RuntimeEnvRingCount},
		{Name: "output_prefix", Offset: CfgOutputPrefixOff, CType: "char", Elem: 1, Count: OutputPrefixBytes},
	}},
	{Name: "DeviceMemoryInfo", Size: DeviceMemoryInfoSize, Align: 8, Fields: []Field{
		{Name: "free_bytes", Offset: MemInfoFreeBytesOff, CType: "uint64_t", Elem: 8},
		{Name: "total_bytes", Offset: MemInfoTotalBytesOff, CType: "uint64_t", Elem: 8},
	}},
	{Name: "PipelineResource", Size: PipelineResourceSize, Align: 8, Fields: []Field{
		{Name: "kind", Offset: ResourceKindOff, CType: "uint32_t", Elem: 4},
		{Name: "resource_class", Offset: ResourceClassOff, CType: "uint32_t", Elem: 4},
		{Name: "bytes_per_copy", Offset: ResourceBytesPerCopyOff, CType: "uint64_t", Elem: 8},
	}},
	{Name: "PipelineContract", Size: PipelineContractSize, Align: PipelineContractAlign, Fields: []Field{
		{Name: "abi_version", Offset: ContractABIVersionOff, CType: "uint32_t", Elem: 4},
		{Name: "resource_count", Offset: ContractResourceCountOff, CType: "uint32_t", Elem: 4},
		{Name: "pipeline_depth", Offset: ContractPipelineDepthOff, CType: "uint32_t", Elem: 4},
		{Name: "resources", Offset: ContractResourcesOff, CType: "PipelineResource", Elem: PipelineResourceSize, Count: PipelineMaxResources},
	}},
	{Name: "NativeRunDescriptor", Size: NativeRunDescSize, Align: NativeRunDescAlign, Fields: []Field{
		{Name: "pipeline_slot", Offset: DescPipelineSlotOff, CType: "uint32_t", Elem: 4},
		{Name: "arena_bank", Offset: DescArenaBankOff, CType: "uint32_t", Elem: 4},
		{Name: "run_id", Offset: DescRunIDOff, CType: "uint64_t", Elem: 8},
		{Name: "generation", Offset: DescGenerationOff, CType: "uint64_t", Elem: 8},
		{Name: "dispatch_id", Offset: DescDispatchIDOff, CType: "uint64_t", Elem: 8},
		{Name: "run_epoch", Offset: DescRunEpochOff, CType: "uint64_t", Elem: 8},
		{Name: "accepted_state", Offset: DescAcceptedStateOff, CType: "int32_t *", Elem: 8},
		{Name: "accepted_value", Offset: DescAcceptedValueOff, CType: "int32_t", Elem: 4},
	}},
	{Name: "CommGlobalDomainDescriptor", Size: CommDescSize, Align: CommDescAlign, Fields: []Field{
		{Name: "version", Offset: CommDescVersionOff, CType: "uint32_t", Elem: 4},
		{Name: "profile", Offset: CommDescProfileOff, CType: "uint32_t", Elem: 4},
		{Name: "domain_rank", Offset: CommDescDomainRankOff, CType: "uint32_t", Elem: 4},
		{Name: "rank_count", Offset: CommDescRankCountOff, CType: "uint32_t", Elem: 4},
		{Name: "mapping_size", Offset: CommDescMappingSizeOff, CType: "uint64_t", Elem: 8},
		{Name: "handle_size", Offset: CommDescHandleSizeOff, CType: "uint32_t", Elem: 4},
		{Name: "reserved", Offset: CommDescReservedOff, CType: "uint32_t", Elem: 4},
		{Name: "handle", Offset: CommDescHandleOff, CType: "uint8_t", Elem: 1, Count: CommDescHandleBytes},
	}},
	{Name: "CommContext", Size: CommContextSize, Align: CommContextAlign, Fields: []Field{
		{Name: "workSpace", Offset: CommCtxWorkSpaceOff, CType: "uint64_t", Elem: 8},
		{Name: "workSpaceSize", Offset: CommCtxWorkSpaceSizeOff, CType: "uint64_t", Elem: 8},
		{Name: "rankId", Offset: CommCtxRankIDOff, CType: "uint32_t", Elem: 4},
		{Name: "rankNum", Offset: CommCtxRankNumOff, CType: "uint32_t", Elem: 4},
		{Name: "winSize", Offset: CommCtxWinSizeOff, CType: "uint64_t", Elem: 8},
		{Name: "windowsIn", Offset: CommCtxWindowsInOff, CType: "uint64_t", Elem: 8, Count: CommMaxRankNum},
		{Name: "windowsOut", Offset: CommCtxWindowsOutOff, CType: "uint64_t", Elem: 8, Count: CommMaxRankNum},
	}},
	{Name: "SimplerHostLogState", Size: HostLogStateSize, Align: 4, Fields: []Field{
		{Name: "abi_version", Offset: LogStateABIVersionOff, CType: "uint32_t", Elem: 4},
		{Name: "struct_size", Offset: LogStateStructSizeOff, CType: "uint32_t", Elem: 4},
		{Name: "threshold", Offset: LogStateThresholdOff, CType: "int32_t", Elem: 4},
		{Name: "clock_anchor_pid", Offset: LogStateClockAnchorPIDOff, CType: "int32_t", Elem: 4},
	}},
}

// LayoutByName returns the layout of the named struct.
func LayoutByName(name string) (StructLayout, bool) {
	for _, l := range Layouts {
		if l.Name == name {
			return l, true
		}
	}
	return StructLayout{}, false
}

// End is the offset just past the field (its start for a flexible array).
func (f Field) End() int {
	switch {
	case f.Count < 0:
		return f.Offset
	case f.Count == 0:
		return f.Offset + f.Elem
	default:
		return f.Offset + f.Elem*f.Count
	}
}

// CDeclarations renders every struct of Layouts as C11 typedefs, with explicit
// padding members where the Go offsets leave a gap and a _Static_assert for
// every offset, size and alignment, so a C compiler proves the Go numbers.
// The prefix is prepended to every type name (sim/emit uses "" and the
// layout test uses "" too; it exists so a header can namespace the types).
func CDeclarations(prefix string) string {
	var b strings.Builder
	b.WriteString("#include <stdint.h>\n#include <stddef.h>\n\n")
	for _, l := range Layouts {
		name := prefix + l.Name
		fmt.Fprintf(&b, "typedef struct %s%s {\n", map[bool]string{true: "__attribute__((packed)) ", false: ""}[l.Packed], name)
		pos, pad := 0, 0
		for _, f := range l.Fields {
			if f.Offset > pos {
				fmt.Fprintf(&b, "    uint8_t _pad%d[%d];\n", pad, f.Offset-pos)
				pad++
			}
			ctype := f.CType
			if _, ok := LayoutByName(ctype); ok {
				ctype = prefix + ctype
			}
			align := ""
			if f.Align > 0 {
				align = fmt.Sprintf("_Alignas(%d) ", f.Align)
			}
			switch {
			case f.Count < 0:
				fmt.Fprintf(&b, "    %s%s %s[];\n", align, ctype, f.Name)
			case f.Count == 0:
				fmt.Fprintf(&b, "    %s%s %s;\n", align, ctype, f.Name)
			default:
				fmt.Fprintf(&b, "    %s%s %s[%d];\n", align, ctype, f.Name, f.Count)
			}
			pos = f.End()
		}
		fmt.Fprintf(&b, "} %s;\n", name)
		for _, f := range l.Fields {
			fmt.Fprintf(&b, "_Static_assert(offsetof(%s, %s) == %d, \"%s.%s offset\");\n", name, f.Name, f.Offset, l.Name, f.Name)
		}
		fmt.Fprintf(&b, "_Static_assert(sizeof(%s) == %d, \"%s size\");\n", name, l.Size, l.Name)
		fmt.Fprintf(&b, "_Static_assert(_Alignof(%s) == %d, \"%s alignment\");\n\n", name, l.Align, l.Name)
	}
	return b.String()
}
