package op

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
)

// Recorded sessions (docs/trace.md): a trace is one line per call a
// consumer made through the recording runtime, with the arguments it passed
// and what the real runtime answered. ParseTrace reads one into calls in the
// op grammar with their observations, so that the model judges them
// (CheckTrace) and a runner replays the consumer's side on any runtime
// (TraceOps). The words of a trace are abi/tracevocab's: a line is split and
// its values lexed there, and this file maps each form's variants to ops
// and observations.

// Trace is one recorded process.
type Trace struct {
	Path       string // the file
	Version    int    // the trace format (# simabi trace vN)
	Target     string // the runtime that was recorded (# target:)
	Revision   string // kernel or legacy (# revision:)
	PID        int
	ForkedFrom string // "PID at @SEQ" for the trace of a forked child
	ImageLimit int
	// Signal is the fatal signal the process died of, from its in-flight
	// records (0: none seen); SignalAt the B of the call it hit (0: outside
	// any recorded call).
	Signal   int
	SignalAt uint64
	Calls    []TraceCall
	// Torn is the file's last line when its write did not finish (nil
	// when the file ends with a newline).
	Torn *TornLine
}

// TraceCall is one recorded call.
type TraceCall struct {
	Line     int    // its line in the file (after the file's lines: an in-flight record)
	Text     string // the line as recorded
	Record   string // for an entry record, the in-flight file it was read from
	B, E     uint64 // the call's begin and end sequence numbers (E: MaxUint64 when it never returned)
	Thread   int
	Dev      int32 // the calling thread's current device before the call (-1: none)
	DevKnown bool  // false for dev=?
	// Op is the call in the op grammar with the trace's contexts mapped to
	// slots; Obs what the runtime answered.
	Op  Op
	Obs Observation
	// Skip says why the call cannot be judged ("" when it can): a call the
	// op grammar does not model (call NAME), a context no create returned,
	// an image over the recording limit, a symbol the target lacked.
	Skip string
	// Result is the recorded result text (after "->").
	Result string
	// Want is, for a launch_run, the accepted_value of the descriptor its
	// storage's prepare_run passed (WantKnown when the trace recorded it).
	Want      int32
	WantKnown bool
	// Unfinished: the call never returned (an entry record: the process
	// died or was killed inside it); Died: a fatal signal hit it there.
	// Partial says which of its arguments the record lacks.
	Unfinished, Died bool
	Partial          string
	// SpacesHidden: a version 1 trace recorded only whether tensor 0 is
	// HOST, so a launch refused for its args may have been refused for a
	// tensor address space the trace does not hold.
	SpacesHidden bool
	// ArgsUnrecorded: a program-side entry whose other arguments the
	// trace does not hold (the model judges only what does not depend on
	// them).
	ArgsUnrecorded bool
	// NoReplay says why a judged call is not replayed ("" when it is): a
	// program-side entry whose other arguments the trace does not hold.
	NoReplay string
	// Reset: a simabi_reset that returned 0 (docs/contract.md F-1): the
	// runtime starts again as loaded, and the calls after it are judged so.
	Reset bool
	// RanksHere: a comm call (comm_init included) of a handle of a session
	// of several ranks whose every rank is a handle of this trace (ranks
	// as threads of one process), so that the session's counters are the
	// trace's own (trace_ranks.go).
	RanksHere bool
}

// maxTraceSlots bounds the contexts live at once in one trace (the op
// grammar's slots).
const maxTraceSlots = MaxSlots

// ReadTraceFile reads the trace at path with the in-flight records its
// processes left beside it (tracevocab.InflightName): a call a process
// was inside when it died or was killed is read as an entry record after
// the trace's own lines. An error names the file and line (an in-flight
// file and the record's call).
//
// A last line with no newline is torn (TornLine): it is not read as a call,
// and the trace says so (Trace.Torn); when the process died in the call the
// line records, that call's in-flight record is still there and stands for
// it.
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

// ParseTrace reads a trace (without in-flight records); an error names the
// file and line. A torn last line is Trace.Torn, as in ReadTraceFile.
func ParseTrace(r io.Reader, path string) (*Trace, error) {
	tr := newTraceReader(path)
	if err := tr.lines(r); err != nil {
		return nil, err
	}
	return tr.finish(), nil
}

