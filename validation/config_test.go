package validation_test

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/validation"
)

const unsup = abi.Unsupported

// refCallConfig is V-CFG written again from docs/contract.md over a decoded
// CallConfig, as the oracle of the table and fuzz tests. kernel selects the
// kernel-only UNSUPPORTED step (ProgramCallConfig skips it).
func refCallConfig(c abi.CallConfig, kernel bool) abi.Status {
	if t := c.AicpuThreadNum; t != 0 && (t < 2 || t > 4) {
		return ia
	}
	if kernel && (c.EnableDumpArgs != 0 || c.EnablePMU != 0 || c.EnableScopeStats != 0 || c.CaptureClockAnchors != 0) {
		return unsup
	}
	if c.EnableChipSwimlane < 0 || c.EnableChipSwimlane > 4 {
		return ia
	}
	if (c.EnableChipSwimlane != 0 || c.EnableDepGen != 0) && c.OutputPrefix[0] == 0 {
		return ia
	}
	if bytes.IndexByte(c.OutputPrefix[:], 0) < 0 {
		return ia
	}
	for r := range 4 {
		tw, heap, dep := c.RingTaskWindow[r], c.RingHeap[r], c.RingDepPool[r]
		if tw != 0 {
			pow2 := false
			for p := uint64(4); p <= 1<<31-1; p <<= 1 {
				if tw == p {
					pow2 = true
				}
			}
			if !pow2 {
				return ia
			}
		}
		if heap != 0 && heap < 1024 {
			return ia
		}
		if dep != 0 && (dep < 4 || dep > 1<<31-1) {
			return ia
		}
	}
	return ok
}

type cfgCase struct {
	name            string
	cfg             func() []byte
	kernel, program abi.Status
	defect          validation.CallConfigDefect // kernel-mode defect
}

func cfgOf(mod func(*abi.CallConfig)) func() []byte {
	return func() []byte {
		var c abi.CallConfig
		mod(&c)
		return c.Bytes()
	}
}

func withPrefix(mod func(*abi.CallConfig)) func() []byte {
	return cfgOf(func(c *abi.CallConfig) {
		_ = c.SetOutputPrefix("/tmp/simabi")
		mod(c)
	})
}

func unterminated(mod func(*abi.CallConfig)) func() []byte {
	return cfgOf(func(c *abi.CallConfig) {
		for i := range c.OutputPrefix {
			c.OutputPrefix[i] = 'p'
		}
		mod(c)
	})
}

