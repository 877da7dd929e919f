package model

import (
	"github.com/simabi/simabi/abi"
)

// Program mode: simpler_init, ensure_acl_ready_ctx and the program-side entries (E-PINIT, E-ACL, E-PROG, L-4).

func (m *Model) pinit(op Op, c *mctx) {
	if c == nil {
		m.expect(REPInit, one(abi.Internal), "simpler_init(NULL) (S-3)")
		return
	}
	for i := 0; i < 4; i++ {
		if !op.Spans[i].Consistent() {
			m.expect(REPInit, one(abi.InvalidArgument), "an inconsistent "+SpanKey(i)+" span")
			m.also(RVSpan) // E-PINIT's span checks are V-SPAN's
			return
		}
	}
	if op.Dev < 0 {
		m.expect(REPInit, one(abi.InvalidArgument), "device < 0")
		return
	}
	if op.Prewarm {
		if v := checkCfg(op.Cfg, false); v.st != abi.OK {
			st, seen := m.observed()
			m.expect(REPInit, one(abi.InvalidArgument), "prewarm config: "+v.what)
			if v.ringOnly && seen {
				m.ringObserved(1, st != abi.InvalidArgument, REPInit)
			}
			if v.ringOnly && seen && st != abi.InvalidArgument {
				m.branchTolerated(RVCfg, "ring sizing not checked (V-CFG tolerated: 0)")
			} else {
				if v.tolINT {
					m.tolerate(RVCfg, one(abi.Internal), "INTERNAL for the thread count (V-CFG tolerated)")
				}
				return
			}
		}
	}
	if m.unknownState(c) {
		if m.pinned() {
			m.pinProgram(c, op.Dev)
		}
		return
	}
	if c.latch == LatchKernel {
		r, why := RL2, "the context is kernel-latched"
		switch {
		case c.phase == phClosed && c.finalizedOK:
			r, why = RL3, "the kernel context was finalized (finalize does not unlatch)"
		case c.initFailed:
			r, why = RL3, "a failed kernel init latched it (nothing unlatches)"
		case c.phase == phPoisoned || c.quarantined:
			r, why = RL3, "a poisoned or quarantined kernel context stays latched"
		}
		m.expect(r, one(abi.InvalidState), why)
		return
	}
	c.latch = LatchProgram
	if c.attached {
		m.expect(REPInit, one(abi.InvalidState), "a device is already attached")
		return
	}
	c.attached, c.dev, c.bins, c.progDone = true, op.Dev, execBins(op), false
	m.curDev, m.devKnown, m.devRule = op.Dev, true, REPInit
	r := REPInit
	if c.refusedPre {
		r = RL5
	}
	m.expect(r, one(abi.OK), "")
	if c.fresh && r == REPInit {
		m.blame(RL1, one(abi.InvalidState)) // a new context is unlatched: simpler_init takes it
	}
	c.fresh = false
}

// execBins: a program init gave both executor binaries (aicpu, aicore),
// which a real build needs before it can register a device orchestration.
func execBins(op Op) bool {
	return op.Spans[SpanAicpu] == SpanBytes && op.Spans[SpanAicore] == SpanBytes
}

func (m *Model) acl(op Op, c *mctx) {
	if c == nil {
		m.expect(REACL, one(abi.InvalidArgument), "ensure_acl_ready_ctx(NULL)")
		m.tolerate(RS3, one(abi.Internal), "INTERNAL for NULL ctx (S-3 tolerated)")
		return
	}
	if op.Dev < 0 {
		m.expect(REACL, one(abi.InvalidArgument), "device < 0")
		return
	}
	if m.unknownState(c) {
		if m.pinned() {
			m.curDev, m.devKnown = op.Dev, true
		}
		return
	}
	if c.latch == LatchKernel {
		r := RL2
		if c.initFailed {
			r = RL3
		}
		m.expect(r, one(abi.InvalidState), "the context is kernel-latched")
		if m.devKnown {
			m.devRule = RL2 // a refusal that changes nothing leaves the thread's device
		}
		return
	}
	r := REACL
	switch {
	case c.refusedPre:
		r = RL5
	case c.latch == LatchProgram && RL2.Applies(m.opt.Profile):
		r = RL2 // latching the held mode again succeeds
	}
	c.latch = LatchProgram
	c.fresh = false
	m.curDev, m.devKnown, m.devRule = op.Dev, true, REACL
	m.expect(r, one(abi.OK), "")
}

func (m *Model) prog(op Op, c *mctx) {
	fn := op.Fn
	if c == nil {
		switch {
		case fn.StatusEntry():
			m.expect(RS3, one(abi.InvalidArgument), "NULL ctx")
			m.tolerate(RS3, one(abi.Internal), "INTERNAL for NULL ctx (S-3 tolerated)")
		case fn == FnFree:
			m.expect(RS3, anyStatus, "")
		case fn == FnConcurrentPrepare:
			m.expect(RS3, anyStatus, "")
		default:
			m.expect(RS3, anyStatus, "")
			m.value(RS3, 0, "a query on NULL ctx returns 0 / NULL")
		}
		return
	}
	if m.unknownState(c) {
		return
	}
	if c.latch == LatchProgram && c.attached {
		m.anything("a program entry with a live program init: program run details are not rules")
		return
	}
	if c.latch == LatchKernel {
		m.e.D1Rule = REProg // a refused program entry on a kernel context makes no ACL device call (E-PROG.3)
	}
	m.mem(m.memState(c))
	switch {
	case fn.ProgOnly():
		m.expect(REProg, one(abi.InvalidState), "no live program init: IS before any other check")
	case fn == FnMalloc:
		m.expect(REProg, anyStatus, "")
		m.value(REProg, 0, "device_malloc_ctx without a live program init returns NULL")
	default:
		m.expect(RuleNone, anyStatus, "")
	}
}