// TornLine is a trace's last line when it does not end in a newline. The
// recorder writes every line with its newline in one write(2), so this is a
// line whose write did not finish: the process died in it, the disk filled,
// or a copy was cut short. It is not read as a call: a line cut short may
// read as another one ("-> 1" of "-> 10").
type TornLine struct {
	Line int    // its number in the file
	Text string // what the file holds of it
	// Record is the in-flight record that stands for the call the line
	// records ("" when none does): the process died in that call.
	Record string
}

// Describe says what the torn line is and, when it is a call's, that the
// call is not done ("judged", "replayed").
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

// traceReader reads a trace line by line: the file's, then the entry
// records of its in-flight files.
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
		"s": r.p.numbered(map[string]int8{}, MaxStreams, "stream", "number", 0),
		"":  r.p.numbered(map[string]int8{}, MaxStorages, "run storage", "number", 0)}
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
				// What a torn first line holds of the header makes a trace
				// of no call; anything else is no trace (refused below).
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

// line reads one line of the file (r.n is its number).
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

// record reads a line of the in-flight file named name (tracevocab's
// Inflight.Lines): the died comment, or an entry record.
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

// call reads a call line, or an entry record of the in-flight file record.
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

// finish marks the call a fatal signal hit, and the in-flight record that
// stands for the torn line's call.
func (r *traceReader) finish() *Trace {
	t := r.p.t
	for i := range t.Calls {
		c := &t.Calls[i]
		if c.Unfinished && t.Signal != 0 && c.B == t.SignalAt {
			c.Died = true
		}
		if b, ok := tornBegin(t.Torn); ok && c.Unfinished && c.B == b {
			t.Torn.Record = c.Record
		}
	}
	markRanksHere(t)
	return t
}

// tornBegin is the B a torn line records, when what the file holds of it
// spells it whole.
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

type traceParser struct {
	t     *Trace
	want  map[int8]int32  // storage → accepted_value of the descriptor of its last prepare_run
	slots map[string]int8 // trace context name → slot
	// used: 0 a slot never taken, -1 one holding a context, N > 0 one whose
	// context was destroyed as the N-th destroy; retired are the names whose
	// slot a later context took.
	used     [maxTraceSlots]int
	destroys int
	retired  map[string]bool
	// refs read a recorded reference by the prefix of its text form
	// (traceRef).
	refs map[string]func(v tracevocab.Value, skip func(string)) int8
	comm traceComm // the comm family's names (ops_comm.go)
}

func (p *traceParser) headerLine(line string) error {
	k, v, ok := strings.Cut(strings.TrimPrefix(line, "#"), strings.TrimSpace(tracevocab.HeaderSep))
	if !ok {
		return nil
	}
	v = strings.TrimSpace(v)
	switch strings.TrimSpace(k) {
	case tracevocab.HeaderTarget:
		p.t.Target = v
	case tracevocab.HeaderRevision:
		p.t.Revision = v
	case tracevocab.HeaderPID:
		p.t.PID, _ = strconv.Atoi(v)
	case tracevocab.HeaderImageLimit:
		p.t.ImageLimit, _ = strconv.Atoi(v)
	case tracevocab.HeaderForkedFrom:
		p.t.ForkedFrom = v
	case tracevocab.HeaderDied:
		sig, at, err := tracevocab.ParseDied(v)
		if err != nil {
			return err
		}
		p.t.Signal, p.t.SignalAt = sig, at
	}
	return nil
}

func (p *traceParser) revision() abi.Revision {
	if p.t.Revision == "legacy" {
		return abi.RevLegacy
	}
	return abi.RevKernel
}

// call parses a call line or an entry record.
func (p *traceParser) call(line string) (TraceCall, error) {
	var c TraceCall
	l, err := tracevocab.SplitLine(line, p.t.Version)
	if err != nil {
		return c, err
	}
	c.B, c.E, c.Thread, c.Result, c.Unfinished = l.B, l.E, int(l.Thread), l.ResultAt, l.Entered
	if c.Unfinished {
		c.E = math.MaxUint64
	}
	switch {
	case l.Dev.Is("n"):
		if l.Dev.Int(0) < math.MinInt32 || l.Dev.Int(0) > math.MaxInt32 {
			return c, fmt.Errorf("bad dev=%s", l.Dev.Source)
		}
		c.Dev, c.DevKnown = int32(l.Dev.Int(0)), true
	case l.Dev.Is("none"):
		c.Dev, c.DevKnown = -1, true
	}
	e, err := tracevocab.Lookup(p.revision(), l.Op, l.Args)
	if err != nil {
		return c, err
	}
	return c, p.op(&c, e, l)
}

