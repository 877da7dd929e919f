package conformance_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim"
)

// M-5, E-PREP.6: near a full budget a probe's prepare fills what is left
// exactly. After the failed prepare (site 2) of m-5/failed-prepare-keeps-
// tail the last block has a 1 MiB tail and no budget is left: the probe's
// image is charged exactly that tail (binary 1 MiB - 9376 bytes), so a
// runtime that kept the failed prepare's place refuses it with BYTES. After
// the tail is filled, nothing fits and the probe falls back to its small
// image. Every probe passes on sim.
func TestProbeFillsTheBudgetExactly_M5(t *testing.T) {
	c := catalogueCheck(t, "m-5/failed-prepare-keeps-tail")
	caps := conformance.CapsOf(target.SimTarget(sim.TMR))
	var got []string
	for _, pc := range conformance.ProbeCases(c, model.ProfileTMR, caps) {
		for _, o := range pc.Ops[pc.At+1:] {
			if o.Kind == op.KindPrepare {
				got = append(got, op.FormatOps([]op.Op{pc.Refused})+"  then  "+op.FormatOps([]op.Op{o}))
			}
		}
		h, fs := conformance.Run(target.SimTarget(sim.TMR), pc.Ops)
		if f := failures(fs); len(f) > 0 {
			t.Errorf("%s on sim: %v\n%s", pc.Name, f, h)
		}
	}
	want := []string{
		"prepare c0 img=valid(b=1039200)\n  then  prepare c0 img=valid(b=1039200,x=99)\n",
		"prepare c0 img=valid()\n  then  prepare c0 img=valid(x=99)\n",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("probe prepares (-want +got):\n%s", diff)
	}
}
