package conformance_test

import (
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"pgregory.net/rapid"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim"
)

// Owned and shared states judge alike (every rule a generated sequence
// reaches: the findings of S-*, V-*, L-*, K-*, E-*, M-*, D-* call by call): a sequence stepped in place and the
// same sequence stepped through shared states (each step a copy) end in
// equal models and add the same findings call by call.
func TestStateOwnedAndSharedAgree(t *testing.T) {
	caps := conformance.CapsOf(target.SimTarget(sim.TMR))
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		ops := conformance.Generate(conformance.GenOptions{Seed: seed, Ops: 60, Caps: caps, Profile: model.ProfileTMR})
		calls := expectedCalls(ops, caps)
		o := model.ModelOptions{DrivenCompletion: caps.Has(catalogue.CapDriven), DeviceKnown: true, Device: -1, Simulated: true}
		owned, shared := model.NewState(o), model.NewState(o).Share()
		for k := range calls {
			c := &calls[k]
			// A wrong status now and then, so findings and resyncs occur.
			obs := c.obs
			if rapid.IntRange(0, 9).Draw(rt, "wrong") == 0 {
				obs.Call.Status = -1
			}
			o1, o2 := obs, obs
			var f1, f2 []model.Finding
			owned, f1 = model.Step(owned, c.i, c.rep, c.op, &o1)
			shared, f2 = model.Step(shared, c.i, c.rep, c.op, &o2)
			if d := cmp.Diff(f1, f2, cmp.Comparer(func(a, b op.Op) bool { return a == b })); d != "" {
				rt.Fatalf("call %d (%s): findings differ (-owned +shared):\n%s", k, c.op, d)
			}
		}
		a, b := owned.Model(), shared.Model()
		if !reflect.DeepEqual(modelView(a), modelView(b)) {
			rt.Fatalf("owned and shared steps end in different models:\n%+v\n%+v", modelView(a), modelView(b))
		}
	})
}

// modelView is everything the model shows of itself.
func modelView(m *model.Model) []any {
	lost, why := m.Lost()
	dev, known := m.Device()
	v := []any{m.Findings(), m.Tally(), m.Checked(), lost, why, dev, known, m.Generic(), m.RunClauses(), m.Divergences()}
	for s := int8(0); s < op.MaxSlots; s++ {
		c, held := m.Context(s)
		v = append(v, c, held, m.Registered(s))
	}
	for st := int8(0); st < op.MaxStorages; st++ {
		state, slot := m.Storage(st)
		v = append(v, state, slot)
	}
	for a := int8(0); a < op.MaxAllocs; a++ {
		al, held := m.Allocation(a)
		v = append(v, al, held)
	}
	return v
}
