package model

import "github.com/simabi/simabi/abi"

func init() {
	defineStep(KindPInit, stepDef{
		step: func(m *Model, op Op, c *mctx, _ *Observation) func() {
			if m.opt.Profile == ProfileLegacy {
				m.pinitLegacy(op, c)
			} else {
				m.pinit(op, c)
			}
			return nil
		},
		resync: func(m *Model, op Op, c *mctx, st abi.Status) {
			if c == nil {
				return
			}
			if st == abi.OK {
				m.pinProgram(c, op.Dev)
				return
			}
			// A failing simpler_init may have attached the thread first.
			m.forget(c)
			m.devKnown = false
		},
	})
	defineStep(KindACL, stepDef{
		step: func(m *Model, op Op, c *mctx, _ *Observation) func() {
			if m.opt.Profile == ProfileLegacy {
				m.aclLegacy(op, c)
			} else {
				m.acl(op, c)
			}
			return nil
		},
		resync: func(m *Model, op Op, c *mctx, st abi.Status) {
			if c == nil {
				return
			}
			if st == abi.OK && !c.unknown && c.latch != LatchKernel {
				c.latch = LatchProgram
				m.curDev, m.devKnown = op.Dev, true
				return
			}
			m.forget(c)
			m.devKnown = false
		},
	})
	defineStep(KindProg, stepDef{
		step: func(m *Model, op Op, c *mctx, _ *Observation) func() {
			if m.opt.Profile == ProfileLegacy {
				m.progLegacy(op, c)
			} else {
				m.prog(op, c)
			}
			return nil
		},
		resync: func(m *Model, _ Op, c *mctx, st abi.Status) {
			// The entries are called with arguments no entry may act on: a
			// refusal changes nothing, a success may have.
			if c != nil && st == abi.OK {
				m.forget(c)
			}
		},
	})
}
