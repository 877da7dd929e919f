package conformance

import (
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// Ops own their behaviour. Every op kind is defined in two places, each a
// table entry from the file of its family: the language's (conformance/op,
// ops_*.go: its name, the slots it names, what its entry is, its text and
// trace forms) and the engine's, an opClass registered by defineOp here
// (ops_*.go): what it needs of a target, the rule a crash of it names, how
// the runner makes its call, how the model judges it, how a history renders
// its result and how the model re-synchronises after an answer it did not
// predict. The runner, the model, the parsers and the reports dispatch
// through the tables; none of them switches on the kind.

// opClass is what one op kind owns in the engine.
type opClass struct {
	// memProbe is how the runner reads the context's committed memory
	// around the call (memAfter unless said otherwise).
	memProbe memProbe
	// legacySkip says why a legacy build cannot run op ("" when it can);
	// kernel ops are skipped there without it.
	legacySkip func(op op.Op) string
	// reps folds one repetition's answer into a repeated op's entry.
	reps func(e *Entry, o *op.Observation)
	// latchRule is the latch rule a trace of a refusal of this op breaks
	// besides the entry's (refusal probes): L-4 for the inits that latch
	// PROGRAM, L-5 for kernel init.
	latchRule model.Rule

	// needs is what the op requires of a target and, when missing, the
	// rule it leaves undriven and why (nil: nothing).
	needs func(op op.Op) (Caps, model.Rule, string)
	// rule is the rule a crash or hang of the op names (EntryRule).
	rule func(op op.Op) model.Rule
	// ready says why the runner does not make the op's call in the
	// present state ("" when it does; nil: always): a comm call that would
	// wait for peers that never come.
	ready func(r *Runner, op op.Op) string
	// run executes the whole op when the generic path (one call per
	// repetition, judged by the model after each) does not fit: the two
	// thread ops and unload.
	run func(r *Runner, i int, op op.Op, e *Entry)
	// park makes the op's call on a thread of its own when the model says
	// it waits for peers that later ops bring, and reports whether it did
	// (nil: never; ops_commpark.go); otherwise the generic path makes it.
	park func(r *Runner, i int, op op.Op, e *Entry) bool
	// call makes the op's one call and fills o.
	call func(r *Runner, op op.Op, h abi.Ctx, o *op.Observation)
	// result renders what the op returned in a history line (nil: the
	// status name).
	result func(e *Entry) string
	// annotation, branch and fixed are a two-thread op's history: what
	// the scheduler decided (shown after the canonical line), the branch it
	// took where that changes what follows, and the part of the result no
	// branch changes (nil: "", "", the whole result).
	annotation, branch, fixed func(e *Entry) string
	// gen offers the generator's candidates of this kind for the state s
	// (nil: the kind is never generated).
	gen func(g *Generator, s *genState)
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
	if c.rule == nil || (c.run == nil && c.call == nil) {
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

// Predicates over the table, for the places that ask about an op.

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
func needs(op op.Op) (Caps, model.Rule, string) {
	if c := classOf(op.Kind); c != nil && c.needs != nil {
		return c.needs(op)
	}
	return 0, model.RuleNone, ""
}

// EntryRule is the rule a crash or hang of op is reported under when no
// directed check names the rules: the rule of the entry the op calls (S-3
// for a NULL context), or for an environment op the rule it drives.
func EntryRule(op op.Op) model.Rule {
	c := classOf(op.Kind)
	if c == nil {
		return model.RuleNone
	}
	if op.NullCtxCall() && !op.Kind.RunFamily() {
		return model.RS3
	}
	return c.rule(op)
}

// fixedRule is a rule function for an op kind that always names rule r.
func fixedRule(r model.Rule) func(op.Op) model.Rule { return func(op.Op) model.Rule { return r } }

// needsRule is the rule an environment op drives: the one it leaves
// undriven when the target cannot run it.
func needsRule(op op.Op) model.Rule {
	if _, r, _ := needs(op); r != model.RuleNone && r != model.RHooks {
		return r
	}
	return model.RD2
}
