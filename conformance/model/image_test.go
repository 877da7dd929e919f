package model

import (
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/validation"
	"pgregory.net/rapid"
)

// TestImageRecipesV_IMG: a canonical recipe passes the model's V-IMG with the
// counts of its signature; each named defect fails it (V-IMG).
func TestImageRecipesV_IMG(t *testing.T) {
	for _, r := range []ImageRecipe{{}, {T: 2, S: 1}, {T: 3, C: 3, B: 100}, {S: 128, T: 128}, {C: 1024}, {B: 1 << 20, X: 4}, {NoSC: true, S: 2}} {
		f := factsOf(r)
		if !f.valid || f.t != int32(r.T) || f.s != int32(r.S) {
			t.Errorf("%v: valid=%v counts (%d,%d), want valid with (%d,%d): %s", r, f.valid, f.t, f.s, r.T, r.S, f.defect)
		}
		if f.charge != abi.KernelCharge(f.size) {
			t.Errorf("%v: charge %d, want %d", r, f.charge, abi.KernelCharge(f.size))
		}
	}
	for d := op.DefSigCount; d < op.NumDefects; d++ {
		for _, base := range []ImageRecipe{{}, {T: 1, S: 1, C: 2, B: 33}} {
			r := base
			r.Defect = d
			f := factsOf(r)
			if f.valid {
				t.Errorf("%v: the model's V-IMG accepts it", r)
			}
			if got := f.lenient; got != (d == op.DefScalarCount) {
				t.Errorf("%v: lenient (stored scalar_count ignored) = %v", r, got)
			}
		}
	}
	for _, r := range []ImageRecipe{{Long: 1}, {Long: 64, C: 2}, {Short: 1, C: 1}, {Short: 5, B: 10}} {
		if factsOf(r).valid {
			t.Errorf("%v: a span that does not end at the last piece passes V-IMG", r)
		}
	}
}

// TestCheckImageAgreesWithValidation cross-checks the model's V-IMG (written
// from docs/contract.md) with the project's validation.CheckImageAt on mutated
// images. A disagreement is a bug in one of them (V-IMG).
func TestCheckImageAgreesWithValidation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := ImageRecipe{
			T: uint16(rapid.IntRange(0, 4).Draw(t, "t")),
			S: uint16(rapid.IntRange(0, 3).Draw(t, "s")),
			C: uint16(rapid.IntRange(0, 3).Draw(t, "c")),
			B: uint32(rapid.IntRange(0, 130).Draw(t, "b")),
		}
		img := append([]byte(nil), op.ImageOf(r).Bytes...)
		for n := rapid.IntRange(0, 3).Draw(t, "pokes"); n > 0; n-- {
			switch rapid.IntRange(0, 2).Draw(t, "kind") {
			case 0:
				off := rapid.IntRange(0, len(img)-1).Draw(t, "off")
				img[off] = rapid.Byte().Draw(t, "val")
			case 1:
				fields := []int{offSigCount, offBinarySize, offFuncLen, offCfgLen, offChildCount, offScalarCnt,
					offChildIDs, offChildIDs + 4, offChildOffs, offChildOffs + 4, 0, 4}
				off := rapid.SampledFrom(fields).Draw(t, "field")
				le.PutUint32(img[off:], uint32(rapid.IntRange(-2, 300).Draw(t, "v")))
			case 2:
				cut := rapid.IntRange(0, min(200, len(img)-headerSize)).Draw(t, "cut")
				img = img[:len(img)-cut]
			}
		}
		ok, _, _, why := checkImage(img, false)
		want := validation.Image(img) == abi.OK
		if ok != want {
			t.Fatalf("model V-IMG says %v (%s), validation says %v (%v)", ok, why, want, validation.CheckImageAt(0, img))
		}
		// Each V-IMG clause alone (Refusers): none for a valid image, else
		// the first in V-IMG's order is in the step validation stops at.
		ks := imgSpan{b: img, size: uint64(len(img))}.clauses()
		if ok != (len(ks) == 0) {
			t.Fatalf("model V-IMG says %v (%s), the clauses alone are %v", ok, why, ks)
		}
		if rep := validation.CheckImageAt(0, img); !ok && int(rep.Defect.Step()) != imgClauseStep(ks[0]) {
			t.Fatalf("validation stops at step %d (%v), the first clause alone is V-IMG.%d (%v)", rep.Defect.Step(), rep, ks[0], ks)
		}
	})
}

// TestCheckCfgAgreesWithValidation cross-checks the model's V-CFG with
// validation.CheckCallConfig over every recipe flag combination (V-CFG).
func TestCheckCfgAgreesWithValidation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCfg(t, "cfg", false)
		for _, kernel := range []bool{true, false} {
			mine := checkCfg(c, kernel)
			_, theirs := validation.CheckCallConfig(op.CfgBytes(c, false), kernel)
			if mine.st != theirs {
				t.Fatalf("%v (kernel=%v): model V-CFG %v (%s), validation %v", c, kernel, mine.st, mine.what, theirs)
			}
		}
	})
}

func TestContractCheck(t *testing.T) {
	b := make([]byte, abi.PipelineContractSize)
	if err := abi.SimulatedProgramContract().Encode(b); err != nil {
		t.Fatal(err)
	}
	if why := ContractDefect(b); why != "" {
		t.Fatalf("the simulated program contract is inadmissible to the model: %s (V-CONTRACT)", why)
	}
	le.PutUint32(b[0:], 2)
	if ContractDefect(b) == "" {
		t.Fatal("abi_version 2 accepted (V-CONTRACT)")
	}
	if ContractDefect(nil) == "" {
		t.Fatal("a NULL contract accepted (V-CONTRACT)")
	}
}

// genCfg draws a CallConfig recipe over every flag (and NULL when allowed).
func genCfg(t *rapid.T, label string, allowNull bool) CfgRecipe {
	if allowNull && rapid.IntRange(0, 9).Draw(t, label+".null") == 0 {
		return CfgRecipe{Null: true}
	}
	c := CfgRecipe{
		Threads: rapid.Int8().Draw(t, label+".threads"),
		Swim:    rapid.Int8().Draw(t, label+".swim"),
		DepGen:  rapid.Bool().Draw(t, label+".depgen"),
		PMU:     rapid.Bool().Draw(t, label+".pmu"),
		Dump:    rapid.Bool().Draw(t, label+".dump"),
		Scope:   rapid.Bool().Draw(t, label+".scope"),
		Anchors: rapid.Bool().Draw(t, label+".anchors"),
		Ring:    op.RingRecipe(rapid.IntRange(0, int(op.NumRings)-1).Draw(t, label+".ring")),
	}
	switch rapid.IntRange(0, 2).Draw(t, label+".prefix") {
	case 1:
		c.Prefix = true
	case 2:
		c.Unterm = true
	}
	return c
}

// imgClauseStep is the V-IMG step of clause k (docs/contract.md).
func imgClauseStep(k int) int {
	switch {
	case k <= 2:
		return 1
	case k <= 7:
		return 2
	case k <= 10:
		return 3
	case k <= 12:
		return 4
	case k <= 18:
		return 5
	}
	return 6
}
