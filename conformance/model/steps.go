package model

import (
	"strconv"

	"github.com/simabi/simabi/abi"
)

// The model's table of op kinds: how it walks a call of each kind. The
// language's table (conformance/op) says what a kind is; the engine's
// (conformance's opClass) how the runner makes its call; this one how the
// model judges it. Nothing in the model switches on the kind.

// stepDef is how the model judges one op kind.
type stepDef struct {
	// step is the model's walk of the call on context c (nil for ops on
	// no context); step2 that of a two-thread op. step returns what to do
	// once the call is judged (or nil).
	step  func(m *Model, op Op, c *mctx, obs *Observation) func()
	step2 func(m *Model, op Op, obs *Observation, call, second *CallObs)
	// liveness is the op's bookkeeping once the model has lost track: the
	// slots it fills or empties (nil: none).
	liveness func(m *Model, op Op)
	// resync follows an answer st the model did not predict (nil: the
	// model keeps its state).
	resync func(m *Model, op Op, c *mctx, st abi.Status)
}

var steps [NumKinds]*stepDef

// defineStep registers the model's walk of kind k; each kind is defined
// once.
func defineStep(k Kind, d stepDef) {
	if !k.Defined() || steps[k] != nil {
		panic("model: op kind " + strconv.Itoa(int(k)) + " defined twice or not in the op language")
	}
	if (d.step == nil) == (d.step2 == nil) {
		panic("model: op kind " + k.String() + " needs exactly one of step and step2")
	}
	steps[k] = &d
}

// stepOf is the model's walk of kind k (nil for a kind it does not know).
func stepOf(k Kind) *stepDef {
	if k <= KindInvalid || k >= NumKinds {
		return nil
	}
	return steps[k]
}

// resyncNothing: an unpredicted answer of the op leaves nothing to forget.
func resyncNothing(*Model, Op, *mctx, abi.Status) {}

// forgetContext: after an unpredicted answer the op's context is unknown.
func forgetContext(m *Model, _ Op, c *mctx, _ abi.Status) {
	if c != nil {
		m.forget(c)
	}
}

// Judges reports whether the model has its walk of kind k (defineStep).
func Judges(k Kind) bool { return stepOf(k) != nil }
