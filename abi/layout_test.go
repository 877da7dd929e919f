package abi_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
)

// mdField is one field of docs/contract.md's "Layouts", typed in by hand from the
// document (not from the Go constants). Size -1 marks a flexible array
// member (storage) and Type is the element type of docs/contract.md.
type mdField struct {
	Name   string
	Offset int
	Size   int
	Type   string
}

type mdStruct struct {
	Size, Align int
	Packed      bool
	Fields      []mdField
}

// abiMDLayouts is docs/contract.md "Layouts". The only renaming is ChipTensor's
// buffer.addr / buffer.size, which the C declarations flatten to buffer_addr /
// buffer_size.
var abiMDLayouts = map[string]mdStruct{
	"CoreCallable": {Size: 144, Align: 8, Fields: []mdField{
		{"signature", 0, 32 * 4, "int32"},
		{"sig_count", 128, 4, "int32"},
		{"binary_size", 132, 4, "uint32"},
		{"resolved_addr", 136, 8, "uint64"},
		{"storage", 144, -1, "uint8"},
	}},
	"ChipCallable": {Size: 9376, Align: 16, Fields: []mdField{
		{"signature", 0, 256 * 4, "int32"},
		{"sig_count", 1024, 4, "int32"},
		{"binary_size", 1028, 4, "uint32"},
		{"func_name", 1032, 64, "char"},
		{"func_name_len", 1096, 4, "uint32"},
		{"child_func_ids", 1100, 1024 * 4, "int32"},
		{"child_offsets", 5196, 1024 * 4, "uint32"},
		{"child_count", 9292, 4, "int32"},
		{"config_name", 9296, 64, "char"},
		{"config_name_len", 9360, 4, "uint32"},
		{"scalar_count", 9364, 4, "int32"},
		{"storage", 9376, -1, "uint8"},
	}},
	"ChipTensor": {Size: 128, Align: 64, Fields: []mdField{
		{"buffer_addr", 0, 8, "uint64"},
		{"buffer_size", 8, 8, "uint64"},
		{"owner_task_id", 16, 8, "uint64"},
		{"start_offset", 24, 8, "uint64"},
		{"version", 32, 4, "int32"},
		{"ndims", 36, 4, "uint32"},
		{"dtype", 40, 1, "uint8"},
		{"manual_dep", 41, 1, "uint8"},
		{"is_contiguous", 42, 1, "uint8"},
		{"address_space", 43, 1, "uint8"},
		{"shapes", 44, 5 * 4, "uint32"},
		{"extent_elem_cache", 64, 8, "uint64"},
		{"strides", 72, 5 * 4, "uint32"},
		{"reserved", 92, 128 - 92, "uint8"},
	}},
	"ChipStorageTaskArgs": {Size: 33856, Align: 64, Fields: []mdField{
		{"tensors", 0, 256 * 128, "ChipTensor"},
		{"scalars", 32768, 128 * 8, "uint64"},
		{"tensor_count", 33792, 4, "int32"},
		{"scalar_count", 33796, 4, "int32"},
	}},
	"CallConfig": {Size: 1148, Align: 1, Packed: true, Fields: []mdField{
		{"aicpu_thread_num", 0, 4, "int32"},
		{"enable_chip_swimlane", 4, 4, "int32"},
		{"enable_dump_args", 8, 4, "int32"},
		{"enable_pmu", 12, 4, "int32"},
		{"enable_dep_gen", 16, 4, "int32"},
		{"enable_scope_stats", 20, 4, "int32"},
		{"capture_clock_anchors", 24, 4, "int32"},
		{"ring_task_window", 28, 32, "uint64"},
		{"ring_heap", 60, 32, "uint64"},
		{"ring_dep_pool", 92, 32, "uint64"},
		{"output_prefix", 124, 1024, "char"},
	}},
	"DeviceMemoryInfo": {Size: 16, Align: 8, Fields: []mdField{
		{"free_bytes", 0, 8, "uint64"},
		{"total_bytes", 8, 8, "uint64"},
	}},
	"PipelineResource": {Size: 16, Align: 8, Fields: []mdField{
		{"kind", 0, 4, "uint32"},
		{"resource_class", 4, 4, "uint32"},
		{"bytes_per_copy", 8, 8, "uint64"},
	}},
	"PipelineContract": {Size: 144, Align: 8, Fields: []mdField{
		{"abi_version", 0, 4, "uint32"},
		{"resource_count", 4, 4, "uint32"},
		{"pipeline_depth", 8, 4, "uint32"},
		{"resources", 16, 8 * 16, "PipelineResource"},
	}},
	"NativeRunDescriptor": {Size: 56, Align: 8, Fields: []mdField{
		{"pipeline_slot", 0, 4, "uint32"},
		{"arena_bank", 4, 4, "uint32"},
		{"run_id", 8, 8, "uint64"},
		{"generation", 16, 8, "uint64"},
		{"dispatch_id", 24, 8, "uint64"},
		{"run_epoch", 32, 8, "uint64"},
		{"accepted_state", 40, 8, "int32*"},
		{"accepted_value", 48, 4, "int32"},
	}},
	// upstream src/common/platform_comm/comm.h's static_asserts (288 bytes).
	"CommGlobalDomainDescriptor": {Size: 288, Align: 8, Fields: []mdField{
		{"version", 0, 4, "uint32"},
		{"profile", 4, 4, "uint32"},
		{"domain_rank", 8, 4, "uint32"},
		{"rank_count", 12, 4, "uint32"},
		{"mapping_size", 16, 8, "uint64"},
		{"handle_size", 24, 4, "uint32"},
		{"reserved", 28, 4, "uint32"},
		{"handle", 32, 256, "uint8"},
	}},
	// upstream src/common/platform_comm/comm_context.h's static_asserts (1056 bytes).
	"CommContext": {Size: 1056, Align: 8, Fields: []mdField{
		{"workSpace", 0, 8, "uint64"},
		{"workSpaceSize", 8, 8, "uint64"},
		{"rankId", 16, 4, "uint32"},
		{"rankNum", 20, 4, "uint32"},
		{"winSize", 24, 8, "uint64"},
		{"windowsIn", 32, 64 * 8, "uint64"},
		{"windowsOut", 544, 64 * 8, "uint64"},
	}},
	"SimplerHostLogState": {Size: 16, Align: 4, Fields: []mdField{
		{"abi_version", 0, 4, "uint32"},
		{"struct_size", 4, 4, "uint32"},
		{"threshold", 8, 4, "int32"},
		{"clock_anchor_pid", 12, 4, "int32"},
	}},
}

