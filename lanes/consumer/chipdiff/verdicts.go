package main

import (
	"regexp"
	"slices"
)

// A verdict decides the differences between ChipWorker and lifecycle at the
// steps it names, in every variant where they show, and only where both
// sides look as the verdict says (holds): a difference of another shape at
// the same step stays undecided.
//
// Kinds:
//   - upstream-breaks: ChipWorker breaks a C rule of docs/contract.md that
//     lifecycle keeps (upstream's file and line);
//   - allowed: lifecycle departs from ChipWorker where a C rule allows it
//     (the rule, and the lifecycle test that pins the behaviour).
//
// Where lifecycle departed without a rule allowing it, it was fixed instead
// (docs/upstream.md lists the fixes and their tests); no verdict covers those.
type verdict struct {
	ID       string
	Kind     string
	Rule     string
	Where    []where
	Holds    func(cw, gw stepResult) bool
	Upstream string // upstream simpler 6ebaf77, file:line
	Ours     string // where lifecycle does what it does, and the test that pins it
	Why      string
}

// where is a step a verdict covers: the step's word, in any variant or in
// the variants named.
type where struct {
	Word     *regexp.Regexp
	Variants []string
}

const (
	upstreamBreaks = "upstream-breaks"
	allowed        = "allowed"
)

// lifecycleRefusesFirst: lifecycle refused the step by itself, before any
// native call.
func lifecycleRefusesFirst(_, gw stepResult) bool {
	return gw.Outcome == "err" && gw.Detail == "host" && len(gw.Calls) == 0
}

var verdicts = []verdict{
	{
		ID: "committed-uninitialized", Kind: upstreamBreaks, Rule: "C-SINGLE, C-ERR",
		Where: []where{{Word: regexp.MustCompile(`^committed$`)}},
		Holds: func(cw, gw stepResult) bool {
			return cw.answer() == "ok 0" && len(cw.Calls) == 0 && lifecycleRefusesFirst(cw, gw)
		},
		Upstream: "src/common/worker/chip_worker.cpp:947-952 (committed_device_memory returns 0 while not initialized)",
		Ours:     "lifecycle/program.go CommittedDeviceMemory; lifecycle/worker_test.go TestClose (C-SINGLE: after Close every operation is IS)",
		Why: "Asked before init, after a failed init or after finalize, ChipWorker answers 0 without a call, a value a caller " +
			"cannot tell from a context that committed nothing; lifecycle refuses with INVALID_STATE (C-ERR: not initialized " +
			"is IS; C-SINGLE: after a successful Close every operation returns IS).",
	},
	{
		ID: "prepared-incompatible-code", Kind: upstreamBreaks, Rule: "C-ERR",
		Where: []where{{Word: regexp.MustCompile(`^(run|prepare)=`), Variants: []string{"status.simpler_prepare_run=-3"}}},
		Holds: func(cw, gw stepResult) bool {
			return cw.answer() == "err host" && gw.answer() == "err code=-3" && slices.Equal(cw.Calls, gw.Calls)
		},
		Upstream: "src/common/worker/chip_worker.cpp:735-739 (PreparedRunIncompatible, \"native prepare requires depth-one fallback\")",
		Ours:     "lifecycle/native.go prepareNative (entryError); lifecycle/native_test.go TestRun_phasesAsChipWorker_CERR",
		Why: "simpler_prepare_run's -3 (legacy PREPARED_INCOMPATIBLE) reaches ChipWorker's caller as an exception of its own " +
			"type without the code (its run lane uses the type to fall back to depth one); every other prepare failure carries " +
			"its code. C-ERR forwards a code an entry returned unchanged; lifecycle returns -3.",
	},
	{
		ID: "prewarm-validated", Kind: allowed, Rule: "C-ERR",
		Where: []where{{Word: regexp.MustCompile(`^init:.*badprewarm`)}},
		Holds: lifecycleRefusesFirst,
		Upstream: "src/common/worker/chip_worker.cpp:324-327 (the prewarm config goes to simpler_init as given); " +
			"python/simpler/worker.py:7445-7446 (upstream's Python Worker validates it first)",
		Ours: "lifecycle/worker.go Init (checkRings); lifecycle/worker_test.go TestInitArgumentsRefusedBeforeLoad",
		Why: "A prewarm CallConfig whose ring sizing CallConfig::validate refuses: ChipWorker loads the runtime and " +
			"simpler_init refuses it (-1); lifecycle refuses it with INVALID_ARGUMENT before loading, as upstream's Python " +
			"Worker does before it calls ChipWorker. C-ERR: host-side refusals use IA for a bad argument.",
	},
	{
		ID: "image-validated", Kind: allowed, Rule: "C-ERR, V-IMG",
		Where:    []where{{Word: regexp.MustCompile(`^register=.*:(malformed|trailing)$`)}},
		Holds:    lifecycleRefusesFirst,
		Upstream: "src/common/worker/chip_worker.cpp:554-565 (register_callable passes the pointer; the entry has no size)",
		Ours:     "lifecycle/program.go RegisterCallable (validation.Image); lifecycle/worker_test.go TestProgramOperations",
		Why: "simpler_register_callable has no size argument: the runtime reads as much as the image's header describes. " +
			"lifecycle holds an image as a byte slice and refuses one V-IMG rejects (a bad sig_count, or bytes past the end " +
			"its header describes) with INVALID_ARGUMENT before the call, so the runtime never reads past the slice; " +
			"ChipWorker passes any pointer on (the runtime refuses the first, -1, and registers the second, never seeing the " +
			"extra byte). C-ERR: IA for a bad argument.",
	},
	{
		ID: "copy-to-address-0", Kind: allowed, Rule: "C-ERR",
		Where: []where{
			{Word: regexp.MustCompile(`^copy_to0$`)},
			{Word: regexp.MustCompile(`^copy$`), Variants: []string{"null.device_malloc_ctx"}},
		},
		Holds: func(cw, gw stepResult) bool {
			return cw.Outcome == "err" && lifecycleRefusesFirst(cw, gw)
		},
		Upstream: "src/common/worker/chip_worker.cpp:1085-1094 (copy_to passes device address 0 to copy_to_device_ctx, which refuses it)",
		Ours:     "lifecycle/program.go CopyToDevice, CopyFromDevice; lifecycle/worker_test.go TestProgramOperations",
		Why: "A copy to device address 0 (the action's own, or the buffer of a malloc that failed under null.device_malloc_ctx): " +
			"ChipWorker forwards it and copy_to_device_ctx refuses it (-1); lifecycle refuses it with INVALID_ARGUMENT before " +
			"the call. C-ERR: IA for a bad argument.",
	},
}

// verdictFor finds the verdict that decides d, or nil.
func verdictFor(d difference, cw, gw transcript) *verdict {
	if d.Step == 0 || d.Step > len(cw.Steps) || d.Step > len(gw.Steps) {
		return nil
	}
	c, g := cw.Steps[d.Step-1], gw.Steps[d.Step-1]
	for i := range verdicts {
		v := &verdicts[i]
		for _, w := range v.Where {
			if w.Word.MatchString(d.Word) && (len(w.Variants) == 0 || slices.Contains(w.Variants, d.Variant)) && v.Holds(c, g) {
				return v
			}
		}
	}
	return nil
}
