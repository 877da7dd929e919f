package model

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
func (m *Model) resync(op Op, mc *mctx, st abi.Status) {
	m.retireRefusedDestroys()
	if c := stepOf(op.Kind); c != nil && c.resync != nil {
		c.resync(m, op, mc, st)
		return
	}
	// The checker's own environment (hooks, ACL) misbehaved: nothing
	// after it can be trusted.
	m.lose("#" + strconv.Itoa(m.curIdx) + " " + op.String() + " returned " + statusName(st) + ", which the model did not predict")
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
	// Whether its allocations live is not known either: the runner calls
	// them no more.
	m.dropAllocs(c)
}

// pinKernel sets c to what a successful kernel init leaves: kernel-latched,
// Collecting, holding the claim of dev, nothing prepared.
func (m *Model) pinKernel(c *mctx, dev int32) {
	if h := m.claims[dev]; h != nil && h != c {
		h.claim = false // the runtime evidently does not count it as the holder
	}
	*c = mctx{live: true, latch: LatchKernel, phase: phCollecting, dev: dev, claim: true, lastStream: NullRef, legacyDev: -1}
	m.claims[dev] = c
}

// pinProgram sets c to what a successful simpler_init leaves: program-latched,
// attached to dev, which is the calling thread's device now.
func (m *Model) pinProgram(c *mctx, dev int32) {
	*c = mctx{live: true, latch: LatchProgram, attached: true, dev: dev, lastStream: NullRef, legacyDev: dev, dlopens: -1}
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
	m.unsureSites()
	return true
}

// pinned reports whether the call on an unknown context succeeded, which
// pins the state a success leaves.
func (m *Model) pinned() bool {
	st, seen := m.observed()
	return seen && st == abi.OK
}
