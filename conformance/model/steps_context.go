package model

import "github.com/simabi/simabi/abi"

func init() {
	defineStep(KindCreate, stepDef{
		step: func(m *Model, op Op, _ *mctx, obs *Observation) func() {
			m.create(op)
			c := m.ctxs[op.C]
			if obs != nil && !obs.HandleCreated && obs.Call.Value == 0 {
				// No context to call: the ops on the slot are not run (L-1
				// reports the NULL).
				return func() { c.live = false }
			}
			return nil
		},
		liveness: func(m *Model, op Op) { m.ctxs[op.C] = newMctx() },
		resync:   resyncNothing,
	})
	defineStep(KindDestroy, stepDef{
		step: func(m *Model, _ Op, c *mctx, _ *Observation) func() { m.destroy(c); return nil },
		liveness: func(m *Model, op Op) {
			if c := m.ctx(op.C); c != nil {
				c.live = false // unknown whether it was freed: never call it again
			}
		},
		resync: resyncNothing,
	})
	defineStep(KindSupported, stepDef{
		step:   func(m *Model, _ Op, c *mctx, _ *Observation) func() { m.supported(c); return nil },
		resync: resyncNothing,
	})
	defineStep(KindFinalize, stepDef{
		step: func(m *Model, _ Op, c *mctx, _ *Observation) func() {
			if m.opt.Profile == ProfileLegacy {
				m.finalizeLegacy(c)
			} else {
				m.finalize(c)
			}
			return nil
		},
		resync: func(m *Model, _ Op, c *mctx, _ abi.Status) {
			if c == nil {
				return
			}
			if c.latch != LatchKernel {
				m.devKnown = false // a program finalize resets the device
			}
			m.forget(c)
		},
	})
	defineStep(KindCommitted, stepDef{
		step:   func(m *Model, _ Op, c *mctx, _ *Observation) func() { m.committed(c); return nil },
		resync: resyncNothing,
	})
}
