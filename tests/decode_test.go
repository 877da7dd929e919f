package tests

import (
	"pgregory.net/rapid"

	"github.com/simabi/simabi/conformance"
)

// The op sequences of the rapid state machines and of FuzzOps come from the
// one generator of conformance (conformance.Generator), driven by a chooser:
// rapid draws (so rapid shrinks a failure by deleting steps and lowering
// draws) or the fuzzer's bytes (conformance.ByteChooser). The generator
// covers the whole op space (conformance/doc.go: every kind, every image,
// config, span, args and prog recipe family, fault sites with valid and
// invalid arguments, the two-thread ops, the run family), bounded so that a
// sequence stays cheap.

// holdMs is the hold time of the X-2 ops in random sequences: the second
// call starts 5 ms into the hold, and a launch that takes more than half of
// it counts as waiting (conformance/doc.go "Concurrency ops").
const holdMs = 20

// rapidChooser draws every choice from rapid.
type rapidChooser struct{ t *rapid.T }

func (c rapidChooser) IntN(n int, label string) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(c.t, label)
}

// decodeConfig bounds what the generator produces.
type decodeConfig struct {
	Profile conformance.Profile
	Slots   int   // contexts c0..c(Slots-1)
	Devices int   // devices 0..Devices-1
	HoldMs  int32 // hold time of the X-2 ops; 0 leaves them out
	// MaxHolds caps the hold ops of one sequence (each costs HoldMs of wall
	// time); 0 means 3.
	MaxHolds int
	MaxOps   int
	NoFill   bool // leave out the fill to 8192 residents (M-4)
	// ACLOnly: the target has no simulation hooks, only an ACL (as on
	// silicon): no fault injection, no hold ops, no clearing or reading the
	// device, stream completion not driven; the runner starts on device 0.
	ACLOnly bool
}

func newGenerator(cfg decodeConfig) *conformance.Generator {
	if cfg.MaxOps <= 0 {
		cfg.MaxOps = 200
	}
	if cfg.MaxHolds <= 0 {
		cfg.MaxHolds = 3
	}
	caps := conformance.CapSetDevice | conformance.CapClearDevice | conformance.CapGetDevice | conformance.CapSync |
		conformance.CapInject | conformance.CapDriven | conformance.CapCounters
	if cfg.ACLOnly {
		caps = conformance.CapSetDevice | conformance.CapSync | conformance.CapCounters
	}
	return conformance.NewGenerator(conformance.GenOptions{Profile: cfg.Profile, Slots: cfg.Slots, Devices: cfg.Devices,
		Caps: caps, HoldMs: cfg.HoldMs, MaxHolds: cfg.MaxHolds, NoFill: cfg.NoFill})
}

// decodeBytes is the deterministic decoder of FuzzOps: the first byte picks
// the profile, the rest are choices until they run out. At most one hold op
// per input: each costs holdMs of wall time, and fuzzing wants executions.
func decodeBytes(data []byte, maxOps int, holdMs int32) (conformance.Profile, []conformance.Op) {
	c := conformance.NewByteChooser(data)
	p := conformance.ProfileTMR
	if c.IntN(4, "profile") == 3 {
		p = conformance.ProfileRefusing
	}
	g := newGenerator(decodeConfig{Profile: p, Slots: 4, Devices: 3, HoldMs: holdMs, MaxHolds: 1, MaxOps: maxOps})
	for !c.Exhausted() && len(g.Ops()) < maxOps {
		g.Next(c)
	}
	return p, g.Ops()
}

// drawOps is the rapid state machine's op log: each Repeat action draws one
// op (rapid's -rapid.steps sets the mean length; the log is capped at
// cfg.MaxOps).
func drawOps(t *rapid.T, cfg decodeConfig) []conformance.Op {
	g := newGenerator(cfg)
	max := cfg.MaxOps
	if max <= 0 {
		max = 200
	}
	t.Repeat(map[string]func(*rapid.T){
		"op": func(t *rapid.T) {
			if len(g.Ops()) < max {
				g.Next(rapidChooser{t})
			}
		},
	})
	return g.Ops()
}

// opsGen is drawOps as a generator (for Example-driven hunts).
func opsGen(cfg decodeConfig) *rapid.Generator[[]conformance.Op] {
	return rapid.Custom(func(t *rapid.T) []conformance.Op { return drawOps(t, cfg) })
}

// serialized rewrites the two-thread ops of a sequence into one serial order
// for the differential runs: which racer of a racekinit wins the claim, and
// whether the second call of a hold op overlapped the prepare, depend on the
// scheduler, not on the runtime, so two runtimes' histories of them need not
// match line for line. racekinit cA cB becomes kinit cA; kinit cB (the order
// the model's primary expectation follows); holdlaunch / holdprepare become
// inject site=7 count=1 code=0 (the hold, without the sleep), the prepare,
// then the second call. The model-checked runs keep the ops as they are
//
func serialized(ops []conformance.Op) []conformance.Op {
	out := make([]conformance.Op, 0, len(ops))
	for _, op := range ops {
		switch op.Kind {
		case conformance.KindRaceKInit:
			a := conformance.Op{Kind: conformance.KindKInit, C: op.C, Dev: op.Dev, Gen: op.Gen, Cfg: op.Cfg}
			b := a
			b.C = op.C2
			out = append(out, a, b)
		case conformance.KindHoldLaunch, conformance.KindHoldPrepare:
			out = append(out, conformance.Op{Kind: conformance.KindInject, Site: 7, Count: 1},
				conformance.Op{Kind: conformance.KindPrepare, C: op.C, Img: op.Img})
			if op.Kind == conformance.KindHoldLaunch {
				out = append(out, conformance.Op{Kind: conformance.KindLaunch, C: op.C, ID: op.ID, Args: op.Args, Stream: op.Stream})
			} else {
				out = append(out, conformance.Op{Kind: conformance.KindPrepare, C: op.C, Img: op.Img2})
			}
		default:
			out = append(out, op)
		}
	}
	return out
}
