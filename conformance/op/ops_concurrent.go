package op

import "strconv"

// The two-thread ops: holdlaunch and holdprepare (X-2: a call while a
// prepare holds the gate, site 7) and racekinit (X-1: two kernel inits of
// one device from a barrier). In serial order (Op.Serial) a racekinit cA cB
// is kinit cA; kinit cB (the order the model's primary expectation
// follows), and a hold op is the hold without the wait (inject site=7
// count=1 code=0), the prepare, then the second call.

func init() {
	define(KindHoldLaunch, kindDef{
		name: "holdlaunch", args: ctxOne, kernel: true, status: true, twoThread: true, prepares: true,
		serial: func(o Op) []Op {
			return append(heldPrepare(o), Op{Kind: KindLaunch, C: o.C, ID: o.ID, Args: o.Args, Stream: o.Stream})
		},
		parse: func(p *opParser) {
			p.op.C = p.slot(p.positional(1)[0])
			p.hold()
			p.launchArgs()
		},
		format: func(t *opText, op Op) {
			t.w(ctxText(op.C), "ms="+strconv.Itoa(int(op.Ms)), "img="+op.Img.String(), "id="+strconv.Itoa(int(op.ID)))
			t.args(op)
			t.w("stream=" + streamText(op.Stream))
		},
	})
	define(KindHoldPrepare, kindDef{
		name: "holdprepare", args: ctxOne, kernel: true, status: true, twoThread: true, prepares: true,
		serial: func(o Op) []Op { return append(heldPrepare(o), Op{Kind: KindPrepare, C: o.C, Img: o.Img2}) },
		parse: func(p *opParser) {
			p.op.C = p.slot(p.positional(1)[0])
			p.hold()
			v, _ := p.take("img2", true)
			p.op.Img2 = p.image(v)
		},
		format: func(t *opText, op Op) {
			t.w(ctxText(op.C), "ms="+strconv.Itoa(int(op.Ms)), "img="+op.Img.String(), "img2="+op.Img2.String())
		},
	})
	define(KindRaceKInit, kindDef{
		name: "racekinit", args: ctxTwo, kernel: true, status: true, twoThread: true,
		serial: func(o Op) []Op {
			a := Op{Kind: KindKInit, C: o.C, Dev: o.Dev, Gen: o.Gen, Cfg: o.Cfg}
			b := a
			b.C = o.C2
			return []Op{a, b}
		},
		parse: func(p *opParser) {
			op := &p.op
			pos := p.positional(2)
			op.C, op.C2 = p.slot(pos[0]), p.slot(pos[1])
			if op.C == op.C2 {
				p.fail("racing one context against itself is X-3 (no result asserted)")
			}
			v, _ := p.take("dev", true)
			op.Dev = p.int32v("dev", v)
			v, _ = p.take("gen", true)
			op.Gen = p.uintv("gen", v, 64)
		},
		format: func(t *opText, op Op) {
			t.w(ctxText(op.C), ctxText(op.C2), "dev="+strconv.Itoa(int(op.Dev)), "gen="+strconv.FormatUint(op.Gen, 10))
		},
	})
}

// heldPrepare is a hold op's first call in serial order: the gate held once
// (site 7, no wait), then the prepare.
func heldPrepare(o Op) []Op {
	return []Op{{Kind: KindInject, Site: 7, Count: 1}, {Kind: KindPrepare, C: o.C, Img: o.Img}}
}
