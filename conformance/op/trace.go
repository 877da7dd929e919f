package op

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi/tracevocab"
)

// Recorded sessions (docs/trace.md): a trace, one line a call in
// abi/tracevocab's words, read as ops with their observations. This file
// reads lines; tracecall.go maps each call.

// Trace is one recorded process.
type Trace struct {
	Path       string // the file
	Version    int    // the trace format (# simabi trace vN)
	Target     string // the runtime that was recorded (# target:)
	Revision   string // kernel or legacy (# revision:)
	PID        int
	ForkedFrom string // "PID at @SEQ" for the trace of a forked child
	ImageLimit int
	// Signal is the fatal signal the process died of (0: none seen);
	// SignalAt the B of the call it hit (0: outside any recorded call).
	Signal   int
	SignalAt uint64
	Calls    []TraceCall
	Torn     *TornLine // the last line, when its write did not finish
}

// TraceCall is one recorded call.
type TraceCall struct {
	Line     int    // its line in the file (after the file's lines: an in-flight record)
	Text     string // the line as recorded
	Record   string // for an entry record, the in-flight file it was read from
	B, E     uint64 // begin and end sequence numbers (E: MaxUint64 when it never returned)
	Thread   int
	Dev      int32 // the calling thread's current device before the call (-1: none)
	DevKnown bool  // false for dev=?
	Op       Op    // the call in the op grammar, contexts mapped to slots
	Obs      Observation
	Skip     string // why the call cannot be judged ("": it can)
	Result   string // the recorded result text (after "->")
	// Want: a launch_run's storage's prepare_run's accepted_value.
	Want      int32
	WantKnown bool
	// Unfinished: the call never returned (an entry record); Died: a fatal
	// signal hit it there; Partial: the arguments the record lacks.
	Unfinished, Died bool
	Partial          string
	// SpacesHidden: a version 1 trace holds only whether tensor 0 is HOST.
	SpacesHidden bool
	// ArgsUnrecorded: a program-side entry whose other arguments are not
	// recorded; NoReplay says why a judged call is not replayed.
	ArgsUnrecorded bool
	NoReplay       string
	Reset          bool // a simabi_reset that returned 0 (F-1)
	// RanksHere: a comm call whose session's every rank is a handle of
	// this trace (trace_ranks.go).
	RanksHere bool
}

// ReadTraceFile reads the trace at path, then the in-flight records its
// processes left beside it as entry records. An error names the file and
// line. A torn last line is Trace.Torn, not a call.
func ReadTraceFile(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := newTraceReader(path)
	if err := r.lines(f); err != nil {
		return nil, err
	}
	for _, pid := range r.pids {
		name := tracevocab.InflightName(path, pid)
		ib, err := os.ReadFile(name)
		if err != nil {
			continue // none: no process died inside a call (or the file was not kept)
		}
		in, err := tracevocab.ReadInflight(ib)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		for _, l := range in.Lines() {
			if err := r.record(l, name); err != nil {
				return nil, err
			}
		}
	}
	return r.finish(), nil
}

// ParseTrace reads a trace without in-flight records.
func ParseTrace(r io.Reader, path string) (*Trace, error) {
	tr := newTraceReader(path)
	if err := tr.lines(r); err != nil {
		return nil, err
	}
	return tr.finish(), nil
}

// TornLine is a last line without its newline: the recorder writes a line
// in one write(2), so it did not finish, and a line cut short may read as
// another ("-> 1" of "-> 10").
type TornLine struct {
	Line   int
	Text   string
	Record string // the in-flight record that stands for its call ("": none)
}

// Describe says what the torn line is and that its call is not done.
func (l *TornLine) Describe(done string) string {
	s := "the last line is torn (no newline: its write did not finish)"
	if !strings.HasPrefix(l.Text, "#") {
		s += ", so the call it records is not " + done
	}
	s += fmt.Sprintf(": %q", cut(l.Text, 72))
	if l.Record != "" {
		s += "; its in-flight record in " + l.Record + " stands for it"
	}
	return s
}

type traceReader struct {
	p        traceParser
	n        int // the last line read
	header   bool
	returned map[uint64]bool // the B of every call whose line was written
	pids     []int           // the processes the headers name, in order
}

