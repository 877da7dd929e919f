package conformance

import (
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// The context's own entries: create, destroy, supported, finalize,
// committed.

func init() {
	defineOp(op.KindCreate, opClass{
		memProbe: memFromZero,
		gen: func(g *Generator, s *genState) {
			w := 20
			if len(s.live) == 0 {
				w = 400
			}
			g.onSlot(w, s.free, op.KindCreate, nil)
		},
		rule: model.RL1,
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
			g.onSlot(10, s.live, op.KindDestroy, nil)
			g.onNull(1, op.KindDestroy) // S-3
		},
		rule:   model.REDestroy,
		call:   func(r *Runner, _ op.Op, h abi.Ctx, _ *op.Observation) { r.rt.DestroyDeviceContext(h) },
		result: func(*Entry) string { return "done" },
	})
	defineOp(op.KindSupported, opClass{
		gen: func(g *Generator, s *genState) {
			g.onSlot(10, s.live, op.KindSupported, nil)
			g.onNull(2, op.KindSupported) // S-3
		},
		rule: model.RESup,
		call: func(r *Runner, _ op.Op, h abi.Ctx, o *op.Observation) {
			o.Call.Value = uint64(int64(r.rt.KernelModeSupported(h)))
		},
		result: func(e *Entry) string { return strconv.FormatInt(int64(e.Obs.Call.Value), 10) },
	})
	defineOp(op.KindFinalize, opClass{
		gen: func(g *Generator, s *genState) {
			g.onSlot(25, s.kernel, op.KindFinalize, nil)
			g.onSlot(10, s.program, op.KindFinalize, nil)
			g.onNull(1, op.KindFinalize) // S-3
		},
		rule: model.REFin,
		call: func(r *Runner, _ op.Op, h abi.Ctx, o *op.Observation) { o.Call.Status = r.rt.FinalizeDevice(h) },
	})
	defineOp(op.KindCommitted, opClass{
		memProbe: memFromCall,
		gen: func(g *Generator, s *genState) {
			g.onSlot(5, s.live, op.KindCommitted, nil)
			g.onNull(1, op.KindCommitted) // S-3
		},
		rule: model.RM7,
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
