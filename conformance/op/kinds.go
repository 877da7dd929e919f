package op

import (
	"strconv"

	"github.com/simabi/simabi/abi"
)

// The op table: every kind is defined once, by define in the ops_*.go file
// of its family, with its text form (a field list, fields.go).

// kindDef is what the language knows of one op kind.
type kindDef struct {
	name         string
	args         ctxArgs // the context slots the op names
	makesContext bool    // it fills its slot with a new context (create)
	kernel       bool    // it calls a kernel-mode entry (a legacy build has none)
	entry        bool    // it calls a runtime entry (not the checker's hooks and buffers)
	// status: the entry returns a status of the contract's table (S-1,
	// S-2); statusFn decides instead when set.
	status    bool
	statusFn  func(op Op) bool
	nullable  bool                  // held to S-3 for a NULL context
	twoThread bool                  // calls on two threads
	serial    func(op Op) []Op      // a two-thread op's calls in one serial order
	runFamily bool                  // the run family on real run storage
	prepares  bool                  // prepares on the runner's thread: the caller's image stays untouched (M-6)
	gate      func(abi.Status) bool // a call that answered st held the submission gate
	polls     func(op Op) bool      // may answer simpler_poll_run's COMPLETE (1)
	// quiet: passes no fault site, so a call the trace checker cannot
	// judge leaves the armed sites as they were.
	quiet     bool
	commCodes bool // answers the comm backend's 0 or -1 (E-COMM), not S-1/S-2

	// fields are the text form; check is a rule between fields; zero is
	// what absent optional fields leave.
	fields []field
	check  func(p *opParser)
	zero   Op
	// trace reads a recorded call beyond its fields; answer reads its
	// result into c.Obs (nil: a status, with out= and accepted=).
	trace  func(f *traceFields)
	answer func(p *traceParser, c *TraceCall, a *traceAnswer)
}

type ctxArgs uint8

const (
	ctxNone ctxArgs = iota
	ctxOne          // op.C
	ctxTwo          // op.C and op.C2
)

var kinds [NumKinds]*kindDef

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

var noKind kindDef

// defOf is kind k's definition (noKind for an unknown kind).
func defOf(k Kind) *kindDef {
	if k <= KindInvalid || k >= NumKinds || kinds[k] == nil {
		return &noKind
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
func (k Kind) Defined() bool { return defOf(k) != &noKind }

// Predicates over the table (kindDef says what each means).
func (k Kind) MakesContext() bool { return defOf(k).makesContext }
func (k Kind) Kernel() bool       { return defOf(k).kernel }
func (k Kind) Entry() bool        { return defOf(k).entry }
func (k Kind) TwoThread() bool    { return defOf(k).twoThread }
func (k Kind) RunFamily() bool    { return defOf(k).runFamily }
func (k Kind) Prepares() bool     { return defOf(k).prepares }

// CommCodes reports whether an op of kind k answers the comm backend's own
// codes, 0 or -1 (E-COMM), not the contract's status table.
func (k Kind) CommCodes() bool { return defOf(k).commCodes }

// PassesSites reports whether a call of kind k may pass a fault site.
func (k Kind) PassesSites() bool { return k.Defined() && !defOf(k).quiet }

// Serial is op's calls in one serial order, for comparing two runtimes
// call by call (which racer wins, whether a hold overlapped, is the
// scheduler's choice). A one-thread op is itself.
func (o Op) Serial() []Op {
	if d := defOf(o.Kind); d.serial != nil {
		return d.serial(o)
	}
	return []Op{o}
}

// StatusCall reports whether op's call returns a status of the contract's
// status table (S-1, S-2 apply).
func (op Op) StatusCall() bool {
	if d := defOf(op.Kind); d.statusFn != nil {
		return d.statusFn(op)
	}
	return defOf(op.Kind).status
}

// NullCtxCall reports whether op calls an entry with a NULL context (S-3).
func (op Op) NullCtxCall() bool { return op.C == NullRef && defOf(op.Kind).nullable }

// HoldsGate reports whether a call of op that answered st held its
// context's submission gate.
func (op Op) HoldsGate(st abi.Status) bool { d := defOf(op.Kind); return d.gate != nil && d.gate(st) }

// Polls reports whether op's entry may answer simpler_poll_run's COMPLETE.
func (op Op) Polls() bool { d := defOf(op.Kind); return d.polls != nil && d.polls(op) }

// Slots returns the context slots op targets (NullRef when none).
func (op Op) Slots() (int8, int8) {
	switch defOf(op.Kind).args {
	case ctxOne:
		return op.C, NullRef
	case ctxTwo:
		return op.C, op.C2
	}
	return NullRef, NullRef
}
