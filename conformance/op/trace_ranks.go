package op

import (
	"math"
	"sort"
)

// Ranks as threads in a trace: a consumer that runs every rank of a comm
// session on threads of one process leaves every arrival at the session's
// counters in its trace, so what each call that waits for its peers
// answers is the trace's to judge (docs/trace.md). Ranks in other
// processes leave arrivals the trace does not hold.

// traceHandle is one handle a trace's comm_init made, over its life.
type traceHandle struct {
	call         int // its comm_init
	h            int8
	path         int8
	rank, nranks int32
	lo, hi       uint64 // its comm_init's begin, its comm_destroy's end
}

// markRanksHere sets RanksHere on the calls of each handle of a session of
// several ranks whose every rank is, for the whole of the handle's life, a
// handle of this trace, and so is every rank of any other session that
// shares its path meanwhile (a handle that joins a segment counts at its
// counters whatever nranks it was made with).
func markRanksHere(t *Trace) {
	hs := traceHandles(t)
	here := make([]bool, len(hs))
	for i, x := range hs {
		here[i] = x.nranks >= 2 && ranksMet(x, hs)
	}
	// A handle whose life overlaps one of several ranks that is not here
	// (a rank 1 that came after another rank 1 left, while rank 0 stayed)
	// shares a segment with it: not here either.
	for changed := true; changed; {
		changed = false
		for i, x := range hs {
			for j, y := range hs {
				if here[i] && !here[j] && y.nranks >= 2 && overlaps(x, y) {
					here[i], changed = false, true
				}
			}
		}
	}
	for i, x := range hs {
		if !here[i] {
			continue
		}
		t.Calls[x.call].RanksHere = true
		for i := range t.Calls {
			c := &t.Calls[i]
			if c.Op.Kind.CommCodes() && c.Op.Kind != KindCommInit && c.Op.Comm.H == x.h && c.B > x.lo && c.B < x.hi {
				c.RanksHere = true
			}
		}
	}
}

// ranksMet reports whether, among the handles of x's path whose life
// overlaps x's, every session of several ranks has exactly one handle of
// each rank (a single-rank handle is a whole session of its own).
func ranksMet(x traceHandle, hs []traceHandle) bool {
	seen := map[int32][]int{} // nranks → handles per rank
	for _, y := range hs {
		if !overlaps(x, y) || y.nranks == 1 {
			continue
		}
		if y.rank < 0 || y.rank >= y.nranks {
			return false
		}
		if seen[y.nranks] == nil {
			seen[y.nranks] = make([]int, y.nranks)
		}
		seen[y.nranks][y.rank]++
	}
	for _, per := range seen {
		for _, n := range per {
			if n != 1 {
				return false
			}
		}
	}
	return true
}

// overlaps reports whether x and y are handles of one path whose lives
// overlap.
func overlaps(x, y traceHandle) bool { return x.path == y.path && y.lo <= x.hi && x.lo <= y.hi }

// traceHandles lists the handles the trace's comm_init calls made, each
// with the life its slot gives it: from its comm_init to the end of the
// next comm_destroy of its slot (or the end of the trace).
func traceHandles(t *Trace) []traceHandle {
	order := make([]int, len(t.Calls))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return t.Calls[order[a]].B < t.Calls[order[b]].B })
	var hs []traceHandle
	open := map[int8]int{} // slot → its live handle in hs
	for _, k := range order {
		c := &t.Calls[k]
		if c.Skip != "" || c.Unfinished || !c.Op.Kind.CommCodes() {
			continue
		}
		r := c.Op.Comm
		switch {
		case c.Op.Kind == KindCommInit && c.Obs.Call.Value != 0 && r.Path >= 0:
			open[r.H] = len(hs)
			hs = append(hs, traceHandle{call: k, h: r.H, path: r.Path, rank: int32(r.Rank), nranks: r.NRanks, lo: c.B, hi: math.MaxUint64})
		case c.Op.Kind == KindCommDestroy && r.H >= 0:
			if at, ok := open[r.H]; ok {
				hs[at].hi = c.E
				delete(open, r.H)
			}
		}
	}
	return hs
}
