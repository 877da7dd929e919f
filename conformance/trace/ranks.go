package trace

import (
	"github.com/simabi/simabi/conformance/op"
	"sort"

	"github.com/simabi/simabi/conformance/model"
)

// Ranks as threads (docs/trace.md, "Checking a trace offline"): a comm call
// that may wait for the other ranks of its session, when every rank of the
// session is a handle of the trace (TraceCall.RanksHere), is two pieces of
// the order searched: its arrival at its begin, which counts at the
// session's counters (and releases the calls waiting when it is the last),
// and its return at its end, which the model allows only once the call is
// released (or as -1, the runtime's timeout). A call that ended before the
// releasing call began cannot be ordered so: it returned early. Both
// pieces are points, so they add no order for the search to try: a
// waiting call's own interval is all the search places around them.

// waitsForPeers reports whether c is judged in two pieces.
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

// timeOrder is the calls of order as pieces, each at its time: the calls
// in order, the return of each call that waits for its peers placed at its
// end.
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
