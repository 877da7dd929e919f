package model

import (
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

// The comm family's timeout (E-COMM.9, .21, .29, .34, .59). Upstream waits
// 120 s for a peer (comm_sim.cpp:59); simabi_comm_timeout_ms (F-1, op
// ctimeout) shortens later waits. Under a short bound the runner makes a
// call whose peers never come, and the model expects -1 with what upstream
// leaves then; nothing is parked (it could time out before its releaser).

// CommShortTimeoutMs is the longest bound taken as short (a call that
// times out under it is made).
const CommShortTimeoutMs = 1000

// timesOut reports whether a short bound is in force (not in a recorded
// session, whose peers may come).
func (cm *commModel) timesOut() bool {
	return !cm.shared && cm.timeoutMs >= 1 && cm.timeoutMs <= CommShortTimeoutMs
}

// CommTimesOut reports whether op, which would wait for peers (CommWaits),
// is made and times out under a short bound on counters the model knows.
func (m *Model) CommTimesOut(o Op) bool {
	if m.lost || m.cm == nil || m.cm.unknown || !m.cm.timesOut() {
		return false
	}
	why := m.CommWaits(o)
	return why != "" && why != repeatAllocWaits && why != unsureWaits
}

// commTimeoutOf is, per waiting entry, its timeout clause and what it leaves.
var commTimeoutOf = map[op.Kind]struct{ clause, outcome string }{
	op.KindCommAlloc:         {"E-COMM.9", "-1, with device_ctx_out written before the ready wait and its rank counted ready (E-COMM.9)"},
	op.KindCommBarrier:       {"E-COMM.21", "-1, with its arrival counted at the barrier (E-COMM.21, upstream comm_sim.cpp:505-526)"},
	op.KindCommDomainAlloc:   {"E-COMM.29", "-1, neither out pointer written and the allocation_id free (E-COMM.29)"},
	op.KindCommDomainRelease: {"E-COMM.34", "-1, with the allocation released all the same (E-COMM.34)"},
	op.KindCommDestroy:       {"E-COMM.59", "-1, with the teardown done all the same (E-COMM.59)"},
}

// commTimeout expects the call in progress to time out; why says what it
// waits for ("": its ready count or barrier).
func (m *Model) commTimeout(why string) {
	if why == "" {
		why = "no peer it waits for comes in the sequence"
	}
	m.commExpect(one(commFail), why+": under the short timeout in force (ctimeout ms="+
		strconv.Itoa(int(m.cm.timeoutMs))+") it gives up, "+commTimeoutOf[m.curOp.Kind].outcome)
}

// commSetTimeout is ctimeout: it returns the bound in force before it
// (known once a ctimeout of the run set it).
func (m *Model) commSetTimeout(o Op) {
	cm := m.comm()
	m.expect(RHooks, one(abi.OK), "")
	if cm.timeoutMs >= 1 {
		m.value(RHooks, uint64(uint32(cm.timeoutMs)), "simabi_comm_timeout_ms returns the bound in force before it (docs/contract.md F-1)")
	}
	cm.timeoutMs = o.Ms
}

func init() {
	defineStep(op.KindCommTimeout, stepDef{
		step: func(m *Model, o Op, _ *mctx, _ *Observation) func() { m.commSetTimeout(o); return nil },
	})
}
