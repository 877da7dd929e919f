package conformance

import (
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// Every op kind is declared by the language (conformance/op) and by the
// engine: an opClass registered by defineOp from the file of its family
// (ops_*.go). The runner and the reports dispatch through the table; none
// of them switches on the kind.

// opClass is what one op kind owns in the engine.
type opClass struct {
	memProbe   memProbe                          // how the context's committed memory is read
	legacySkip func(op op.Op) string             // why a legacy build cannot run op ("" when it can)
	reps       func(e *Entry, o *op.Observation) // folds a repetition into the entry
	// latchRule is the latch rule a trace of a refusal breaks besides the
	// entry's (L-4 program inits, L-5 kernel init).
	latchRule model.Rule

	// needs is what the op requires of a target and, when missing, the
	// rule it leaves undriven and why (nil: nothing).
	needs func(op op.Op) (catalogue.Caps, model.Rule, string)
	rule  model.Rule // what a crash or hang names (EntryRule; RuleNone: the one needs names)
	// ready says why the call is not made in the present state ("" or nil:
	// it is).
	ready func(r *Runner, op op.Op) string
	// run executes the whole op where one call per repetition does not
	// fit (the two-thread ops, unload).
	run func(r *Runner, i int, op op.Op, e *Entry)
	// park makes the call on a thread of its own when it waits for peers
	// later ops bring, and reports whether it did (ops_commpark.go).
	park   func(r *Runner, i int, op op.Op, e *Entry) bool
	call   func(r *Runner, op op.Op, h abi.Ctx, o *op.Observation) // makes the op's one call
	result func(e *Entry) string                                   // a history line's result (nil: the status)
	// annotation, branch and fixed are a two-thread op's history: what the
	// scheduler decided, the branch it took where that changes what
	// follows, and the part of the result no branch changes.
	annotation, branch, fixed func(e *Entry) string
	gen                       func(g *Generator, s *genState) // the generator's candidates (nil: none)
}

// memProbe says how the committed memory of an op's context is read.
type memProbe uint8

const (
	memAfter    memProbe = iota // query it after the call
	memNone                     // not at all (destroy: the handle may be gone)
	memFromCall                 // the call is the query (committed)
	memFromZero                 // after the call, from 0 before it (create)
)

var opClasses [op.NumKinds]*opClass

// defineOp registers the class of kind k; each kind is defined once.
func defineOp(k op.Kind, c opClass) {
	if !k.Defined() || opClasses[k] != nil {
		panic("conformance: op kind " + strconv.Itoa(int(k)) + " defined twice or not in the op language")
	}
	if (c.rule == model.RuleNone && c.needs == nil) || (c.run == nil && c.call == nil) {
		panic("conformance: op kind " + k.String() + " lacks its rule or execution")
	}
	opClasses[k] = &c
}

// classOf is op kind k's class (nil for an unknown kind).
func classOf(k op.Kind) *opClass {
	if k <= op.KindInvalid || k >= op.NumKinds {
		return nil
	}
	return opClasses[k]
}

// legacyUnavailable says why a legacy build cannot run op, or "".
func legacyUnavailable(op op.Op) string {
	c := classOf(op.Kind)
	switch {
	case c == nil:
		return ""
	case op.Kind.Kernel():
		return "legacy build: no kernel entries (program-mode rules only)"
	case c.legacySkip != nil:
		return c.legacySkip(op)
	}
	return ""
}

// needs says what an op requires and, when missing, which rule it leaves
// undriven and why.
func needs(op op.Op) (catalogue.Caps, model.Rule, string) {
	if c := classOf(op.Kind); c != nil && c.needs != nil {
		return c.needs(op)
	}
	return 0, model.RuleNone, ""
}

// EntryRule is the rule a crash or hang of op is reported under when no
// check names the rules: its entry's (S-3 for a NULL context), or the rule
// an environment op drives.
func EntryRule(op op.Op) model.Rule {
	c := classOf(op.Kind)
	if c == nil {
		return model.RuleNone
	}
	if op.NullCtxCall() && !op.Kind.RunFamily() {
		return model.RS3
	}
	if c.rule != model.RuleNone {
		return c.rule
	}
	if _, r, _ := c.needs(op); r != model.RuleNone && r != model.RHooks {
		return r
	}
	return model.RD2
}

// need is a needs function for an op that always needs caps to drive rule.
func need(caps catalogue.Caps, rule model.Rule, why string) func(op.Op) (catalogue.Caps, model.Rule, string) {
	return func(op.Op) (catalogue.Caps, model.Rule, string) { return caps, rule, why }
}
