package op

import "strconv"

// The program-mode entries: pinit (simpler_init), acl
// (ensure_acl_ready_ctx), and prog (every other program-side entry, called
// with deliberately bad arguments).

func init() {
	define(KindPInit, kindDef{
		name: "pinit", args: ctxOne, entry: true, status: true, nullable: true,
		parse: func(p *opParser) {
			op := &p.op
			op.C = p.ctx(p.positional(1)[0])
			v, _ := p.take("dev", true)
			op.Dev = p.int32v("dev", v)
			p.spans(4)
			if v, ok := p.take("prewarm", false); ok && v != "null" {
				op.Prewarm = true
				op.Cfg = p.cfg(v)
				if op.Cfg.Null {
					p.fail("prewarm=null takes no other flags")
				}
			}
		},
		format: func(t *opText, op Op) {
			t.w(ctxText(op.C), "dev="+strconv.Itoa(int(op.Dev)))
			t.spans(op, 4)
			if op.Prewarm {
				t.w("prewarm=" + op.Cfg.String())
			}
		},
		trace: tracePInit,
	})
	define(KindACL, kindDef{
		name: "acl", args: ctxOne, entry: true, status: true, nullable: true,
		parse: func(p *opParser) {
			p.op.C = p.ctx(p.positional(1)[0])
			v, _ := p.take("dev", true)
			p.op.Dev = p.int32v("dev", v)
		},
		format: func(t *opText, op Op) { t.w(ctxText(op.C), "dev="+strconv.Itoa(int(op.Dev))) },
		trace:  traceInit,
	})
	define(KindProg, kindDef{
		name: "prog", args: ctxOne, entry: true, nullable: true,
		statusFn: func(op Op) bool { return op.Fn.StatusEntry() },
		polls:    func(op Op) bool { return op.Fn == FnPollRun },
		parse: func(p *opParser) {
			p.op.C = p.ctx(p.positional(1)[0])
			v, _ := p.take("fn", true)
			found := false
			for f := ProgFn(0); f < NumFns; f++ {
				if fnNames[f] == v {
					p.op.Fn, found = f, true
				}
			}
			if !found {
				p.fail("unknown fn=%q", v)
			}
		},
		format: func(t *opText, op Op) { t.w(ctxText(op.C), "fn="+op.Fn.String()) },
		trace:  traceProg, answer: answerProg,
	})
}
