package abi_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
)

// abiMDCodes is the status table of docs/contract.md, typed in by hand.
var abiMDCodes = []struct {
	name  string
	value int32
}{
	{"INTERNAL", -1000},
	{"UNSUPPORTED", -1001},
	{"PREPARED_INCOMPATIBLE", -1002},
	{"INVALID_STATE", -1003},
	{"INVALID_ARGUMENT", -1004},
	{"CALLABLE_COUNT_EXCEEDED", -1005},
	{"CALLABLE_BYTES_EXCEEDED", -1006},
	{"CALLABLE_NOT_RESIDENT", -1007},
	{"CAPACITY_EXCEEDED", -1008},
}

// S-1, S-2: every documented code by name and value.
func TestStatusCodesByNameAndValue(t *testing.T) {
	consts := map[string]abi.Status{
		"INTERNAL":                abi.Internal,
		"UNSUPPORTED":             abi.Unsupported,
		"PREPARED_INCOMPATIBLE":   abi.PreparedIncompatible,
		"INVALID_STATE":           abi.InvalidState,
		"INVALID_ARGUMENT":        abi.InvalidArgument,
		"CALLABLE_COUNT_EXCEEDED": abi.CallableCountExceeded,
		"CALLABLE_BYTES_EXCEEDED": abi.CallableBytesExceeded,
		"CALLABLE_NOT_RESIDENT":   abi.CallableNotResident,
		"CAPACITY_EXCEEDED":       abi.CapacityExceeded,
	}
	for _, c := range abiMDCodes {
		got, ok := consts[c.name]
		if !ok {
			t.Fatalf("no constant for %s", c.name)
		}
		if int32(got) != c.value {
			t.Errorf("%s = %d, docs/contract.md says %d", c.name, got, c.value)
		}
		if got.Name() != c.name {
			t.Errorf("Status(%d).Name() = %q, want %q", c.value, got.Name(), c.name)
		}
		if want := fmt.Sprintf("%s(%d)", c.name, c.value); got.String() != want {
			t.Errorf("String() = %q, want %q", got.String(), want)
		}
		if !got.IsDefinedHost() || !got.IsHostBand() || got.IsDeviceLatched() {
			t.Errorf("%v: IsDefinedHost=%v IsHostBand=%v IsDeviceLatched=%v", got, got.IsDefinedHost(), got.IsHostBand(), got.IsDeviceLatched())
		}
	}
	if abi.OK != 0 || abi.OK.String() != "OK(0)" {
		t.Errorf("OK = %d %q, want 0 \"OK(0)\"", abi.OK, abi.OK.String())
	}
	if got := abi.InvalidArgument.String(); got != "INVALID_ARGUMENT(-1004)" {
		t.Errorf("InvalidArgument.String() = %q", got)
	}
	if abi.PollError != -1000 || abi.PollNotReady != 0 || abi.PollComplete != 1 {
		t.Errorf("poll values %d %d %d, want -1000 0 1", abi.PollError, abi.PollNotReady, abi.PollComplete)
	}
	if abi.ACLErrorRepeatInitialize != 100002 {
		t.Errorf("ACLErrorRepeatInitialize = %d", abi.ACLErrorRepeatInitialize)
	}
}

// S-2: the documented code set is exactly docs/contract.md's table; any other value is
// undocumented and renders with its value so a report can name it.
func TestStatusDocumentedSet(t *testing.T) {
	var got, want []int32
	for _, s := range abi.HostStatuses {
		got = append(got, int32(s))
	}
	for _, c := range abiMDCodes {
		want = append(want, c.value)
	}
	sort.Slice(got, func(i, j int) bool { return got[i] > got[j] })
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("HostStatuses differs from docs/contract.md (-want +got):\n%s", d)
	}
	if abi.HostBandMax != -1000 || abi.HostBandMin != -1008 || abi.LatchedCodeMax != 999 {
		t.Errorf("band bounds %d %d %d", abi.HostBandMax, abi.HostBandMin, abi.LatchedCodeMax)
	}
	for _, v := range []abi.Status{-1009, -2000, -999, 2, 100002, -6, -12, -99, -104, -1 << 31} {
		if v.IsDefinedHost() {
			t.Errorf("%d reported as a defined host code", v)
		}
		if v.Name() != "" {
			t.Errorf("undocumented %d has name %q", v, v.Name())
		}
		if want := fmt.Sprintf("STATUS(%d)", v); v.String() != want {
			t.Errorf("String(%d) = %q, want %q", v, v.String(), want)
		}
	}
}

