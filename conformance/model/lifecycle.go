package model

import (
	"github.com/simabi/simabi/abi"
)

// The context lifecycle: create, destroy, supported, finalize, committed (L-1, E-SUP, E-FIN, E-DESTROY, M-7).

func (m *Model) create(op Op) {
	m.ctxs[op.C] = newMctx()
	m.value(RL1, 1, "create_device_context returns a non-NULL handle")
	m.expect(RL1, anyStatus, "")
	m.mem(MemZero, RM7)
}

func (m *Model) destroy(c *mctx) {
	m.expect(REDestroy, anyStatus, "")
	if c == nil {
		return
	}
	if c.unknown {
		// Whether the runtime freed it is not known: never call it again.
		c.live, c.mayLeak = false, true
		m.devKnown = false
		m.dropAllocs(c)
		return
	}
	if c.latch == LatchKernel {
		m.e.D1Rule = RD1
	}
	if c.runs > 0 {
		m.e.Rule, m.e.RunClause = REDestroy, true // refused: the calls after it tell
	}
	if c.runs > 0 || (c.latch == LatchKernel && !c.finalizedOK) {
		// E-DESTROY: refused; the ops after it check nothing changed.
		c.destroyRefused = true
		m.refuseDestroyAllocs(c)
		return
	}
	c.live = false
	m.freeRuns(c)
	m.dropAllocs(c)
	if c.attached {
		m.devKnown = false
	}
}

func (m *Model) supported(c *mctx) {
	m.expect(RESup, anyStatus, "")
	m.e.D1Rule = RESup
	switch m.opt.Profile {
	case ProfileTMR:
		m.value(RESup, 1, "a tmr build answers 1 for every ctx in every state")
	case ProfileRefusing:
		m.value(RESup, 0, "a refusing build answers 0 for every ctx in every state")
	}
}

func (m *Model) finalize(c *mctx) {
	if c == nil {
		m.expect(REFin, one(abi.Internal), "finalize_device(NULL)")
		return
	}
	if m.unknownState(c) {
		return
	}
	if c.runs > 0 {
		m.expect(REFin, one(abi.Internal), "a native run is outstanding: nothing torn down")
		m.e.RunClause = true
		return
	}
	switch c.latch {
	case Unlatched:
		m.expect(REFin, one(abi.OK), "an unlatched context: nothing to do")
		if c.refusedPre {
			m.also(RL5) // unlatched although a kernel init was refused on it
		}
		return
	case LatchProgram:
		m.expect(REFin, one(abi.OK), "")
		if c.attached {
			if code, ok := m.fire(abi.SiteProgramTeardown); ok {
				m.expect(REFin, one(code), "the program teardown fails (site 10): returned, and the context is detached anyway")
			}
			c.attached, c.prog, c.progDone, c.dlopens = false, nil, true, 0
			m.devKnown = false
			m.dropAllocs(c) // upstream: device_runner.cpp:834 (mem_alloc_.finalize)
		}
		return
	}
	m.e.D1Rule = RD1
	switch {
	case c.phase == phClosed:
		m.expect(RK6, one(abi.OK), "Closed is terminal: finalize returns 0 again")
		return
	case c.quarantined:
		m.expect(RD4, one(abi.InvalidState), "quarantined: IS on every later finalize")
		return
	}
	if !m.d2(c, RD2) {
		return
	}
	if c.phase == phNew {
		c.phase, c.finalizedOK = phClosed, true
		m.expect(RK5, one(abi.OK), "close in New")
		m.mem(MemZero, RM7)
		return
	}
	m.mem(MemAny)
	closeRule := REFin
	if c.phase == phPoisoned {
		closeRule = RK4 // a Poisoned context still accepts close (K-4.6)
	}
	if _, ok := m.fire(6); ok {
		c.quarantined, c.dispatchAny = true, true
		m.expect(RD4, one(abi.InvalidState), "fatal device (site 6): quarantined, IS on this and every later finalize")
		return
	}
	c.phase = phClosing
	if code, ok := m.fire(5); ok {
		m.expect(RK5, one(code), "a release step fails (site 5): stays Closing")
		return
	}
	c.phase, c.finalizedOK = phClosed, true
	if c.claim {
		c.claim = false
		if m.claims[c.dev] == c {
			delete(m.claims, c.dev)
		}
	}
	m.expect(closeRule, one(abi.OK), "")
	if c.d2Refused {
		c.d2Refused = false
		m.also(RD2)
	}
	m.mem(MemZero, RM7)
}

func (m *Model) committed(c *mctx) {
	m.expect(RM7, anyStatus, "")
	m.e.MemRule = RM7
	if c == nil {
		m.value(RM7, 0, "committed_device_memory_ctx(NULL) is 0")
		return
	}
	if c.latch == LatchKernel {
		m.e.D1Rule = RD1
	}
	m.heldSince(c)
}
