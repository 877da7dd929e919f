package conformance

import (
	"strconv"

	"github.com/simabi/simabi/abi"
)

// Re-synchronising the model after a divergence.
//
// A call that answers what the model did not predict is a finding; it must
// not hide the findings after it (a directed check holds many independent
// expectations). So the model does not stop: it takes what the answer tells
// (a successful init pins the context's state again) and forgets what it
// cannot know (the state of a context whose call diverged). Calls on a
// context the model forgot are still made and judged on everything that does
// not depend on its state: the structural V rules and S-3, which run first in
// every state, and S-2, which holds for every answer. The rest of the
// sequence, on every other context, is judged in full.

// resync follows the answer st of op, which the model did not predict.
func (m *Model) resync(op Op, c *mctx, st abi.Status) {
	m.retireRefusedDestroys()
	ok := st == abi.OK
	switch op.Kind {
	case KindKInit:
		if c == nil {
			return
		}
		if ok {
			m.pinKernel(c, op.Dev)
			return
		}
		m.forget(c)
	case KindPInit:
		if c == nil {
			return
		}
		if ok {
			m.pinProgram(c, op.Dev)
			return
		}
		// A failing simpler_init may have attached the thread first.
		m.forget(c)
		m.devKnown = false
	case KindACL:
		if c == nil {
			return
		}
		if ok && !c.unknown && c.latch != latchKernel {
			c.latch = latchProgram
			m.curDev, m.devKnown = op.Dev, true
			return
		}
		m.forget(c)
		m.devKnown = false
	case KindPrepare, KindLaunch:
		if c != nil {
			m.forget(c)
		}
	case KindFinalize:
		if c == nil {
			return
		}
		if c.latch != latchKernel {
			m.devKnown = false // a program finalize resets the device
		}
		m.forget(c)
	case KindProg:
		// The entries are called with arguments no entry may act on: a
		// refusal changes nothing, a success may have.
		if c != nil && ok {
			m.forget(c)
		}
	case KindSync:
		// The stream was synchronized whatever it answered; only an armed
		// site 8 makes the rest uncertain.
		if m.sites[8].count > 0 {
			m.lose("#" + strconv.Itoa(m.curIdx) + " " + op.String() + " answered what the model did not predict while fault site 8 was armed")
		}
	case KindCreate, KindDestroy, KindSupported, KindCommitted, KindContract, KindUnload:
	default:
		// The checker's own environment (hooks, ACL) misbehaved: nothing
		// after it can be trusted.
		m.lose("#" + strconv.Itoa(m.curIdx) + " " + op.String() + " returned " + statusName(st) + ", which the model did not predict")
	}
}

// retireRefusedDestroys stops calling every context whose destroy the model
// took as refused: a divergence puts in doubt that the runtime refused it.
func (m *Model) retireRefusedDestroys() {
	for _, c := range m.ctxs {
		if c != nil && c.live && c.destroyRefused {
			c.live, c.mayLeak = false, true
		}
	}
}

// forget marks c's state unknown (resync). A claim the model thought it held
// stays recorded: a later kernel init of that device accepts either answer.
func (m *Model) forget(c *mctx) {
	if !c.unknown {
		c.unknown, c.divergedAt = true, m.curIdx
	}
}

// pinKernel sets c to what a successful kernel init leaves: kernel-latched,
// Collecting, holding the claim of dev, nothing prepared.
func (m *Model) pinKernel(c *mctx, dev int32) {
	if h := m.claims[dev]; h != nil && h != c {
		h.claim = false // the runtime evidently does not count it as the holder
	}
	*c = mctx{live: true, latch: latchKernel, phase: phCollecting, dev: dev, claim: true, lastStream: NullRef, legacyDev: -1}
	m.claims[dev] = c
}

// pinProgram sets c to what a successful simpler_init leaves: program-latched,
// attached to dev, which is the calling thread's device now.
func (m *Model) pinProgram(c *mctx, dev int32) {
	*c = mctx{live: true, latch: latchProgram, attached: true, dev: dev, lastStream: NullRef, legacyDev: dev}
	m.curDev, m.devKnown = dev, true
}

// unknownState sets the expectation of a call on a context the model forgot
// (past its structural checks): any status, any committed memory. It reports
// whether c is such a context.
func (m *Model) unknownState(c *mctx) bool {
	if c == nil || !c.unknown {
		return false
	}
	m.expect(RuleNone, anyStatus, "the context's state is unknown since #"+strconv.Itoa(c.divergedAt)+" diverged")
	m.mem(MemAny)
	return true
}

// pinned reports whether the call on an unknown context succeeded, which
// pins the state a success leaves.
func (m *Model) pinned() bool {
	st, seen := m.observed()
	return seen && st == abi.OK
}
