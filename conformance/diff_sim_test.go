package conformance_test

import (
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/conformance/target/targettest"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// TestDiffSimEmitted runs the same random sequences (and the directed
// catalogue) on sim and on the emitted runtime and requires identical
// histories (F-1: the two simulated runtimes behave call for call alike).
// The two-thread ops stay in: Diff compares their canonical
// lines, which leave the scheduler's choices out (TestDiffTwoThreadOps).
func TestDiffSimEmitted(t *testing.T) {
	a := emittest.Build(t, emit.Config{Profile: emit.ProfileTMR})
	f := targettest.EmittedFactory(t, a)
	var seqs [][]op.Op
	n := 20
	if testing.Short() || raceEnabled {
		n = 4
	}
	for i := 0; i < n; i++ {
		seqs = append(seqs, conformance.Generate(conformance.GenOptions{Seed: uint64(900 + i), Ops: 300, Caps: ^catalogue.Caps(0), HoldMs: 20}))
	}
	for _, c := range catalogue.Checks() {
		// U-1's checks unload the library: sim, Go code, cannot be.
		if !c.Slow && c.AppliesTo(model.ProfileTMR) && !c.Needs.Has(catalogue.CapUnload) {
			seqs = append(seqs, c.Ops())
		}
	}
	for i, ops := range seqs {
		et, release, err := f()
		if err != nil {
			t.Fatal(err)
		}
		d, ra, rb := conformance.RunDiff(target.SimTarget(sim.TMR), et, ops, conformance.Options{})
		release()
		if d != "" {
			t.Errorf("sequence %d: sim and the emitted runtime differ:\n%s", i, d)
		}
		if ra.Failed() || rb.Failed() {
			t.Errorf("sequence %d: findings sim %v, emitted %v", i, ra.Findings, rb.Findings)
		}
	}
}
