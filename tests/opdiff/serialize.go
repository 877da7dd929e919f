package opdiff

import "github.com/simabi/simabi/conformance/op"

// Serialized rewrites the two-thread ops of a sequence into one serial order
// for the differential runs: which racer of a racekinit wins the claim, and
// whether the second call of a hold op overlapped the prepare, depend on the
// scheduler, not on the runtime, so two runtimes' histories of them need not
// match line for line. racekinit cA cB becomes kinit cA; kinit cB (the order
// the model's primary expectation follows); holdlaunch / holdprepare become
// inject site=7 count=1 code=0 (the hold, without the sleep), the prepare,
// then the second call. The model-checked runs keep the ops as they are
//
func Serialized(ops []op.Op) []op.Op {
	out := make([]op.Op, 0, len(ops))
	for _, o := range ops {
		switch o.Kind {
		case op.KindRaceKInit:
			a := op.Op{Kind: op.KindKInit, C: o.C, Dev: o.Dev, Gen: o.Gen, Cfg: o.Cfg}
			b := a
			b.C = o.C2
			out = append(out, a, b)
		case op.KindHoldLaunch, op.KindHoldPrepare:
			out = append(out, op.Op{Kind: op.KindInject, Site: 7, Count: 1},
				op.Op{Kind: op.KindPrepare, C: o.C, Img: o.Img})
			if o.Kind == op.KindHoldLaunch {
				out = append(out, op.Op{Kind: op.KindLaunch, C: o.C, ID: o.ID, Args: o.Args, Stream: o.Stream})
			} else {
				out = append(out, op.Op{Kind: op.KindPrepare, C: o.C, Img: o.Img2})
			}
		default:
			out = append(out, o)
		}
	}
	return out
}
