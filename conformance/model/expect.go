package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi"
)

// Blame names rule r for a failure that answered a status of When.
type Blame struct {
	Rule Rule
	When StatusSet
}

// Rules is a small set of rules an expectation also speaks for.
type Rules struct {
	n uint8
	r [4]Rule
}

// add puts r in the set (a full set drops it).
func (rs *Rules) add(r Rule) {
	if r == RuleNone || rs.Has(r) || int(rs.n) == len(rs.r) {
		return
	}
	rs.r[rs.n] = r
	rs.n++
}

// Has reports whether r is in the set.
func (rs Rules) Has(r Rule) bool { return slices.Contains(rs.r[:rs.n], r) }

// All are the rules of the set, in the order added.
func (rs Rules) All() []Rule { return rs.r[:rs.n] }

func (rs Rules) String() string {
	var parts []string
	for _, r := range rs.All() {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ", ")
}

// StatusSet is a set of statuses an expectation allows: a few exact values,
// every failure (NonZero), or anything (Any, where the contract says nothing).
type StatusSet struct {
	Any        bool
	NonZero    bool
	DeviceBand bool // -1..-999 (S-1: codes forwarded from the device)
	// Foreign: a lower layer's own code (D-2's tolerance): nonzero, no host
	// code of the contract, and (Model.tolerated) not an injected one.
	Foreign bool
	N       uint8
	V       [3]abi.Status
}

func one(s abi.Status) StatusSet { return StatusSet{N: 1, V: [3]abi.Status{s}} }

func two(a, b abi.Status) StatusSet { return StatusSet{N: 2, V: [3]abi.Status{a, b}} }

var (
	anyStatus  = StatusSet{Any: true}
	anyFailure = StatusSet{NonZero: true}
	foreign    = StatusSet{Foreign: true}
)

// Has reports whether s is in the set.
func (ss StatusSet) Has(s abi.Status) bool {
	if ss.Any || (ss.NonZero && s != abi.OK) || (ss.DeviceBand && s.IsDeviceLatched()) ||
		(ss.Foreign && s != abi.OK && !s.IsDefinedHost()) {
		return true
	}
	return ss.exact(s)
}

// single is the set's one exact value, when that is all it allows.
func (ss StatusSet) single() (abi.Status, bool) {
	if ss.Any || ss.NonZero || ss.DeviceBand || ss.Foreign || ss.N != 1 {
		return 0, false
	}
	return ss.V[0], true
}

// exact reports whether s is one of the set's exact values.
func (ss StatusSet) exact(s abi.Status) bool { return slices.Contains(ss.V[:ss.N], s) }

// hostOnly reports whether the set allows only exact host-band failures
// (<= -1000), so a device-band answer breaks S-1.
func (ss StatusSet) hostOnly() bool {
	if ss.Any || ss.NonZero || ss.DeviceBand || ss.Foreign || ss.N == 0 {
		return false
	}
	return !slices.ContainsFunc(ss.V[:ss.N], func(s abi.Status) bool { return !s.IsHostBand() })
}

// Empty reports whether the set allows nothing.
func (ss StatusSet) Empty() bool {
	return !ss.Any && !ss.NonZero && !ss.DeviceBand && !ss.Foreign && ss.N == 0
}

func (ss *StatusSet) add(s abi.Status) {
	if ss.Has(s) || int(ss.N) == len(ss.V) {
		return
	}
	ss.V[ss.N] = s
	ss.N++
}

func (ss *StatusSet) union(o StatusSet) {
	ss.Any = ss.Any || o.Any
	ss.NonZero = ss.NonZero || o.NonZero
	ss.DeviceBand = ss.DeviceBand || o.DeviceBand
	ss.Foreign = ss.Foreign || o.Foreign
	for i := 0; i < int(o.N); i++ {
		ss.add(o.V[i])
	}
}

// minus is ss without the exact values o holds (the flags stay).
func (ss StatusSet) minus(o StatusSet) StatusSet {
	out := ss
	out.N = 0
	for i := 0; i < int(ss.N); i++ {
		if !o.exact(ss.V[i]) {
			out.V[out.N] = ss.V[i]
			out.N++
		}
	}
	return out
}

// canon maps every exact value through f.
func (ss StatusSet) canon(f func(abi.Status) abi.Status) StatusSet {
	out := ss
	out.N = 0
	for i := 0; i < int(ss.N); i++ {
		out.add(f(ss.V[i]))
	}
	return out
}

func (ss StatusSet) String() string {
	switch {
	case ss.Any:
		return "any"
	case ss.Empty():
		return "nothing"
	}
	var parts []string
	for i := 0; i < int(ss.N); i++ {
		parts = append(parts, statusName(ss.V[i]))
	}
	if ss.NonZero {
		parts = append(parts, "any failure")
	}
	if ss.DeviceBand {
		parts = append(parts, "a device-band code")
	}
	if ss.Foreign {
		parts = append(parts, "a lower layer's own code")
	}
	return strings.Join(parts, " or ")
}

// statusName renders a status: its name when the contract names it, else its value.
func statusName(s abi.Status) string {
	if n := s.Name(); n != "" {
		return n
	}
	return strconv.Itoa(int(s))
}

// MemExpect is what committed_device_memory_ctx of the op's context must
// do (M-7).
type MemExpect uint8