// mdType maps abi.Field.CType onto docs/contract.md's element type names.
func mdType(ctype string) string {
	switch ctype {
	case "int32_t":
		return "int32"
	case "uint32_t":
		return "uint32"
	case "uint64_t":
		return "uint64"
	case "uint8_t":
		return "uint8"
	case "int32_t *":
		return "int32*"
	}
	return ctype
}

// goLayouts renders abi.Layouts in the shape of abiMDLayouts.
func goLayouts() map[string]mdStruct {
	out := map[string]mdStruct{}
	for _, l := range abi.Layouts {
		s := mdStruct{Size: l.Size, Align: l.Align, Packed: l.Packed}
		for _, f := range l.Fields {
			size := f.End() - f.Offset
			if f.Count < 0 {
				size = -1
			}
			s.Fields = append(s.Fields, mdField{f.Name, f.Offset, size, mdType(f.CType)})
		}
		out[l.Name] = s
	}
	return out
}

// The Go layout table agrees with docs/contract.md as typed in above.
func TestLayoutsMatchABIDocument(t *testing.T) {
	if d := cmp.Diff(abiMDLayouts, goLayouts()); d != "" {
		t.Errorf("abi.Layouts differs from docs/contract.md (-abi.md +go):\n%s", d)
	}
}

// The named offset constants agree with docs/contract.md too (callers use the constants,
// not the table).
func TestLayoutConstantsMatchABIDocument(t *testing.T) {
	got := map[string]int{
		"CoreCallable.signature": abi.CoreSignatureOff, "CoreCallable.sig_count": abi.CoreSigCountOff,
		"CoreCallable.binary_size": abi.CoreBinarySizeOff, "CoreCallable.resolved_addr": abi.CoreResolvedAddrOff,
		"CoreCallable.storage": abi.CoreStorageOff, "CoreCallable.size": abi.CoreCallableSize,
		"CoreCallable.align": abi.CoreCallableAlign, "CoreCallable.code": abi.CoreCodeOffset,

		"ChipCallable.signature": abi.ChipSignatureOff, "ChipCallable.sig_count": abi.ChipSigCountOff,
		"ChipCallable.binary_size": abi.ChipBinarySizeOff, "ChipCallable.func_name": abi.ChipFuncNameOff,
		"ChipCallable.func_name_len": abi.ChipFuncNameLenOff, "ChipCallable.child_func_ids": abi.ChipChildFuncIDsOff,
		"ChipCallable.child_offsets": abi.ChipChildOffsetsOff, "ChipCallable.child_count": abi.ChipChildCountOff,
		"ChipCallable.config_name": abi.ChipConfigNameOff, "ChipCallable.config_name_len": abi.ChipConfigNameLenOff,
		"ChipCallable.scalar_count": abi.ChipScalarCountOff, "ChipCallable.padding": abi.ChipPaddingOff,
		"ChipCallable.storage": abi.ChipStorageOff, "ChipCallable.size": abi.ChipCallableSize,
		"ChipCallable.align": abi.ChipCallableAlign,

		"ChipTensor.buffer.addr": abi.TensorAddrOff, "ChipTensor.buffer.size": abi.TensorBufSizeOff,
		"ChipTensor.owner_task_id": abi.TensorOwnerTaskIDOff, "ChipTensor.start_offset": abi.TensorStartOffsetOff,
		"ChipTensor.version": abi.TensorVersionOff, "ChipTensor.ndims": abi.TensorNDimsOff,
		"ChipTensor.dtype": abi.TensorDTypeOff, "ChipTensor.manual_dep": abi.TensorManualDepOff,
		"ChipTensor.is_contiguous": abi.TensorIsContiguousOff, "ChipTensor.address_space": abi.TensorAddressSpaceOff,
		"ChipTensor.shapes": abi.TensorShapesOff, "ChipTensor.extent_elem_cache": abi.TensorExtentElemCacheOff,
		"ChipTensor.strides": abi.TensorStridesOff, "ChipTensor.reserved": abi.TensorReservedOff,
		"ChipTensor.size": abi.ChipTensorSize, "ChipTensor.align": abi.ChipTensorAlign,

		"TaskArgs.tensors": abi.TaskArgsTensorsOff, "TaskArgs.scalars": abi.TaskArgsScalarsOff,
		"TaskArgs.tensor_count": abi.TaskArgsTensorCountOff, "TaskArgs.scalar_count": abi.TaskArgsScalarCountOff,
		"TaskArgs.size": abi.TaskArgsSize, "TaskArgs.align": abi.TaskArgsAlign,

		"CallConfig.aicpu_thread_num": abi.CfgAicpuThreadNumOff, "CallConfig.enable_chip_swimlane": abi.CfgEnableChipSwimlaneOff,
		"CallConfig.enable_dump_args": abi.CfgEnableDumpArgsOff, "CallConfig.enable_pmu": abi.CfgEnablePMUOff,
		"CallConfig.enable_dep_gen": abi.CfgEnableDepGenOff, "CallConfig.enable_scope_stats": abi.CfgEnableScopeStatsOff,
		"CallConfig.capture_clock_anchors": abi.CfgCaptureClockAnchorsOff, "CallConfig.ring_task_window": abi.CfgRingTaskWindowOff,
		"CallConfig.ring_heap": abi.CfgRingHeapOff, "CallConfig.ring_dep_pool": abi.CfgRingDepPoolOff,
		"CallConfig.output_prefix": abi.CfgOutputPrefixOff, "CallConfig.size": abi.CallConfigSize,
		"CallConfig.align": abi.CallConfigAlign, "CallConfig.legacy_size": abi.LegacyCallConfigSize,

		"DeviceMemoryInfo.free_bytes": abi.MemInfoFreeBytesOff, "DeviceMemoryInfo.total_bytes": abi.MemInfoTotalBytesOff,
		"DeviceMemoryInfo.size": abi.DeviceMemoryInfoSize,

		"PipelineResource.kind": abi.ResourceKindOff, "PipelineResource.resource_class": abi.ResourceClassOff,
		"PipelineResource.bytes_per_copy": abi.ResourceBytesPerCopyOff, "PipelineResource.size": abi.PipelineResourceSize,
		"PipelineContract.abi_version": abi.ContractABIVersionOff, "PipelineContract.resource_count": abi.ContractResourceCountOff,
		"PipelineContract.pipeline_depth": abi.ContractPipelineDepthOff, "PipelineContract.resources": abi.ContractResourcesOff,
		"PipelineContract.size": abi.PipelineContractSize, "PipelineContract.align": abi.PipelineContractAlign,

		"NativeRunDescriptor.pipeline_slot": abi.DescPipelineSlotOff, "NativeRunDescriptor.arena_bank": abi.DescArenaBankOff,
		"NativeRunDescriptor.run_id": abi.DescRunIDOff, "NativeRunDescriptor.generation": abi.DescGenerationOff,
		"NativeRunDescriptor.dispatch_id": abi.DescDispatchIDOff, "NativeRunDescriptor.run_epoch": abi.DescRunEpochOff,
		"NativeRunDescriptor.accepted_state": abi.DescAcceptedStateOff, "NativeRunDescriptor.accepted_value": abi.DescAcceptedValueOff,
		"NativeRunDescriptor.size": abi.NativeRunDescSize, "NativeRunDescriptor.align": abi.NativeRunDescAlign,

		"SimplerHostLogState.abi_version": abi.LogStateABIVersionOff, "SimplerHostLogState.struct_size": abi.LogStateStructSizeOff,
		"SimplerHostLogState.threshold": abi.LogStateThresholdOff, "SimplerHostLogState.clock_anchor_pid": abi.LogStateClockAnchorPIDOff,
		"SimplerHostLogState.size": abi.HostLogStateSize,
	}
	want := map[string]int{
		"CoreCallable.signature": 0, "CoreCallable.sig_count": 128, "CoreCallable.binary_size": 132,
		"CoreCallable.resolved_addr": 136, "CoreCallable.storage": 144, "CoreCallable.size": 144,
		"CoreCallable.align": 8, "CoreCallable.code": 192,

		"ChipCallable.signature": 0, "ChipCallable.sig_count": 1024, "ChipCallable.binary_size": 1028,
		"ChipCallable.func_name": 1032, "ChipCallable.func_name_len": 1096, "ChipCallable.child_func_ids": 1100,
		"ChipCallable.child_offsets": 5196, "ChipCallable.child_count": 9292, "ChipCallable.config_name": 9296,
		"ChipCallable.config_name_len": 9360, "ChipCallable.scalar_count": 9364, "ChipCallable.padding": 9368,
		"ChipCallable.storage": 9376, "ChipCallable.size": 9376, "ChipCallable.align": 16,

		"ChipTensor.buffer.addr": 0, "ChipTensor.buffer.size": 8, "ChipTensor.owner_task_id": 16,
		"ChipTensor.start_offset": 24, "ChipTensor.version": 32, "ChipTensor.ndims": 36, "ChipTensor.dtype": 40,
		"ChipTensor.manual_dep": 41, "ChipTensor.is_contiguous": 42, "ChipTensor.address_space": 43,
		"ChipTensor.shapes": 44, "ChipTensor.extent_elem_cache": 64, "ChipTensor.strides": 72,
		"ChipTensor.reserved": 92, "ChipTensor.size": 128, "ChipTensor.align": 64,

		"TaskArgs.tensors": 0, "TaskArgs.scalars": 32768, "TaskArgs.tensor_count": 33792,
		"TaskArgs.scalar_count": 33796, "TaskArgs.size": 33856, "TaskArgs.align": 64,

		"CallConfig.aicpu_thread_num": 0, "CallConfig.enable_chip_swimlane": 4, "CallConfig.enable_dump_args": 8,
		"CallConfig.enable_pmu": 12, "CallConfig.enable_dep_gen": 16, "CallConfig.enable_scope_stats": 20,
		"CallConfig.capture_clock_anchors": 24, "CallConfig.ring_task_window": 28, "CallConfig.ring_heap": 60,
		"CallConfig.ring_dep_pool": 92, "CallConfig.output_prefix": 124, "CallConfig.size": 1148,
		"CallConfig.align": 1, "CallConfig.legacy_size": 1144,

		"DeviceMemoryInfo.free_bytes": 0, "DeviceMemoryInfo.total_bytes": 8, "DeviceMemoryInfo.size": 16,

		"PipelineResource.kind": 0, "PipelineResource.resource_class": 4, "PipelineResource.bytes_per_copy": 8,
		"PipelineResource.size":        16,
		"PipelineContract.abi_version": 0, "PipelineContract.resource_count": 4, "PipelineContract.pipeline_depth": 8,
		"PipelineContract.resources": 16, "PipelineContract.size": 144, "PipelineContract.align": 8,

		"NativeRunDescriptor.pipeline_slot": 0, "NativeRunDescriptor.arena_bank": 4, "NativeRunDescriptor.run_id": 8,
		"NativeRunDescriptor.generation": 16, "NativeRunDescriptor.dispatch_id": 24, "NativeRunDescriptor.run_epoch": 32,
		"NativeRunDescriptor.accepted_state": 40, "NativeRunDescriptor.accepted_value": 48,
		"NativeRunDescriptor.size": 56, "NativeRunDescriptor.align": 8,

		"SimplerHostLogState.abi_version": 0, "SimplerHostLogState.struct_size": 4, "SimplerHostLogState.threshold": 8,
		"SimplerHostLogState.clock_anchor_pid": 12, "SimplerHostLogState.size": 16,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("offset constants (-abi.md +go):\n%s", d)
	}
}

