package model

import (
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

// Ranks as threads in a recorded session (docs/trace.md). When every rank
// of a session is a handle of the trace (TraceCall.RanksHere), a call that
// waits is judged as a parked one (commpark.go), in two pieces: its
// arrival at its begin (ArriveRecorded) and its return at its end
// (ReturnRecorded). A call that ended before its releaser began returned
// early (E-COMM.8, .20, .27, .33, .58), unless it answered -1: the trace
// holds no time, so that -1 is the timeout's.

// CommMayWait reports whether a call of kind k may wait for other ranks:
// the kinds whose wait has a timeout clause.
func CommMayWait(k op.Kind) bool {
	_, ok := commTimeoutOf[k]
	return ok
}

// ArriveRecorded steps call k of t (CommMayWait, RanksHere) as op i up to
// its arrival, which counts and releases; ReturnRecorded judges its answer.
func ArriveRecorded(s State, t *Trace, i, k int) State {
	return with(s, func(m *Model) {
		c := &t.Calls[k]
		m.curDev, m.devKnown = c.Dev, c.DevKnown
		m.comm().shared = true
		m.recordedHere(c)
		obs := c.Obs
		m.park(i, c.Op, &obs)
		m.cm.park.released = nil // no runner joins them: the return pieces read p.released
		// The answer is recorded: what the walk judges after the call is
		// judged now, on this model (its closure holds this one, and a
		// search copies the model between the pieces).
		if n := len(m.cm.park.parked); n > 0 && m.cm.park.parked[n-1].idx == i {
			p := &m.cm.park.parked[n-1]
			if p.after != nil {
				p.after()
				p.after = nil
			}
		}
	})
}

// ReturnRecorded judges call k of t, whose arrival was op i: a call that
// waits returns 0 once released, before that only -1 (the timeout).
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
			// A comm call since was not judged: its counts are not known.
			p.e.Unchecked = true
		case cm.segs[p.key.seg].shared:
			// A handle with peers outside the trace joined the segment since.
			p.e.Status, p.e.Note = two(abi.OK, commFail), "a rank of its session is not in the trace: 0 when the peers came, -1 at the timeout"
		case t.Calls[k].Obs.Call.Status == commFail:
			// Its arrival stays counted, as upstream's does
			// (comm_sim.cpp:398-409, :505-525).
			p.e.Status, p.e.Note = one(commFail), "it returned before the last rank of its session arrived: -1 is the runtime's timeout"
		default:
			early = true
		}
		m.joinParked(i, m.curIdx, early)
		// Without the step's scratch, the states the returns of one
		// arrival's releases reach are equal: the search tries one order.
		m.e, m.co, m.tolBranch, m.curOp, m.curIdx, m.curRep = Expectation{}, nil, false, Op{}, 0, 0
	})
}

// recordedHere notes, before a recorded call that may wait, whether every
// rank of its handle's session is in the trace (TraceCall.RanksHere); when
// not, the counters of its segments of several ranks are unknown (shared).
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
