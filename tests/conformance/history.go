package conformance

import (
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi"
)

// repRun is a run of identical outcomes of a repeated op: n calls with one
// status and outs first..last.
type repRun struct {
	st          abi.Status
	first, last int32
	n           int
}

// Entry is what one op did on a target: observations only (statuses, the id
// left in out, the direction of committed memory, queried values), no raw
// handles or addresses, so that two targets' histories diff cleanly.
type Entry struct {
	Op      Op
	Skipped string      // why the op was not executed
	Obs     Observation // the first call (and, for hold and race ops, the second)
	memDir  string
	runs    []repRun // repeated ops: run-length of (status, out)
}

// History is the text history of one run: one entry per op.
type History struct {
	Profile Profile
	Entries []Entry
}

func (h History) String() string {
	var b strings.Builder
	for i := range h.Entries {
		b.WriteString(h.Entries[i].Line(i))
		b.WriteByte('\n')
	}
	return b.String()
}

// Lines renders one line per entry.
func (h History) Lines() []string {
	out := make([]string, len(h.Entries))
	for i := range h.Entries {
		out[i] = h.Entries[i].Line(i)
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

// Line renders entry i: "#i op -> result".
func (e *Entry) Line(i int) string {
	var b strings.Builder
	b.WriteByte('#')
	b.WriteString(strconv.Itoa(i))
	b.WriteByte(' ')
	b.WriteString(e.Op.String())
	b.WriteString(" -> ")
	b.WriteString(e.Result())
	return b.String()
}

func outcome(st abi.Status, out int32, withOut bool) string {
	s := statusName(st)
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
	o := &e.Obs
	var s string
	op := e.Op
	switch op.Kind {
	case KindCreate:
		s = "null"
		if o.HandleCreated {
			s = "ok"
		}
	case KindDestroy, KindClobber:
		s = "done"
	case KindSupported, KindGetDev:
		s = strconv.FormatInt(int64(o.Call.Value), 10)
	case KindCommitted:
		if op.C < 0 {
			s = "value=" + strconv.FormatUint(o.Call.Value, 10)
		}
	case KindContract:
		s = "admissible"
		if why := checkContract(o.Contract); why != "" {
			s = "inadmissible"
		}
	case KindProg:
		switch {
		case op.Fn.statusEntry():
			s = statusName(o.Call.Status)
		case op.Fn == FnFree:
			s = "done"
		case op.Fn == FnMalloc || op.Fn == FnCommCreate:
			s = "null"
			if o.Call.Value != 0 {
				s = "nonnull"
			}
		default:
			s = "value=" + strconv.FormatUint(o.Call.Value, 10)
		}
	case KindPrepare:
		if len(e.runs) > 0 {
			s = e.runText(!op.OutNull)
		} else {
			s = outcome(o.Call.Status, o.Call.Out, !op.OutNull)
		}
	case KindLaunch:
		if len(e.runs) > 0 {
			s = e.runText(false)
		} else {
			s = statusName(o.Call.Status)
		}
	case KindHoldLaunch:
		s = outcome(o.Call.Status, o.Call.Out, true) + " | " + statusName(o.Second.Status) + overlapText(o)
	case KindHoldPrepare:
		s = outcome(o.Call.Status, o.Call.Out, true) + " | " + outcome(o.Second.Status, o.Second.Out, true) + overlapText(o)
	case KindRaceKInit:
		s = statusName(o.Call.Status) + " | " + statusName(o.Second.Status)
	default:
		s = statusName(o.Call.Status)
	}
	if e.memDir != "" {
		if s != "" {
			s += " "
		}
		s += "mem=" + e.memDir
	}
	return s
}

func overlapText(o *Observation) string {
	if o.Overlap {
		return " overlapped"
	}
	return " sequential"
}

func (e *Entry) runText(withOut bool) string {
	var parts []string
	for _, r := range e.runs {
		s := statusName(r.st)
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

// addRep folds one repetition into the run-length summary: a run is either
// consecutive outs (minted ids) or one repeated out (-1 on failures, or the
// same wrong value every time, which a runtime breaking V-PREP-1 leaves).
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

// Diff compares two histories of the same ops line by line and returns a
// unified-style listing of the differing lines ("" when they agree).
func Diff(a, b History) string {
	var out strings.Builder
	n := max(len(a.Entries), len(b.Entries))
	for i := 0; i < n; i++ {
		var la, lb string
		if i < len(a.Entries) {
			la = a.Entries[i].Line(i)
		}
		if i < len(b.Entries) {
			lb = b.Entries[i].Line(i)
		}
		if la == lb {
			continue
		}
		if la != "" {
			out.WriteString("- " + la + "\n")
		}
		if lb != "" {
			out.WriteString("+ " + lb + "\n")
		}
	}
	return out.String()
}
