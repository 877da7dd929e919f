package conformance

import (
	"slices"

	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// The generator's sessions of several ranks: a session (a comm_init per
// rank) and a collective (the same call on every rank, in random order)
// are drawn whole, the calls after the first owed (g.due) and drawn among
// the other candidates, so that other ops run while the first ranks wait.

// owes reports whether a call the generator owes names handle slot h.
func (g *Generator) owes(h int8) bool {
	return slices.ContainsFunc(g.due, func(o op.Op) bool { return o.Comm.H == h })
}

// owed draws, half the time, an owed call whose handle is as it was.
func (g *Generator) owed(ch Chooser) (op.Op, bool) {
	for len(g.due) > 0 {
		if ch.IntN(2, "owed") == 0 {
			return op.Op{}, false
		}
		i := ch.IntN(len(g.due), "which")
		o := g.due[i]
		g.due = append(g.due[:i], g.due[i+1:]...)
		live := g.st.Model().CommHandleLive(o.Comm.H)
		if (o.Kind == op.KindCommInit) != live && !g.st.Model().CommBusy(o.Comm.H) {
			return o, true
		}
	}
	return op.Op{}, false
}

// sessionOfRanks is a rootinfo path whose live handles are every rank of
// one session of 2 or more, none busy or owed (-1 when none).
func (g *Generator) sessionOfRanks() int8 {
	var seen [op.MaxCommPaths]int32
	var n [op.MaxCommPaths]int32
	bad := [op.MaxCommPaths]bool{}
	for h := int8(0); h < op.MaxCommHandles; h++ {
		v := g.st.Model().CommHandleOf(h)
		if !v.Live || v.Path < 0 {
			continue
		}
		p := v.Path
		seen[p]++
		if n[p] != 0 && n[p] != v.NRanks {
			bad[p] = true
		}
		n[p] = v.NRanks
		if g.st.Model().CommBusy(h) || g.owes(h) {
			bad[p] = true
		}
	}
	for p := range seen {
		if !bad[p] && n[p] >= 2 && seen[p] == n[p] {
			return int8(p)
		}
	}
	return -1
}

// genCommSession opens a session of 2-4 ranks on free slots and a path no
// live handle uses: the first comm_init now, the others owed.
func (g *Generator) genCommSession(ch Chooser) op.Op {
	free := g.gs.commFree
	k := 2 + ch.IntN(min(3, len(free)-1), "ranks")
	path := int8(0)
	for path < op.MaxCommPaths && g.pathHeld(path, false) {
		path++
	}
	if path == op.MaxCommPaths {
		return g.genCommInit(ch)
	}
	slots := append([]int8(nil), free...)
	shuffle(ch, "slots", slots)
	for r := 1; r < k; r++ {
		g.due = append(g.due, op.Op{Kind: op.KindCommInit, Comm: op.CommRecipe{H: slots[r], Rank: int64(r), NRanks: int32(k), Path: path, Stream: op.NullRef}})
	}
	return op.Op{Kind: op.KindCommInit, Comm: op.CommRecipe{H: slots[0], Rank: 0, NRanks: int32(k), Path: path, Stream: op.NullRef}}
}

// genCommCollective is one call on every rank of a session: the first
// now, the others owed.
func (g *Generator) genCommCollective(ch Chooser) op.Op {
	path := g.sessionOfRanks()
	var hs []int8
	for h := int8(0); h < op.MaxCommHandles; h++ {
		if v := g.st.Model().CommHandleOf(h); v.Live && v.Path == path {
			hs = append(hs, h)
		}
	}
	first := g.st.Model().CommHandleOf(hs[0])
	n := uint64(first.NRanks)
	var ops []op.Op
	each := func(f func(v model.CommHandleView) op.CommRecipe, k op.Kind) {
		for _, h := range hs {
			c := f(g.st.Model().CommHandleOf(h))
			c.H = h
			ops = append(ops, op.Op{Kind: k, Comm: c})
		}
	}
	win := pickU64(ch, "win", genCommWins[1:])
	a := uint8(ch.IntN(4, "a"))
	switch x := ch.IntN(10, "collective"); {
	case !first.Windows && x < 7:
		each(func(model.CommHandleView) op.CommRecipe { return op.CommRecipe{Win: win} }, op.KindCommAlloc)
	case first.Windows && x < 5:
		each(func(model.CommHandleView) op.CommRecipe { return op.CommRecipe{} }, op.KindCommBarrier)
	case x < 8 && len(first.Domains) > 0:
		a = first.Domains[ch.IntN(len(first.Domains), "a")]
		each(func(v model.CommHandleView) op.CommRecipe {
			return op.CommRecipe{ID: a, N: n, Rank: int64(v.Rank)}
		}, op.KindCommDomainRelease)
	case x < 8:
		// Each rank's rank_ids names itself at its domain rank (E-COMM.26).
		each(func(v model.CommHandleView) op.CommRecipe {
			return op.CommRecipe{ID: a, N: n, Rank: int64(v.Rank), Win: win, IDs: op.IDsRecipe{AtSet: v.Rank > 0, At: uint8(v.Rank), Val: uint32(v.Rank)}}
		}, op.KindCommDomainAlloc)
	default:
		each(func(model.CommHandleView) op.CommRecipe { return op.CommRecipe{} }, op.KindCommDestroy)
	}
	shuffle(ch, "order", ops)
	g.due = append(g.due, ops[1:]...)
	return ops[0]
}

func shuffle[T any](ch Chooser, label string, xs []T) {
	for i := len(xs) - 1; i > 0; i-- {
		j := ch.IntN(i+1, label)
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// pathHeld reports whether a live handle has path p, with several a rank
// of several (a handle of one rank does not join such a session).
func (g *Generator) pathHeld(p int8, several bool) bool {
	for h := int8(0); h < op.MaxCommHandles; h++ {
		if v := g.st.Model().CommHandleOf(h); v.Live && v.Path == p && (!several || v.NRanks > 1) {
			return true
		}
	}
	return false
}
