package tracevocab

import (
	"fmt"
	"strconv"
	"strings"
)

// The lines of a trace.
//
// A trace starts with header comments (HeaderMagic and the version, then
// "# KEY: VALUE" lines), then has one call line per call:
//
//	@B-E tT dev=D OP -> RESULT
//
// and, where a process died or was killed inside a call, an entry record
// for that call (never written by the recorder into the trace: it is the
// form in which a parser reads the in-flight records, see Inflight, and
// tests write them):
//
//	@B tT dev=D OP
//
// with Cut as its last field when the recorded op text was longer than an
// in-flight slot holds.
const (
	HeaderMagic = "# simabi trace v"
	Comment     = "# "
	HeaderSep   = ": "
	LineAt      = "@"     // before B
	LineTo      = "-"     // between B and E
	LineThread  = " t"    // before T
	LineDevKey  = " dev=" // before D (a LineDev value)
	LineOp      = " "     // before the op
	LineArrow   = " -> "  // before the result
	ArgSep      = " "     // before each argument and each result field
	KeySep      = "="     // between an argument's key and its value
	Cut         = "..."   // the last field of an entry record whose op text was cut
	Missing     = "missing"
	// OpCall is the op word of an entry the op grammar does not model.
	OpCall = "call"
)

// Header keys ("# KEY: VALUE").
const (
	HeaderTarget     = "target"      // SIMABI_RECORD_TARGET as given
	HeaderRevision   = "revision"    // kernel or legacy
	HeaderPID        = "pid"         // the recording process
	HeaderImageLimit = "image-limit" // bytes of one image written at most
	HeaderForkedFrom = "forked-from" // "PID" ForkedAt "SEQ" in a forked child's trace
	// HeaderDied is read from a process's in-flight records: "signal N"
	// when it died of a fatal signal, "signal N in @B" when that happened
	// inside call B.
	HeaderDied = "died"
)

// ForkedAt separates the parent's pid from the last sequence number it took
// before the fork in a forked-from value ("1234 at @57").
const ForkedAt = " at " + LineAt

// HeaderKeys are the header keys in the order the recorder writes them
// (forked-from only in a child; died only from in-flight records).
var HeaderKeys = []string{HeaderTarget, HeaderRevision, HeaderPID, HeaderImageLimit, HeaderForkedFrom, HeaderDied}

// Magic is the first line of a trace of version v.
func Magic(v int) string { return HeaderMagic + strconv.Itoa(v) }

// ParseMagic reads the version of a trace's first line.
func ParseMagic(line string) (int, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), HeaderMagic)
	if !ok {
		return 0, false
	}
	v, err := strconv.Atoi(rest)
	if err != nil || v < OldestVersion || v > Version {
		return v, false
	}
	return v, true
}

// Line is one call line or entry record, split into its parts.
type Line struct {
	B, E     uint64
	Entered  bool // an entry record: no E, no result (the call never returned)
	Cut      bool // an entry record whose op text was cut
	Thread   int64
	Dev      Value  // a LineDev value
	Op       string // the op word
	Args     []string
	Result   []string // the result's fields (empty for an entry record)
	Missing  bool     // the result is "missing"
	ResultAt string   // the result's text
}

// SplitLine splits a call line or an entry record into its parts; the op's
// arguments and the result's fields are left to the entry's forms.
func SplitLine(line string, version int) (Line, error) {
	var l Line
	head, result, returned := strings.Cut(line, LineArrow)
	l.Entered = !returned
	if returned {
		l.ResultAt = strings.TrimSpace(result)
		if l.ResultAt == "" {
			return l, fmt.Errorf("empty result")
		}
		l.Result = strings.Split(l.ResultAt, ArgSep)
		l.Missing = l.ResultAt == Missing
	}
	f := strings.Split(strings.TrimSpace(head), ArgSep)
	want := func() error {
		if l.Entered {
			return fmt.Errorf("want \"@B-E tT dev=D OP -> RESULT\" (or an entry record \"@B tT dev=D OP\"), got %q", clip(line))
		}
		return fmt.Errorf("want \"@B-E tT dev=D OP -> RESULT\", got %q", clip(line))
	}
	if len(f) < 4 || !strings.HasPrefix(f[0], LineAt) || !strings.HasPrefix(" "+f[1], LineThread) || !strings.HasPrefix(" "+f[2], LineDevKey) {
		return l, want()
	}
	seq := f[0][len(LineAt):]
	var err error
	if returned {
		b, e, ok := strings.Cut(seq, LineTo)
		l.B, err = strconv.ParseUint(b, 10, 64)
		if err != nil || !ok {
			return l, fmt.Errorf("bad sequence numbers %q", f[0])
		}
		if l.E, err = strconv.ParseUint(e, 10, 64); err != nil || l.E < l.B {
			return l, fmt.Errorf("bad sequence numbers %q", f[0])
		}
	} else if l.B, err = strconv.ParseUint(seq, 10, 64); err != nil {
		return l, want()
	}
	if l.Thread, err = strconv.ParseInt(f[1][len(LineThread)-1:], 10, 32); err != nil || l.Thread < 0 {
		return l, fmt.Errorf("bad thread %q", f[1])
	}
	if l.Dev, err = LineDev.Lex(f[2][len(LineDevKey)-1:], version); err != nil {
		return l, fmt.Errorf("bad dev=%q", f[2][len(LineDevKey)-1:])
	}
	l.Op, l.Args = f[3], f[4:]
	if l.Entered && len(l.Args) > 0 && l.Args[len(l.Args)-1] == Cut {
		l.Cut, l.Args = true, l.Args[:len(l.Args)-1]
	}
	return l, nil
}

// Entered renders an entry record (the form a parser reads an in-flight
// record in): "@B tT dev=D OP", with Cut appended when cut.
func Entered(b uint64, thread int32, dev int32, op string, cut bool) string {
	var d string
	switch {
	case dev >= 0:
		d, _ = LineDev.Spell("n", int64(dev))
	case dev == DevNone:
		d, _ = LineDev.Spell("none")
	default:
		d, _ = LineDev.Spell("unknown")
	}
	s := LineAt + strconv.FormatUint(b, 10) + LineThread + strconv.Itoa(int(thread)) + LineDevKey + d + LineOp + op
	if cut {
		s += ArgSep + Cut
	}
	return s
}
