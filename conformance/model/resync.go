package model

import (
	"strconv"

	"github.com/simabi/simabi/abi"
)

// Re-synchronising after a divergence, so that one finding hides no other:
// the model takes what the answer tells (a successful init pins the state)
// and forgets what it cannot know (the diverged context's state, judged
// then only on the structural V rules, S-3 and S-2).

// resync follows the answer st of op, which the model did not predict.
func (m *Model) resync(op Op, mc *mctx, st abi.Status) {
	m.retireRefusedDestroys()
	if c := stepOf(op.Kind); c != nil && c.resync != nil {
		c.resync(m, op, mc, st)
		return
	}
	// The checker's own environment (hooks, ACL) misbehaved.
	m.lose("#" + strconv.Itoa(m.curIdx) + " " + op.String() + " returned " + statusName(st) + ", which the model did not predict")
}

// retireRefusedDestroys stops calling contexts whose destroy the model took
// as refused: a divergence puts that in doubt.
func (m *Model) retireRefusedDestroys() {
	for _, c := range m.ctxs {
		if c != nil && c.live && c.destroyRefused {
			c.live, c.mayLeak = false, true
		}
	}
}

// forget marks c's state unknown (a claim it held stays recorded: a later
// kernel init of the device accepts either answer).
func (m *Model) forget(c *mctx) {
	if !c.unknown {
		c.unknown, c.divergedAt = true, m.curIdx
	}
	m.dropAllocs(c)
}

// pinKernel sets c to what a successful kernel init of dev leaves.
func (m *Model) pinKernel(c *mctx, dev int32) {
	if h := m.claims[dev]; h != nil && h != c {
		h.claim = false // the runtime evidently does not count it as the holder
	}
	*c = mctx{live: true, latch: LatchKernel, phase: phCollecting, dev: dev, claim: true, lastStream: NullRef, legacyDev: -1}
	m.claims[dev] = c
}

// pinProgram sets c to what a successful simpler_init of dev leaves.
func (m *Model) pinProgram(c *mctx, dev int32) {
	*c = mctx{live: true, latch: LatchProgram, attached: true, dev: dev, lastStream: NullRef, legacyDev: dev, dlopens: -1}
	m.curDev, m.devKnown = dev, true
}

// unknownState expects anything of a call on a forgotten context c (past
// its structural checks) and reports whether c is one.
func (m *Model) unknownState(c *mctx) bool {
	if c == nil || !c.unknown {
		return false
	}
	m.expect(RuleNone, anyStatus, "the context's state is unknown since #"+strconv.Itoa(c.divergedAt)+" diverged")
	m.mem(MemAny)
	m.unsureSites()
	return true
}

// pinned reports whether the call on an unknown context succeeded.
func (m *Model) pinned() bool {
	st, seen := m.observed()
	return seen && st == abi.OK
}
