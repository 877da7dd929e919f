package emit

import (
	"fmt"
	"strings"

	"github.com/simabi/simabi/abi"
)

// Mutant is a runtime that breaks exactly one rule of docs/contract.md (F-4). The
// emitted source of a mutant differs from the plain runtime only where it
// breaks that rule; each changed spot carries a "MUTANT <name> [<rule>]"
// comment.
type Mutant struct {
	Name        string // stable: appears in reports and test names
	Rule        string // the rule it breaks, e.g. "V-PREP-1"
	Group       string // the rule group: S, V, L, K, E, M, D, U or X
	Description string
}

// mutants is docs/semantics.md §13, in its order.
var mutants = []Mutant{
	{"prep-keeps-out", "V-PREP-1", "", "prepare does not write -1 before its checks"},
	{"prep-misaligned-ok", "V-PREP-2", "", "prepare does not refuse a misaligned image"},
	{"launch-id-8192-ok", "V-LAUNCH", "", "launch does not range-check the id (8192 → NOT_RESIDENT)"},
	{"img-trailing-ok", "V-IMG", "", "V-IMG step 6 skipped: trailing bytes accepted"},
	{"img-dup-funcid-ok", "V-IMG", "", "duplicate child func ids accepted"},
	{"init-gen0-ok", "V-INIT", "", "context_generation 0 accepted"},
	{"span-half-ok", "V-SPAN", "", "a span with a pointer and size 0 accepted at kernel init"},
	{"cfg-pmu-ok", "V-CFG", "", "enable_pmu accepted in kernel mode"},
	{"latch-cleared-on-fail", "L-3", "", "a kernel init failing after the latch unlatches the context"},
	{"latch-before-cfg", "L-5", "", "kernel init latches before V-CFG, so a V-CFG refusal leaves it latched"},
	{"program-over-kernel", "L-2", "", "simpler_init on a kernel context succeeds"},
	{"poison-ignored", "K-4", "", "a registration failure does not poison"},
	{"closed-accepts-dispatch", "K-6", "", "after a successful finalize, prepare proceeds as if Collecting"},
	{"close-failure-swallowed", "K-5", "", "a failed release step is ignored: the close goes on, reaches Closed and returns 0"},
	{"reinit-after-close", "K-2", "", "kernel init on a Closed context succeeds"},
	{"launch-before-prepare-nr", "E-LAUNCH", "", "launch before any prepare returns NOT_RESIDENT"},
	{"finalize-null-ia", "E-FIN", "", "finalize_device(NULL) returns INVALID_ARGUMENT"},
	{"destroy-unfinalized", "E-DESTROY", "", "destroy frees an unfinalized kernel context (and its claim)"},
	{"prog-args-first", "E-PROG", "", "program entries check their arguments before the live-init check"},
	{"supported-after-init-0", "E-SUP", "", "supported returns 0 on a kernel-initialized context"},
	{"claim-kept-on-fail", "E-CLAIM", "", "a failed init keeps the device claim"},
	{"ids-from-one", "M-1", "", "the first id is 1"},
	{"failure-consumes-id", "M-3", "", "a failed prepare after V-IMG consumes an id"},
	{"dedup", "M-2", "", "identical bytes get the id of their first prepare"},
	{"count-8191", "M-4", "", "COUNT at 8191 residents"},
	{"no-byte-budget", "M-5", "", "the byte budget is not enforced"},
	{"committed-after-finalize", "M-7", "", "committed memory is not 0 after finalize"},
	{"device-unchecked", "D-2", "", "launch does not check the current device"},
	{"finalize-resets-device", "D-1", "", "kernel finalize calls aclrtResetDevice"},
	{"fatal-resets", "D-4", "", "a fatal device is reset: finalize returns 0 instead of INVALID_STATE"},
	{"launch-waits", "X-2", "", "a launch overlapping a prepare waits for it instead of failing fast"},
	{"stream-switch-ok", "E-LAUNCH", "", "the stream-switch gate is off"},
	{"async-poisons", "E-LAUNCH-ASYNC", "", "an asynchronous device failure poisons the context"},
	{"device-band-code", "S-1", "", "launch of a never-published id returns -7 (device band) instead of CALLABLE_NOT_RESIDENT"},
	{"undocumented-code", "S-2", "", "a V-LAUNCH refusal returns -1009, a code docs/contract.md does not define"},
	{"null-prepare-internal", "S-3", "", "prepare with a NULL ctx returns INTERNAL instead of INVALID_ARGUMENT"},
	{"thread-key-leak", "U-1", "", "init leaves a thread-exit destructor in the library: a thread that exits after the unload crashes"},
	{"late-thread-leak", "U-1", "", "init starts a detached thread that runs library code 50 ms later: after an unload it crashes whatever the process does then"},
	{"prepared-run-not-outstanding", "E-FIN", "", "only a launched, uncompleted run counts as outstanding: finalize and destroy go through with a prepared or completed run"},
	{"program-teardown-swallowed", "E-FIN", "", "a failing program teardown (site 10) is not returned by finalize_device"},
	{"run-null-config-ok", "E-PROG", "", "prepare_run and run take a NULL CallConfig as the defaults instead of refusing it"},
	{"refusal-latches", "L-4", "", "simpler_init with a device id < 0 latches PROGRAM before refusing it"},
}

// The codes the status mutants return (S-1, S-2).
const (
	// MutantDeviceBandCode is device code 7 (REQUIRE_SYNC_START_INVALID)
	// negated: a host-side refusal reported in the device-latched band.
	MutantDeviceBandCode abi.Status = -7
	// MutantUndocumentedCode is one below the smallest host code docs/contract.md
	// defines.
	MutantUndocumentedCode = abi.HostBandMin - 1
)

func init() {
	if !MutantDeviceBandCode.IsDeviceLatched() || MutantDeviceBandCode.Name() == "" {
		panic(fmt.Sprintf("emit: %d is no longer a named device-latched code", MutantDeviceBandCode))
	}
	if MutantUndocumentedCode.IsDefinedHost() || !MutantUndocumentedCode.IsHostBand() || MutantUndocumentedCode.IsDeviceLatched() {
		panic(fmt.Sprintf("emit: %d is not an undocumented host-band code", MutantUndocumentedCode))
	}
	for i := range mutants {
		mutants[i].Group, _, _ = strings.Cut(mutants[i].Rule, "-")
	}
}

// Mutants returns every mutant the generator knows, in a stable order.
func Mutants() []Mutant {
	out := make([]Mutant, len(mutants))
	copy(out, mutants)
	return out
}

// LookupMutant finds a mutant by name.
func LookupMutant(name string) (Mutant, bool) {
	for _, m := range mutants {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
}
