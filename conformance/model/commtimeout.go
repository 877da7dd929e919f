package model

import (
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

// The comm family's timeout (E-COMM.9, .21, .29, .34, .59). Upstream waits
// 120 s for a peer (comm_sim.cpp:59); a simulated runtime's hook
// simabi_comm_timeout_ms (docs/contract.md F-1, op ctimeout) shortens the
// waits that start later. While a short bound is in force the runner makes
// a call whose peers never come in the sequence, on the runner's thread,
// and the model expects it to time out: -1, with what upstream leaves
// behind then (its arrival counted, the teardown done). No call is parked
// then: a parked call could time out before its releaser is made.

// CommShortTimeoutMs is the longest bound the model takes as short: a
// call that times out under it is made (the runner waits for it at most
// joinTimeout); under a longer one such a call is not made, as under
// upstream's 120 s.
const CommShortTimeoutMs = 1000

// timesOut reports whether a short bound is in force: a wait for a peer
// that never comes ends in -1 within it. A recorded session's peers are
// other processes, which may come.
func (cm *commModel) timesOut() bool {
	return !cm.shared && cm.timeoutMs >= 1 && cm.timeoutMs <= CommShortTimeoutMs
}

// CommTimesOut reports whether op, a call that would wait for peers that
// never come in the sequence (CommWaits), is made and times out: a short
// bound is in force and the model knows the counters it waits on.
func (m *Model) CommTimesOut(o Op) bool {
	if m.lost || m.cm == nil || m.cm.unknown || !m.cm.timesOut() {
		return false
	}
	why := m.CommWaits(o)
	return why != "" && why != repeatAllocWaits && why != unsureWaits
}

// commTimeoutOf is, per waiting entry, the clause of its timeout and what
// the call leaves when its wait times out, after upstream's lines the
// clause cites.
var commTimeoutOf = map[op.Kind]struct{ clause, outcome string }{
	op.KindCommAlloc:         {"E-COMM.9", "-1, with device_ctx_out written before the ready wait and its rank counted ready (E-COMM.9)"},
	op.KindCommBarrier:       {"E-COMM.21", "-1, with its arrival counted at the barrier (E-COMM.21, upstream comm_sim.cpp:505-526)"},
	op.KindCommDomainAlloc:   {"E-COMM.29", "-1, neither out pointer written and the allocation_id free (E-COMM.29)"},
	op.KindCommDomainRelease: {"E-COMM.34", "-1, with the allocation released all the same (E-COMM.34)"},
	op.KindCommDestroy:       {"E-COMM.59", "-1, with the teardown done all the same (E-COMM.59)"},
}

// commTimeout expects the call in progress to time out (E-COMM's timeout
// clauses); why says what it waits for when that is not its ready count
// or barrier.
func (m *Model) commTimeout(why string) {
	if why == "" {
		why = "no peer it waits for comes in the sequence"
	}
	m.commExpect(one(commFail), why+": under the short timeout in force (ctimeout ms="+
		strconv.Itoa(int(m.cm.timeoutMs))+") it gives up, "+commTimeoutOf[m.curOp.Kind].outcome)
}

// commSetTimeout is ctimeout: simabi_comm_timeout_ms returns the bound in
// force before it, which the model knows once a ctimeout of the run set
// it (the runtime's own before: the build's, which the rule does not fix).
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
