package op

import "math"

// The two-thread ops: holdlaunch and holdprepare (X-2: a call while a
// prepare holds the gate, site 7) and racekinit (X-1: two kernel inits of
// one device from a barrier). In serial order (Op.Serial) a racekinit cA cB
// is kinit cA; kinit cB (the order the model's primary expectation
// follows), and a hold op is the hold without the wait (inject site=7
// count=1 code=0), the prepare, then the second call.

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

// heldPrepare is a hold op's first call in serial order: the gate held once
// (site 7, no wait), then the prepare.
func heldPrepare(o Op) []Op {
	return []Op{{Kind: KindInject, Site: 7, Count: 1}, {Kind: KindPrepare, C: o.C, Img: o.Img}}
}
