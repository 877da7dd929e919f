package trace

import (
	"sort"

	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// waitsForPeers reports whether c is judged in two pieces (docs/trace.md,
// "Checking a trace offline"): a comm call that may wait for its session's
// other ranks, all of them the trace's (TraceCall.RanksHere), arrives at
// its begin (counting at the session's counters) and returns at its end,
// which the model allows only once it is released (or as -1, a timeout).
func waitsForPeers(c *op.TraceCall) bool {
	return c.RanksHere && c.Skip == "" && !c.Unfinished && model.CommMayWait(c.Op.Kind)
}

// pieceAt is the time a piece is judged at when no search placed it: a
// call (or its arrival) at its begin, a return at its end.
func pieceAt(t *op.Trace, pc tracePiece) uint64 {
	if pc.ret {
		return t.Calls[pc.call].E
	}
	return t.Calls[pc.call].B
}

// timeOrder is the calls of order as pieces, each at its time.
func timeOrder(t *op.Trace, order []int) []tracePiece {
	out := make([]tracePiece, 0, len(order))
	for _, k := range order {
		out = append(out, tracePiece{call: k})
		if waitsForPeers(&t.Calls[k]) {
			out = append(out, tracePiece{call: k, ret: true})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return pieceAt(t, out[a]) < pieceAt(t, out[b]) })
	return out
}
