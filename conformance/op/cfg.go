package op

import (
	"strings"
	"sync"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
)

var cfgCache, legacyCfgCache sync.Map // CfgRecipe → []byte (1148 / 1144 bytes)

// CfgBytes is the packed CallConfig of a recipe (nil for Null), in the
// legacy layout for a legacy simpler_init; shared: never write them.
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
	flag := func(on bool) int32 { return map[bool]int32{true: 1}[on] }
	c.EnableDepGen, c.EnablePMU, c.EnableDumpArgs = flag(r.DepGen), flag(r.PMU), flag(r.Dump)
	c.EnableScopeStats, c.CaptureClockAnchors = flag(r.Scope), flag(r.Anchors)
	rs := r.Ring.set()
	c.RingTaskWindow[rs.ring], c.RingHeap[rs.ring], c.RingDepPool[rs.ring] = rs.window, rs.heap, rs.depPool
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

// ringSets is the ring each recipe fills, with its task window, heap and
// dep pool (0: unset).
var ringSets = [NumRings]ringSet{
	RingGood: {0, 16, 4096, 64}, RingBadTask: {0, 3, 0, 0}, RingBadHeap: {0, 0, 100, 0}, RingBadDep: {0, 0, 0, 2},
	RingBadPow2: {0, 12, 4096, 64}, RingBigDep: {0, 16, 4096, 1 << 31}, RingBadHeap3: {3, 0, 100, 0},
	RingWinOnly: {0, 16, 0, 0}, RingBadHeap1: {1, 0, 1000, 0}, RingBadDep2: {2, 0, 0, 2}, RingGood3: {3, 1024, 4096, 64},
}

type ringSet struct {
	ring                  int
	window, heap, depPool uint64
}

func (r RingRecipe) set() (rs ringSet) {
	if r < NumRings {
		rs = ringSets[r]
	}
	return rs
}

// Bad reports whether a ring recipe breaks a ring rule (V-CFG.6 to V-CFG.9).
func (r RingRecipe) Bad() bool { rs := r.set(); return !ringOK(rs.window, rs.heap, rs.depPool) }

// traceCfg reads a CFG into a recipe with the same V-CFG verdict.
func traceCfg(v tracevocab.Value, legacy bool) (CfgRecipe, error) {
	if !v.Is("raw") {
		return CfgRecipe{Null: true}, nil
	}
	return cfgRecipeOf(hexBytes(v, 0), legacy)
}

// cfgRecipeOf is the recipe whose V-CFG verdict is that of the recorded
// CallConfig b: each field mapped into the recipe's range by its class.
func cfgRecipeOf(b []byte, legacy bool) (CfgRecipe, error) {
	if legacy && len(b) == abi.LegacyCallConfigSize {
		// No capture_clock_anchors: every later field 4 bytes earlier.
		full := make([]byte, abi.CallConfigSize)
		copy(full, b[:abi.CfgCaptureClockAnchorsOff])
		copy(full[abi.CfgRingTaskWindowOff:], b[abi.CfgCaptureClockAnchorsOff:])
		b = full
	}
	c, err := abi.DecodeCallConfig(b)
	if err != nil {
		return CfgRecipe{}, err
	}
	r := CfgRecipe{DepGen: c.EnableDepGen != 0, PMU: c.EnablePMU != 0, Dump: c.EnableDumpArgs != 0,
		Scope: c.EnableScopeStats != 0, Anchors: c.CaptureClockAnchors != 0, Threads: 1, Swim: 5}
	if t := c.AicpuThreadNum; t == 0 || (t >= 2 && t <= 4) {
		r.Threads = int8(t)
	}
	if s := c.EnableChipSwimlane; s >= 0 && s <= 4 {
		r.Swim = int8(s)
	}
	if i := strings.IndexByte(string(c.OutputPrefix[:]), 0); i < 0 {
		r.Unterm = true
	} else if i > 0 {
		r.Prefix = true
	}
	any, bad := false, false
	for i := range c.RingTaskWindow {
		w, h, d := c.RingTaskWindow[i], c.RingHeap[i], c.RingDepPool[i]
		if w != 0 || h != 0 || d != 0 {
			any = true
			bad = bad || !ringOK(w, h, d)
		}
	}
	switch {
	case bad:
		r.Ring = RingBadTask
	case any:
		r.Ring = RingGood
	}
	return r, nil
}

// ringOK is V-CFG's rule for one ring, restated from docs/contract.md (zero
// means unset and passes): task window a power of two in [4, 2^30], heap >=
// 1024, dep pool in [4, 2^31-1].
func ringOK(taskWindow, heap, depPool uint64) bool {
	return (taskWindow == 0 || taskWindow >= 4 && taskWindow <= 1<<30 && taskWindow&(taskWindow-1) == 0) &&
		(heap == 0 || heap >= 1024) && (depPool == 0 || depPool >= 4 && depPool <= 1<<31-1)
}
