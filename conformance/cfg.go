package conformance

import (
	"strings"
	"sync"

	"github.com/simabi/simabi/abi"
)

var cfgCache, legacyCfgCache sync.Map // CfgRecipe → []byte (1148 / 1144 bytes)

// cfgBytes returns the packed CallConfig of a recipe (nil for Null).
func cfgBytes(r CfgRecipe) []byte { return cfgLayout(r, false) }

// cfgLayout returns the packed CallConfig of a recipe in the current layout
// or, for a legacy build's simpler_init, the 1144-byte legacy layout.
func cfgLayout(r CfgRecipe, legacy bool) []byte {
	if r.Null {
		return nil
	}
	cache := &cfgCache
	if legacy {
		cache = &legacyCfgCache
	}
	if b, ok := cache.Load(r); ok {
		return b.([]byte)
	}
	c := abi.CallConfig{AicpuThreadNum: int32(r.Threads), EnableChipSwimlane: int32(r.Swim)}
	flag := func(on bool) int32 {
		if on {
			return 1
		}
		return 0
	}
	c.EnableDepGen, c.EnablePMU, c.EnableDumpArgs = flag(r.DepGen), flag(r.PMU), flag(r.Dump)
	c.EnableScopeStats, c.CaptureClockAnchors = flag(r.Scope), flag(r.Anchors)
	switch r.Ring {
	case RingGood:
		c.RingTaskWindow[0], c.RingHeap[0], c.RingDepPool[0] = 16, 4096, 64
	case RingBadTask:
		c.RingTaskWindow[0] = 3
	case RingBadHeap:
		c.RingHeap[0] = 100
	case RingBadDep:
		c.RingDepPool[0] = 2
	case RingBadPow2:
		c.RingTaskWindow[0], c.RingHeap[0], c.RingDepPool[0] = 12, 4096, 64
	case RingBigDep:
		c.RingTaskWindow[0], c.RingHeap[0], c.RingDepPool[0] = 16, 4096, 1<<31
	case RingBadHeap3:
		c.RingHeap[3] = 100
	case RingWinOnly:
		c.RingTaskWindow[0] = 16
	case RingBadHeap1:
		c.RingHeap[1] = 1000
	case RingBadDep2:
		c.RingDepPool[2] = 2
	case RingGood3:
		c.RingTaskWindow[3], c.RingHeap[3], c.RingDepPool[3] = 1024, 4096, 64
	}
	switch {
	case r.Prefix:
		_ = c.SetOutputPrefix("conf")
	case r.Unterm:
		copy(c.OutputPrefix[:], strings.Repeat("x", abi.OutputPrefixBytes))
	}
	out := c.Bytes()
	if legacy {
		out = make([]byte, abi.LegacyCallConfigSize)
		_ = c.EncodeLegacy(out)
	}
	b, _ := cache.LoadOrStore(r, out)
	return b.([]byte)
}

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
	if r.Ring.bad() {
		return cfgVerdict{st: abi.InvalidArgument, ringOnly: true, what: "ring sizing out of range"}
	}
	return cfgVerdict{st: abi.OK}
}
