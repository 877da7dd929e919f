package conformance

import (
	"strconv"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// The program-mode entries: pinit (simpler_init), acl
// (ensure_acl_ready_ctx), and prog (every other program-side entry, called
// with deliberately bad arguments).

func init() {
	defineOp(op.KindPInit, opClass{
		latchRule: model.RL4,
		gen: func(g *Generator, s *genState) {
			g.onSlot(6, s.live, 0, func(g *Generator, ch Chooser, c int8) op.Op {
				op := op.Op{Kind: op.KindPInit, C: c, Dev: g.devAny(ch)}
				if ch.IntN(4, "pinit") == 3 {
					op.Spans = g.spans(ch, 4)
					if ch.IntN(2, "prewarm") == 0 {
						// prewarm=null is the absent prewarm config (the grammar folds it).
						if cfg := g.cfg(ch); !cfg.Null {
							op.Prewarm, op.Cfg = true, cfg
						}
					}
				}
				return op
			})
			g.onNull(1, op.KindPInit) // S-3
		},
		rule: model.REPInit,
		call: func(r *Runner, cur op.Op, h abi.Ctx, o *op.Observation) {
			p0, n0 := r.span(0, cur.Spans[0])
			p1, n1 := r.span(1, cur.Spans[1])
			p2, n2 := r.span(2, cur.Spans[2])
			p3, n3 := r.span(3, cur.Spans[3])
			var pw unsafe.Pointer
			if cur.Prewarm {
				pw = unsafe.Pointer(unsafe.SliceData(op.CfgBytes(cur.Cfg, r.view().Profile() == model.ProfileLegacy)))
			}
			o.Call.Status = r.rt.SimplerInit(h, cur.Dev, p0, n0, p1, n1, p2, n2, pw, 0, p3, uint64(n3))
			if cur.C >= 0 && o.Call.Status == abi.OK {
				r.slots[cur.C].dev = cur.Dev
			}
		},
	})
	defineOp(op.KindACL, opClass{
		latchRule: model.RL4,
		gen: func(g *Generator, s *genState) {
			g.onSlot(6, s.live, 0, func(g *Generator, ch Chooser, c int8) op.Op {
				return op.Op{Kind: op.KindACL, C: c, Dev: g.devAny(ch)}
			})
			g.onNull(1, op.KindACL) // S-3
		},
		rule: model.REACL,
		call: func(r *Runner, op op.Op, h abi.Ctx, o *op.Observation) {
			o.Call.Status = r.rt.EnsureACLReady(h, op.Dev)
		},
	})
	defineOp(op.KindProg, opClass{
		gen: func(g *Generator, s *genState) {
			fn := func(ch Chooser) op.ProgFn { return op.ProgFn(ch.IntN(int(op.NumFns), "fn")) }
			g.onSlot(10, s.live, 0, func(_ *Generator, ch Chooser, c int8) op.Op { return op.Op{Kind: op.KindProg, C: c, Fn: fn(ch)} })
			g.add(1, func(g *Generator, ch Chooser) op.Op { return op.Op{Kind: op.KindProg, C: op.NullRef, Fn: fn(ch)} }) // S-3
		},
		legacySkip: func(cur op.Op) string {
			if cur.Fn == op.FnMemInfo {
				return "legacy build: no device_memory_info_ctx"
			}
			return ""
		},
		rule: model.REProg,
		call: func(r *Runner, op op.Op, h abi.Ctx, o *op.Observation) { r.prog(h, op.Fn, o) },
		result: func(e *Entry) string {
			switch fn := e.Op.Fn; {
			case fn.StatusEntry():
				return op.StatusName(e.Obs.Call.Status)
			case fn == op.FnFree:
				return "done"
			case fn == op.FnMalloc || fn == op.FnCommCreate || fn == op.FnArenaBase || fn == op.FnRetainedTemp:
				return nonNull(e)
			}
			return "value=" + strconv.FormatUint(e.Obs.Call.Value, 10)
		},
	})
}
