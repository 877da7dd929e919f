package op

import (
	"strconv"

	"github.com/simabi/simabi/abi"
)

// The op table of the language. Every op kind is defined once, by define
// from the file of its family (ops_*.go): its name, the context slots it
// names, what the entry it calls is (a kernel-mode entry, one that returns a
// status, one held to S-3 for a NULL context, ...), its text form (a field
// list, fields.go, from which Parse, String and the reading of a recorded
// call derive) and what the recorder records of it otherwise (trace, answer). The model
// (conformance/model) and the engine (conformance) keep their own tables of
// what they do per kind, keyed by the same Kind; nothing in the layers
// switches on the kind.

// kindDef is what the language knows of one op kind.
type kindDef struct {
	name string
	// args says which context slots the op names: ctxOne (op.C), ctxTwo
	// (op.C and op.C2) or ctxNone.
	args ctxArgs
	// makesContext: the op fills its slot with a new context (create);
	// every other op runs only on a slot that holds a live one.
	makesContext bool
	// kernel: the op calls a kernel-mode entry (a legacy build has none).
	kernel bool
	// entry: the op calls an entry of the runtime (not the checker's own
	// hooks and buffers).
	entry bool
	// status: the entry returns a status of the contract's status table
	// (S-1 and S-2 apply); statusFn decides instead when set.
	status   bool
	statusFn func(op Op) bool
	// nullable: the entry takes a context and is held to S-3 when it is
	// NULL.
	nullable bool
	// twoThread: the op runs calls on two threads.
	twoThread bool
	// serial is a two-thread op's calls in one serial order (Op.Serial).
	serial func(op Op) []Op
	// runFamily: the run family on real run storage (program mode).
	runFamily bool
	// prepares: the op prepares a callable on the runner's thread, so the
	// caller's copy of the image must be left untouched (M-6).
	prepares bool
	// gate says whether a call of the kind that answered st held its
	// context's submission gate from some point inside its interval
	// until it took effect (nil: it never takes the gate).
	gate func(st abi.Status) bool
	// polls: the entry answers simpler_poll_run's documented COMPLETE (1).
	polls func(op Op) bool
	// quiet: a call of the op passes no fault site (a query, create, the
	// device hooks): one the trace checker cannot judge leaves the armed
	// sites as they were.
	quiet bool
	// commCodes: the entry answers the comm backend's own codes, 0 or -1
	// (E-COMM), not the status table of S-1 and S-2.
	commCodes bool

	// fields are the op's text form (fields.go); check, when set, is a rule
	// between fields, run after they are read; zero is the op an absent
	// optional field leaves as it is.
	fields []field
	check  func(p *opParser)
	zero   Op
	// trace, when set, reads what the recorder records of a call otherwise
	// than its fields' text (trace.go; the fields read their own recorded
	// values); answer reads its result into c.Obs (nil: a status, with the
	// out= and accepted= a result may carry).
	trace  func(f *traceFields)
	answer func(p *traceParser, c *TraceCall, a *traceAnswer)
}

// ctxArgs says which slots an op names.
type ctxArgs uint8

const (
	ctxNone ctxArgs = iota
	ctxOne
	ctxTwo
)

var kinds [NumKinds]*kindDef

// define registers the definition of kind k; each kind is defined once.
func define(k Kind, d kindDef) {
	if k <= KindInvalid || k >= NumKinds || kinds[k] != nil {
		panic("op: kind " + strconv.Itoa(int(k)) + " defined twice or out of range")
	}
	d.zero.Kind = k
	for _, f := range d.fields {
		if f.init != nil {
			f.init(&d.zero)
		}
	}
	kinds[k] = &d
}

// defOf is kind k's definition (nil for an unknown kind).
func defOf(k Kind) *kindDef {
	if k <= KindInvalid || k >= NumKinds {
		return nil
	}
	return kinds[k]
}

// KindByName finds the kind whose text form is name.
func KindByName(name string) (Kind, bool) {
	for k, d := range kinds {
		if d != nil && d.name == name {
			return Kind(k), true
		}
	}
	return KindInvalid, false
}

// Defined reports whether k is a kind of the language.
func (k Kind) Defined() bool { return defOf(k) != nil }

// Predicates over the table.

// MakesContext reports whether an op of kind k fills its slot with a new
// context.
func (k Kind) MakesContext() bool { d := defOf(k); return d != nil && d.makesContext }

// Kernel reports whether an op of kind k calls a kernel-mode entry.
func (k Kind) Kernel() bool { d := defOf(k); return d != nil && d.kernel }

// Entry reports whether an op of kind k calls an entry of the runtime (not
// the checker's own hooks and buffers).
func (k Kind) Entry() bool { d := defOf(k); return d != nil && d.entry }

// Serial is op's calls in one serial order, for comparing two runtimes
// call by call: which racer of a racekinit wins the claim, and whether the
// second call of a hold op overlapped the prepare, are the scheduler's
// choice, not the runtime's. A one-thread op is itself.
func (o Op) Serial() []Op {
	if d := defOf(o.Kind); d != nil && d.serial != nil {
		return d.serial(o)
	}
	return []Op{o}
}

// TwoThread reports whether an op of kind k runs calls on two threads.
func (k Kind) TwoThread() bool { d := defOf(k); return d != nil && d.twoThread }

// RunFamily reports whether kind k is one of the run family with valid
// arguments.
func (k Kind) RunFamily() bool { d := defOf(k); return d != nil && d.runFamily }

// Prepares reports whether an op of kind k prepares a callable on the
// runner's thread (M-6: the caller's image stays untouched).
func (k Kind) Prepares() bool { d := defOf(k); return d != nil && d.prepares }

// PassesSites reports whether a call of kind k may pass a fault site (an
// entry on a context, or a synchronize); the queries, create, the device
// hooks and the calls the op grammar does not model pass none.
func (k Kind) PassesSites() bool { d := defOf(k); return d != nil && !d.quiet }

// StatusCall reports whether op's call returns a status of the contract's
// status table (S-1, S-2 apply): the runtime's entries, not the checker's
// hooks.
func (op Op) StatusCall() bool {
	d := defOf(op.Kind)
	switch {
	case d == nil:
		return false
	case d.statusFn != nil:
		return d.statusFn(op)
	}
	return d.status
}

// NullCtxCall reports whether op calls an entry with a NULL context (S-3).
func (op Op) NullCtxCall() bool {
	d := defOf(op.Kind)
	return op.C == NullRef && d != nil && d.nullable
}

// HoldsGate reports whether a call of op that answered st held its
// context's submission gate (X-2: a launch overlapping a prepare or another
// launch fails fast).
func (op Op) HoldsGate(st abi.Status) bool {
	d := defOf(op.Kind)
	return d != nil && d.gate != nil && d.gate(st)
}

// Polls reports whether op's entry may answer simpler_poll_run's documented
// COMPLETE (1).
func (op Op) Polls() bool {
	d := defOf(op.Kind)
	return d != nil && d.polls != nil && d.polls(op)
}

// Slots returns the context slots op targets (NullRef when none).
func (op Op) Slots() (int8, int8) {
	d := defOf(op.Kind)
	switch {
	case d == nil:
		return NullRef, NullRef
	case d.args == ctxOne:
		return op.C, NullRef
	case d.args == ctxTwo:
		return op.C, op.C2
	}
	return NullRef, NullRef
}
