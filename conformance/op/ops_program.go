package op

import "github.com/simabi/simabi/abi/tracevocab"

// The program-mode entries: pinit, acl, and prog (every other program-side
// entry, called with deliberately bad arguments).

func init() {
	define(KindPInit, kindDef{
		name: "pinit", args: ctxOne, entry: true, status: true, nullable: true,
		fields: []field{ctxArg, devKey, spanKey(SpanAicpu), spanKey(SpanAicore), spanKey(SpanDispatcher), spanKey(SpanSDMA), prewarmKey},
	})
	define(KindACL, kindDef{
		name: "acl", args: ctxOne, entry: true, status: true, nullable: true, fields: []field{ctxArg, devKey},
	})
	define(KindProg, kindDef{
		name: "prog", args: ctxOne, entry: true, nullable: true,
		statusFn: func(op Op) bool { return op.Fn.StatusEntry() },
		polls:    func(op Op) bool { return op.Fn == FnPollRun },
		fields:   []field{ctxArg, enum("fn", fnNames[:], 0, func(o *Op) *ProgFn { return &o.Fn })},
		trace:    traceProg, answer: answerProg,
	})
}

// prewarmKey is pinit's prewarm=CFG (Op.Prewarm, Op.Cfg), or null.
var prewarmKey = field{key: "prewarm", samples: []string{"null", "ok", "threads=2+ring=badheap"},
	read: func(p *opParser, v string) {
		if v == "null" {
			return
		}
		if p.op.Prewarm, p.op.Cfg = true, p.cfg(v); p.op.Cfg.Null {
			p.fail("prewarm=null takes no other flags")
		}
	},
	text: func(o Op) string {
		if !o.Prewarm {
			return "null"
		}
		return o.Cfg.String()
	},
	rec: func(t *traceFields, v tracevocab.Value) {
		if v.Is("raw") {
			t.c.Op.Prewarm, t.c.Op.Cfg = true, keep[CfgRecipe](t)(traceCfg(v, t.p.t.Revision == "legacy"))
		}
	},
}
