package conformance

import (
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// The two-thread ops: holdlaunch and holdprepare (X-2: a call while a
// prepare holds the gate, site 7) and racekinit (X-1: two kernel inits of
// one device from a barrier). Each runs its own two threads (run), is
// judged against one serial order (step2), and its result shows the
// scheduler's branch apart from what the rules fix.

func init() {
	holdNeeds := need(catalogue.CapInject|catalogue.CapSetDevice, model.RX2, "X-2: holding the gate needs simabi_inject site 7")
	defineOp(op.KindHoldLaunch, opClass{
		// The candidates of both hold ops, from here.
		gen: func(g *Generator, s *genState) {
			if len(s.ready) > 0 && g.o.HoldMs > 0 && (g.o.MaxHolds == 0 || g.holds < g.o.MaxHolds) {
				g.onSlot(8, s.ready, 0, (*Generator).hold)
			}
		},
		needs:      holdNeeds,
		run:        func(r *Runner, i int, op op.Op, e *Entry) { r.hold(i, op, e) },
		annotation: func(e *Entry) string { return overlapText(&e.Obs) },
		// A held launch fails at once when it overlaps and runs normally
		// when it does not: only its prepare is fixed.
		branch: func(e *Entry) string { return overlapText(&e.Obs) },
		fixed: func(e *Entry) string {
			s := outcome(e.Obs.Call.Status, e.Obs.Call.Out, true)
			if e.memDir != "" {
				s += " mem=" + e.memDir
			}
			return s
		},
		result: func(e *Entry) string {
			o := &e.Obs
			return outcome(o.Call.Status, o.Call.Out, true) + " | " + op.StatusName(o.Second.Status)
		},
	})
	defineOp(op.KindHoldPrepare, opClass{
		needs: holdNeeds,
		run:   func(r *Runner, i int, op op.Op, e *Entry) { r.hold(i, op, e) },
		annotation: func(e *Entry) string {
			o := &e.Obs
			return overlapText(o) + "; img " + outcome(o.Call.Status, o.Call.Out, true) + ", img2 " +
				outcome(o.Second.Status, o.Second.Out, true)
		},
		// Which of two different images got the first id.
		branch: func(e *Entry) string {
			if e.Op.Img == e.Op.Img2 {
				return ""
			}
			o := &e.Obs
			return outcome(o.Call.Status, o.Call.Out, true) + "|" + outcome(o.Second.Status, o.Second.Out, true)
		},
		result: func(e *Entry) string {
			o := &e.Obs
			return pair(outcome(o.Call.Status, o.Call.Out, true), outcome(o.Second.Status, o.Second.Out, true))
		},
	})
	defineOp(op.KindRaceKInit, opClass{
		gen: func(g *Generator, s *genState) {
			dev, known := g.st.Model().Device()
			if len(s.fresh) >= 2 && g.o.Caps.Has(catalogue.CapSetDevice) && known && dev >= 0 && !g.st.Model().SiteArmed(1) && !g.st.Model().SiteArmed(9) {
				g.add(5, func(g *Generator, ch Chooser) op.Op {
					dev, _ := g.st.Model().Device() // the state gen saw: nothing ran in between
					a := ch.IntN(len(g.gs.fresh), "racer")
					b := (a + 1 + ch.IntN(len(g.gs.fresh)-1, "racer")) % len(g.gs.fresh)
					return op.Op{Kind: op.KindRaceKInit, C: g.gs.fresh[a], C2: g.gs.fresh[b], Dev: dev, Gen: 1 + uint64(ch.IntN(3, "gen"))}
				})
			}
		},
		needs: need(catalogue.CapSetDevice, model.RX1, "X-1: the racing thread needs a current device (hook or ACL)"),
		run:   func(r *Runner, i int, op op.Op, e *Entry) { r.race(i, op, e) },
		annotation: func(e *Entry) string {
			o := &e.Obs
			return op.CtxText(e.Op.C) + " " + op.StatusName(o.Call.Status) + ", " + op.CtxText(e.Op.C2) + " " + op.StatusName(o.Second.Status)
		},
		// The racer that got the claim.
		branch: func(e *Entry) string {
			return op.StatusName(e.Obs.Call.Status) + "|" + op.StatusName(e.Obs.Second.Status)
		},
		result: func(e *Entry) string {
			o := &e.Obs
			return pair(op.StatusName(o.Call.Status), op.StatusName(o.Second.Status))
		},
	})
}

func (g *Generator) hold(ch Chooser, slot int8) op.Op {
	mc, _ := g.st.Model().Context(slot)
	g.holds++
	if ch.IntN(2, "hold") == 0 {
		return op.Op{Kind: op.KindHoldLaunch, C: slot, Ms: g.o.HoldMs, Img: g.image(ch), ID: int32(ch.IntN(mc.IDs, "id")), Stream: max(mc.LastStream, 0)}
	}
	return op.Op{Kind: op.KindHoldPrepare, C: slot, Ms: g.o.HoldMs, Img: g.image(ch), Img2: g.image(ch)}
}
