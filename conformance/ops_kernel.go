package conformance

import (
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// The kernel-mode entries: kinit, prepare, launch.

func init() {
	defineOp(op.KindKInit, opClass{
		latchRule: model.RL5,
		gen: func(g *Generator, s *genState) {
			g.onSlot(80, s.fresh, 0, (*Generator).kinit)
			g.onSlot(8, s.live, 0, (*Generator).kinit)
		},
		rule: model.REKInit,
		call: func(r *Runner, op op.Op, h abi.Ctx, o *op.Observation) {
			p0, n0 := r.span(0, op.Spans[0])
			p1, n1 := r.span(1, op.Spans[1])
			p2, n2 := r.span(2, op.Spans[2])
			o.Call.Status = r.rt.KernelModeInit(h, op.Dev, p0, n0, p1, n1, p2, n2, cfgPtr(op.Cfg), op.Gen)
			if op.C >= 0 {
				r.slots[op.C].dev = op.Dev
			}
		},
	})
	defineOp(op.KindPrepare, opClass{
		gen: func(g *Generator, s *genState) {
			g.onSlot(5, s.callable, 0, (*Generator).prepare)
			g.onSlot(120, s.dispatch, 0, (*Generator).prepare)
			g.onNull(1, op.KindPrepare) // S-3
		},
		rule: model.REPrep,
		call: func(r *Runner, op op.Op, h abi.Ctx, o *op.Observation) {
			o.Call.Status, o.Call.Out = r.prepare(h, op, op.Img, r.out)
		},
		reps:   func(e *Entry, o *op.Observation) { e.addRep(o.Call.Status, o.Call.Out) },
		result: repsResult(true),
	})
	defineOp(op.KindLaunch, opClass{
		gen: func(g *Generator, s *genState) {
			g.onSlot(5, s.callable, 0, (*Generator).launch)
			g.onSlot(140, s.ready, 0, (*Generator).launch)
			g.onNull(1, op.KindLaunch) // S-3
		},
		rule: model.RELaunch,
		call: func(r *Runner, op op.Op, h abi.Ctx, o *op.Observation) {
			var sl slotState
			if op.C >= 0 {
				sl = r.slots[op.C]
			}
			args, t, s, host := r.formArgs(op, &sl)
			o.Call.ArgT, o.Call.ArgS, o.Call.ArgHost = t, s, host
			o.Call.Status = r.rt.KernelModeLaunch(h, op.ID, args, r.stream(op.Stream))
			if host {
				r.restoreArgs()
			}
		},
		reps:   func(e *Entry, o *op.Observation) { e.addRep(o.Call.Status, -1) },
		result: repsResult(false),
	})
}

// repsResult is a repeated op's result: its runs, or its one answer; with
// out the id it minted unless the out was NULL.
func repsResult(out bool) func(e *Entry) string {
	return func(e *Entry) string {
		withOut := out && !e.Op.OutNull
		if len(e.runs) > 0 {
			return e.runText(withOut)
		}
		return outcome(e.Obs.Call.Status, e.Obs.Call.Out, withOut)
	}
}

func (g *Generator) kinit(ch Chooser, slot int8) op.Op {
	dev, _ := g.st.Model().Device()
	o := op.Op{Kind: op.KindKInit, C: slot, Dev: dev, Gen: 1 + uint64(ch.IntN(4, "gen"))}
	if o.Dev < 0 || ch.IntN(8, "otherdev") == 7 {
		o.Dev = g.dev(ch)
	}
	switch ch.IntN(14, "kinit") {
	case 8:
		o.C = op.NullRef
	case 9:
		o.Gen = 0
	case 10:
		o.Dev = -1 - int32(ch.IntN(2, "dev"))
	case 11:
		o.Spans = g.spans(ch, 3)
	case 12, 13:
		o.Cfg = g.cfg(ch)
		if ch.IntN(4, "spans") == 3 {
			o.Spans = g.spans(ch, 3)
		}
	}
	return o
}

func (g *Generator) prepare(ch Chooser, slot int8) op.Op {
	cur := op.Op{Kind: op.KindPrepare, C: slot, Img: g.image(ch)}
	switch ch.IntN(50, "prepare") {
	case 46:
		cur.Img = op.ImageRecipe{Base: op.ImgNull}
	case 47:
		cur.OutNull = true
	case 48:
		cur.C = op.NullRef
	case 49:
		cur.Img = op.ImageRecipe{Base: op.ImgHuge}
	}
	cur.Rep = g.rep(ch)
	fillOneIn := g.o.FillOneIn
	if fillOneIn <= 0 {
		fillOneIn = 300
	}
	if mc, ok := g.st.Model().Context(slot); !g.o.NoFill && !g.filled && ok && mc.Latch == model.LatchKernel && mc.IDs < model.MaxIDs &&
		ch.IntN(fillOneIn, "fill") == fillOneIn-1 {
		// Fill the context to the resident limit and one past (M-4).
		cur.Img, cur.Rep, g.filled = op.ImageRecipe{X: uint16(ch.IntN(2, "x"))}, uint32(model.MaxIDs-mc.IDs+1), true
	}
	g.remember(cur.Img)
	return cur
}

func (g *Generator) launch(ch Chooser, slot int8) op.Op {
	mc, _ := g.st.Model().Context(slot)
	o := op.Op{Kind: op.KindLaunch, C: slot, Stream: g.stream(ch, slot)}
	n := mc.IDs
	if n > 0 {
		o.ID = int32(ch.IntN(n, "id"))
	}
	switch ch.IntN(100, "launch") {
	case 70, 71, 72, 73:
		o.ID = model.MaxIDs + int32(ch.IntN(2, "id"))
	case 74, 75:
		o.ID = -1
	case 76, 77, 78, 79, 80, 81:
		o.ID = int32(n + ch.IntN(3, "id"))
	case 82, 83:
		o.Args = op.ArgsRecipe{Mode: op.ArgsNull}
	case 84, 85:
		o.Stream = op.NullRef
	case 86, 87, 88:
		o.Args = op.ArgsRecipe{T: int16(1 - 2*ch.IntN(2, "dt"))}
	case 89, 90, 91:
		o.Args = op.ArgsRecipe{S: int16(1 - 2*ch.IntN(2, "ds"))}
	case 92, 93, 94:
		o.Args = op.ArgsRecipe{Host: true}
	case 95, 96:
		o.Args = op.ArgsRecipe{Mode: op.ArgsExact, T: int16(ch.IntN(4, "t")), S: int16(ch.IntN(3, "s")),
			Host: ch.IntN(4, "host") == 3, Junk: ch.IntN(2, "junk") == 1}
	case 97:
		o.C = op.NullRef
	case 98, 99:
		o.Args = op.ArgsRecipe{Junk: true, Host: ch.IntN(5, "host") == 4}
	}
	o.Rep = g.rep(ch)
	return o
}
