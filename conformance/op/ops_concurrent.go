package op

import "strconv"

// The two-thread ops: holdlaunch and holdprepare (X-2: a call while a
// prepare holds the gate, site 7) and racekinit (X-1: two kernel inits of
// one device from a barrier).

func init() {
	define(KindHoldLaunch, kindDef{
		name: "holdlaunch", args: ctxOne, kernel: true, status: true, twoThread: true, prepares: true,
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
