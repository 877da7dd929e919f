package op

import (
	"math"
	"slices"
)

// Ranks as threads (docs/trace.md): when a trace holds every rank of a comm
// session, what each call that waits for its peers answers is the trace's
// to judge. A trace that holds every rank of every session on a rootinfo
// path is taken to be the path's only user.

// traceHandle is one handle a trace's comm_init made, over its life.
type traceHandle struct {
	h            int8
	path         int8
	rank, nranks int32
	lo, hi       uint64 // its comm_init's begin, its comm_destroy's end
	calls        []int  // its comm_init and the calls naming it in its life
}

// markRanksHere sets RanksHere on each call of a handle of a session of
// several ranks when, over the handle's life, its own session and each
// other one on its path with a handle by the call's end (sharing the
// path's segment) have a handle of each rank in the trace.
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
// overlaps x's, x's session and each of several ranks with a handle made
// by time at have a handle of each rank.
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
// with its life (to its slot's next comm_destroy) and its calls in the
// order they began.
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

// takesHandle reports whether a comm call of kind k names a handle, not a
// global domain alone.
func takesHandle(k Kind) bool {
	return !slices.Contains([]Kind{KindCommGlobalPrepare, KindCommGlobalImport, KindCommGlobalRelease}, k)
}
