package op

import (
	"strings"
	"sync"

	"github.com/simabi/simabi/abi"
)

var cfgCache, legacyCfgCache sync.Map // CfgRecipe → []byte (1148 / 1144 bytes)

// CfgBytes returns the packed CallConfig of a recipe (nil for Null) in the
// current layout or, for a legacy build's simpler_init, the 1144-byte legacy
// layout. The bytes are shared: never write them.
func CfgBytes(r CfgRecipe, legacy bool) []byte {
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
