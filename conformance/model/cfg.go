package model

import (
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

// cfgVerdict is what V-CFG (docs/contract.md, the model's reading) makes of a config.
type cfgVerdict struct {
	st       abi.Status // OK or the first failure's status
	tolINT   bool       // the thread rule's tolerated INTERNAL
	ringOnly bool       // the failure is a ring rule (tolerated: not checked)
	what     string
}

// cfgCond is one V-CFG condition a config breaks: its clause (V-CFG.n),
// what it is, and the code it answers.
type cfgCond struct {
	n    int
	what string
	st   abi.Status
}

// checkCfg is V-CFG: the first condition cfgConds finds decides.
func checkCfg(r CfgRecipe, kernel bool) cfgVerdict {
	cs := cfgConds(r, kernel)
	if len(cs) == 0 {
		return cfgVerdict{st: abi.OK}
	}
	c := cs[0]
	return cfgVerdict{st: c.st, tolINT: c.n == 1, ringOnly: c.n >= 6, what: c.what}
}

// cfgConds are every V-CFG condition config r breaks, each read on its
// own, in the rule's order; kernel adds the kernel-only UNSUPPORTED step.
func cfgConds(r CfgRecipe, kernel bool) []cfgCond {
	var out []cfgCond
	if r.Threads != 0 && (r.Threads < 2 || r.Threads > 4) {
		out = append(out, cfgCond{1, "aicpu_thread_num not 0 or in [2, 4]", abi.InvalidArgument})
	}
	if kernel {
		for _, d := range [...]struct {
			on   bool
			name string
		}{{r.Dump, "enable_dump_args"}, {r.PMU, "enable_pmu"}, {r.Scope, "enable_scope_stats"}, {r.Anchors, "capture_clock_anchors"}} {
			if d.on {
				out = append(out, cfgCond{2, "a diagnostic that kernel mode does not support: " + d.name, abi.Unsupported})
			}
		}
	}
	if r.Swim < 0 || r.Swim > 4 {
		out = append(out, cfgCond{3, "enable_chip_swimlane outside 0..4", abi.InvalidArgument})
	}
	if (r.Swim != 0 || r.DepGen) && !r.Prefix && !r.Unterm {
		out = append(out, cfgCond{4, "diagnostic enabled with an empty output_prefix", abi.InvalidArgument})
	}
	if r.Unterm {
		out = append(out, cfgCond{5, "output_prefix without NUL", abi.InvalidArgument})
	}
	if r.Ring.Bad() {
		n, what := ringClause(r.Ring)
		out = append(out, cfgCond{n, "ring sizing out of range: " + what, abi.InvalidArgument})
	}
	return out
}

// ringClause is the ring rule (V-CFG.6 to .8) a ring recipe breaks (0: none).
func ringClause(r op.RingRecipe) (int, string) {
	switch r {
	case op.RingBadTask, op.RingBadPow2:
		return 6, "a task window not a power of two in [4, 2^31-1]"
	case op.RingBadHeap, op.RingBadHeap3, op.RingBadHeap1:
		return 7, "a heap below 1024"
	case op.RingBadDep, op.RingBigDep, op.RingBadDep2:
		return 8, "a dep pool outside [4, 2^31-1]"
	}
	return 0, ""
}
