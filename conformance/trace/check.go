package trace

import (
	"fmt"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/report"
	"maps"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
)

// Checking a recorded session offline: every call of a trace judged by the
// model. A trace whose calls never overlap (one thread, or threads taking
// turns) is judged call by call in the order the calls began. When calls of
// several threads overlap, the trace is accepted when some order of its
// calls that keeps every call's [begin, end] interval (porcupine searches
// for one) satisfies the model; otherwise the longest such order is judged
// and its first failure reported.

// Outcome is the result of checking one trace.
type Outcome struct {
	Trace   *op.Trace
	Profile model.Profile
	// Result is the model's verdict on the calls in the order judged
	// (History entries follow Order).
	Result *conformance.Result
	// Order is the calls' indices in the order judged.
	Order []int
	// Concurrent: some calls of different threads overlap. Linearizable
	// then says whether an order keeping the intervals satisfies the
	// model, Undecided that the search ran out of time.
	Concurrent, Linearizable, Undecided bool
	// Note explains a concurrent verdict.
	Note string
	// Driven: the consumer drove stream completion through the simulation
	// hooks (the trace records a sync), so the trace is judged as the live
	// checker judges a target with hooks: work is pending until its stream
	// is synchronized, and fault site 8 counts only synchronizes of a stream
	// with pending work.
	Driven bool
	// Deaths are the calls that never returned, in the order judged.
	Deaths []Death
}

// Death is a call the trace ends inside: a hang (the process was
// killed in it, or is still in it), or a crash (a fatal signal hit it).
type Death struct {
	At      int // position in Order
	Verdict model.Verdict
	Detail  string
}

// Options configure CheckTrace.
type Options struct {
	// Profile of the recorded runtime; nil: legacy for a legacy trace,
	// else from the first answer of simpler_kernel_mode_supported (1 tmr,
	// 0 refusing), tmr when it never asked.
	Profile *model.Profile
	// Timeout bounds the search for an order of overlapping calls
	// (default 10 s).
	Timeout time.Duration
}

// Ops is the judged sequence (for a repro).
func (tc *Outcome) Ops() []op.Op {
	out := make([]op.Op, len(tc.Order))
	for i, k := range tc.Order {
		out[i] = tc.Trace.Calls[k].Op
	}
	return out
}

// traceProfile decides the profile a trace is judged under.
func traceProfile(t *op.Trace, o Options) model.Profile {
	if o.Profile != nil {
		return *o.Profile
	}
	if t.Revision == "legacy" {
		return model.ProfileLegacy
	}
	for _, c := range t.Calls {
		if c.Op.Kind == op.KindSupported && c.Skip == "" {
			if c.Obs.Call.Value == 0 {
				return model.ProfileRefusing
			}
			return model.ProfileTMR
		}
	}
	return model.ProfileTMR
}

// drivenTrace reports whether the consumer synchronized its streams
// through the simulation hooks: then the target is a simulated one, whose
// work completes only when its stream is synchronized, as the live checker
// drives it. (A consumer that synchronizes through ACL instead is judged as
// one on a device: work may complete at any time.)
func drivenTrace(t *op.Trace) bool {
	for _, c := range t.Calls {
		if c.Op.Kind == op.KindSync && c.Skip == "" && !c.Unfinished {
			return true
		}
	}
	return false
}