// Pure Go: every layout's fields are in offset order, do not overlap, stay
// within the struct, respect their own alignment, and the struct size is a
// multiple of its alignment.
func TestLayoutsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range abi.Layouts {
		if seen[l.Name] {
			t.Errorf("%s listed twice", l.Name)
		}
		seen[l.Name] = true
		if l.Align <= 0 || l.Align&(l.Align-1) != 0 {
			t.Errorf("%s: alignment %d is not a power of two", l.Name, l.Align)
		}
		if l.Size%l.Align != 0 {
			t.Errorf("%s: size %d not a multiple of alignment %d", l.Name, l.Size, l.Align)
		}
		if len(l.Fields) == 0 {
			t.Errorf("%s: no fields", l.Name)
			continue
		}
		if l.Fields[0].Offset != 0 {
			t.Errorf("%s: first field at %d", l.Name, l.Fields[0].Offset)
		}
		end := 0
		for i, f := range l.Fields {
			if f.Offset < end {
				t.Errorf("%s.%s at %d overlaps the previous field ending at %d", l.Name, f.Name, f.Offset, end)
			}
			if f.Elem <= 0 {
				t.Errorf("%s.%s: element size %d", l.Name, f.Name, f.Elem)
			}
			if f.Count < 0 && i != len(l.Fields)-1 {
				t.Errorf("%s.%s: flexible array member is not last", l.Name, f.Name)
			}
			if f.Count < 0 && f.Offset != l.Size {
				t.Errorf("%s.%s: flexible array at %d, struct size %d", l.Name, f.Name, f.Offset, l.Size)
			}
			if f.End() > l.Size {
				t.Errorf("%s.%s ends at %d past size %d", l.Name, f.Name, f.End(), l.Size)
			}
			if !l.Packed && f.Offset%naturalAlign(t, f) != 0 {
				t.Errorf("%s.%s at %d is misaligned for %s", l.Name, f.Name, f.Offset, f.CType)
			}
			end = f.End()
		}
		maxAlign := 1
		for _, f := range l.Fields {
			maxAlign = max(maxAlign, naturalAlign(t, f))
		}
		if l.Packed {
			maxAlign = 1
		}
		if maxAlign != l.Align {
			t.Errorf("%s: declared alignment %d, fields imply %d", l.Name, l.Align, maxAlign)
		}
		if got, ok := abi.LayoutByName(l.Name); !ok || got.Name != l.Name {
			t.Errorf("LayoutByName(%q) = %v, %v", l.Name, got.Name, ok)
		}
	}
	if _, ok := abi.LayoutByName("NoSuchStruct"); ok {
		t.Error("LayoutByName found NoSuchStruct")
	}
	for _, name := range []string{"CoreCallable", "ChipCallable", "ChipTensor", "ChipStorageTaskArgs", "CallConfig",
		"DeviceMemoryInfo", "PipelineResource", "PipelineContract", "NativeRunDescriptor", "SimplerHostLogState"} {
		if !seen[name] {
			t.Errorf("abi.Layouts lacks %s", name)
		}
	}
}

