package validation

import (
	"github.com/simabi/simabi/abi"
)

// KernelCallConfig is V-CFG over the 1148 packed bytes of a CallConfig, in the
// rule's order (the first failure wins):
//  1. aicpu_thread_num 0 (auto) or in [2, 4] (a2a3), else INVALID_ARGUMENT;
//  2. enable_dump_args, enable_pmu, enable_scope_stats or capture_clock_anchors
//     nonzero → UNSUPPORTED;
//  3. enable_chip_swimlane outside 0..4 → INVALID_ARGUMENT;
//  4. swimlane or dep_gen enabled while output_prefix is empty → INVALID_ARGUMENT;
//  5. output_prefix with no NUL in its 1024 bytes → INVALID_ARGUMENT;
//  6. a nonzero ring entry out of range → INVALID_ARGUMENT.
//
// A cfg shorter than 1148 bytes is INVALID_ARGUMENT.
func KernelCallConfig(cfg []byte) abi.Status { return callConfig(cfg, true) }

// ProgramCallConfig is the program-mode CallConfig check of E-PINIT: V-CFG's
// thread, swimlane, prefix and ring rules, without the kernel-only UNSUPPORTED
// step.
func ProgramCallConfig(cfg []byte) abi.Status { return callConfig(cfg, false) }

// CallConfigDefect names the V-CFG step that refused a config (0 = none).
type CallConfigDefect uint8

// V-CFG defects in rule order.
const (
	CfgOK CallConfigDefect = iota
	CfgShort
	CfgThreads
	CfgUnsupportedDiagnostic
	CfgSwimlaneLevel
	CfgPrefixMissing
	CfgPrefixUnterminated
	CfgRing
)

var cfgText = [...]string{"none", "shorter than 1148 bytes", "aicpu_thread_num not 0 or in [2, 4]",
	"dump_args, pmu, scope_stats or capture_clock_anchors enabled in kernel mode",
	"enable_chip_swimlane outside 0..4", "diagnostic enabled without output_prefix",
	"output_prefix has no NUL", "ring sizing out of range"}

func (d CallConfigDefect) String() string {
	if int(d) < len(cfgText) {
		return cfgText[d]
	}
	return "unknown"
}

// CheckCallConfig reports the first V-CFG defect (kernel selects the
// kernel-only UNSUPPORTED step) and the status it maps to.
func CheckCallConfig(cfg []byte, kernel bool) (CallConfigDefect, abi.Status) {
	if len(cfg) < abi.CallConfigSize {
		return CfgShort, abi.InvalidArgument
	}
	i32 := func(off int) int32 { return int32(le.Uint32(cfg[off:])) }
	threads := i32(abi.CfgAicpuThreadNumOff)
	if threads != 0 && (threads < 2 || threads > abi.PlatformMaxAicpuThreadsA2A3) {
		return CfgThreads, abi.InvalidArgument
	}
	if kernel && (i32(abi.CfgEnableDumpArgsOff) != 0 || i32(abi.CfgEnablePMUOff) != 0 ||
		i32(abi.CfgEnableScopeStatsOff) != 0 || i32(abi.CfgCaptureClockAnchorsOff) != 0) {
		return CfgUnsupportedDiagnostic, abi.Unsupported
	}
	swim := i32(abi.CfgEnableChipSwimlaneOff)
	if swim < 0 || swim > SwimlaneMaxLevel {
		return CfgSwimlaneLevel, abi.InvalidArgument
	}
	prefix := cfg[abi.CfgOutputPrefixOff : abi.CfgOutputPrefixOff+abi.OutputPrefixBytes]
	if (swim != 0 || i32(abi.CfgEnableDepGenOff) != 0) && prefix[0] == 0 {
		return CfgPrefixMissing, abi.InvalidArgument
	}
	terminated := false
	for _, c := range prefix {
		if c == 0 {
			terminated = true
			break
		}
	}
	if !terminated {
		return CfgPrefixUnterminated, abi.InvalidArgument
	}
	for r := range abi.RuntimeEnvRingCount {
		if !RingOK(le.Uint64(cfg[abi.CfgRingTaskWindowOff+8*r:]), le.Uint64(cfg[abi.CfgRingHeapOff+8*r:]), le.Uint64(cfg[abi.CfgRingDepPoolOff+8*r:])) {
			return CfgRing, abi.InvalidArgument
		}
	}
	return CfgOK, abi.OK
}

func callConfig(cfg []byte, kernel bool) abi.Status {
	_, st := CheckCallConfig(cfg, kernel)
	return st
}

// SwimlaneMaxLevel is the largest enable_chip_swimlane level V-CFG accepts.
const SwimlaneMaxLevel = 4

// Ring sizing bounds of V-CFG.
const (
	RingMin        = 4
	RingMax        = 1<<31 - 1
	RingMinHeap    = 1024
	maxRingPowerOf = 1 << 30 // the largest power of two <= RingMax
)

// RingOK checks one ring's three entries; zero means unset and always passes:
// task window a power of two in [4, 2^31-1], heap >= 1024, dep pool in
// [4, 2^31-1].
func RingOK(taskWindow, heap, depPool uint64) bool {
	if taskWindow != 0 && (taskWindow < RingMin || taskWindow > maxRingPowerOf || taskWindow&(taskWindow-1) != 0) {
		return false
	}
	if heap != 0 && heap < RingMinHeap {
		return false
	}
	if depPool != 0 && (depPool < RingMin || depPool > RingMax) {
		return false
	}
	return true
}

// ArenaRegion is one pooled arena region in an arena change request.
type ArenaRegion struct {
	Committed bool
	Cached    uint64 // the committed size
	Requested uint64
}

// ArenaChangeForbidden is V-ARENA for one region: under kernel mode a committed
// region must not grow (requested > cached) or be released (requested == 0
// while cached != 0). A shrink or an equal request is allowed and changes
// nothing; an uncommitted region is not constrained.
func ArenaChangeForbidden(r ArenaRegion) bool {
	if !r.Committed {
		return false
	}
	if r.Requested == 0 {
		return r.Cached != 0
	}
	return r.Requested > r.Cached
}

// ArenaChange is V-ARENA over a whole request: INTERNAL when any region's
// change is forbidden. Callers evaluate it over every region before mutating
// any.
func ArenaChange(regions []ArenaRegion) abi.Status {
	for _, r := range regions {
		if ArenaChangeForbidden(r) {
			return abi.Internal
		}
	}
	return abi.OK
}