func newTraceReader(path string) *traceReader {
	t := &Trace{Path: path}
	r := &traceReader{p: traceParser{t: t, slots: map[string]int8{}, retired: map[string]bool{}, want: map[int8]int32{}}, returned: map[uint64]bool{}}
	r.p.refs = map[string]func(tracevocab.Value, func(string)) int8{"h": r.p.commHandle,
		"s": numbered(map[string]int8{}, MaxStreams, "stream", "number", 0),
		"":  numbered(map[string]int8{}, MaxStorages, "run storage", "number", 0)}
	r.p.resetComm()
	return r
}

// lines reads the file's lines; a last one without a newline is torn.
func (r *traceReader) lines(in io.Reader) error {
	t := r.p.t
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<30) // (from 4 KiB up: an image line is long)
	torn := false
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		adv, tok, err := bufio.ScanLines(data, atEOF)
		torn = atEOF && tok != nil && adv == len(data) && data[len(data)-1] != '\n'
		return adv, tok, err
	})
	for sc.Scan() {
		r.n++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if torn {
			if r.n == 1 {
				// A torn header is a trace of no call; anything else none.
				head := strings.TrimSpace(line)
				r.header = strings.HasPrefix(head, tracevocab.HeaderMagic) || strings.HasPrefix(tracevocab.HeaderMagic, head)
			}
			t.Torn = &TornLine{Line: r.n, Text: line}
			break
		}
		if err := r.line(line); err != nil {
			return fmt.Errorf("%s:%d: %v", t.Path, r.n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %v", t.Path, err)
	}
	if !r.header {
		return fmt.Errorf("%s: not a simabi trace (empty, or no %q line)", t.Path, tracevocab.Magic(tracevocab.Version))
	}
	return nil
}

func (r *traceReader) line(line string) error {
	t, p := r.p.t, &r.p
	if r.n == 1 {
		v, ok := tracevocab.ParseMagic(line)
		if !ok {
			if strings.HasPrefix(line, tracevocab.HeaderMagic) {
				return fmt.Errorf("trace format version %d: this checker reads versions %d to %d", v, tracevocab.OldestVersion, tracevocab.Version)
			}
			return fmt.Errorf("not a simabi trace (the first line must be %q)", tracevocab.Magic(tracevocab.Version))
		}
		t.Version, r.header = v, true
		return nil
	}
	if strings.HasPrefix(line, "#") {
		if err := p.headerLine(line); err != nil {
			return err
		}
		if t.PID != 0 && !slices.Contains(r.pids, t.PID) {
			r.pids = append(r.pids, t.PID)
		}
		return nil
	}
	if !r.header {
		return fmt.Errorf("not a simabi trace (the first line must be %q)", tracevocab.Magic(tracevocab.Version))
	}
	return r.call(line, "")
}

// record reads a line of the in-flight file name.
func (r *traceReader) record(line, name string) error {
	r.n++
	if strings.HasPrefix(line, "#") {
		if err := r.p.headerLine(line); err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		return nil
	}
	if err := r.call(line, name); err != nil {
		return fmt.Errorf("%s: %q: %v", name, truncate(line), err)
	}
	return nil
}

func (r *traceReader) call(line, record string) error {
	c, err := r.p.call(line)
	if err != nil {
		return err
	}
	c.Line, c.Text, c.Record = r.n, line, record
	if c.Unfinished && r.returned[c.B] {
		return nil // killed after the line was written, before the slot was cleared
	}
	if !c.Unfinished {
		r.returned[c.B] = true
	}
	r.p.t.Calls = append(r.p.t.Calls, c)
	return nil
}

func (r *traceReader) finish() *Trace {
	t := r.p.t
	b, torn := tornBegin(t.Torn)
	for i := range t.Calls {
		c := &t.Calls[i]
		c.Died = c.Unfinished && t.Signal != 0 && c.B == t.SignalAt
		if torn && c.Unfinished && c.B == b {
			t.Torn.Record = c.Record
		}
	}
	markRanksHere(t)
	return t
}

// ByBegin is the indices of t's calls in the order they began.
func (t *Trace) ByBegin() []int {
	order := make([]int, len(t.Calls))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return t.Calls[order[a]].B < t.Calls[order[b]].B })
	return order
}

// tornBegin is the B a torn line records, when it holds it whole.
func tornBegin(l *TornLine) (uint64, bool) {
	if l == nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(l.Text, tracevocab.LineAt)
	if !ok {
		return 0, false
	}
	end := strings.IndexAny(rest, tracevocab.LineTo+" ")
	if end <= 0 {
		return 0, false
	}
	b, err := strconv.ParseUint(rest[:end], 10, 64)
	return b, err == nil
}

func truncate(s string) string { return cut(s, 40) }

// cut is s, or its first n bytes and "...".
func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
