package model

import (
	"github.com/simabi/simabi/abi"
)

// cfgVerdict is what V-CFG (docs/contract.md, the model's reading) makes of a config.
type cfgVerdict struct {
	st       abi.Status // OK or the first failure's status
	tolINT   bool       // the thread rule's tolerated INTERNAL
	ringOnly bool       // the failure is a ring rule (tolerated: not checked)
	what     string
}

// checkCfg is V-CFG in the rule's order; kernel adds the kernel-only
// UNSUPPORTED step (E-PINIT's program check leaves it out).
func checkCfg(r CfgRecipe, kernel bool) cfgVerdict {
	if r.Threads != 0 && (r.Threads < 2 || r.Threads > 4) {
		return cfgVerdict{st: abi.InvalidArgument, tolINT: true, what: "aicpu_thread_num not 0 or in [2, 4]"}
	}
	if kernel && (r.Dump || r.PMU || r.Scope || r.Anchors) {
		return cfgVerdict{st: abi.Unsupported, what: "a diagnostic that kernel mode does not support"}
	}
	if r.Swim < 0 || r.Swim > 4 {
		return cfgVerdict{st: abi.InvalidArgument, what: "enable_chip_swimlane outside 0..4"}
	}
	if (r.Swim != 0 || r.DepGen) && !r.Prefix && !r.Unterm {
		return cfgVerdict{st: abi.InvalidArgument, what: "diagnostic enabled with an empty output_prefix"}
	}
	if r.Unterm {
		return cfgVerdict{st: abi.InvalidArgument, what: "output_prefix without NUL"}
	}
	if r.Ring.Bad() {
		return cfgVerdict{st: abi.InvalidArgument, ringOnly: true, what: "ring sizing out of range"}
	}
	return cfgVerdict{st: abi.OK}
}