// S-1: the band predicates at their boundaries.
func TestStatusBands(t *testing.T) {
	cases := []struct {
		s              abi.Status
		host, latched  bool
		definedHostish bool
	}{
		{0, false, false, false},
		{1, false, false, false},
		{-1, false, true, false},
		{-2, false, true, false},
		{-998, false, true, false},
		{-999, false, true, false},
		{-1000, true, false, true},
		{-1001, true, false, true},
		{-1008, true, false, true},
		{-1009, true, false, false},
		{-1 << 31, true, false, false},
		{1 << 30, false, false, false},
	}
	for _, c := range cases {
		if got := c.s.IsHostBand(); got != c.host {
			t.Errorf("Status(%d).IsHostBand() = %v, want %v", c.s, got, c.host)
		}
		if got := c.s.IsDeviceLatched(); got != c.latched {
			t.Errorf("Status(%d).IsDeviceLatched() = %v, want %v", c.s, got, c.latched)
		}
		if got := c.s.IsDefinedHost(); got != c.definedHostish {
			t.Errorf("Status(%d).IsDefinedHost() = %v, want %v", c.s, got, c.definedHostish)
		}
		if c.s.IsHostBand() && c.s.IsDeviceLatched() {
			t.Errorf("Status(%d) in both bands", c.s)
		}
	}
}

// S-1: device-latched codes are reported negated and named per docs/contract.md.
func TestDeviceLatchedNames(t *testing.T) {
	want := map[int32]string{
		1: "SCOPE_DEADLOCK", 2: "HEAP_RING_DEADLOCK", 3: "FLOW_CONTROL_DEADLOCK",
		4: "FANIN_CAPACITY_EXCEEDED", 5: "INVALID_ARGS", 7: "REQUIRE_SYNC_START_INVALID",
		8: "TENSOR_WAIT_TIMEOUT", 9: "EXPLICIT_ORCH_FATAL", 10: "SCOPE_TASKS_OVERFLOW",
		11: "TENSORMAP_OVERFLOW", 100: "SCHEDULER_TIMEOUT", 101: "ASYNC_COMPLETION_INVALID",
		102: "ASYNC_WAIT_OVERFLOW", 103: "ASYNC_REGISTRATION_FAILED",
	}
	if d := cmp.Diff(want, abi.DeviceLatchedNames); d != "" {
		t.Errorf("DeviceLatchedNames (-abi.md +got):\n%s", d)
	}
	for code, name := range want {
		s := abi.Status(-code)
		if !s.IsDeviceLatched() {
			t.Errorf("%d not device-latched", s)
		}
		if s.Name() != name {
			t.Errorf("Status(%d).Name() = %q, want %q", s, s.Name(), name)
		}
		if w := fmt.Sprintf("%s(%d)", name, -code); s.String() != w {
			t.Errorf("String = %q, want %q", s.String(), w)
		}
		// The positive value is not a status a runtime returns; it has no name.
		if abi.Status(code).Name() != "" {
			t.Errorf("positive %d named %q", code, abi.Status(code).Name())
		}
	}
	if got := abi.Status(-6).String(); got != "STATUS(-6)" {
		t.Errorf("unnamed latched code renders %q", got)
	}
}

// Legacy builds report -1 generic, -2 UNSUPPORTED, -3 PREPARED_INCOMPATIBLE
// (docs/contract.md "legacy revision").
func TestTranslateLegacy(t *testing.T) {
	cases := []struct{ in, want abi.Status }{
		{-1, abi.Internal},
		{-2, abi.Unsupported},
		{-3, abi.PreparedIncompatible},
		{0, 0},
		{1, 1},
		{-4, -4},
		{abi.InvalidArgument, abi.InvalidArgument},
		{abi.Internal, abi.Internal},
	}
	for _, c := range cases {
		if got := abi.TranslateLegacy(c.in); got != c.want {
			t.Errorf("TranslateLegacy(%d) = %v, want %v", c.in, got, c.want)
		}
	}
	if abi.LegacyGeneric != -1 || abi.LegacyUnsupported != -2 || abi.LegacyPreparedIncompatible != -3 || abi.LegacyPollError != -1 {
		t.Errorf("legacy constants %d %d %d %d", abi.LegacyGeneric, abi.LegacyUnsupported, abi.LegacyPreparedIncompatible, abi.LegacyPollError)
	}
}

