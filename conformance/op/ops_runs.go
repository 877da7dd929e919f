package op

import "strconv"

// The run family with valid arguments on real run storage (program mode):
// register, unregister, prepare_run, launch_run, poll_run, wait_run,
// finalize_run, run.

func init() {
	define(KindRegister, runDef(kindDef{
		name: "register",
		parse: func(p *opParser) {
			parseRunCtxID(p)
			if v, ok := p.take("img", false); ok {
				p.op.Img = p.image(v)
			}
		},
		format: func(t *opText, op Op) {
			t.w(ctxText(op.C), "id="+strconv.Itoa(int(op.ID)))
			if op.Img != (ImageRecipe{}) {
				t.w("img=" + op.Img.String())
			}
		},
		trace: traceRegister,
	}))
	define(KindUnregister, runDef(kindDef{
		name: "unregister", parse: parseRunCtxID,
		format: func(t *opText, op Op) { t.w(ctxText(op.C), "id="+strconv.Itoa(int(op.ID))) },
		trace:  traceID,
	}))
	define(KindPrepareRun, runDef(kindDef{name: "prepare_run", parse: parseRunStart, format: formatRunStart, trace: traceRun}))
	define(KindRun, runDef(kindDef{name: "run", parse: parseRunStart, format: formatRunStart, trace: traceRun}))
	define(KindLaunchRun, runDef(kindDef{name: "launch_run", parse: parseRunStorage, format: formatRunStorage, trace: traceRun}))
	define(KindPollRun, runDef(kindDef{name: "poll_run", parse: parseRunStorage, format: formatRunStorage, trace: traceRun,
		polls: func(Op) bool { return true }}))
	define(KindWaitRun, runDef(kindDef{name: "wait_run", parse: parseRunStorage, format: formatRunStorage, trace: traceRun}))
	define(KindFinalizeRun, runDef(kindDef{name: "finalize_run", parse: parseRunStorage, format: formatRunStorage, trace: traceRun}))
}

// runDef completes the definition of a run-family op: an entry on a context
// that returns a status, held to S-3 for NULL.
func runDef(d kindDef) kindDef {
	d.args, d.entry, d.status, d.nullable, d.runFamily = ctxOne, true, true, true, true
	return d
}

func parseRunCtxID(p *opParser) {
	p.op.C = p.ctx(p.positional(1)[0])
	v, _ := p.take("id", true)
	p.op.ID = p.int32v("id", v)
}

func parseRunStorage(p *opParser) {
	p.op.C = p.ctx(p.positional(1)[0])
	v, _ := p.take("st", true)
	p.op.St = p.storage(v)
}

func parseRunStart(p *opParser) {
	parseRunStorage(p)
	v, _ := p.take("id", true)
	p.op.ID = p.int32v("id", v)
	if v, ok := p.take("args", false); ok {
		p.op.Args = p.args(v)
	}
	// The run's CallConfig and descriptor are the runner's valid ones;
	// cfg=null and desc=null pass NULL (E-PROG: refused with IA).
	if v, ok := p.take("cfg", false); ok {
		if v != "null" {
			p.fail("cfg=%s: a run takes cfg=null or no cfg", v)
		}
		p.op.Cfg.Null = true
	}
	if v, ok := p.take("desc", false); ok {
		if v != "null" {
			p.fail("desc=%s: a run takes desc=null or no desc", v)
		}
		p.op.OutNull = true
	}
}

func storageText(st int8) string {
	if st < 0 {
		return "null"
	}
	return strconv.Itoa(int(st))
}

func formatRunStorage(t *opText, op Op) { t.w(ctxText(op.C), "st="+storageText(op.St)) }

func formatRunStart(t *opText, op Op) {
	t.w(ctxText(op.C), "st="+storageText(op.St), "id="+strconv.Itoa(int(op.ID)))
	t.args(op)
	if op.Cfg.Null {
		t.w("cfg=null")
	}
	if op.OutNull {
		t.w("desc=null")
	}
}
