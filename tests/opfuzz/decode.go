package opfuzz

import (
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// The op sequences of the fuzz targets, the rapid state machines and the
// recorded runs come from the one generator of conformance
// (conformance.Generator), driven by a chooser: the fuzzer's bytes
// (conformance.ByteChooser) or rapid's draws (package tests). The generator
// covers the whole op space (conformance/op/doc.go: every kind, every image,
// config, span, args and prog recipe family, fault sites with valid and
// invalid arguments, the two-thread ops, the run family), bounded so that a
// sequence stays cheap.

// HoldMs is the hold time of the X-2 ops in random sequences: the second
// call starts 5 ms into the hold, and a launch that takes more than half of
// it counts as waiting (conformance/doc.go "Concurrency ops"). The runners
// here hold the gate through the simulation hook instead (no sleep).
const HoldMs = 20

// MaxOps bounds one fuzz input's op sequence. A 48-op sequence reads about
// 230 input bytes (five per op, at most about 460); the rest of a longer
// input is not read. The cap keeps each input cheap enough that Go's engine
// can minimize the ones it keeps within -fuzzminimizetime (docs/fuzzing.md);
// at an equal number of calls, random sequences of 48 ops kill as many
// mutants as sequences of 200 (docs/performance.md).
const MaxOps = 48

// FillOneIn makes the fill to 8192 residents (M-4) a 1-in-1000 choice of a
// kernel prepare in fuzz inputs (the generator's default is 1 in 300): an
// input with a fill costs about a hundred without one.
const FillOneIn = 1000

// Config bounds what the generator produces.
type Config struct {
	Profile model.Profile
	Slots   int   // contexts c0..c(Slots-1)
	Devices int   // devices 0..Devices-1
	HoldMs  int32 // hold time of the X-2 ops; 0 leaves them out
	// MaxHolds caps the hold ops of one sequence (each costs HoldMs of wall
	// time on a target without the gate hook); 0 means 3.
	MaxHolds int
	MaxOps   int
	NoFill   bool // leave out the fill to 8192 residents (M-4)
	// FillOneIn: a kernel prepare is the fill with probability 1/FillOneIn
	// (0: the generator's 1/300).
	FillOneIn int
	// ACLOnly: the target has no simulation hooks, only an ACL (as on
	// silicon): no fault injection, no hold ops, no clearing or reading the
	// device, stream completion not driven; the runner starts on device 0.
	ACLOnly bool
}

// NewGenerator is the generator for cfg.
func NewGenerator(cfg Config) *conformance.Generator {
	if cfg.MaxOps <= 0 {
		cfg.MaxOps = MaxOps
	}
	if cfg.MaxHolds <= 0 {
		cfg.MaxHolds = 3
	}
	caps := catalogue.CapSetDevice | catalogue.CapClearDevice | catalogue.CapGetDevice | catalogue.CapSync |
		catalogue.CapInject | catalogue.CapDriven | catalogue.CapCounters
	if cfg.ACLOnly {
		caps = catalogue.CapSetDevice | catalogue.CapSync | catalogue.CapCounters
	}
	return conformance.NewGenerator(conformance.GenOptions{Profile: cfg.Profile, Slots: cfg.Slots, Devices: cfg.Devices,
		Caps: caps, HoldMs: cfg.HoldMs, MaxHolds: cfg.MaxHolds, NoFill: cfg.NoFill, FillOneIn: cfg.FillOneIn})
}

// Decode is the deterministic decoder of the op-sequence fuzz targets: the
// first byte picks the profile, the rest are choices until they run out or
// the sequence has maxOps ops. Any input decodes. At most one hold op per
// input.
func Decode(data []byte, maxOps int, holdMs int32) (model.Profile, []op.Op) {
	c := conformance.NewByteChooser(data)
	p := model.ProfileTMR
	if c.IntN(4, "profile") == 3 {
		p = model.ProfileRefusing
	}
	g := NewGenerator(Config{Profile: p, Slots: 4, Devices: 3, HoldMs: holdMs, MaxHolds: 1, MaxOps: maxOps, FillOneIn: FillOneIn})
	for !c.Exhausted() && len(g.Ops()) < maxOps {
		g.Next(c)
	}
	return p, g.Ops()
}