// The constants of docs/contract.md ("Constants"), typed in independently.
func TestConstants(t *testing.T) {
	got := map[string]int64{
		"MAX_REGISTERED_CALLABLE_IDS":       abi.MaxRegisteredCallableIDs,
		"KERNEL_MAX_FUNC_ID":                abi.KernelMaxFuncID,
		"children":                          abi.MaxChildren,
		"CHIP_MAX_TENSOR_ARGS":              abi.ChipMaxTensorArgs,
		"CHIP_MAX_SCALAR_ARGS":              abi.ChipMaxScalarArgs,
		"CORE_MAX_TENSOR_ARGS":              abi.CoreMaxTensorArgs,
		"CALLABLE_ALIGN":                    abi.CallableAlign,
		"CALLABLE_CHILD_ALIGN":              abi.CallableChildAlign,
		"CALLABLE_FUNC_NAME_MAX":            abi.CallableFuncNameMax,
		"MAX_TENSOR_DIMS":                   abi.MaxTensorDims,
		"RUNTIME_ENV_RING_COUNT":            abi.RuntimeEnvRingCount,
		"OUTPUT_PREFIX":                     abi.OutputPrefixBytes,
		"PTO_PIPELINE_CONTRACT_ABI_VERSION": abi.PipelineContractABIVersion,
		"PTO_PIPELINE_MAX_RESOURCES":        abi.PipelineMaxResources,
		"PTO_PIPELINE_MAX_DEPTH":            abi.PipelineMaxDepth,
		"PLATFORM_MAX_AICPU_THREADS a2a3":   abi.PlatformMaxAicpuThreadsA2A3,
		"PLATFORM_MAX_AICPU_THREADS a5":     abi.PlatformMaxAicpuThreadsA5,
		"SIMPLER_MODE_PROGRAM":              abi.SimplerModeProgram,
		"SIMPLER_MODE_KERNEL":               abi.SimplerModeKernel,
		"budget":                            int64(abi.KernelCodeBudget),
		"block":                             int64(abi.KernelCodeBlockBytes),
		"charge":                            int64(abi.KernelChargeAlign),
		"SCALAR":                            int64(abi.DirScalar),
		"IN":                                int64(abi.DirIn),
		"OUT":                               int64(abi.DirOut),
		"INOUT":                             int64(abi.DirInOut),
	}
	want := map[string]int64{
		"MAX_REGISTERED_CALLABLE_IDS": 8192, "KERNEL_MAX_FUNC_ID": 1024, "children": 1024,
		"CHIP_MAX_TENSOR_ARGS": 256, "CHIP_MAX_SCALAR_ARGS": 128, "CORE_MAX_TENSOR_ARGS": 32,
		"CALLABLE_ALIGN": 64, "CALLABLE_CHILD_ALIGN": 16, "CALLABLE_FUNC_NAME_MAX": 64,
		"MAX_TENSOR_DIMS": 5, "RUNTIME_ENV_RING_COUNT": 4, "OUTPUT_PREFIX": 1024,
		"PTO_PIPELINE_CONTRACT_ABI_VERSION": 1, "PTO_PIPELINE_MAX_RESOURCES": 8, "PTO_PIPELINE_MAX_DEPTH": 2,
		"PLATFORM_MAX_AICPU_THREADS a2a3": 4, "PLATFORM_MAX_AICPU_THREADS a5": 5,
		"SIMPLER_MODE_PROGRAM": 0, "SIMPLER_MODE_KERNEL": 1,
		"budget": 2 << 30, "block": 2 << 20, "charge": 64,
		"SCALAR": 0, "IN": 1, "OUT": 2, "INOUT": 3,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("constants (-abi.md +got):\n%s", d)
	}
}

func TestArgDirection(t *testing.T) {
	for d := abi.ArgDirection(-2); d <= 6; d++ {
		valid := d >= 0 && d <= 3
		tensor := d >= 1 && d <= 3
		if d.Valid() != valid || d.IsTensor() != tensor {
			t.Errorf("ArgDirection(%d): Valid=%v IsTensor=%v, want %v %v", d, d.Valid(), d.IsTensor(), valid, tensor)
		}
	}
}

// M-5: each prepare is charged align_up(size, 64).
func TestAlignUpAndKernelCharge(t *testing.T) {
	cases := []struct{ x, a, want uint64 }{
		{0, 64, 0}, {1, 64, 64}, {63, 64, 64}, {64, 64, 64}, {65, 64, 128}, {9376, 64, 9408}, {17, 16, 32}, {16, 16, 16},
	}
	for _, c := range cases {
		if got := abi.AlignUp(c.x, c.a); got != c.want {
			t.Errorf("AlignUp(%d, %d) = %d, want %d", c.x, c.a, got, c.want)
		}
	}
	for _, c := range []struct{ size, want uint64 }{{9376, 9408}, {9408, 9408}, {9409, 9472}, {2 << 20, 2 << 20}, {2<<20 + 1, 2<<20 + 64}} {
		if got := abi.KernelCharge(c.size); got != c.want {
			t.Errorf("KernelCharge(%d) = %d, want %d", c.size, got, c.want)
		}
	}
}