// traceFields are a recorded call's arguments as its entry reads them, for
// the fields' recorded values and the kind's trace form.
type traceFields struct {
	p     *traceParser
	c     *TraceCall
	e     tracevocab.Entry
	keyed map[string]tracevocab.Value
	pos   []tracevocab.Value
	// skip says why the call cannot be judged (the first reason given
	// stands); err is the first value that does not read.
	skip func(why string)
	err  error
}

// keep is a recorded value read by a reader that may refuse it (the first
// refusal is t.err).
func keep[T any](t *traceFields) func(T, error) T {
	return func(v T, err error) T {
		if t.err == nil {
			t.err = err
		}
		return v
	}
}

// num is the keyed argument's number (0 when absent).
func (f *traceFields) num(key string) int64 {
	if v, ok := f.keyed[key]; ok {
		return v.Int(0)
	}
	return 0
}

// recFields reads each field the kind declares from its recorded value:
// a keyed field by its key, a positional one by its place.
func (f *traceFields) recFields(d *kindDef) error {
	i := 0
	for _, fl := range d.fields {
		var v tracevocab.Value
		ok := false
		switch {
		case fl.key != "":
			v, ok = f.keyed[fl.key]
		case fl.word != "" || fl.take != nil:
			continue
		default:
			if ok = i < len(f.pos); ok {
				v = f.pos[i]
			}
			i++
		}
		switch {
		case fl.rec == nil:
		case ok:
			fl.rec(f, v)
		case fl.gone != nil:
			fl.gone(f)
		}
	}
	return f.err
}

// traceRef reads a recorded reference by the prefix of its text form: a
// stream, a run storage, a comm handle, a rootinfo path (nil for a
// context: every call's, read before its fields).
func traceRef(prefix string, at func(*Op) *int8) func(*traceFields, tracevocab.Value) {
	if prefix == "c" {
		return nil
	}
	return func(f *traceFields, v tracevocab.Value) { *at(&f.c.Op) = f.p.refs[prefix](v, f.skip) }
}

// streamGone: a stream the record lacks reads as NULL.
func streamGone(f field) field {
	f.gone = func(t *traceFields) { t.c.Op.Stream = NullRef }
	return f
}

// imageSkip: a truncated image is not judged, unless a prepare's is over
// the byte budget (judged by its size alone); a register has no such step.
func (f *traceFields) imageSkip(r ImageRecipe) {
	if r.Base == ImgRawTrunc && (!f.c.Op.Kind.Prepares() || r.Raw <= budgetBytes) {
		f.skip("the image is over the recording limit (its bytes are not in the trace)")
	}
}

// op turns the recorded call into an op of the grammar and its observation:
// what every call has (its context, the arguments it lacks), then its kind's
// trace form.
func (p *traceParser) op(c *TraceCall, e tracevocab.Entry, l tracevocab.Line) error {
	skip := func(why string) {
		if c.Skip == "" {
			c.Skip = why
		}
	}
	keyed, pos, err := e.Fields(l.Args, p.t.Version, l.Entered, l.Cut)
	if err != nil {
		return err
	}
	if e.Op == tracevocab.OpCall {
		skip(e.Symbol + ": not an entry the op grammar models")
		return p.result(c, e, l)
	}
	if l.Missing {
		skip("the recorded runtime lacks the symbol")
	}
	k, ok := KindByName(e.Op)
	if !ok {
		return fmt.Errorf("%s: an op word the op grammar does not know", e.Op)
	}
	c.Op = Op{Kind: k}
	// bad: a struct pointer the recorder could not read (it points into
	// unmapped memory). The call is not judged, unless its context is NULL
	// (below: every entry answers a NULL context before it reads a struct);
	// its other fields parse.
	var unread string
	var missing []string
	for _, a := range e.Args {
		v, have := keyed[a.Key]
		if have && v.Is("bad") && unread == "" {
			unread = a.Key + ": a pointer the recorder could not read (unmapped memory)"
		}
		if a.Key != "" && !have && !a.Optional && !a.WhenNull {
			missing = append(missing, a.Key+"=")
		}
	}
	c.Partial = strings.Join(missing, " ")
	if len(pos) > 0 && pos[0].Form == tracevocab.Ctx {
		s, why := p.ctx(pos[0])
		skip(why)
		c.Op.C = s
	}
	if unread != "" && !(len(pos) > 0 && pos[0].Form == tracevocab.Ctx && c.Op.C == NullRef) {
		skip(unread)
	}
	d := defOf(k)
	f := &traceFields{p: p, c: c, e: e, keyed: keyed, pos: pos, skip: skip}
	if err := f.recFields(d); err != nil {
		return err
	}
	if d.trace != nil {
		if d.trace(f); f.err != nil {
			return f.err
		}
	}
	return p.result(c, e, l)
}