// Committed-memory expectations.
const (
	MemUnchecked MemExpect = iota
	MemZero                // exactly 0
	MemSame                // unchanged
	MemUp                  // grew
	MemUpOrSame            // did not shrink
	MemAny                 // docs/contract.md says nothing
	MemZeroTolUp           // 0; nonzero is the tolerated C0 of a real build (warn)
)

var memNames = [...]string{"-", "0", "same", "up", "up-or-same", "any", "0 (tolerated: nonzero C0)"}

func (m MemExpect) String() string { return memNames[m] }

// Verdict is the result of one check.
type Verdict uint8

// Verdicts (Crash and Hang come from callers that isolate a run).
const (
	Pass Verdict = iota
	Fail
	Warn
	Skip
	Crash
	Hang
	Known // a failure, crash or hang a baseline accepts (Report.ApplyBaseline)
	NumVerdicts
)

var verdictNames = [NumVerdicts]string{"pass", "fail", "warn", "skip", "crash", "hang", "known"}

// Bad reports whether v fails a run: fail, crash or hang.
func (v Verdict) Bad() bool { return v == Fail || v == Crash || v == Hang }

func (v Verdict) String() string {
	if v < NumVerdicts {
		return verdictNames[v]
	}
	return "?"
}

// MarshalText renders the verdict for JSON.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Finding is one non-passing check: the op (index, repetition), the rule,
// and what differed.
type Finding struct {
	Index   int
	Rep     int
	Op      Op
	Rule    Rule
	Verdict Verdict
	Detail  string
	// Key names the finding across runs (its fingerprint) when the detail
	// does not: the statuses wanted and got, without the notes.
	Key string
	// Upto is the op a run makes before the finding shows, when after
	// Index (a parked comm call is judged when a later call releases it).
	Upto int
}

// Through is the index of the last op a run must make for f to show: a
// repro of f is the sequence up to and including it.
func (f Finding) Through() int { return max(f.Index, f.Upto) }

func (f Finding) String() string {
	s := "#" + strconv.Itoa(f.Index)
	if f.Rep > 0 {
		s += "." + strconv.Itoa(f.Rep)
	}
	return s + " " + f.Verdict.String() + " " + f.Rule.String() + ": " + f.Op.String() + ": " + f.Detail
}

// Expectation is the model's prediction for one call: the statuses allowed
// and the rule deciding them, the tolerated alternatives (warnings), the id
// written on success, committed memory and, for queries, the value.
type Expectation struct {
	Rule   Rule
	Status StatusSet
	Note   string
	// Also: further rules the status decision speaks for, tallied under
	// each (E-PREP's byte-budget steps are M-5 facts).
	Also Rules
	// Blame: rules a failure is also reported under when the observed
	// status is one they would produce (a kernel init answering IA where
	// it should succeed may have refused a span: V-SPAN).
	Blame   []Blame
	TolRule Rule
	Tol     StatusSet
	TolNote string

	CheckOut bool  // prepare with a non-NULL out: -1 on failure (V-PREP-1), the id on success
	OutKnown bool  // the id a success must write is known
	OutOK    int32 // the id a success must write
	OutRule  Rule  // M-1, or M-2 / M-3 when the id follows identical bytes or a failure

	Mem     MemExpect
	memSet  bool
	MemRule Rule

	CheckValue bool
	Value      uint64
	ValueRule  Rule
	ValueNote  string

	D1Rule Rule // D-1 (kernel path) or E-SUP (supported): no forbidden ACL call may happen

	CheckAccepted bool // launch_run succeeded: accepted_state holds accepted_value
	RunClause     bool // an outstanding-run clause (E-FIN, E-DESTROY), counted apart
	// Grounds: on a legacy build, the upstream file and line whose behaviour
	// the model asserts (docs/contract.md "Revisions").
	Grounds   string
	Unchecked bool // nothing is asserted (the model lost track)
	CommCodes bool // a comm family int entry: S-2 holds it to 0 and -1 (E-COMM)
}

func (e Expectation) String() string {
	if e.Unchecked {
		return "unchecked"
	}
	s := e.Rule.String()
	if e.Also.n > 0 {
		s += " (and " + e.Also.String() + ")"
	}
	s += ": " + e.Status.String()
	if e.Note != "" {
		s += " (" + e.Note + ")"
	}
	if !e.Tol.Empty() {
		s += "; tolerated " + e.Tol.String()
		if e.TolNote != "" {
			s += " (" + e.TolNote + ")"
		}
	}
	if e.CheckOut {
		s += "; out=" + strconv.Itoa(int(e.OutOK)) + " on success, -1 on failure"
	}
	if e.Mem != MemUnchecked {
		s += "; committed " + e.Mem.String()
	}
	if e.CheckValue {
		s += "; value " + strconv.FormatUint(e.Value, 10)
	}
	return s
}

// ParseVerdict reads a verdict name (pass, fail, warn, skip, crash, hang).
func ParseVerdict(s string) (Verdict, bool) {
	i := slices.Index(verdictNames[:], s)
	return Verdict(max(i, 0)), i >= 0
}

// UnmarshalText reads a verdict name (the inverse of MarshalText).
func (v *Verdict) UnmarshalText(b []byte) error {
	x, ok := ParseVerdict(string(b))
	if !ok {
		return fmt.Errorf("conformance: unknown verdict %q", b)
	}
	*v = x
	return nil
}