// V-CFG, kernel and program (E-PINIT: V-CFG minus UNSUPPORTED), boundary by
// boundary, in rule order.
func TestVCFG(t *testing.T) {
	none := func(*abi.CallConfig) {}
	cases := []cfgCase{
		{"zero config", cfgOf(none), ok, ok, validation.CfgOK},
		// 1. threads: 0 (auto) or [2, 4].
		{"threads 0", cfgOf(func(c *abi.CallConfig) { c.AicpuThreadNum = 0 }), ok, ok, validation.CfgOK},
		{"threads 1", cfgOf(func(c *abi.CallConfig) { c.AicpuThreadNum = 1 }), ia, ia, validation.CfgThreads},
		{"threads 2", cfgOf(func(c *abi.CallConfig) { c.AicpuThreadNum = 2 }), ok, ok, validation.CfgOK},
		{"threads 3", cfgOf(func(c *abi.CallConfig) { c.AicpuThreadNum = 3 }), ok, ok, validation.CfgOK},
		{"threads 4", cfgOf(func(c *abi.CallConfig) { c.AicpuThreadNum = 4 }), ok, ok, validation.CfgOK},
		{"threads 5 (a5 value, simulated builds are a2a3)", cfgOf(func(c *abi.CallConfig) { c.AicpuThreadNum = 5 }), ia, ia, validation.CfgThreads},
		{"threads 6", cfgOf(func(c *abi.CallConfig) { c.AicpuThreadNum = 6 }), ia, ia, validation.CfgThreads},
		{"threads -1", cfgOf(func(c *abi.CallConfig) { c.AicpuThreadNum = -1 }), ia, ia, validation.CfgThreads},
		{"threads min", cfgOf(func(c *abi.CallConfig) { c.AicpuThreadNum = math.MinInt32 }), ia, ia, validation.CfgThreads},
		// 2. kernel-only diagnostics.
		{"dump_args", cfgOf(func(c *abi.CallConfig) { c.EnableDumpArgs = 1 }), unsup, ok, validation.CfgUnsupportedDiagnostic},
		{"pmu", cfgOf(func(c *abi.CallConfig) { c.EnablePMU = 1 }), unsup, ok, validation.CfgUnsupportedDiagnostic},
		{"pmu -1", cfgOf(func(c *abi.CallConfig) { c.EnablePMU = -1 }), unsup, ok, validation.CfgUnsupportedDiagnostic},
		{"scope_stats", cfgOf(func(c *abi.CallConfig) { c.EnableScopeStats = 1 }), unsup, ok, validation.CfgUnsupportedDiagnostic},
		{"capture_clock_anchors", cfgOf(func(c *abi.CallConfig) { c.CaptureClockAnchors = 1 }), unsup, ok, validation.CfgUnsupportedDiagnostic},
		{"capture_clock_anchors min", cfgOf(func(c *abi.CallConfig) { c.CaptureClockAnchors = math.MinInt32 }), unsup, ok, validation.CfgUnsupportedDiagnostic},
		// 3. swimlane level.
		{"swimlane -1", withPrefix(func(c *abi.CallConfig) { c.EnableChipSwimlane = -1 }), ia, ia, validation.CfgSwimlaneLevel},
		{"swimlane 0", withPrefix(func(c *abi.CallConfig) { c.EnableChipSwimlane = 0 }), ok, ok, validation.CfgOK},
		{"swimlane 1", withPrefix(func(c *abi.CallConfig) { c.EnableChipSwimlane = 1 }), ok, ok, validation.CfgOK},
		{"swimlane 4", withPrefix(func(c *abi.CallConfig) { c.EnableChipSwimlane = 4 }), ok, ok, validation.CfgOK},
		{"swimlane 5", withPrefix(func(c *abi.CallConfig) { c.EnableChipSwimlane = 5 }), ia, ia, validation.CfgSwimlaneLevel},
		// 4. diagnostics need a prefix.
		{"swimlane 1 without prefix", cfgOf(func(c *abi.CallConfig) { c.EnableChipSwimlane = 1 }), ia, ia, validation.CfgPrefixMissing},
		{"swimlane 4 without prefix", cfgOf(func(c *abi.CallConfig) { c.EnableChipSwimlane = 4 }), ia, ia, validation.CfgPrefixMissing},
		{"dep_gen without prefix", cfgOf(func(c *abi.CallConfig) { c.EnableDepGen = 1 }), ia, ia, validation.CfgPrefixMissing},
		{"dep_gen -1 without prefix", cfgOf(func(c *abi.CallConfig) { c.EnableDepGen = -1 }), ia, ia, validation.CfgPrefixMissing},
		{"dep_gen with prefix", withPrefix(func(c *abi.CallConfig) { c.EnableDepGen = 1 }), ok, ok, validation.CfgOK},
		{"empty prefix with later bytes set", cfgOf(func(c *abi.CallConfig) { c.EnableDepGen = 1; c.OutputPrefix[1] = 'x' }), ia, ia, validation.CfgPrefixMissing},
		{"prefix without diagnostics", withPrefix(none), ok, ok, validation.CfgOK},
		{"pmu without prefix in program mode", cfgOf(func(c *abi.CallConfig) { c.EnablePMU = 3 }), unsup, ok, validation.CfgUnsupportedDiagnostic},
		// 5. the prefix needs a NUL, diagnostics or not.
		{"prefix without NUL", unterminated(none), ia, ia, validation.CfgPrefixUnterminated},
		{"prefix without NUL, swimlane on", unterminated(func(c *abi.CallConfig) { c.EnableChipSwimlane = 2 }), ia, ia, validation.CfgPrefixUnterminated},
		{"prefix of 1023 bytes", cfgOf(func(c *abi.CallConfig) {
			for i := range 1023 {
				c.OutputPrefix[i] = 'p'
			}
		}), ok, ok, validation.CfgOK},
		{"prefix with NUL only at 1023", unterminated(func(c *abi.CallConfig) { c.OutputPrefix[1023] = 0 }), ok, ok, validation.CfgOK},
		// First failure wins.
		{"threads 5 + pmu: threads first", cfgOf(func(c *abi.CallConfig) { c.AicpuThreadNum = 5; c.EnablePMU = 1 }), ia, ia, validation.CfgThreads},
		{"pmu + swimlane 5: UNSUPPORTED first", cfgOf(func(c *abi.CallConfig) { c.EnablePMU = 1; c.EnableChipSwimlane = 5 }), unsup, ia, validation.CfgUnsupportedDiagnostic},
		{"pmu + dep_gen without prefix", cfgOf(func(c *abi.CallConfig) { c.EnablePMU = 1; c.EnableDepGen = 1 }), unsup, ia, validation.CfgUnsupportedDiagnostic},
		{"dump_args + prefix without NUL", unterminated(func(c *abi.CallConfig) { c.EnableDumpArgs = 1 }), unsup, ia, validation.CfgUnsupportedDiagnostic},
		{"scope_stats + bad ring", cfgOf(func(c *abi.CallConfig) { c.EnableScopeStats = 1; c.RingHeap[0] = 1 }), unsup, ia, validation.CfgUnsupportedDiagnostic},
		{"swimlane 5 + prefix without NUL", unterminated(func(c *abi.CallConfig) { c.EnableChipSwimlane = 5 }), ia, ia, validation.CfgSwimlaneLevel},
		{"swimlane without prefix + bad ring", cfgOf(func(c *abi.CallConfig) { c.EnableChipSwimlane = 1; c.RingTaskWindow[0] = 3 }), ia, ia, validation.CfgPrefixMissing},
		{"prefix without NUL + bad ring", unterminated(func(c *abi.CallConfig) { c.RingDepPool[3] = 1 }), ia, ia, validation.CfgPrefixUnterminated},
	}
	// 6. ring sizing, each boundary in each of the four rings.
	type ringCase struct {
		field string
		val   uint64
		want  abi.Status
	}
	rings := []ringCase{
		{"task_window", 1, ia}, {"task_window", 2, ia}, {"task_window", 3, ia}, {"task_window", 4, ok}, {"task_window", 6, ia},
		{"task_window", 8, ok}, {"task_window", 1 << 30, ok}, {"task_window", 1<<31 - 1, ia}, {"task_window", 1 << 31, ia},
		{"task_window", 1 << 32, ia}, {"task_window", 1 << 63, ia}, {"task_window", math.MaxUint64, ia},
		{"heap", 1, ia}, {"heap", 1023, ia}, {"heap", 1024, ok}, {"heap", 1025, ok}, {"heap", math.MaxUint64, ok},
		{"dep_pool", 1, ia}, {"dep_pool", 3, ia}, {"dep_pool", 4, ok}, {"dep_pool", 5, ok}, {"dep_pool", 1<<31 - 1, ok},
		{"dep_pool", 1 << 31, ia}, {"dep_pool", math.MaxUint64, ia},
	}
	for r := range 4 {
		for _, rc := range rings {
			d := validation.CfgOK
			if rc.want != ok {
				d = validation.CfgRing
			}
			cases = append(cases, cfgCase{fmt.Sprintf("ring %d %s %d", r, rc.field, rc.val), cfgOf(func(c *abi.CallConfig) {
				switch rc.field {
				case "task_window":
					c.RingTaskWindow[r] = rc.val
				case "heap":
					c.RingHeap[r] = rc.val
				default:
					c.RingDepPool[r] = rc.val
				}
			}), rc.want, rc.want, d})
		}
	}
	cases = append(cases, cfgCase{"all rings set and valid", cfgOf(func(c *abi.CallConfig) {
		for r := range 4 {
			c.RingTaskWindow[r], c.RingHeap[r], c.RingDepPool[r] = 1<<(r+2), 1024<<r, 4+uint64(r)
		}
	}), ok, ok, validation.CfgOK})

	for _, c := range cases {
		t.Run("V-CFG "+c.name, func(t *testing.T) {
			b := c.cfg()
			if got := validation.KernelCallConfig(b); got != c.kernel {
				t.Errorf("KernelCallConfig = %v, want %v", got, c.kernel)
			}
			if got := validation.ProgramCallConfig(b); got != c.program {
				t.Errorf("ProgramCallConfig = %v, want %v", got, c.program)
			}
			if d, st := validation.CheckCallConfig(b, true); d != c.defect || st != c.kernel {
				t.Errorf("CheckCallConfig(kernel) = %v (%d), %v; want %v (%d)", d, d, st, c.defect, c.defect)
			}
			dec, err := abi.DecodeCallConfig(b)
			if err != nil {
				t.Fatal(err)
			}
			if refCallConfig(dec, true) != c.kernel || refCallConfig(dec, false) != c.program {
				t.Errorf("test oracle disagrees with the table: %v %v", refCallConfig(dec, true), refCallConfig(dec, false))
			}
			// Bytes past 1148 are not part of the config.
			long := append(append([]byte(nil), b...), bytes.Repeat([]byte{0xFF}, 64)...)
			if validation.KernelCallConfig(long) != c.kernel || validation.ProgramCallConfig(long) != c.program {
				t.Error("trailing bytes after 1148 changed the verdict")
			}
		})
	}
}

