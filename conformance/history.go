package conformance

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// repRun is n calls of a repeated op with one status and outs first..last.
type repRun struct {
	st          abi.Status
	first, last int32
	n           int
}

// Entry is what one op did on a target: observations only, no raw handles
// or addresses, so that two targets' histories diff cleanly.
type Entry struct {
	Op      op.Op
	Skipped string         // why the op was not executed
	Obs     op.Observation // the first call (and, for hold and race ops, the second)
	memDir  string
	runs    []repRun // repeated ops: run-length of (status, out)
	// releasedBy is 1 + the op that released this parked call (0: none).
	releasedBy int
}

// ParkedUntil reports the op that released e's parked comm call.
func (e *Entry) ParkedUntil() (int, bool) { return e.releasedBy - 1, e.releasedBy > 0 }

// History is the text history of one run: one entry per op.
type History struct {
	Profile model.Profile
	Entries []Entry
}

func (h History) String() string {
	var b strings.Builder
	for _, l := range h.Lines() {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// Lines renders one Annotated line per entry (what a replay prints).
func (h History) Lines() []string {
	out := make([]string, len(h.Entries))
	for i := range h.Entries {
		out[i] = h.Entries[i].Annotated(i)
	}
	return out
}

func memDirOf(prev, cur uint64) string {
	switch {
	case cur == 0:
		return "0"
	case cur > prev:
		return "up"
	case cur < prev:
		return "down"
	}
	return "same"
}

// Line renders entry i: "#i op -> result", only what the rules determine,
// so two correct targets' lines are equal (the scheduler's part goes to
// the annotation).
func (e *Entry) Line(i int) string { return e.line(i, e.Result()) }

// Annotated is Line followed by the annotation, if any, in brackets.
func (e *Entry) Annotated(i int) string {
	l := e.Line(i)
	if a := e.Annotation(); a != "" {
		l += " [" + a + "]"
	}
	return l
}

func (e *Entry) line(i int, result string) string {
	return "#" + strconv.Itoa(i) + " " + e.Op.String() + " -> " + result
}

// classText is what the op's class renders with the field f picks, or
// def when it has none or the op was skipped.
func (e *Entry) classText(f func(*opClass) func(*Entry) string, def func() string) string {
	if c := classOf(e.Op.Kind); c != nil && f(c) != nil && e.Skipped == "" {
		return f(c)(e)
	}
	return def()
}

func none() string { return "" }

// Annotation is what the scheduler decided in a two-thread op, kept out of
// the canonical line ("" for other ops).
func (e *Entry) Annotation() string {
	return e.classText(func(c *opClass) func(*Entry) string { return c.annotation }, none)
}

// schedBranch is the scheduler's choice in a two-thread op where it can
// change what happens next ("" for other ops).
func (e *Entry) schedBranch() string {
	return e.classText(func(c *opClass) func(*Entry) string { return c.branch }, none)
}

// fixedResult is the part of a two-thread op's result no branch changes.
func (e *Entry) fixedResult() string {
	return e.classText(func(c *opClass) func(*Entry) string { return c.fixed }, e.Result)
}

// nonNull renders an address: they differ between any two runs, so a
// line says only whether there was one.
func nonNull(e *Entry) string {
	if e.Obs.Call.Value != 0 {
		return "nonnull"
	}
	return "null"
}

// pair renders two results as an unordered pair.
func pair(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return "{" + a + ", " + b + "}"
}

func outcome(st abi.Status, out int32, withOut bool) string {
	s := op.StatusName(st)
	if withOut {
		s += " out=" + strconv.Itoa(int(out))
	}
	return s
}

// Result renders what the op returned.
func (e *Entry) Result() string {
	if e.Skipped != "" {
		return "skipped"
	}
	var s string
	if c := classOf(e.Op.Kind); c != nil && c.result != nil {
		s = c.result(e)
	} else {
		s = op.StatusName(e.Obs.Call.Status)
	}
	if e.memDir != "" {
		if s != "" {
			s += " "
		}
		s += "mem=" + e.memDir
	}
	return s
}

func overlapText(o *op.Observation) string {
	if o.Overlap {
		return "overlapped"
	}
	return "sequential"
}

func (e *Entry) runText(withOut bool) string {
	var parts []string
	for _, r := range e.runs {
		s := op.StatusName(r.st)
		if withOut {
			s += " out=" + strconv.Itoa(int(r.first))
			if r.last != r.first {
				s += ".." + strconv.Itoa(int(r.last))
			}
		}
		parts = append(parts, s+" x"+strconv.Itoa(r.n))
	}
	return strings.Join(parts, "; ")
}

// addRep folds one repetition into the run-length summary: a run is
// consecutive outs (minted ids) or one repeated out.
func (e *Entry) addRep(st abi.Status, out int32) {
	if n := len(e.runs); n > 0 {
		r := &e.runs[n-1]
		consecutive := r.last-r.first == int32(r.n-1)
		constant := r.first == r.last
		if r.st == st && ((out == r.last+1 && consecutive) || (out == r.last && constant)) {
			r.last = out
			r.n++
			return
		}
	}
	e.runs = append(e.runs, repRun{st: st, first: out, last: out, n: 1})
}

// Diff compares two histories of the same ops line by line and lists the
// differing lines ("" when they agree). Where the scheduler took different
// branches of a two-thread op, that op's branch-free lines are compared
// and nothing after it (both runs may go on differently from there).
func Diff(a, b History) string {
	ds, _ := CompareSteps(a.Steps(), b.Steps())
	var out strings.Builder
	for _, d := range ds {
		if d.Old != "" {
			out.WriteString("- " + d.Old + "\n")
		}
		if d.New != "" {
			out.WriteString("+ " + d.New + "\n")
		}
	}
	return out.String()
}

// Step is one entry in the form two runs are compared in: the line, and
// for a two-thread op the scheduler's branch and the line without it.
type Step struct {
	Line   string `json:"l"`
	Branch string `json:"b,omitempty"`
	Fixed  string `json:"f,omitempty"` // the line with only the branch-free part of the result
}

// Steps are the history's entries as Steps.
func (h History) Steps() []Step {
	out := make([]Step, len(h.Entries))
	for i := range h.Entries {
		e := &h.Entries[i]
		out[i].Line = e.Line(i)
		if br := e.schedBranch(); br != "" {
			out[i].Branch, out[i].Fixed = br, e.line(i, e.fixedResult())
		}
	}
	return out
}

// StepDiff is one entry where two histories differ ("" for no entry).
type StepDiff struct {
	Index    int
	Old, New string
}

// CompareSteps compares two histories as Diff does: the entries that differ
// and how many leading entries it compared.
func CompareSteps(a, b []Step) ([]StepDiff, int) {
	var out []StepDiff
	n := max(len(a), len(b))
	for i := 0; i < n; i++ {
		la, lb := stepLine(a, i), stepLine(b, i)
		diverged := i < len(a) && i < len(b) && a[i].Branch != b[i].Branch
		if diverged {
			la, lb = cmp.Or(a[i].Fixed, a[i].Line), cmp.Or(b[i].Fixed, b[i].Line)
		}
		if la != lb {
			out = append(out, StepDiff{Index: i, Old: la, New: lb})
		}
		if diverged {
			return out, i + 1
		}
	}
	return out, n
}

// stepLine is step i's line, "" past the end.
func stepLine(s []Step, i int) string {
	if i < len(s) {
		return s[i].Line
	}
	return ""
}

// RunDiff runs ops on two targets (both to the end, ContinueAfterLoss) and
// diffs their histories.
func RunDiff(a, b Target, ops []op.Op, opt Options) (string, *Result, *Result) {
	opt.ContinueAfterLoss = true
	ra := NewRunner(a, opt)
	defer ra.Close()
	rb := NewRunner(b, opt)
	defer rb.Close()
	x, y := ra.Run(ops), rb.Run(ops)
	return Diff(x.History, y.History), x, y
}
