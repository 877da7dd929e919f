package op

import "math"

// The two-thread ops: holdlaunch and holdprepare (X-2: a call while a
// prepare holds the gate, site 7) and racekinit. In serial order a
// racekinit cA cB is kinit cA; kinit cB, and a hold op is the hold without
// the wait, the prepare, then the second call.

func init() {
	holdMs := num("ms", 0, math.MaxInt32, func(o *Op) *int32 { return &o.Ms })
	define(KindHoldLaunch, kindDef{
		name: "holdlaunch", args: ctxOne, kernel: true, status: true, twoThread: true, prepares: true,
		serial: func(o Op) []Op {
			return append(heldPrepare(o), Op{Kind: KindLaunch, C: o.C, ID: o.ID, Args: o.Args, Stream: o.Stream})
		},
		fields: []field{slotArg, holdMs, imgKey, idKey, argsKey, streamKey},
	})
	define(KindHoldPrepare, kindDef{
		name: "holdprepare", args: ctxOne, kernel: true, status: true, twoThread: true, prepares: true,
		serial: func(o Op) []Op { return append(heldPrepare(o), Op{Kind: KindPrepare, C: o.C, Img: o.Img2}) },
		fields: []field{slotArg, holdMs, imgKey, image("img2", func(o *Op) *ImageRecipe { return &o.Img2 })},
	})
	define(KindRaceKInit, kindDef{
		name: "racekinit", args: ctxTwo, kernel: true, status: true, twoThread: true,
		serial: func(o Op) []Op {
			a := Op{Kind: KindKInit, C: o.C, Dev: o.Dev, Gen: o.Gen, Cfg: o.Cfg}
			b := a
			b.C = o.C2
			return []Op{a, b}
		},
		fields: []field{slotArg, slot2Arg, devKey, genKey},
		check: func(p *opParser) {
			if p.op.C == p.op.C2 {
				p.fail("racing one context against itself is X-3 (no result asserted)")
			}
		},
	})
}

// heldPrepare is a hold op's first calls in serial order.
func heldPrepare(o Op) []Op {
	return []Op{{Kind: KindInject, Site: 7, Count: 1}, {Kind: KindPrepare, C: o.C, Img: o.Img}}
}