// traceLaunch reads launch's args, which the recorder writes when the call
// returns: an entry record lacks them, and they read as match.
func traceLaunch(f *traceFields) {
	if !f.args(true) {
		f.c.Op.Args = ArgsRecipe{Mode: ArgsMatch}
	}
}

// args reads the recorded args (false: none) and what the runtime read of
// them: the counts, and for a launch, which judges them, whether a tensor
// is not DEVICE and whether a version 1 trace hid that.
func (f *traceFields) args(launch bool) bool {
	v, ok := f.keyed["args"]
	if !ok {
		return false
	}
	c := f.c
	a, hidden, err := traceArgs(v)
	c.Op.Args = keep[ArgsRecipe](f)(a, err)
	if a.Mode == ArgsExact && err == nil {
		c.Obs.Call.ArgT, c.Obs.Call.ArgS = clampI32(v.Int(0)), clampI32(v.Int(1))
		c.Obs.Call.ArgHost = launch && a.Host
	}
	if launch {
		c.SpacesHidden = hidden
	}
	return true
}

// traceProg reads a program-side entry's fn.
func traceProg(f *traceFields) {
	c := f.c
	var ok bool
	if c.Op.Fn, ok = progFn(f.e.Fn); !ok {
		f.err = fmt.Errorf("prog: fn=%s is not a program entry of the op grammar", f.e.Fn)
	}
	// What the model judges of a program-side entry does not depend on
	// its other arguments (E-PROG: IS before any check without a live
	// program init, NULL from device_malloc_ctx there, S-3 for a NULL
	// context, anything with one), so the call is judged; it is not
	// replayed, since the trace does not hold those arguments.
	c.NoReplay = "the program entry's other arguments are not recorded"
	c.ArgsUnrecorded = true
}

// traceRun reads a run-family call on a NULL storage as the prog op of its
// entry, and keeps the accepted_value of the descriptor a prepare_run or run
// passed for a later launch_run of the storage.
func traceRun(f *traceFields) {
	p, c := f.p, f.c
	op := &c.Op
	k := op.Kind
	if f.keyed["st"].Is("null") {
		// The call the checker makes with bad arguments, judged the same
		// way whatever the other arguments are.
		fn, _ := progFn(f.e.Op) // a run entry's prog fn is its op word
		*op = Op{Kind: KindProg, C: op.C, Fn: fn}
		if (k == KindPrepareRun || k == KindRun) && !(f.num("id") == -1 && f.keyed["args"].Is("null") && f.keyed["cfg"].Is("null") && f.keyed["desc"].Is("null")) {
			c.NoReplay = "a NULL run storage with other arguments than the op grammar's prog " + f.e.Op
		}
		return
	}
	if k == KindPrepareRun || k == KindRun {
		f.args(false)
		// desc=null: E-PROG.9, refused with IA, judged like a NULL
		// CallConfig (the fields read cfg=null and desc=null).
		d := f.keyed["desc"]
		delete(p.want, op.St)
		if d.Is("raw") {
			if nd, err := abi.DecodeNativeRunDescriptor(hexBytes(d, 0)); err == nil {
				p.want[op.St] = nd.AcceptedValue
			}
		}
	}
	if k == KindLaunchRun {
		c.Want, c.WantKnown = p.want[op.St]
	}
}

// progFn is the prog fn named name.
func progFn(name string) (ProgFn, bool) {
	i := slices.Index(fnNames[:], name)
	return ProgFn(i), i >= 0
}

func clampI32(v int64) int32 { return int32(max(math.MinInt32, min(math.MaxInt32, v))) }

func clampI16(v int64) int16 { return int16(max(math.MinInt16, min(math.MaxInt16, v))) }

// hexBytes is the i-th hole of v, hex, as bytes (the lexer checked its
// digits).
func hexBytes(v tracevocab.Value, i int) []byte {
	b, _ := hex.DecodeString(v.Text(i))
	return b
}