func TestVCFGShortConfig(t *testing.T) {
	for _, n := range []int{0, 1, 124, 1147} {
		b := make([]byte, n)
		if validation.KernelCallConfig(b) != ia || validation.ProgramCallConfig(b) != ia {
			t.Errorf("V-CFG %d-byte config accepted", n)
		}
		if d, _ := validation.CheckCallConfig(b, true); d != validation.CfgShort {
			t.Errorf("defect %v, want CfgShort", d)
		}
	}
	if validation.KernelCallConfig(nil) != ia {
		t.Error("nil config accepted")
	}
}

func TestRingOK(t *testing.T) {
	cases := []struct {
		tw, heap, dep uint64
		want          bool
	}{
		{0, 0, 0, true}, {4, 1024, 4, true}, {1 << 30, 0, 1<<31 - 1, true},
		{3, 0, 0, false}, {0, 1023, 0, false}, {0, 0, 3, false}, {1 << 31, 0, 0, false}, {0, 0, 1 << 31, false},
	}
	for _, c := range cases {
		if got := validation.RingOK(c.tw, c.heap, c.dep); got != c.want {
			t.Errorf("RingOK(%d, %d, %d) = %v", c.tw, c.heap, c.dep, got)
		}
	}
	if validation.RingMin != 4 || validation.RingMax != 1<<31-1 || validation.RingMinHeap != 1024 {
		t.Error("ring bounds differ from docs/contract.md V-CFG")
	}
}

