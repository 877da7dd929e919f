package conformance

import (
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/op"

	"testing"
)

// TestShrinkSynthetic shrinks with a synthetic predicate: the sequence
// "fails" when a setdev 3 comes before a prepare on c1 whose image has at
// least one tensor. The shrinker must find exactly those two ops, with the
// image simplified to the smallest recipe that still fails.
func TestShrinkSynthetic(t *testing.T) {
	ops := Generate(GenOptions{Seed: 3, Ops: 300, Caps: ^catalogue.Caps(0)})
	bad := []op.Op{op.MustParse("setdev 3"), op.MustParse("prepare c1 img=valid(t=3,s=2,c=2,b=77,x=9)+mis(2) rep=40")}
	ops = append(ops[:100], append([]op.Op{bad[0]}, append(ops[100:200], append([]op.Op{bad[1]}, ops[200:]...)...)...)...)
	calls := 0
	fails := func(seq []op.Op) bool {
		calls++
		seen := false
		for _, o := range seq {
			if o.Kind == op.KindSetDev && o.Dev == 3 {
				seen = true
			}
			if seen && o.Kind == op.KindPrepare && o.C == 1 && o.Img.T >= 1 {
				return true
			}
		}
		return false
	}
	got := Shrink(ops, fails)
	if !fails(got) {
		t.Fatal("the shrunk sequence does not fail")
	}
	want := []op.Op{op.MustParse("setdev 3"), op.MustParse("prepare c1 img=valid(t=3)")}
	if len(got) != 2 || got[0] != want[0] || got[1].Kind != op.KindPrepare || got[1].Img.S != 0 || got[1].Img.Mis != 0 || got[1].Rep != 0 || got[1].Img.C != 0 {
		t.Fatalf("shrunk to\n%s\nwant\n%s", op.FormatOps(got), op.FormatOps(want))
	}
	if calls > 2000 {
		t.Fatalf("shrinking took %d predicate calls", calls)
	}
}

// TestShrinkKeepsFailing: a predicate that needs the whole sequence leaves
// it whole.
func TestShrinkKeepsFailing(t *testing.T) {
	ops := op.MustParseScript("create c0\nsetdev 0\nkinit c0 dev=0 gen=1\n")
	got := Shrink(ops, func(seq []op.Op) bool { return len(seq) == 3 && seq[2].Gen == 1 })
	if op.FormatOps(got) != op.FormatOps(ops) {
		t.Fatalf("got\n%s", op.FormatOps(got))
	}
}