// CheckTrace judges every call of t.
func Check(t *op.Trace, o Options) *Outcome {
	tc := &Outcome{Trace: t, Profile: traceProfile(t, o), Driven: drivenTrace(t)}
	defer tc.deaths()
	order := t.ByBegin()
	tc.Concurrent = overlapping(t, order)
	if !tc.Concurrent {
		tc.Order = order
		tc.Result = judgeTrace(t, tc.Profile, tc.Driven, order)
		return tc
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	tc.Result, tc.Order, tc.Linearizable, tc.Undecided = linearizeTrace(t, tc.Profile, tc.Driven, timeout)
	switch {
	case tc.Undecided:
		tc.Note = "calls of several threads overlap, and no order satisfying the model was found within " + timeout.String() +
			": the calls are judged in the order they began"
	case tc.Linearizable:
		tc.Note = "calls of several threads overlap; an order of them that keeps every call's interval satisfies the model"
	default:
		tc.Note = "calls of several threads overlap, and no order of them that keeps every call's interval satisfies the model: " +
			"the longest order found is judged, up to its first failure"
	}
	return tc
}

// deaths lists the calls the trace ends inside (each named by its in-flight
// record's file when it came from one), and notes a death outside any
// recorded call.
func (tc *Outcome) deaths() {
	t := tc.Trace
	for i, k := range tc.Order {
		c := &t.Calls[k]
		if !c.Unfinished {
			continue
		}
		d := Death{At: i, Verdict: model.Hang}
		switch {
		case c.Died:
			d.Verdict = model.Crash
			d.Detail = "the process died of signal " + strconv.Itoa(t.Signal) + " (" + syscall.Signal(t.Signal).String() + ") inside this call"
		case t.Signal != 0:
			continue // in flight on another thread when the process died: not judged
		default:
			d.Detail = "the trace ends inside this call (it never returned"
			switch {
			case c.Partial == "args=" && c.Op.Kind == op.KindLaunch:
				d.Detail += "; the launch's args are recorded when it returns"
			case c.Partial != "":
				d.Detail += "; its in-flight record holds no " + c.Partial
			}
			d.Detail += ")"
		}
		if c.Record != "" {
			d.Detail += "; in-flight record: " + c.Record // where the call is, as the trace has no line of it
		}
		tc.Deaths = append(tc.Deaths, d)
	}
	if t.Signal != 0 && t.SignalAt == 0 {
		note := "the process died of signal " + strconv.Itoa(t.Signal) + " (" + syscall.Signal(t.Signal).String() + ") outside any recorded call"
		if tc.Note != "" {
			note = tc.Note + "; " + note
		}
		tc.Note = note
	}
}

// overlapping reports whether two calls of different threads overlap.
func overlapping(t *op.Trace, order []int) bool {
	var lastEnd uint64
	lastThread := -1
	for _, k := range order {
		c := &t.Calls[k]
		if lastThread >= 0 && c.B < lastEnd && c.Thread != lastThread {
			return true
		}
		if c.E > lastEnd {
			lastEnd, lastThread = c.E, c.Thread
		}
	}
	return false
}

// judgeTrace runs the model over the calls in order, the two pieces of a
// call that waits for its peers (waitsForPeers) each at its own time.
func judgeTrace(t *op.Trace, p model.Profile, driven bool, order []int) *conformance.Result {
	res, _ := judgePieces(t, p, driven, timeOrder(t, order))
	return res
}

// judgePieces judges the pieces in the order given, keeping a refusal's X-2
// reading and going on past a failure, and returns the verdict and the
// calls' order. Nothing is searched or undone here, so the state is owned:
// each step advances it in place (a shared one would be copied per call,
// verdicts and all, which made long traces quadratic).
func judgePieces(t *op.Trace, p model.Profile, driven bool, pieces []tracePiece) (res *conformance.Result, order []int) {
	st := newTraceState(model.NewTraceState(p, driven))
	res = &conformance.Result{History: conformance.History{Profile: p}}
	for _, pc := range pieces {
		if pc.whole() {
			order = append(order, pc.call)
			c := &t.Calls[pc.call]
			res.History.Entries = append(res.History.Entries, conformance.Entry{Op: c.Op, Obs: c.Obs, Skipped: c.Skip})
		}
		good, next := stepPiece(t, st, pc)
		if !good && next.s == st.s && pc.whole() {
			// Out of gate order: judge the call as it stands.
			next = traceState{s: model.StepRecorded(st.s, t, st.n, pc.call), n: st.n + 1, gates: st.gates, arrived: st.arrived}
		}
		st = next
	}
	fillResult(res, st.s.Model())
	return res, order
}

// fillResult copies the model's verdict into res.
func fillResult(res *conformance.Result, m *model.Model) {
	res.Findings = m.Findings()
	res.Tally = *m.Tally()
	res.Checked = m.Checked()
	res.Generic, res.RunClauses, res.Divergences = m.Generic(), m.RunClauses(), m.Divergences()
	if lost, why := m.Lost(); lost {
		res.Lost = why
	}
}

// tracePiece is one step of a concurrent trace's order: a call, the
// moment a prepare takes its context's gate, or the return of a call that
// waits for its peers (whose arrival is the call's own piece).
type tracePiece struct {
	call    int
	acquire bool
	ret     bool
}

// whole reports whether pc is the piece that stands for its call in the
// judged order (not a gate's acquisition, not a return).
func (pc tracePiece) whole() bool { return !pc.acquire && !pc.ret }

// traceState is the sequential specification's state: the model, the
// calls judged, which prepare holds each context's gate, and the calls
// that arrived and have not returned (each with its op index).
type traceState struct {
	s       model.State // shared: the search keeps every state it reached
	n       int
	gates   map[int8]int
	arrived map[int]int
}

func newTraceState(s model.State) traceState {
	return traceState{s: s, gates: map[int8]int{}, arrived: map[int]int{}}
}

// equalTraceStates is the search's state comparison: the state holds a map
// and the model, so it is compared in depth (== would panic). Two states
// equal so answer every later call alike, which is all the search's cache
// needs; a difference that does not matter (the last call's scratch) only
// costs a revisit.
func equalTraceStates(a, b interface{}) bool {
	x, y := a.(traceState), b.(traceState)
	return x.n == y.n && maps.Equal(x.gates, y.gates) && maps.Equal(x.arrived, y.arrived) && reflect.DeepEqual(x.s, y.s)
}

// holdsGate: a prepare, and a launch that got past the gate, hold their
// context's gate from some point inside their interval until they take
// effect (X-2: a launch overlapping a prepare or another launch fails
// fast); the op table says which calls take it (Op.HoldsGate).
func holdsGate(c *op.TraceCall) bool {
	if c.Skip != "" || c.Op.C < 0 {
		return false
	}
	return c.Op.HoldsGate(c.Obs.Call.Status)
}

// stepPiece applies one piece; ok is false when the model (or the gate)
// does not allow it there. A launch of another thread refused with
// INVALID_STATE while the gate is held is X-2's fail-fast refusal, which
// changes nothing; a second prepare waits for the gate. A call that waits
// for its peers arrives with its own piece and is judged at its return.
func stepPiece(t *op.Trace, st traceState, pc tracePiece) (bool, traceState) {
	c := &t.Calls[pc.call]
	gates := maps.Clone(st.gates)
	arrived := st.arrived
	if pc.acquire {
		if _, held := gates[c.Op.C]; held {
			return false, st
		}
		gates[c.Op.C] = pc.call
		return true, traceState{s: st.s, n: st.n, gates: gates, arrived: arrived}
	}
	before := st.s.Model().Failures()
	if pc.ret {
		i, ok := arrived[pc.call]
		if !ok {
			return false, st
		}
		arrived = maps.Clone(arrived)
		delete(arrived, pc.call)
		next := model.ReturnRecorded(st.s, t, i, pc.call)
		return next.Model().Failures() == before, traceState{s: next, n: st.n, gates: gates, arrived: arrived}
	}
	if holdsGate(c) {
		if h, held := gates[c.Op.C]; !held || h != pc.call {
			return false, st
		}
		delete(gates, c.Op.C)
	} else if c.Op.Kind == op.KindLaunch && c.Skip == "" && c.Obs.Call.Status == abi.InvalidState {
		if h, held := gates[c.Op.C]; held && h != pc.call {
			return true, traceState{s: model.PassRule(st.s, model.RX2), n: st.n, gates: gates, arrived: arrived}
		}
	}
	var next model.State
	if waitsForPeers(c) {
		arrived = maps.Clone(arrived)
		arrived[pc.call] = st.n
		next = model.ArriveRecorded(st.s, t, st.n, pc.call)
	} else {
		next = model.StepRecorded(st.s, t, st.n, pc.call)
	}
	return next.Model().Failures() == before, traceState{s: next, n: st.n + 1, gates: gates, arrived: arrived}
}

// linearizeTrace searches an order of the calls that keeps their intervals
// and satisfies the model (porcupine over the model as a sequential
// specification, a prepare and a call that waits for its peers in two
// pieces), and judges the calls in the order found: in full when one
// satisfies the model, else the longest one found followed by the pieces
// left out, each at its time (pieceAt).
func linearizeTrace(t *op.Trace, p model.Profile, driven bool, timeout time.Duration) (res *conformance.Result, order []int, ok, undecided bool) {
	spec := porcupine.Model{
		Init: func() interface{} { return newTraceState(model.NewTraceState(p, driven).Share()) },
		Step: func(s, in, _ interface{}) (bool, interface{}) {
			return stepPiece(t, s.(traceState), in.(tracePiece))
		},
		Equal: equalTraceStates,
	}
	var ops []porcupine.Operation
	var inert []int
	for i := range t.Calls {
		c := &t.Calls[i]
		if inertCall(c) {
			inert = append(inert, i)
			continue
		}
		op := porcupine.Operation{ClientId: c.Thread, Input: tracePiece{call: i}, Call: int64(2 * c.B), Return: int64(2*c.E + 1)}
		if c.Unfinished {
			op.Return = math.MaxInt64 // it never returned
		}
		if holdsGate(c) {
			acq := op
			acq.Input = tracePiece{call: i, acquire: true}
			ops = append(ops, acq)
		}
		if waitsForPeers(c) {
			// It arrives at its begin and returns at its end (pieceAt):
			// the latest point, so a return any point suits is judged
			// there, and the returns of the calls one arrival released
			// are not orders for the search to try.
			ret := op
			ret.Input = tracePiece{call: i, ret: true}
			ret.Call = int64(2 * c.E)
			op.Return = op.Call + 1
			ops = append(ops, ret)
		}
		ops = append(ops, op)
	}
	verdict, info := porcupine.CheckOperationsVerbose(spec, ops, timeout)
	if verdict == porcupine.Unknown {
		res, o := judgePieces(t, p, driven, timeOrder(t, t.ByBegin()))
		return res, o, false, true
	}
	var best []tracePiece
	for _, part := range info.PartialLinearizations() {
		for _, l := range part {
			if len(l) > len(best) || best == nil {
				best = best[:0:0]
				for _, k := range l {
					best = append(best, ops[k].Input.(tracePiece))
				}
			}
		}
	}
	if verdict != porcupine.Ok {
		// The pieces that could not follow the longest order, each at its
		// time, so that the first failure is judged (a return left out
		// before the arrivals that began after it ended).
		in := map[tracePiece]bool{}
		for _, pc := range best {
			in[pc] = true
		}
		var rest []tracePiece
		for _, o := range ops {
			if pc := o.Input.(tracePiece); !pc.acquire && !in[pc] {
				rest = append(rest, pc)
			}
		}
		sort.SliceStable(rest, func(a, b int) bool { return pieceAt(t, rest[a]) < pieceAt(t, rest[b]) })
		best = append(best, rest...)
	}
	res, order = judgePieces(t, p, driven, mergeInert(t, best, inert))
	return res, order, verdict == porcupine.Ok, false
}

// inertCall reports whether c is a call the model does not model and
// that changes nothing it holds (call NAME, a simabi_reset aside): the
// search for an order leaves it out, since any place suits it and a
// consumer polling simabi_gate_state in a loop would otherwise multiply
// the orders to try past any timeout.
func inertCall(c *op.TraceCall) bool { return c.Op.Kind == op.KindInvalid && !c.Reset }

// mergeInert puts the inert calls (ascending by begin) back into the
// order found: each before the first ordered call that began after it.
func mergeInert(t *op.Trace, order []tracePiece, inert []int) []tracePiece {
	if len(inert) == 0 {
		return order
	}
	sort.SliceStable(inert, func(a, b int) bool { return t.Calls[inert[a]].B < t.Calls[inert[b]].B })
	out := make([]tracePiece, 0, len(order)+len(inert))
	for _, pc := range order {
		for !pc.acquire && len(inert) > 0 && t.Calls[inert[0]].B < pieceAt(t, pc) {
			out = append(out, tracePiece{call: inert[0]})
			inert = inert[1:]
		}
		out = append(out, pc)
	}
	for _, k := range inert {
		out = append(out, tracePiece{call: k})
	}
	return out
}

// Replay is one recorded call replayed on another runtime.
type Replay struct {
	Call     int    `json:"call"`              // index into Trace.Calls
	Op       string `json:"op,omitempty"`      // the op as replayed
	Recorded string `json:"recorded"`          // the recorded result, rendered as a history result
	Got      string `json:"got,omitempty"`     // what the runtime answered ("" when the call was not replayed)
	Skipped  string `json:"skipped,omitempty"` // why the call was not replayed
}

// Differs reports whether the replayed answer differs from the recorded one.
func (r Replay) Differs() bool { return r.Skipped == "" && r.Got != r.Recorded }

// TraceOps is the consumer's side of t as an op script in the order the
// calls began, for a replay on any runtime: before each call whose thread's
// device the trace knows, a setdev when it changed; each script op's call
// index (-1 for an inserted setdev). Calls the grammar cannot rebuild are
// left out and listed with the reason.
func Ops(t *op.Trace) (ops []op.Op, calls []int, left map[int]string) {
	order := t.ByBegin()
	left = map[int]string{}
	dev, known := int32(0), false
	for _, k := range order {
		c := &t.Calls[k]
		if c.Unfinished {
			left[k] = "it never returned in the recording"
			continue
		}
		if c.Skip != "" {
			left[k] = c.Skip
			continue
		}
		if c.NoReplay != "" {
			left[k] = c.NoReplay
			continue
		}
		if c.Op.Kind.Entry() {
			// (The consumer's hook calls are replayed as such.)
			if c.DevKnown && (!known || dev != c.Dev) {
				ops, calls = append(ops, op.Op{Kind: op.KindSetDev, Dev: c.Dev}), append(calls, -1)
				dev, known = c.Dev, true
			}
		}
		if c.Op.Kind == op.KindSetDev {
			dev, known = c.Op.Dev, true
		}
		ops, calls = append(ops, c.Op), append(calls, k)
	}
	return ops, calls, left
}

// recordedResult renders call k's recorded answer as a history result (what
// the replay's history line shows after "->", committed memory aside).
func recordedResult(t *op.Trace, k int) string {
	c := &t.Calls[k]
	e := conformance.Entry{Op: c.Op, Obs: c.Obs}
	return e.Result()
}

// CompareReplay matches a replay's history lines (History.Lines of the
// script TraceOps made) with the recorded results.
func CompareReplay(t *op.Trace, ops []op.Op, calls []int, left map[int]string, history []string) []Replay {
	var out []Replay
	for i, k := range calls {
		if k < 0 {
			continue
		}
		r := Replay{Call: k, Op: ops[i].String(), Recorded: recordedResult(t, k)}
		if i < len(history) {
			r.Got = replayResult(history[i])
			if r.Got == "skipped" {
				r.Skipped, r.Got = "the runtime could not run it", ""
			}
		} else {
			r.Skipped = "the replay stopped before it"
		}
		out = append(out, r)
	}
	for k, why := range left {
		out = append(out, Replay{Call: k, Recorded: t.Calls[k].Result, Skipped: why})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Call < out[b].Call })
	return out
}

