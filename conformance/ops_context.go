package conformance

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"strconv"

	"github.com/simabi/simabi/abi"
)

// The context's own entries: create, destroy, supported, finalize,
// committed.

func init() {
	defineOp(op.KindCreate, opClass{
		memProbe: memFromZero,
		gen: func(g *Generator, s *genState) {
			if len(s.free) > 0 {
				w := 20
				if len(s.live) == 0 {
					w = 400
				}
				g.add(w, func(g *Generator, ch Chooser) op.Op {
					return op.Op{Kind: op.KindCreate, C: g.pick(ch, "slot", g.gs.free)}
				})
			}
		},
		rule: fixedRule(model.RL1),
		call: func(r *Runner, op op.Op, _ abi.Ctx, o *op.Observation) {
			if old := r.slots[op.C]; old.used && r.view().SlotLive(op.C) {
				r.leaked = append(r.leaked, old)
			}
			nh := r.rt.CreateDeviceContext()
			r.slots[op.C] = slotState{h: nh, used: true, dev: -1}
			o.HandleCreated = nh != 0
			if nh != 0 {
				o.Call.Value = 1
			}
		},
		result: func(e *Entry) string {
			if e.Obs.HandleCreated {
				return "ok"
			}
			return "null"
		},
	})
	defineOp(op.KindDestroy, opClass{
		memProbe: memNone,
		gen: func(g *Generator, s *genState) {
			if len(s.live) > 0 {
				g.add(10, func(g *Generator, ch Chooser) op.Op {
					return op.Op{Kind: op.KindDestroy, C: g.pick(ch, "slot", g.gs.live)}
				})
			}
			g.add(1, func(*Generator, Chooser) op.Op { return op.Op{Kind: op.KindDestroy, C: op.NullRef} }) // S-3
		},
		rule:   fixedRule(model.REDestroy),
		call:   func(r *Runner, _ op.Op, h abi.Ctx, _ *op.Observation) { r.rt.DestroyDeviceContext(h) },
		result: func(*Entry) string { return "done" },
	})
	defineOp(op.KindSupported, opClass{
		gen: func(g *Generator, s *genState) {
			if len(s.live) > 0 {
				g.add(10, func(g *Generator, ch Chooser) op.Op {
					return op.Op{Kind: op.KindSupported, C: g.pick(ch, "slot", g.gs.live)}
				})
			}
			g.add(2, func(*Generator, Chooser) op.Op { return op.Op{Kind: op.KindSupported, C: op.NullRef} }) // S-3
		},
		rule: fixedRule(model.RESup),
		call: func(r *Runner, _ op.Op, h abi.Ctx, o *op.Observation) {
			o.Call.Value = uint64(int64(r.rt.KernelModeSupported(h)))
		},
		result: func(e *Entry) string { return strconv.FormatInt(int64(e.Obs.Call.Value), 10) },
	})
	defineOp(op.KindFinalize, opClass{
		gen: func(g *Generator, s *genState) {
			if len(s.kernel) > 0 {
				g.add(25, func(g *Generator, ch Chooser) op.Op {
					return op.Op{Kind: op.KindFinalize, C: g.pick(ch, "slot", g.gs.kernel)}
				})
			}
			if len(s.program) > 0 {
				g.add(10, func(g *Generator, ch Chooser) op.Op {
					return op.Op{Kind: op.KindFinalize, C: g.pick(ch, "slot", g.gs.program)}
				})
			}
			g.add(1, func(*Generator, Chooser) op.Op { return op.Op{Kind: op.KindFinalize, C: op.NullRef} }) // S-3
		},
		rule: fixedRule(model.REFin),
		call: func(r *Runner, _ op.Op, h abi.Ctx, o *op.Observation) { o.Call.Status = r.rt.FinalizeDevice(h) },
	})
	defineOp(op.KindCommitted, opClass{
		memProbe: memFromCall,
		gen: func(g *Generator, s *genState) {
			if len(s.live) > 0 {
				g.add(5, func(g *Generator, ch Chooser) op.Op {
					return op.Op{Kind: op.KindCommitted, C: g.pick(ch, "slot", g.gs.live)}
				})
			}
			g.add(1, func(*Generator, Chooser) op.Op { return op.Op{Kind: op.KindCommitted, C: op.NullRef} }) // S-3
		},
		rule: fixedRule(model.RM7),
		call: func(r *Runner, _ op.Op, h abi.Ctx, o *op.Observation) {
			v := uint64(r.rt.CommittedDeviceMemory(h))
			o.Call.Value, o.Mem = v, v
		},
		result: func(e *Entry) string {
			if e.Op.C < 0 {
				return "value=" + strconv.FormatUint(e.Obs.Call.Value, 10)
			}
			return ""
		},
	})
}
