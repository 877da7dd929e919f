package conformance

import (
	"github.com/simabi/simabi/abi"
)

// The kernel-mode entries: kinit, prepare, launch.

func init() {
	defineOp(KindKInit, opClass{
		latchRule: RL5,
		gen: func(g *Generator, s *genState, add adder) {
			if len(s.fresh) > 0 {
				add(80, func(ch Chooser) Op { return g.kinit(ch, g.pick(ch, "slot", s.fresh)) })
			}
			if len(s.live) > 0 {
				add(8, func(ch Chooser) Op { return g.kinit(ch, g.pick(ch, "slot", s.live)) })
			}
		},
		rule: fixedRule(REKInit),
		call: func(r *Runner, op Op, h abi.Ctx, o *Observation) {
			p0, n0 := r.span(0, op.Spans[0])
			p1, n1 := r.span(1, op.Spans[1])
			p2, n2 := r.span(2, op.Spans[2])
			o.Call.Status = r.rt.KernelModeInit(h, op.Dev, p0, n0, p1, n1, p2, n2, cfgPtr(op.Cfg), op.Gen)
			if op.C >= 0 {
				r.slots[op.C].dev = op.Dev
			}
		},
	})
	defineOp(KindPrepare, opClass{
		gen: func(g *Generator, s *genState, add adder) {
			if len(s.callable) > 0 {
				add(5, func(ch Chooser) Op { return g.prepare(ch, g.pick(ch, "slot", s.callable)) })
			}
			if len(s.dispatch) > 0 {
				add(120, func(ch Chooser) Op { return g.prepare(ch, g.pick(ch, "slot", s.dispatch)) })
			}
			add(1, func(Chooser) Op { return Op{Kind: KindPrepare, C: NullRef} }) // S-3
		},
		rule: fixedRule(REPrep),
		call: func(r *Runner, op Op, h abi.Ctx, o *Observation) {
			o.Call.Status, o.Call.Out = r.prepare(h, op, op.Img, r.out)
		},
		reps: func(e *Entry, o *Observation) { e.addRep(o.Call.Status, o.Call.Out) },
		result: func(e *Entry) string {
			if len(e.runs) > 0 {
				return e.runText(!e.Op.OutNull)
			}
			return outcome(e.Obs.Call.Status, e.Obs.Call.Out, !e.Op.OutNull)
		},
	})
	defineOp(KindLaunch, opClass{
		gen: func(g *Generator, s *genState, add adder) {
			if len(s.callable) > 0 {
				add(5, func(ch Chooser) Op { return g.launch(ch, g.pick(ch, "slot", s.callable)) })
			}
			if len(s.ready) > 0 {
				add(140, func(ch Chooser) Op { return g.launch(ch, g.pick(ch, "slot", s.ready)) })
			}
			add(1, func(Chooser) Op { return Op{Kind: KindLaunch, C: NullRef} }) // S-3
		},
		rule: fixedRule(RELaunch),
		call: func(r *Runner, op Op, h abi.Ctx, o *Observation) {
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
		reps: func(e *Entry, o *Observation) { e.addRep(o.Call.Status, -1) },
		result: func(e *Entry) string {
			if len(e.runs) > 0 {
				return e.runText(false)
			}
			return statusName(e.Obs.Call.Status)
		},
	})
}

func (g *Generator) kinit(ch Chooser, slot int8) Op {
	dev, _ := g.m.Device()
	op := Op{Kind: KindKInit, C: slot, Dev: dev, Gen: 1 + uint64(ch.IntN(4, "gen"))}
	if op.Dev < 0 || ch.IntN(8, "otherdev") == 7 {
		op.Dev = g.dev(ch)
	}
	switch ch.IntN(14, "kinit") {
	case 8:
		op.C = NullRef
	case 9:
		op.Gen = 0
	case 10:
		op.Dev = -1 - int32(ch.IntN(2, "dev"))
	case 11:
		op.Spans = g.spans(ch, 3)
	case 12, 13:
		op.Cfg = g.cfg(ch)
		if ch.IntN(4, "spans") == 3 {
			op.Spans = g.spans(ch, 3)
		}
	}
	return op
}

func (g *Generator) prepare(ch Chooser, slot int8) Op {
	op := Op{Kind: KindPrepare, C: slot, Img: g.image(ch)}
	switch ch.IntN(50, "prepare") {
	case 46:
		op.Img = ImageRecipe{Base: ImgNull}
	case 47:
		op.OutNull = true
	case 48:
		op.C = NullRef
	case 49:
		op.Img = ImageRecipe{Base: ImgHuge}
	}
	op.Rep = g.rep(ch)
	if mc, ok := g.m.Context(slot); !g.o.NoFill && !g.filled && ok && mc.Latch == latchKernel && mc.IDs < maxIDs &&
		ch.IntN(300, "fill") == 299 {
		// Fill the context to the resident limit and one past (M-4).
		op.Img, op.Rep, g.filled = ImageRecipe{X: uint16(ch.IntN(2, "x"))}, uint32(maxIDs-mc.IDs+1), true
	}
	g.remember(op.Img)
	return op
}

func (g *Generator) launch(ch Chooser, slot int8) Op {
	mc, _ := g.m.Context(slot)
	op := Op{Kind: KindLaunch, C: slot, Stream: g.stream(ch, slot)}
	n := mc.IDs
	if n > 0 {
		op.ID = int32(ch.IntN(n, "id"))
	}
	switch ch.IntN(100, "launch") {
	case 70, 71, 72, 73:
		op.ID = maxIDs + int32(ch.IntN(2, "id"))
	case 74, 75:
		op.ID = -1
	case 76, 77, 78, 79, 80, 81:
		op.ID = int32(n + ch.IntN(3, "id"))
	case 82, 83:
		op.Args = ArgsRecipe{Mode: ArgsNull}
	case 84, 85:
		op.Stream = NullRef
	case 86, 87, 88:
		op.Args = ArgsRecipe{T: int16(1 - 2*ch.IntN(2, "dt"))}
	case 89, 90, 91:
		op.Args = ArgsRecipe{S: int16(1 - 2*ch.IntN(2, "ds"))}
	case 92, 93, 94:
		op.Args = ArgsRecipe{Host: true}
	case 95, 96:
		op.Args = ArgsRecipe{Mode: ArgsExact, T: int16(ch.IntN(4, "t")), S: int16(ch.IntN(3, "s")),
			Host: ch.IntN(4, "host") == 3, Junk: ch.IntN(2, "junk") == 1}
	case 97:
		op.C = NullRef
	case 98, 99:
		op.Args = ArgsRecipe{Junk: true, Host: ch.IntN(5, "host") == 4}
	}
	op.Rep = g.rep(ch)
	return op
}
