package model

import (
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

// commLost is every comm kind's resync: after a surprise the segments the
// call may have made, joined or left (which call waits) are not known.
func commLost(m *Model, o Op, _ *mctx, st abi.Status) {
	m.lose("#" + strconv.Itoa(m.curIdx) + " " + o.String() + " answered " + strconv.Itoa(int(st)) + ", which the model did not predict: the comm family's segments are not known after it")
}

// commStep wraps a walk that returns what to judge after the call.
func commStep(f func(m *Model, o Op, obs *Observation) func()) stepDef {
	return stepDef{
		step: func(m *Model, o Op, _ *mctx, obs *Observation) func() {
			if m.commUnknown(o) {
				return nil
			}
			return f(m, o, obs)
		},
		resync: commLost,
	}
}

// commPlain wraps a walk that judges nothing after the call.
func commPlain(f func(m *Model, o Op)) stepDef {
	return commStep(func(m *Model, o Op, _ *Observation) func() { f(m, o); return nil })
}

// commUnknown: after an unjudged recorded comm call, comm calls are not
// judged; comm_destroy still frees its slot.
func (m *Model) commUnknown(o Op) bool {
	cm := m.comm()
	if !cm.unknown {
		return false
	}
	m.e.Unchecked = true
	if o.Kind == op.KindCommDestroy && o.Comm.H >= 0 {
		cm.h[o.Comm.H] = commHandle{}
	}
	return true
}

func init() {
	defineStep(op.KindCommInit, stepDef{
		step: func(m *Model, o Op, _ *mctx, obs *Observation) func() {
			if m.commUnknown(o) {
				// Follow the handle the call made (its state is not known).
				m.comm().h[o.Comm.H] = commHandle{live: obs == nil || obs.Call.Value != 0, rank: int32(o.Comm.Rank), nranks: o.Comm.NRanks, path: o.Comm.Path, seg: -1}
				return nil
			}
			m.commInit(o)
			if obs != nil && obs.Call.Value == 0 {
				// No handle came back: nothing calls the slot.
				return func() { m.comm().h[o.Comm.H] = commHandle{} }
			}
			return nil
		},
		resync: commLost,
	})
	defineStep(op.KindCommAlloc, commStep((*Model).commAlloc))
	defineStep(op.KindCommBase, commStep((*Model).commQuery))
	defineStep(op.KindCommSize, commStep((*Model).commQuery))
	defineStep(op.KindCommDerive, commStep((*Model).commDerive))
	defineStep(op.KindCommBarrier, commPlain((*Model).commBarrier))
	defineStep(op.KindCommDestroy, commPlain((*Model).commDestroy))
	defineStep(op.KindCommDomainAlloc, commStep((*Model).commDomainAlloc))
	defineStep(op.KindCommDomainRelease, commPlain((*Model).commDomainRelease))
	defineStep(op.KindCommGlobalPrepare, commStep((*Model).commGlobalPrepare))
	defineStep(op.KindCommGlobalImport, commStep((*Model).commGlobalImport))
	defineStep(op.KindCommGlobalRelease, commPlain((*Model).commGlobalRelease))
	defineStep(op.KindCommMem, commStep((*Model).commMem))
}