const tooMany int8 = -2

// name maps a trace name (s3, st7) to the op grammar's index by first
// appearance; beyond max is tooMany.
func (p *traceParser) name(m map[string]int8, s string, max int) int8 {
	if i, ok := m[s]; ok {
		return i
	}
	if len(m) >= max {
		return tooMany
	}
	m[s] = int8(len(m))
	return m[s]
}

// numbered maps a recorded stream, run storage or rootinfo path (m, up to
// max of them) to the grammar's by first appearance; unknown is what one
// the recorder could not number (or read: verb) reads as.
func (p *traceParser) numbered(m map[string]int8, max int, what, verb string, unknown int8) func(v tracevocab.Value, skip func(string)) int8 {
	return func(v tracevocab.Value, skip func(string)) int8 {
		switch {
		case v.Is("null"):
			return NullRef
		case v.Is("named"):
			if s := p.name(m, v.Source, max); s != tooMany {
				return s
			}
			skip("more " + what + "s than the op grammar names")
			return 0
		}
		skip("a " + what + " the recorder could not " + verb)
		return unknown
	}
}

// ctx maps a trace context to its slot; a context never created in this
// trace (inherited across fork) gets a slot whose state the model does not
// know.
func (p *traceParser) ctx(v tracevocab.Value) (int8, string) {
	switch {
	case v.Is("null"):
		return NullRef, ""
	case !v.Is("named"):
		return NullRef, "a context pointer no create of this process returned"
	}
	if slot, ok := p.slots[v.Source]; ok {
		return slot, ""
	}
	if p.retired[v.Source] {
		return NullRef, "a context whose slot a later create took (more contexts than the op grammar's slots)"
	}
	slot := p.takeSlot()
	if slot < 0 {
		return NullRef, "more live contexts than the op grammar's slots"
	}
	p.slots[v.Source] = slot
	return slot, "" // inherited (a forked child's): adopted as unknown
}

// takeSlot is the slot for a context new to the trace: one never used, else
// the one destroyed longest ago (its old name retired: a destroy may have
// been refused, so a slot is not taken again while another is free); -1
// when every slot holds a context not destroyed.
func (p *traceParser) takeSlot() int8 {
	best := int8(-1)
	for i := range p.used {
		switch {
		case p.used[i] == 0:
			p.used[i] = -1
			return int8(i)
		case p.used[i] > 0 && (best < 0 || p.used[i] < p.used[best]):
			best = int8(i)
		}
	}
	if best >= 0 {
		for name, s := range p.slots {
			if s == best {
				delete(p.slots, name)
				p.retired[name] = true
			}
		}
		p.used[best] = -1
	}
	return best
}

// reset is a simabi_reset that returned 0: every context is gone, so every
// name is retired and every slot free; the runs of the storages are gone.
func (p *traceParser) reset(c *TraceCall) {
	c.Reset = true
	p.resetComm()
	for name := range p.slots {
		p.retired[name] = true
	}
	clear(p.slots)
	clear(p.want)
	p.used, p.destroys = [maxTraceSlots]int{}, 0
}

// traceAnswer is a recorded result: the entry's result and the fields after
// it.
type traceAnswer struct {
	e      tracevocab.Entry
	res    tracevocab.Value
	extras map[string]tracevocab.Value
}

// result reads the recorded result, in the entry's result form, into the
// observation: by the kind's answer, else as a status.
func (p *traceParser) result(c *TraceCall, e tracevocab.Entry, l tracevocab.Line) error {
	if l.Entered || l.Missing {
		return nil
	}
	res, extras, err := e.ResultFields(l.Result, p.t.Version)
	if err != nil {
		return err
	}
	op, o := &c.Op, &c.Obs
	if e.Op == tracevocab.OpCall {
		if e.Symbol == abi.SymSimReset && res.Is("n") && res.Int(0) == 0 {
			p.reset(c)
		}
		return nil
	}
	if d := defOf(op.Kind); d != nil && d.answer != nil {
		d.answer(p, c, &traceAnswer{e: e, res: res, extras: extras})
		return nil
	}
	if e.Result != tracevocab.Int {
		return fmt.Errorf("%s: a %s result where the op grammar wants a status", e.Op, e.Result.Name())
	}
	o.Call.Status = abi.Status(clampI32(res.Int(0)))
	if v, ok := extras["out"]; ok {
		o.Call.Out = clampI32(v.Int(0))
	}
	if v, ok := extras["accepted"]; ok {
		o.Accepted = clampI32(v.Int(0))
	}
	if op.Kind.Prepares() && op.OutNull {
		o.Call.Out = OutSentinel
	}
	return nil
}

