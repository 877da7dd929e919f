package op

import (
	"strconv"

	"github.com/simabi/simabi/abi"
)

// The kernel-mode entries: kinit, prepare, launch.

func init() {
	define(KindKInit, kindDef{
		name: "kinit", args: ctxOne, kernel: true, entry: true, status: true, nullable: true,
		parse: func(p *opParser) {
			op := &p.op
			op.C = p.ctx(p.positional(1)[0])
			v, _ := p.take("dev", true)
			op.Dev = p.int32v("dev", v)
			v, _ = p.take("gen", true)
			op.Gen = p.uintv("gen", v, 64)
			if v, ok := p.take("cfg", false); ok {
				op.Cfg = p.cfg(v)
			}
			p.spans(3)
		},
		format: func(t *opText, op Op) {
			t.w(ctxText(op.C), "dev="+strconv.Itoa(int(op.Dev)), "gen="+strconv.FormatUint(op.Gen, 10))
			if op.Cfg != (CfgRecipe{}) {
				t.w("cfg=" + op.Cfg.String())
			}
			t.spans(op, 3)
		},
		trace: traceKInit,
	})
	define(KindPrepare, kindDef{
		name: "prepare", args: ctxOne, kernel: true, entry: true, status: true, nullable: true, prepares: true,
		parse: func(p *opParser) {
			op := &p.op
			op.C = p.ctx(p.positional(1)[0])
			v, _ := p.take("img", true)
			op.Img = p.image(v)
			if v, ok := p.take("out", false); ok {
				switch v {
				case "null":
					op.OutNull = true
				case "ptr":
				default:
					p.fail("bad out=%q (ptr or null)", v)
				}
			}
			p.rep()
		},
		format: func(t *opText, op Op) {
			t.w(ctxText(op.C), "img="+op.Img.String())
			if op.OutNull {
				t.w("out=null")
			}
			t.rep(op)
		},
		trace: tracePrepare,
		// A prepare takes the gate whatever it answers.
		gate: func(abi.Status) bool { return true },
	})
	define(KindLaunch, kindDef{
		name: "launch", args: ctxOne, kernel: true, entry: true, status: true, nullable: true,
		parse: func(p *opParser) {
			p.op.C = p.ctx(p.positional(1)[0])
			p.launchArgs()
			p.rep()
		},
		format: func(t *opText, op Op) {
			t.w(ctxText(op.C), "id="+strconv.Itoa(int(op.ID)))
			t.args(op)
			t.w("stream=" + streamText(op.Stream))
			t.rep(op)
		},
		trace: traceLaunch,
		// A launch refused with IA or IS did not take the gate: its
		// arguments are checked before it, and IS is (among others) the
		// fail-fast refusal itself.
		gate: func(st abi.Status) bool { return st != abi.InvalidState && st != abi.InvalidArgument },
	})
}
