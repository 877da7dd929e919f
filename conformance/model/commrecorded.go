package model

import (
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

// Ranks as threads in a recorded session (docs/trace.md). When every rank
// of a session is a handle of the trace (TraceCall.RanksHere: the ranks
// are threads of the one process), every arrival at the session's counters
// is in the trace, and a call that waits for its peers is judged as the
// live runner judges a parked one (commpark.go): the trace checker steps
// it in two pieces, its arrival at its begin (ArriveRecorded: it counts at
// the step) and its return at its end (ReturnRecorded). The return of a
// call that waits comes after the call that releases it, so a call that
// ended before the last rank's call began returned early (E-COMM.8, .20,
// .27, .33, .58), unless it answered -1: a wait that times out (upstream's
// 120 s) returns -1, and the trace holds no time, so that -1 is the
// timeout's.

// CommMayWait reports whether a call of kind k may wait for the other
// ranks of its session (or domain allocation).
func CommMayWait(k op.Kind) bool {
	switch k {
	case op.KindCommAlloc, op.KindCommBarrier, op.KindCommDestroy, op.KindCommDomainAlloc, op.KindCommDomainRelease:
		return true
	}
	return false
}

// ArriveRecorded steps call k of t (CommMayWait, RanksHere) as op i of the
// judged order up to its arrival: its arrival counts, and the calls it
// completes a rendezvous for are released; ReturnRecorded judges its
// answer.
func ArriveRecorded(s State, t *Trace, i, k int) State {
	return with(s, func(m *Model) {
		c := &t.Calls[k]
		m.curDev, m.devKnown = c.Dev, c.DevKnown
		m.comm().shared = true
		m.recordedHere(c)
		obs := c.Obs
		m.park(i, c.Op, &obs)
		m.cm.park.released = nil // no runner joins them: the return pieces read p.released
		// The answer is in the trace already: what the walk judges after
		// the call is judged now, on this model (a search copies the
		// model between the two pieces, and the walk's closure holds this
		// one).
		if n := len(m.cm.park.parked); n > 0 && m.cm.park.parked[n-1].idx == i {
			p := &m.cm.park.parked[n-1]
			if p.after != nil {
				p.after()
				p.after = nil
			}
		}
	})
}

// ReturnRecorded judges the answer of call k of t, whose arrival
// ArriveRecorded stepped as op i: a call that waits returns 0 once
// released, and before that only -1 at the runtime's timeout.
func ReturnRecorded(s State, t *Trace, i, k int) State {
	return with(s, func(m *Model) {
		cm := m.cm
		if cm == nil {
			return
		}
		at := cm.park.at(i)
		if at < 0 {
			return // the model did not park it (it lost track)
		}
		p := &cm.park.parked[at]
		early := false
		switch {
		case p.key == (waitKey{}) || p.released:
		case cm.unknown:
			// A comm call since was not judged (or never returned): what
			// it counted is not known, nor the calls after it judged.
			p.e.Unchecked = true
		case cm.segs[p.key.seg].shared:
			// A handle whose peers are not all in the trace joined the
			// segment since: its counters are not known.
			p.e.Status, p.e.Note = two(abi.OK, commFail), "a rank of its session is not in the trace: 0 when the peers came, -1 at the timeout"
		case t.Calls[k].Obs.Call.Status == commFail:
			// Its arrival stays counted, as upstream's does
			// (comm_sim.cpp:398-409, :505-525).
			p.e.Status, p.e.Note = one(commFail), "it returned before the last rank of its session arrived: -1 is the runtime's timeout"
		default:
			early = true
		}
		m.joinParked(i, m.curIdx, early)
		// The returns of the calls one arrival released come in any
		// order: without the step's scratch, the states they reach are
		// equal, and the search tries one order of them, not each.
		m.e, m.co, m.tolBranch, m.curOp, m.curIdx, m.curRep = Expectation{}, nil, false, Op{}, 0, 0
	})
}

// recordedHere notes, before a recorded call that may wait is stepped,
// whether every rank of its handle's session is in the trace as of the
// call (TraceCall.RanksHere: it stops being so once a session on the path
// has a rank the trace does not hold). A handle of several ranks that is
// not makes the counters of its segments of several ranks unknown to every
// handle on them: a parked call there is not released by its calls, which
// the model follows without counting them.
func (m *Model) recordedHere(c *TraceCall) {
	if !CommMayWait(c.Op.Kind) {
		return
	}
	cm := m.comm()
	h := cm.handle(c.Op.Comm.H)
	if h == nil {
		return
	}
	h.here = c.RanksHere
	if h.here || h.nranks < 2 {
		return
	}
	if h.seg >= 0 {
		cm.segs[h.seg].shared = true
	}
	for _, d := range h.domains {
		if d.nranks > 1 { // a subset of one counts only itself
			cm.segs[d.seg].shared = true
		}
	}
}
