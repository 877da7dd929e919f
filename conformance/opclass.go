package conformance

import (
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi"
)

// Ops own their behaviour. Every op kind is defined in one place, an
// opClass registered by defineOp from the file of its kind (ops_*.go): its
// text form (parse and format), what it needs of a target, the rule a crash
// of it names, how the runner makes its call, how the model judges it, how a
// history renders its result and how the model re-synchronises after an
// answer it did not predict. Adding an op kind is a Kind constant (op.go)
// and one file with its defineOp. The runner, the model, the parser and the
// reports dispatch through the table; none of them switches on the kind.

// opClass is what one op kind owns.
type opClass struct {
	name string
	// args says which context slots the op names: ctxOne (op.C), ctxTwo
	// (op.C and op.C2) or ctxNone.
	args ctxArgs
	// makesContext: the op fills its slot with a new context (create);
	// every other op runs only on a slot that holds a live one.
	makesContext bool
	// kernel: the op calls a kernel-mode entry (a legacy build has none).
	kernel bool
	// entry: the op calls an entry of the runtime, so the ACL counters
	// are probed around it and a legacy build's codes are translated;
	// false for the checker's own hooks and buffers.
	entry bool
	// status: the entry returns a status of the contract's status table
	// (S-1 and S-2 apply); statusFn decides instead when set.
	status   bool
	statusFn func(op Op) bool
	// nullable: the entry takes a context and is held to S-3 when it is
	// NULL.
	nullable bool
	// twoThread: the op runs calls on two threads; the model
	// judges it with step2 and loses track after any surprise.
	twoThread bool
	// runFamily: the run family on real run storage (program mode).
	runFamily bool
	// memProbe is how the runner reads the context's committed memory
	// around the call (memAfter unless said otherwise).
	memProbe memProbe
	// legacySkip says why a legacy build cannot run op ("" when it can);
	// kernel ops are skipped there without it.
	legacySkip func(op Op) string
	// reps folds one repetition's answer into a repeated op's entry.
	reps func(e *Entry, o *Observation)
	// latchRule is the latch rule a trace of a refusal of this op breaks
	// besides the entry's (refusal probes): L-4 for the inits that latch
	// PROGRAM, L-5 for kernel init.
	latchRule Rule

	parse  func(p *opParser)
	format func(t *opText, op Op)
	// needs is what the op requires of a target and, when missing, the
	// rule it leaves undriven and why (nil: nothing).
	needs func(op Op) (Caps, Rule, string)
	// rule is the rule a crash or hang of the op names (EntryRule).
	rule func(op Op) Rule
	// run executes the whole op when the generic path (one call per
	// repetition, judged by the model after each) does not fit: the two
	// thread ops and unload.
	run func(r *Runner, i int, op Op, e *Entry)
	// call makes the op's one call and fills o.
	call func(r *Runner, op Op, h abi.Ctx, o *Observation)
	// step is the model's walk of the call on context c (nil for ops on
	// no context); step2 that of a two-thread op.
	// step returns what to do once the call is judged (or nil).
	step  func(m *Model, op Op, c *mctx, obs *Observation) func()
	step2 func(m *Model, op Op, obs *Observation, call, second *CallObs)
	// liveness is the op's bookkeeping once the model has lost track: the
	// slots it fills or empties (nil: none).
	liveness func(m *Model, op Op)
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
	gen func(g *Generator, s *genState, add adder)
	// resync follows an answer st the model did not predict (nil: the
	// model keeps its state).
	resync func(m *Model, op Op, c *mctx, st abi.Status)
}

// memProbe says how the committed memory of an op's context is read.
type memProbe uint8

const (
	memAfter    memProbe = iota // query it after the call
	memNone                     // not at all (destroy: the handle may be gone)
	memFromCall                 // the call is the query (committed)
	memFromZero                 // after the call, from 0 before it (create)
)

// ctxArgs says which slots an op names.
type ctxArgs uint8

const (
	ctxNone ctxArgs = iota
	ctxOne
	ctxTwo
)

var opClasses [numKinds]*opClass

// defineOp registers the class of kind k; each kind is defined once.
func defineOp(k Kind, c opClass) {
	if k <= KindInvalid || k >= numKinds || opClasses[k] != nil {
		panic("conformance: op kind " + strconv.Itoa(int(k)) + " defined twice or out of range")
	}
	if c.parse == nil || c.format == nil || c.rule == nil || (c.run == nil && c.call == nil) {
		panic("conformance: op kind " + c.name + " lacks its parser, format, rule or execution")
	}
	opClasses[k] = &c
}

