package model

import ()

func init() {
	defineStep(KindRegister, stepDef{
		step: func(m *Model, op Op, c *mctx, _ *Observation) func() { m.register(op, c); return nil },
	})
	defineStep(KindUnregister, stepDef{
		step: func(m *Model, op Op, c *mctx, _ *Observation) func() { m.unregister(op, c); return nil },
	})
	defineStep(KindPrepareRun, stepDef{
		step: func(m *Model, op Op, c *mctx, _ *Observation) func() { m.prepareRun(op, c); return nil },
	})
	defineStep(KindRun, stepDef{
		step: func(m *Model, op Op, c *mctx, _ *Observation) func() { m.runWhole(op, c); return nil },
	})
	defineStep(KindLaunchRun, stepDef{
		step: func(m *Model, op Op, c *mctx, _ *Observation) func() { m.launchRun(op, c); return nil },
	})
	defineStep(KindPollRun, stepDef{
		step: func(m *Model, op Op, c *mctx, _ *Observation) func() { m.pollRun(op, c); return nil },
	})
	defineStep(KindWaitRun, stepDef{
		step: func(m *Model, op Op, c *mctx, _ *Observation) func() { m.waitRun(op, c); return nil },
	})
	defineStep(KindFinalizeRun, stepDef{
		step: func(m *Model, op Op, c *mctx, _ *Observation) func() { m.finalizeRun(op, c); return nil },
	})
}
