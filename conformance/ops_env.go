package conformance

import (
	"strconv"
	"unsafe"

	"github.com/simabi/simabi/abi"
)

// The checker's environment and queries on no context: contract, setdev,
// getdev, sync, inject, clobber, unload.

func init() {
	defineOp(KindContract, opClass{
		name: "contract", entry: true,
		gen:    func(_ *Generator, _ *genState, add adder) { add(1, func(Chooser) Op { return Op{Kind: KindContract} }) },
		parse:  func(p *opParser) { p.positional(0) },
		format: func(*opText, Op) {},
		rule:   fixedRule(RVContract),
		call: func(r *Runner, _ Op, _ abi.Ctx, o *Observation) {
			o.Call.Value = 1
			if p := r.rt.GetPipelineContract(); p != nil {
				o.Contract = append([]byte(nil), unsafe.Slice((*byte)(p), 144)...)
			}
		},
		step: func(m *Model, _ Op, _ *mctx, obs *Observation) func() { m.contract(obs); return nil },
		result: func(e *Entry) string {
			if checkContract(e.Obs.Contract) != "" {
				return "inadmissible"
			}
			return "admissible"
		},
		resync: resyncNothing,
	})
	defineOp(KindSetDev, opClass{
		name: "setdev",
		gen: func(g *Generator, _ *genState, add adder) {
			add(20, func(ch Chooser) Op { return Op{Kind: KindSetDev, Dev: g.dev(ch)} })
			add(3, func(Chooser) Op { return Op{Kind: KindSetDev, Dev: -1} })
		},
		parse: func(p *opParser) {
			v := p.positional(1)[0]
			if v == "none" {
				p.op.Dev = -1
				return
			}
			p.op.Dev = p.int32v("device", v)
			if p.op.Dev < 0 {
				p.fail("setdev takes a device >= 0 or none")
			}
		},
		format: func(t *opText, op Op) {
			if op.Dev < 0 {
				t.w("none")
			} else {
				t.w(strconv.Itoa(int(op.Dev)))
			}
		},
		needs: func(op Op) (Caps, Rule, string) {
			if op.Dev < 0 {
				return CapClearDevice, RD2, "D-2: leaving the thread with no current device needs simabi_set_current_device (ACL cannot unset a device)"
			}
			return CapSetDevice, RD2, "D-2: target exports no simabi_set_current_device and no ACL was given"
		},
		rule: needsRule,
		call: func(r *Runner, op Op, _ abi.Ctx, o *Observation) {
			if r.hooks != nil {
				o.Call.Status = r.hooks.SimSetCurrentDevice(op.Dev)
			} else {
				o.Call.Status = abi.Status(r.acl.SetDevice(op.Dev))
			}
		},
		step: func(m *Model, op Op, _ *mctx, _ *Observation) func() {
			m.expect(RHooks, one(abi.OK), "simabi_set_current_device returns 0")
			m.curDev, m.devKnown = op.Dev, true
			return nil
		},
	})
	defineOp(KindGetDev, opClass{
		name:   "getdev",
		gen:    func(_ *Generator, _ *genState, add adder) { add(3, func(Chooser) Op { return Op{Kind: KindGetDev} }) },
		parse:  func(p *opParser) { p.positional(0) },
		format: func(*opText, Op) {},
		needs: func(Op) (Caps, Rule, string) {
			return CapGetDevice, RD1, "D-1: target exports no simabi_current_device"
		},
		rule: needsRule,
		call: func(r *Runner, _ Op, _ abi.Ctx, o *Observation) {
			o.Call.Value = uint64(int64(r.hooks.SimCurrentDevice()))
		},
		step: func(m *Model, _ Op, _ *mctx, _ *Observation) func() {
			m.expect(RHooks, anyStatus, "")
			if m.devKnown {
				// D-1 where the build has kernel entries; on a legacy build
				// only the hooks' own bookkeeping is left to check.
				r := RD1
				if !r.Applies(m.opt.Profile) {
					r = RHooks
				}
				m.value(r, uint64(int64(m.curDev)), "only the caller and program paths change the current device")
			}
			return nil
		},
		result: func(e *Entry) string { return strconv.FormatInt(int64(e.Obs.Call.Value), 10) },
	})
	defineOp(KindSync, opClass{
		name: "sync",
		gen: func(_ *Generator, s *genState, add adder) {
			if len(s.ready) > 0 {
				add(30, func(ch Chooser) Op { return Op{Kind: KindSync, Stream: int8(ch.IntN(3, "stream"))} })
			}
		},
		parse:  func(p *opParser) { p.op.Stream = p.stream(p.positional(1)[0]) },
		format: func(t *opText, op Op) { t.w(streamText(op.Stream)) },
		needs: func(Op) (Caps, Rule, string) {
			return CapSync, RELaunchAsync, "E-LAUNCH-ASYNC: target exports no simabi_sync_stream and no ACL was given"
		},
		rule: needsRule,
		call: func(r *Runner, op Op, _ abi.Ctx, o *Observation) {
			if r.hooks != nil {
				o.Call.Status = r.hooks.SimSyncStream(r.stream(op.Stream))
			} else {
				o.Call.Status = abi.Status(r.acl.SynchronizeStream(r.stream(op.Stream)))
			}
		},
		step: func(m *Model, op Op, _ *mctx, _ *Observation) func() { m.sync(op); return nil },
		resync: func(m *Model, op Op, _ *mctx, _ abi.Status) {
			// The stream was synchronized whatever it answered; only an armed
			// site 8 makes the rest uncertain.
			if m.sites[8].count > 0 {
				m.lose("#" + strconv.Itoa(m.curIdx) + " " + op.String() + " answered what the model did not predict while fault site 8 was armed")
			}
		},
	})
	defineOp(KindInject, opClass{
		name: "inject",
		gen:  func(g *Generator, _ *genState, add adder) { add(12, g.inject) },
		parse: func(p *opParser) {
			p.positional(0)
			v, _ := p.take("site", true)
			p.op.Site = p.int32v("site", v)
			v, _ = p.take("count", true)
			p.op.Count = p.int32v("count", v)
			v, _ = p.take("code", true)
			p.op.Code = p.int32v("code", v)
		},
		format: func(t *opText, op Op) {
			t.w("site="+strconv.Itoa(int(op.Site)), "count="+strconv.Itoa(int(op.Count)), "code="+strconv.Itoa(int(op.Code)))
		},
		needs: func(op Op) (Caps, Rule, string) {
			return CapInject, siteRuleOf(op.Site), "target exports no simabi_inject: fault site " + itoa(op.Site) + " cannot be driven"
		},
		rule: needsRule,
		call: func(r *Runner, op Op, _ abi.Ctx, o *Observation) {
			o.Call.Status = r.hooks.SimInject(op.Site, op.Count, op.Code)
		},
		step: func(m *Model, op Op, _ *mctx, _ *Observation) func() { m.inject(op); return nil },
	})
	defineOp(KindClobber, opClass{
		name: "clobber",
		gen: func(g *Generator, _ *genState, add adder) {
			if len(g.imgs) > 0 {
				add(3, func(ch Chooser) Op { return Op{Kind: KindClobber, Img: g.imgs[ch.IntN(len(g.imgs), "img")]} })
			}
		},
		parse: func(p *opParser) {
			p.positional(0)
			v, _ := p.take("img", true)
			p.op.Img = p.image(v)
		},
		format: func(t *opText, op Op) { t.w("img=" + op.Img.String()) },
		rule:   fixedRule(RM6),
		call: func(r *Runner, op Op, _ abi.Ctx, _ *Observation) {
			if b := r.images[op.Img]; b != nil && b.raw != nil {
				clear(b.raw[op.Img.Mis : int(op.Img.Mis)+len(b.facts.image)])
				b.dirty = true
			}
		},
		step: func(m *Model, _ Op, _ *mctx, _ *Observation) func() {
			m.clobbers++
			m.e.Unchecked = true
			return nil
		},
		result: func(*Entry) string { return "done" },
	})
	defineOp(KindUnload, opClass{
		name: "unload", entry: true,
		parse:  func(p *opParser) { p.positional(0) },
		format: func(*opText, Op) {},
		needs: func(Op) (Caps, Rule, string) {
			return CapUnload, RU1, "U-1: the target cannot be unloaded (the built-in simulator is Go code; a library needs a private copy per run)"
		},
		rule:   needsRule,
		run:    func(r *Runner, i int, op Op, e *Entry) { r.unload(i, op, e) },
		step:   func(m *Model, _ Op, _ *mctx, _ *Observation) func() { m.unload(); return nil },
		resync: resyncNothing,
	})
}

var injectCodes = []int32{-1234, -1300, -2001}

// inject arms a fault site: mostly a valid injection of site 1..10, now and
// then one the hook must refuse (site 0 or 11, a negative count, code 0).
func (g *Generator) inject(ch Chooser) Op {
	op := Op{Kind: KindInject, Site: int32(1 + ch.IntN(10, "site")),
		Count: int32(1 + ch.IntN(2, "count")), Code: injectCodes[ch.IntN(len(injectCodes), "code")]}
	switch op.Site {
	case 6:
		if ch.IntN(10, "fatal") < 7 {
			op.Site = 5
			break
		}
		op.Code, op.Count = 0, 1
	case 7:
		op.Code = int32(ch.IntN(2, "ms")) // hold 0 or 1 ms
	}
	switch ch.IntN(40, "badinject") {
	case 36:
		op.Site = int32(11 * ch.IntN(2, "site"))
	case 37:
		op.Count = -1
	case 38:
		op.Code, op.Site = 0, 2
	case 39:
		op.Count = 0
	}
	return op
}
