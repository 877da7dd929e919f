package tests

import (
	"github.com/simabi/simabi/conformance/op"

	"pgregory.net/rapid"

	"github.com/simabi/simabi/tests/opfuzz"
)

// holdMs is the hold time of the X-2 ops in this package's sequences.
const holdMs = opfuzz.HoldMs

// decodeConfig bounds what the generator produces.
type decodeConfig = opfuzz.Config

// The op sequences of the rapid state machines come from the generator the
// fuzz targets decode their bytes with (tests/opfuzz), driven by rapid's
// draws: rapid shrinks a failure by deleting steps and lowering draws.

// rapidChooser draws every choice from rapid.
type rapidChooser struct{ t *rapid.T }

func (c rapidChooser) IntN(n int, label string) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(c.t, label)
}

// drawOps is the rapid state machine's op log: each Repeat action draws one
// op (rapid's -rapid.steps sets the mean length; the log is capped at
// cfg.MaxOps).
func drawOps(t *rapid.T, cfg decodeConfig) []op.Op {
	g := opfuzz.NewGenerator(cfg)
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
func opsGen(cfg decodeConfig) *rapid.Generator[[]op.Op] {
	return rapid.Custom(func(t *rapid.T) []op.Op { return drawOps(t, cfg) })
}
