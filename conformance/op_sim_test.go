package conformance_test

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim"
)

// TestArgsHostLastReachesTheRuntime_ELAUNCH: args hostlast puts the last of
// the first tensor_count tensors in HOST space (not only tensor 0, which
// host covers), and a launch refuses it: INVALID_ARGUMENT where the same
// args in DEVICE space launch with 0, and the model predicts both.
func TestArgsHostLastReachesTheRuntime_ELAUNCH(t *testing.T) {
	ops := op.MustParseScript(`setdev 0
create c0
kinit c0 dev=0 gen=1
prepare c0 img=valid(t=2,s=1)
launch c0 id=0 args=exact(t=2,s=1,hostlast) stream=s0
launch c0 id=0 args=match(hostlast) stream=s0
launch c0 id=0 args=exact(t=2,s=1) stream=s0
`)
	h, findings := conformance.Run(target.SimTarget(sim.TMR), ops)
	want := []abi.Status{abi.InvalidArgument, abi.InvalidArgument, abi.OK}
	for i, st := range want {
		e := h.Entries[4+i]
		if e.Obs.Call.Status != st || e.Obs.Call.ArgHost != (st == abi.InvalidArgument) {
			t.Errorf("%s returned %v (args outside DEVICE: %v), want %v", e.Op, e.Obs.Call.Status, e.Obs.Call.ArgHost, st)
		}
	}
	for _, f := range findings {
		if f.Verdict == model.Fail {
			t.Errorf("finding %v", f)
		}
	}
}