// naturalAlign is the alignment C gives a member: that of its element type,
// raised by an explicit _Alignas.
func naturalAlign(t *testing.T, f abi.Field) int {
	t.Helper()
	a := 0
	switch f.CType {
	case "char", "uint8_t":
		a = 1
	case "int32_t", "uint32_t":
		a = 4
	case "uint64_t", "void *", "int32_t *":
		a = 8
	default:
		l, ok := abi.LayoutByName(f.CType)
		if !ok {
			t.Fatalf("unknown C type %q of %s", f.CType, f.Name)
		}
		a = l.Align
	}
	return max(a, f.Align)
}

func TestFieldEnd(t *testing.T) {
	cases := []struct {
		f    abi.Field
		want int
	}{
		{abi.Field{Offset: 8, Elem: 4}, 12},
		{abi.Field{Offset: 8, Elem: 4, Count: 3}, 20},
		{abi.Field{Offset: 144, Elem: 1, Count: -1}, 144},
	}
	for _, c := range cases {
		if got := c.f.End(); got != c.want {
			t.Errorf("%+v.End() = %d, want %d", c.f, got, c.want)
		}
	}
}

// layoutProgram is the C file of the layout test: abi.CDeclarations("") and a
// main that prints one line per struct and per field:
//
//	S <struct> <sizeof> <_Alignof>
//	F <struct> <field> <offsetof> <sizeof or -1> <alignment>
func layoutProgram() string {
	var b strings.Builder
	b.WriteString(abi.CDeclarations(""))
	b.WriteString("#include <stdio.h>\n\nint main(void) {\n")
	for _, l := range abi.Layouts {
		fmt.Fprintf(&b, "    printf(\"S %s %%zu %%zu\\n\", sizeof(%s), (size_t)_Alignof(%s));\n", l.Name, l.Name, l.Name)
		for _, f := range l.Fields {
			size := fmt.Sprintf("(long long)sizeof(((%s *)0)->%s)", l.Name, f.Name)
			if f.Count < 0 {
				size = "-1LL"
			}
			fmt.Fprintf(&b, "    printf(\"F %s %s %%zu %%lld %%zu\\n\", offsetof(%s, %s), %s, (size_t)__alignof__(((%s *)0)->%s));\n",
				l.Name, f.Name, l.Name, f.Name, size, l.Name, f.Name)
		}
	}
	b.WriteString("    return 0;\n}\n")
	return b.String()
}

