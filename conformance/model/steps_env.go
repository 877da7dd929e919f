package model

import (
	"strconv"

	"github.com/simabi/simabi/abi"
)

func init() {
	defineStep(KindContract, stepDef{
		step:   func(m *Model, _ Op, _ *mctx, obs *Observation) func() { m.contract(obs); return nil },
		resync: resyncNothing,
	})
	defineStep(KindSetDev, stepDef{
		step: func(m *Model, op Op, _ *mctx, _ *Observation) func() {
			m.expect(RHooks, one(abi.OK), "simabi_set_current_device returns 0")
			m.curDev, m.devKnown, m.devRule = op.Dev, true, RuleNone
			return nil
		},
	})
	defineStep(KindGetDev, stepDef{
		step: func(m *Model, _ Op, _ *mctx, _ *Observation) func() {
			m.expect(RHooks, anyStatus, "")
			if m.devKnown {
				// The rule of the last op that set the device or had to
				// leave it (a program init, an ACL call, a refusal); else
				// D-1 where the build has kernel entries, and on a legacy
				// build only the hooks' own bookkeeping.
				r := m.devRule
				if r == RuleNone {
					r = RD1
				}
				if !r.Applies(m.opt.Profile) {
					r = RHooks
				}
				m.value(r, uint64(int64(m.curDev)), "only the caller and program paths change the current device")
			}
			return nil
		},
	})
	defineStep(KindSync, stepDef{
		step: func(m *Model, op Op, _ *mctx, _ *Observation) func() { m.sync(op); return nil },
		resync: func(m *Model, op Op, _ *mctx, _ abi.Status) {
			// The stream was synchronized whatever it answered; only an armed
			// site 8 makes the rest uncertain.
			if m.sites[8].count > 0 {
				m.lose("#" + strconv.Itoa(m.curIdx) + " " + op.String() + " answered what the model did not predict while fault site 8 was armed")
			}
		},
	})
	defineStep(KindInject, stepDef{
		step: func(m *Model, op Op, _ *mctx, _ *Observation) func() { m.inject(op); return nil },
	})
	defineStep(KindClobber, stepDef{
		step: func(m *Model, _ Op, _ *mctx, _ *Observation) func() {
			m.clobbers++
			m.e.Unchecked = true
			return nil
		},
	})
	defineStep(KindUnload, stepDef{
		step:   func(m *Model, _ Op, _ *mctx, _ *Observation) func() { m.unload(); return nil },
		resync: resyncNothing,
	})
	defineStep(KindHostLog, stepDef{
		step:   func(m *Model, op Op, _ *mctx, _ *Observation) func() { m.hostLog(op); return nil },
		resync: resyncNothing,
	})
}