// answerCreate takes the slot of the context create returned.
func answerCreate(p *traceParser, c *TraceCall, a *traceAnswer) {
	op, o := &c.Op, &c.Obs
	slot := p.takeSlot()
	switch {
	case slot < 0:
		op.C = 0
		c.Skip = "more live contexts than the op grammar's slots"
	case a.res.Is("named"):
		p.slots[a.res.Source] = slot
		op.C, o.HandleCreated, o.Call.Value = slot, true, 1
	case a.res.Is("null"):
		op.C, p.used[slot] = slot, 0 // nothing was created: the slot stays free
	default:
		op.C = slot
		c.Skip = "a context the recorder could not name (its later calls are c?)"
	}
}

// answerDestroy frees the slot: a later create may take it again, last of
// all (the destroy may have been refused, E-DESTROY).
func answerDestroy(p *traceParser, c *TraceCall, _ *traceAnswer) {
	if op := &c.Op; op.C >= 0 && p.used[op.C] < 0 {
		p.destroys++
		p.used[op.C] = p.destroys
	}
}

// answerUnrecorded: the contract's bytes are not recorded.
func answerUnrecorded(_ *traceParser, c *TraceCall, _ *traceAnswer) {
	c.Skip = "the contract's bytes are not recorded"
}

// answerProg reads a program-side entry's status or value.
func answerProg(_ *traceParser, c *TraceCall, a *traceAnswer) {
	o := &c.Obs
	switch a.e.Result {
	case tracevocab.Int:
		if c.Op.Fn.StatusEntry() {
			o.Call.Status = abi.Status(clampI32(a.res.Int(0)))
		} else {
			o.Call.Value = uint64(a.res.Int(0))
		}
	case tracevocab.Uint:
		o.Call.Value = a.res.Uint(0)
	case tracevocab.Ptr:
		if a.res.Is("ptr") {
			o.Call.Value = 1
		}
	}
}

// answerValue reads a query's value.
func answerValue(_ *traceParser, c *TraceCall, a *traceAnswer) {
	c.Obs.Call.Value = uint64(a.res.Int(0))
}

// answerCommitted reads committed_device_memory_ctx's value: judged where
// M-7 wants it exact (0); its direction needs the value before the call,
// which the trace does not hold.
func answerCommitted(_ *traceParser, c *TraceCall, a *traceAnswer) {
	o := &c.Obs
	o.Call.Value, o.Mem = a.res.Uint(0), a.res.Uint(0)
	o.MemProbed, o.MemPrevUnknown = true, true
}

// traceArgs reads an ARGS: the counts, and whether one of the first
// tensor_count tensors is not DEVICE (the recipe's host flag: the replay
// puts tensor 0 in HOST space, which a conformant runtime refuses alike).
// hidden: a version 1 record, which holds only whether tensor 0 is HOST.
func traceArgs(v tracevocab.Value) (a ArgsRecipe, hidden bool, err error) {
	switch v.Variant {
	case "null", "bad":
		return ArgsRecipe{Mode: ArgsNull}, false, nil
	case "raw":
		a = ArgsRecipe{Mode: ArgsExact, T: clampI16(v.Int(0)), S: clampI16(v.Int(1))}
		spaces := hexBytes(v, 2)
		if want := max(0, min(v.Int(0), tracevocab.ArgsMaxSpaces)); int64(len(spaces)) != want {
			return a, false, fmt.Errorf("bad args %q: %d address spaces for t=%d (want %d)", v.Source, len(spaces), v.Int(0), want)
		}
		for _, s := range spaces {
			a.Host = a.Host || abi.AddressSpace(s) != abi.DeviceSpace
		}
		return a, false, nil
	case "host":
		a = ArgsRecipe{Mode: ArgsExact, T: clampI16(v.Int(0)), S: clampI16(v.Int(1)), Host: v.Int(2) != 0}
		return a, v.Int(0) >= 1 && !a.Host, nil
	}
	return a, false, fmt.Errorf("args: %s: a variant this parser does not read", v.Variant)
}

func truncate(s string) string { return cut(s, 40) }

// cut is s, or its first n bytes and "...".
func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