type cField struct {
	Offset, Size, Align int
}

type cStruct struct {
	Size, Align int
	Fields      map[string]cField
}

func parseLayoutOutput(t *testing.T, out string) map[string]cStruct {
	t.Helper()
	got := map[string]cStruct{}
	sc := bufio.NewScanner(strings.NewReader(out))
	atoi := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("layout program printed %q: %v", s, err)
		}
		return n
	}
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		switch {
		case len(w) == 4 && w[0] == "S":
			s := got[w[1]]
			s.Size, s.Align = atoi(w[2]), atoi(w[3])
			if s.Fields == nil {
				s.Fields = map[string]cField{}
			}
			got[w[1]] = s
		case len(w) == 6 && w[0] == "F":
			s := got[w[1]]
			if s.Fields == nil {
				s.Fields = map[string]cField{}
			}
			s.Fields[w[2]] = cField{atoi(w[3]), atoi(w[4]), atoi(w[5])}
			got[w[1]] = s
		default:
			t.Fatalf("unexpected layout program line %q", sc.Text())
		}
	}
	return got
}

// findCC returns the C compiler: $CC if set, else cc, else gcc or clang.
func findCC(t *testing.T) string {
	t.Helper()
	if cc := os.Getenv("CC"); cc != "" {
		// CC may carry flags ("gcc -m64"); the first word is the program.
		if p, err := exec.LookPath(strings.Fields(cc)[0]); err == nil {
			return p
		}
		t.Fatalf("CC=%q: not found", cc)
	}
	for _, name := range []string{"cc", "gcc", "clang"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no C compiler (cc) found: install gcc to run the layout test")
	return ""
}

// The C compiler, given the declarations this package generates, agrees with
// (a) abi.Layouts and (b) docs/contract.md on every size, alignment and field offset.
func TestLayoutAgainstCCompiler(t *testing.T) {
	cc := findCC(t)
	var extra []string
	if env := os.Getenv("CC"); env != "" {
		extra = strings.Fields(env)[1:]
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "layout.c")
	bin := filepath.Join(dir, "layout")
	if err := os.WriteFile(src, []byte(layoutProgram()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(extra, "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", bin, src)
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("running the layout program: %v", err)
	}
	got := parseLayoutOutput(t, string(out))

	// (a) against abi.Layouts.
	fromGo := map[string]cStruct{}
	for _, l := range abi.Layouts {
		s := cStruct{Size: l.Size, Align: l.Align, Fields: map[string]cField{}}
		for _, f := range l.Fields {
			size := f.End() - f.Offset
			if f.Count < 0 {
				size = -1
			}
			a := naturalAlign(t, f)
			if l.Packed {
				a = 1
			}
			s.Fields[f.Name] = cField{f.Offset, size, a}
		}
		fromGo[l.Name] = s
	}
	if d := cmp.Diff(fromGo, got); d != "" {
		t.Errorf("C compiler disagrees with abi.Layouts (-go +cc):\n%s", d)
	}

	// (b) against docs/contract.md as typed in this file.
	fromMD := map[string]cStruct{}
	for name, m := range abiMDLayouts {
		s := cStruct{Size: m.Size, Align: m.Align, Fields: map[string]cField{}}
		for _, f := range m.Fields {
			s.Fields[f.Name] = cField{Offset: f.Offset, Size: f.Size}
		}
		fromMD[name] = s
	}
	ignoreAlign := map[string]cStruct{}
	for name, s := range got {
		c := cStruct{Size: s.Size, Align: s.Align, Fields: map[string]cField{}}
		for fn, f := range s.Fields {
			c.Fields[fn] = cField{Offset: f.Offset, Size: f.Size}
		}
		ignoreAlign[name] = c
	}
	if d := cmp.Diff(fromMD, ignoreAlign); d != "" {
		t.Errorf("C compiler disagrees with docs/contract.md (-abi.md +cc):\n%s", d)
	}
}

// CDeclarations honours its prefix on every struct name and on struct-typed
// members, and proves the numbers with static assertions.
func TestCDeclarationsPrefix(t *testing.T) {
	src := abi.CDeclarations("simabi_")
	for _, l := range abi.Layouts {
		if !strings.Contains(src, "} simabi_"+l.Name+";") {
			t.Errorf("no typedef simabi_%s", l.Name)
		}
		if !strings.Contains(src, fmt.Sprintf("sizeof(simabi_%s) == %d", l.Name, l.Size)) {
			t.Errorf("no size assertion for simabi_%s", l.Name)
		}
	}
	for _, member := range []string{"simabi_ChipTensor tensors[256];", "simabi_PipelineResource resources[8];"} {
		if !strings.Contains(src, member) {
			t.Errorf("member %q not prefixed", member)
		}
	}
	if !strings.Contains(src, "__attribute__((packed))") {
		t.Error("CallConfig is not declared packed")
	}
}