// replayResult is the result of a history line ("#i op -> result [note]")
// without the committed-memory direction, which a trace does not record.
func replayResult(line string) string {
	_, r, ok := strings.Cut(line, " -> ")
	if !ok {
		return ""
	}
	if i := strings.Index(r, " ["); i >= 0 {
		r = r[:i]
	}
	var keep []string
	for _, f := range strings.Fields(r) {
		if !strings.HasPrefix(f, "mem=") {
			keep = append(keep, f)
		}
	}
	return strings.Join(keep, " ")
}

// String renders a replayed call for a report.
func (r Replay) String() string {
	switch {
	case r.Skipped != "":
		return fmt.Sprintf("#%d not replayed: %s", r.Call, r.Skipped)
	case r.Differs():
		return fmt.Sprintf("#%d %s: recorded %s, got %s", r.Call, r.Op, r.Recorded, r.Got)
	}
	return fmt.Sprintf("#%d %s: %s (as recorded)", r.Call, r.Op, r.Got)
}

// Report renders the check as a report: one check named after the trace,
// every failure with the judged ops up to it as its repro (a script
// -replay runs on any target).
func (tc *Outcome) Report() *report.Report {
	name := "trace/" + tc.Trace.Path
	r := report.NewReport(tc.Trace.Path)
	ops := tc.Ops()
	first := -1
	for _, f := range tc.Result.Findings {
		if f.Verdict == model.Fail {
			first = f.Index
			break
		}
	}
	var repro []op.Op
	if first >= 0 {
		repro = tc.repro(first)
	}
	r.AddResult(name, tc.Result, func(i int) []op.Op { return tc.repro(tc.Result.Findings[i].Index) })
	c := report.CheckReport{Name: name, Verdict: model.Pass, Detail: fmt.Sprintf("%d calls recorded, %d judged", len(tc.Trace.Calls), tc.Result.Checked)}
	if first >= 0 {
		c.Verdict, c.Detail = model.Fail, conformance.OpAt(ops, first)+": "+tc.firstFailure()
		c.Repro = conformance.OpLines(repro)
	}
	for _, d := range tc.Deaths {
		op := ops[d.At]
		detail := conformance.OpAt(ops, d.At) + ": " + d.Verdict.String() + ": " + d.Detail
		drepro := tc.repro(d.At)
		r.AddDeath(name, []model.Rule{conformance.EntryRule(op)}, d.Verdict, d.At, &op, detail, drepro)
		if c.Verdict == model.Pass || c.Verdict == model.Fail {
			c.Verdict, c.Detail, c.Repro = d.Verdict, detail, conformance.OpLines(drepro)
		}
	}
	if tc.Note != "" {
		c.Detail += "; " + tc.Note
	}
	if torn := tc.Trace.Torn; torn != nil {
		// The calls before it are judged above; the line itself is a
		// failure of its own, never dropped.
		detail := fmt.Sprintf("%s:%d: %s", tc.Trace.Path, torn.Line, torn.Describe("judged"))
		r.AddTraceFault(name, detail)
		if c.Verdict == model.Pass {
			c.Verdict = model.Fail
		}
		c.Detail += fmt.Sprintf("; line %d is torn", torn.Line)
	}
	r.AddCheck(c)
	r.Profile = tc.Profile.String()
	r.Finish()
	return r
}

func (tc *Outcome) firstFailure() string {
	for _, f := range tc.Result.Findings {
		if f.Verdict == model.Fail {
			return f.Rule.String() + ": " + f.Detail
		}
	}
	return ""
}

// repro is the judged calls up to the one at position last, as a script
// that reproduces them on any target: calls no op stands for left out, a
// setdev before each call whose recorded device differs from the last.
func (tc *Outcome) repro(last int) []op.Op {
	var out []op.Op
	dev, known := int32(0), false
	for i, k := range tc.Order {
		if i > last {
			break
		}
		c := &tc.Trace.Calls[k]
		if c.Op.Kind == op.KindInvalid {
			continue
		}
		if c.DevKnown && (!known || dev != c.Dev) && c.Op.Kind != op.KindSetDev {
			out = append(out, op.Op{Kind: op.KindSetDev, Dev: c.Dev})
			dev, known = c.Dev, true
		}
		if c.Op.Kind == op.KindSetDev {
			dev, known = c.Op.Dev, true
		}
		out = append(out, c.Op)
	}
	return out
}