// Random configs, biased to the interesting values: the verdicts agree with
// the docs/contract.md oracle, ProgramCallConfig never says UNSUPPORTED, and the
// kernel check refuses whatever the program check refuses except where
// UNSUPPORTED comes first.
func TestVCFGMatchesOracle(t *testing.T) {
	small := rapid.SampledFrom([]int32{0, 1, 2, 3, 4, 5, -1, math.MinInt32})
	ring := rapid.SampledFrom([]uint64{0, 1, 3, 4, 6, 1023, 1024, 1 << 30, 1<<31 - 1, 1 << 31, math.MaxUint64})
	rapid.Check(t, func(t *rapid.T) {
		var c abi.CallConfig
		c.AicpuThreadNum = small.Draw(t, "threads")
		c.EnableChipSwimlane = small.Draw(t, "swim")
		c.EnableDepGen = small.Draw(t, "dep")
		for _, p := range []*int32{&c.EnableDumpArgs, &c.EnablePMU, &c.EnableScopeStats, &c.CaptureClockAnchors} {
			if rapid.IntRange(0, 5).Draw(t, "diag") == 0 {
				*p = small.Draw(t, "diagv")
			}
		}
		for r := range 4 {
			c.RingTaskWindow[r], c.RingHeap[r], c.RingDepPool[r] = ring.Draw(t, "tw"), ring.Draw(t, "heap"), ring.Draw(t, "dep")
		}
		switch rapid.IntRange(0, 2).Draw(t, "prefix") {
		case 1:
			_ = c.SetOutputPrefix("out")
		case 2:
			for i := range c.OutputPrefix {
				c.OutputPrefix[i] = 'q'
			}
		}
		b := c.Bytes()
		k, p := validation.KernelCallConfig(b), validation.ProgramCallConfig(b)
		if k != refCallConfig(c, true) || p != refCallConfig(c, false) {
			t.Fatalf("kernel %v (oracle %v), program %v (oracle %v)", k, refCallConfig(c, true), p, refCallConfig(c, false))
		}
		if p == unsup {
			t.Fatal("ProgramCallConfig returned UNSUPPORTED")
		}
		if k != unsup && k != p {
			t.Fatalf("kernel %v vs program %v without an UNSUPPORTED diagnostic", k, p)
		}
	})
}

func TestCallConfigDefectText(t *testing.T) {
	for d := validation.CfgOK; d <= validation.CfgRing; d++ {
		if s := d.String(); s == "" || s == "unknown" {
			t.Errorf("defect %d has no text", d)
		}
	}
	if validation.CallConfigDefect(99).String() != "unknown" {
		t.Error("out-of-range defect text")
	}
}
