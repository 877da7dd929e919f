package op

import "math"

// Ranks as threads in a trace: a consumer that runs every rank of a comm
// session on threads of one process leaves every arrival at the session's
// counters in its trace, so what each call that waits for its peers
// answers is the trace's to judge (docs/trace.md). Ranks in other
// processes leave arrivals the trace does not hold. Which calls are of the
// first kind is a reading of the trace, not a certainty: a trace that
// holds every rank of every session on a rootinfo path is taken to be the
// only user of the path (another process would have to make a rank the
// trace holds again).

// traceHandle is one handle a trace's comm_init made, over its life.
type traceHandle struct {
	h            int8
	path         int8
	rank, nranks int32
	lo, hi       uint64 // its comm_init's begin, its comm_destroy's end
	calls        []int  // its comm_init and the calls naming it in its life
}

// markRanksHere sets RanksHere on each call of a handle of a session of
// several ranks when every session of several ranks on the handle's path
// has, over the handle's life, a handle of each of its ranks in the trace:
// its own session, and each other one that had a handle by the call's end
// (a session of another nranks with a rank elsewhere shares the path's
// segment, and its arrivals count there from when it comes).
func markRanksHere(t *Trace) {
	hs := traceHandles(t)
	for _, x := range hs {
		if x.nranks < 2 {
			continue
		}
		for _, k := range x.calls {
			t.Calls[k].RanksHere = ranksMet(x, hs, t.Calls[k].E)
		}
	}
}

// ranksMet reports whether, among the handles of x's path whose life
// overlaps x's, x's session and each session of several ranks with a
// handle made by time at have a handle of each of their ranks. (A
// single-rank handle is a whole session of its own.)
func ranksMet(x traceHandle, hs []traceHandle, at uint64) bool {
	seen := map[int32][]bool{x.nranks: make([]bool, x.nranks)} // nranks → ranks with a handle
	came := map[int32]bool{x.nranks: true}                     // sessions with a handle by at
	for _, y := range hs {
		if y.path != x.path || y.lo > x.hi || y.hi < x.lo || y.nranks < 2 {
			continue
		}
		if y.rank < 0 || y.rank >= y.nranks {
			return false
		}
		if seen[y.nranks] == nil {
			seen[y.nranks] = make([]bool, y.nranks)
		}
		seen[y.nranks][y.rank] = true
		came[y.nranks] = came[y.nranks] || y.lo <= at
	}
	for n, ranks := range seen {
		for _, ok := range ranks {
			if came[n] && !ok {
				return false
			}
		}
	}
	return true
}

// traceHandles lists the handles the trace's comm_init calls made, each
// with the life its slot gives it (from its comm_init to the end of the
// next comm_destroy of its slot, or the end of the trace) and its calls
// in the order they began.
func traceHandles(t *Trace) []traceHandle {
	order := t.ByBegin()
	var hs []traceHandle
	open := map[int8]int{} // slot → its live handle in hs
	for _, k := range order {
		c := &t.Calls[k]
		if !c.Op.Kind.CommCodes() {
			continue
		}
		r := c.Op.Comm
		if c.Op.Kind == KindCommInit {
			if c.Skip == "" && !c.Unfinished && c.Obs.Call.Value != 0 && r.Path >= 0 {
				open[r.H] = len(hs)
				hs = append(hs, traceHandle{h: r.H, path: r.Path, rank: int32(r.Rank), nranks: r.NRanks, lo: c.B, hi: math.MaxUint64, calls: []int{k}})
			}
			continue
		}
		at, ok := open[r.H]
		if !ok || r.H < 0 || !takesHandle(c.Op.Kind) {
			continue
		}
		hs[at].calls = append(hs[at].calls, k)
		if c.Op.Kind == KindCommDestroy && c.Skip == "" && !c.Unfinished {
			hs[at].hi = c.E
			delete(open, r.H)
		}
	}
	return hs
}

// takesHandle reports whether a comm call of kind k names a handle (its
// Comm.H), not a global domain alone.
func takesHandle(k Kind) bool {
	switch k {
	case KindCommGlobalPrepare, KindCommGlobalImport, KindCommGlobalRelease:
		return false
	}
	return true
}