// classOf is op kind k's class (nil for an unknown kind).
func classOf(k Kind) *opClass {
	if k <= KindInvalid || k >= numKinds {
		return nil
	}
	return opClasses[k]
}

// kindByName finds the kind whose text form is name.
func kindByName(name string) (Kind, bool) {
	for k, c := range opClasses {
		if c != nil && c.name == name {
			return Kind(k), true
		}
	}
	return KindInvalid, false
}

// opText writes an op's arguments after its name.
type opText struct{ b *strings.Builder }

// w writes parts, each after a space.
func (t *opText) w(parts ...string) {
	for _, p := range parts {
		t.b.WriteByte(' ')
		t.b.WriteString(p)
	}
}

// spans writes the first n binary spans that are not (NULL, 0).
func (t *opText) spans(op Op, n int) {
	for i := 0; i < n; i++ {
		if op.Spans[i] != SpanNone {
			t.w(spanKeys[i] + "=" + op.Spans[i].String())
		}
	}
}

// rep writes rep=N for a repeated op.
func (t *opText) rep(op Op) {
	if op.Rep != 0 {
		t.w("rep=" + strconv.FormatUint(uint64(op.Rep), 10))
	}
}

func (t *opText) args(op Op) {
	if op.Args != (ArgsRecipe{}) {
		t.w("args=" + op.Args.String())
	}
}

// Predicates over the table, for the places that ask about an op.

// kernelOp reports whether op calls a kernel-mode entry.
func kernelOp(op Op) bool { c := classOf(op.Kind); return c != nil && c.kernel }

// runOp reports whether op is one of the run family with valid arguments.
func runOp(op Op) bool { c := classOf(op.Kind); return c != nil && c.runFamily }

// legacyUnavailable says why a legacy build cannot run op, or "".
func legacyUnavailable(op Op) string {
	c := classOf(op.Kind)
	switch {
	case c == nil:
		return ""
	case c.kernel:
		return "legacy build: no kernel entries (program-mode rules only)"
	case c.legacySkip != nil:
		return c.legacySkip(op)
	}
	return ""
}

// twoThreadOp reports whether op runs calls on two threads.
func twoThreadOp(op Op) bool { c := classOf(op.Kind); return c != nil && c.twoThread }

// statusCall reports whether op's call returns a status of the contract's
// status table (S-1, S-2 apply): the runtime's entries, not the checker's
// hooks.
func statusCall(op Op) bool {
	c := classOf(op.Kind)
	switch {
	case c == nil:
		return false
	case c.statusFn != nil:
		return c.statusFn(op)
	}
	return c.status
}

// nullCtxCall reports whether op calls an entry with a NULL context (S-3).
func nullCtxCall(op Op) bool {
	c := classOf(op.Kind)
	return op.C == NullRef && c != nil && c.nullable
}

// needs says what an op requires and, when missing, which rule it leaves
// undriven and why.
func needs(op Op) (Caps, Rule, string) {
	if c := classOf(op.Kind); c != nil && c.needs != nil {
		return c.needs(op)
	}
	return 0, RuleNone, ""
}

// slots returns the context slots op targets (NullRef when none), for the
// runner's committed-memory probe.
func (op Op) slots() (int8, int8) {
	c := classOf(op.Kind)
	switch {
	case c == nil:
		return NullRef, NullRef
	case c.args == ctxOne:
		return op.C, NullRef
	case c.args == ctxTwo:
		return op.C, op.C2
	}
	return NullRef, NullRef
}

// EntryRule is the rule a crash or hang of op is reported under when no
// directed check names the rules: the rule of the entry the op calls (S-3
// for a NULL context), or for an environment op the rule it drives.
func EntryRule(op Op) Rule {
	c := classOf(op.Kind)
	if c == nil {
		return RuleNone
	}
	if nullCtxCall(op) && !c.runFamily {
		return RS3
	}
	return c.rule(op)
}

// fixedRule is a rule function for an op kind that always names rule r.
func fixedRule(r Rule) func(Op) Rule { return func(Op) Rule { return r } }

// needsRule is the rule an environment op drives: the one it leaves
// undriven when the target cannot run it.
func needsRule(op Op) Rule {
	if _, r, _ := needs(op); r != RuleNone && r != RHooks {
		return r
	}
	return RD2
}
