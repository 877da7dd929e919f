package conformance

import (
	"strconv"
	"unsafe"

	"github.com/simabi/simabi/abi"
)

// The program-mode entries: pinit (simpler_init), acl
// (ensure_acl_ready_ctx), and prog (every other program-side entry, called
// with deliberately bad arguments).

func init() {
	defineOp(KindPInit, opClass{
		latchRule: RL4,
		gen: func(g *Generator, s *genState, add adder) {
			if len(s.live) > 0 {
				add(6, func(ch Chooser) Op {
					op := Op{Kind: KindPInit, C: g.pick(ch, "slot", s.live), Dev: g.devAny(ch)}
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
			}
			add(1, func(Chooser) Op { return Op{Kind: KindPInit, C: NullRef} }) // S-3
		},
		rule: fixedRule(REPInit),
		call: func(r *Runner, op Op, h abi.Ctx, o *Observation) {
			p0, n0 := r.span(0, op.Spans[0])
			p1, n1 := r.span(1, op.Spans[1])
			p2, n2 := r.span(2, op.Spans[2])
			p3, n3 := r.span(3, op.Spans[3])
			var pw unsafe.Pointer
			if op.Prewarm {
				if b := CfgBytes(op.Cfg, r.m.Profile() == ProfileLegacy); b != nil {
					pw = unsafe.Pointer(unsafe.SliceData(b))
				}
			}
			o.Call.Status = r.rt.SimplerInit(h, op.Dev, p0, n0, p1, n1, p2, n2, pw, 0, p3, uint64(n3))
			if op.C >= 0 && o.Call.Status == abi.OK {
				r.slots[op.C].dev = op.Dev
			}
		},
	})
	defineOp(KindACL, opClass{
		latchRule: RL4,
		gen: func(g *Generator, s *genState, add adder) {
			if len(s.live) > 0 {
				add(6, func(ch Chooser) Op { return Op{Kind: KindACL, C: g.pick(ch, "slot", s.live), Dev: g.devAny(ch)} })
			}
			add(1, func(Chooser) Op { return Op{Kind: KindACL, C: NullRef} }) // S-3
		},
		rule: fixedRule(REACL),
		call: func(r *Runner, op Op, h abi.Ctx, o *Observation) { o.Call.Status = r.rt.EnsureACLReady(h, op.Dev) },
	})
	defineOp(KindProg, opClass{
		gen: func(g *Generator, s *genState, add adder) {
			fn := func(ch Chooser) ProgFn { return ProgFn(ch.IntN(int(NumFns), "fn")) }
			if len(s.live) > 0 {
				add(10, func(ch Chooser) Op { return Op{Kind: KindProg, C: g.pick(ch, "slot", s.live), Fn: fn(ch)} })
			}
			add(1, func(ch Chooser) Op { return Op{Kind: KindProg, C: NullRef, Fn: fn(ch)} }) // S-3
		},
		legacySkip: func(op Op) string {
			if op.Fn == FnMemInfo {
				return "legacy build: no device_memory_info_ctx"
			}
			return ""
		},
		rule: fixedRule(REProg),
		call: func(r *Runner, op Op, h abi.Ctx, o *Observation) { r.prog(h, op.Fn, o) },
		result: func(e *Entry) string {
			o, op := &e.Obs, e.Op
			switch {
			case op.Fn.StatusEntry():
				return statusName(o.Call.Status)
			case op.Fn == FnFree:
				return "done"
			case op.Fn == FnMalloc || op.Fn == FnCommCreate:
				if o.Call.Value != 0 {
					return "nonnull"
				}
				return "null"
			}
			return "value=" + strconv.FormatUint(o.Call.Value, 10)
		},
	})
}
