package conformance

import (
	"testing"
)

// TestShrinkSynthetic shrinks with a synthetic predicate: the sequence
// "fails" when a setdev 3 comes before a prepare on c1 whose image has at
// least one tensor. The shrinker must find exactly those two ops, with the
// image simplified to the smallest recipe that still fails.
func TestShrinkSynthetic(t *testing.T) {
	ops := Generate(GenOptions{Seed: 3, Ops: 300, Caps: ^Caps(0)})
	bad := []Op{MustParse("setdev 3"), MustParse("prepare c1 img=valid(t=3,s=2,c=2,b=77,x=9)+mis(2) rep=40")}
	ops = append(ops[:100], append([]Op{bad[0]}, append(ops[100:200], append([]Op{bad[1]}, ops[200:]...)...)...)...)
	calls := 0
	fails := func(seq []Op) bool {
		calls++
		seen := false
		for _, op := range seq {
			if op.Kind == KindSetDev && op.Dev == 3 {
				seen = true
			}
			if seen && op.Kind == KindPrepare && op.C == 1 && op.Img.T >= 1 {
				return true
			}
		}
		return false
	}
	got := Shrink(ops, fails)
	if !fails(got) {
		t.Fatal("the shrunk sequence does not fail")
	}
	want := []Op{MustParse("setdev 3"), MustParse("prepare c1 img=valid(t=3)")}
	if len(got) != 2 || got[0] != want[0] || got[1].Kind != KindPrepare || got[1].Img.S != 0 || got[1].Img.Mis != 0 || got[1].Rep != 0 || got[1].Img.C != 0 {
		t.Fatalf("shrunk to\n%s\nwant\n%s", FormatOps(got), FormatOps(want))
	}
	if calls > 2000 {
		t.Fatalf("shrinking took %d predicate calls", calls)
	}
}

// TestShrinkKeepsFailing: a predicate that needs the whole sequence leaves
// it whole.
func TestShrinkKeepsFailing(t *testing.T) {
	ops := MustParseScript("create c0\nsetdev 0\nkinit c0 dev=0 gen=1\n")
	got := Shrink(ops, func(seq []Op) bool { return len(seq) == 3 && seq[2].Gen == 1 })
	if FormatOps(got) != FormatOps(ops) {
		t.Fatalf("got\n%s", FormatOps(got))
	}
}
