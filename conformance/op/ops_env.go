package op

import "strconv"

// The checker's environment and queries on no context: contract, setdev,
// getdev, sync, inject, clobber, unload, hostlog.

func init() {
	define(KindContract, kindDef{
		name: "contract", entry: true, quiet: true,
		parse:  func(p *opParser) { p.positional(0) },
		format: func(*opText, Op) {},
		trace:  traceNothing, answer: answerUnrecorded,
	})
	define(KindSetDev, kindDef{
		name: "setdev", quiet: true,
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
		trace: traceSetDev,
	})
	define(KindGetDev, kindDef{
		name: "getdev", quiet: true,
		parse:  func(p *opParser) { p.positional(0) },
		format: func(*opText, Op) {},
		trace:  traceNothing, answer: answerValue,
	})
	define(KindSync, kindDef{
		name:   "sync",
		parse:  func(p *opParser) { p.op.Stream = p.stream(p.positional(1)[0]) },
		format: func(t *opText, op Op) { t.w(streamText(op.Stream)) },
		trace:  traceSync,
	})
	define(KindInject, kindDef{
		name: "inject", quiet: true,
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
		trace: traceInject,
	})
	define(KindClobber, kindDef{
		name: "clobber",
		parse: func(p *opParser) {
			p.positional(0)
			v, _ := p.take("img", true)
			p.op.Img = p.image(v)
		},
		format: func(t *opText, op Op) { t.w("img=" + op.Img.String()) },
	})
	define(KindUnload, kindDef{
		name: "unload", entry: true,
		parse:  func(p *opParser) { p.positional(0) },
		format: func(*opText, Op) {},
	})
	// The host-log binder (S-2): simpler_host_log_bind_state with a state
	// the op chooses: threshold= (Op.Code), version= (Op.Site, default 1),
	// size= (Op.Count, default 16), or null.
	define(KindHostLog, kindDef{
		name: "hostlog", entry: true, status: true,
		parse: func(p *opParser) {
			if len(p.pos) == 1 && p.pos[0] == "null" {
				p.positional(1)
				p.op.OutNull = true
				return
			}
			p.positional(0)
			v, _ := p.take("threshold", true)
			p.op.Code = p.int32v("threshold", v)
			p.op.Site, p.op.Count = 1, 16
			if v, ok := p.take("version", false); ok {
				p.op.Site = int32(p.uintv("version", v, 32))
			}
			if v, ok := p.take("size", false); ok {
				p.op.Count = int32(p.uintv("size", v, 31))
			}
		},
		format: func(t *opText, op Op) {
			if op.OutNull {
				t.w("null")
				return
			}
			t.w("threshold=" + strconv.Itoa(int(op.Code)))
			if op.Site != 1 {
				t.w("version=" + strconv.Itoa(int(op.Site)))
			}
			if op.Count != 16 {
				t.w("size=" + strconv.Itoa(int(op.Count)))
			}
		},
	})
}
