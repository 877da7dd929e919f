package model

import (
	"github.com/simabi/simabi/abi"
)

func init() {
	defineStep(KindKInit, stepDef{
		step: func(m *Model, op Op, c *mctx, _ *Observation) func() { m.kinit(op, c); return nil },
		resync: func(m *Model, op Op, c *mctx, st abi.Status) {
			if c == nil {
				return
			}
			if st == abi.OK {
				m.pinKernel(c, op.Dev)
				return
			}
			m.forget(c)
		},
	})
	defineStep(KindPrepare, stepDef{
		step:   func(m *Model, op Op, c *mctx, _ *Observation) func() { m.prepare(op, c, op.Img, false); return nil },
		resync: forgetContext,
	})
	defineStep(KindLaunch, stepDef{
		step:   func(m *Model, op Op, c *mctx, _ *Observation) func() { m.launch(op, c, false); return nil },
		resync: forgetContext,
	})
}
