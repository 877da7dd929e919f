package trace

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/report"
)

// A trace whose calls never overlap is judged in the order the calls
// began. When calls of several threads overlap, it is accepted when some
// order keeping every call's [begin, end] interval satisfies the model
// (porcupine searches); otherwise the longest such order is judged up to
// its first failure.

// Outcome is the result of checking one trace.
type Outcome struct {
	Trace   *op.Trace
	Profile model.Profile
	Result  *conformance.Result // the model's verdict, History following Order
	Order   []int               // the calls' indices in the order judged
	// Concurrent: calls of different threads overlap; Linearizable: an
	// order keeping the intervals satisfies the model; Undecided: the
	// search ran out of time. Note explains such a verdict.
	Concurrent, Linearizable, Undecided bool
	Note                                string
	// Driven: the trace records a sync, so it is judged as the live
	// checker judges a target with hooks (work pends until its stream is
	// synchronized; fault site 8 counts only syncs of a stream with work).
	Driven bool
	Deaths []Death // the calls that never returned, in the order judged
}

// Death is a call the trace ends inside: a hang, or a crash (a fatal
// signal hit it).
type Death struct {
	At      int // position in Order
	Verdict model.Verdict
	Detail  string
}

// Options configure CheckTrace.
type Options struct {
	// Profile of the recorded runtime; nil: legacy for a legacy trace,
	// else by simpler_kernel_mode_supported's first answer (0 refusing,
	// else tmr).
	Profile *model.Profile
	Timeout time.Duration // bounds the search for an order (default 10 s)
}

// Ops is the judged sequence (for a repro).
func (tc *Outcome) Ops() []op.Op {
	out := make([]op.Op, len(tc.Order))
	for i, k := range tc.Order {
		out[i] = tc.Trace.Calls[k].Op
	}
	return out
}

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
// through the simulation hooks (a simulated target, whose work completes
// only then); through ACL, work may complete at any time.
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
		tc.Result, tc.Order = judgePieces(t, tc.Profile, tc.Driven, timeOrder(t, order))
		return tc
	}
	timeout := cmp.Or(max(o.Timeout, 0), 10*time.Second)
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

// deaths lists the calls the trace ends inside, and notes a death outside
// any recorded call.
func (tc *Outcome) deaths() {
	t := tc.Trace
	died := "the process died of signal " + strconv.Itoa(t.Signal) + " (" + syscall.Signal(t.Signal).String() + ")"
	for i, k := range tc.Order {
		c := &t.Calls[k]
		if !c.Unfinished {
			continue
		}
		d := Death{At: i, Verdict: model.Hang}
		switch {
		case c.Died:
			d.Verdict, d.Detail = model.Crash, died+" inside this call"
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
			d.Detail += "; in-flight record: " + c.Record
		}
		tc.Deaths = append(tc.Deaths, d)
	}
	if t.Signal != 0 && t.SignalAt == 0 {
		tc.Note = strings.TrimPrefix(tc.Note+"; "+died+" outside any recorded call", "; ")
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

// judgePieces judges the pieces in order, going on past a failure. Nothing
// is undone here, so the state is owned and advanced in place (a shared
// one is copied per call, which made long traces quadratic).
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
	m := st.s.Model()
	res.Findings = m.Findings()
	res.Tally = m.Tally()
	res.Checked = m.Checked()
	res.Generic, res.RunClauses, res.Divergences = m.Generic(), m.RunClauses(), m.Divergences()
	if lost, why := m.Lost(); lost {
		res.Lost = why
	}
	return res, order
}

// tracePiece is one step of an order: a call, the moment a prepare takes
// its context's gate, or the return of a call that waits for its peers.
type tracePiece struct {
	call         int
	acquire, ret bool
}

// whole reports whether pc stands for its call in the judged order.
func (pc tracePiece) whole() bool { return !pc.acquire && !pc.ret }

// traceState is the search's state: the model, the calls judged, which
// prepare holds each context's gate, the calls arrived and not returned.
type traceState struct {
	s       model.State // shared: the search keeps every state it reached
	n       int
	gates   map[int8]int
	arrived map[int]int
}

func newTraceState(s model.State) traceState {
	return traceState{s: s, gates: map[int8]int{}, arrived: map[int]int{}}
}

// equalTraceStates compares in depth (== would panic on the maps); a
// difference that does not matter only costs the search a revisit.
func equalTraceStates(a, b interface{}) bool {
	x, y := a.(traceState), b.(traceState)
	return x.n == y.n && maps.Equal(x.gates, y.gates) && maps.Equal(x.arrived, y.arrived) && reflect.DeepEqual(x.s, y.s)
}

// holdsGate: the call holds its context's gate from some point inside its
// interval until it takes effect (X-2; Op.HoldsGate).
func holdsGate(c *op.TraceCall) bool {
	if c.Skip != "" || c.Op.C < 0 {
		return false
	}
	return c.Op.HoldsGate(c.Obs.Call.Status)
}

// stepPiece applies one piece; false when the model or the gate does not
// allow it there. A launch refused with INVALID_STATE while another call
// holds the gate is X-2's fail-fast refusal and changes nothing.
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

// linearizeTrace searches an order keeping the calls' intervals that
// satisfies the model, and judges the calls in it: else in the longest
// order found, then the pieces left out, each at its time (pieceAt).
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
			// Both pieces are points (arrival at its begin, return at its
			// end), so they add no orders for the search to try.
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
		// The pieces left out, each at its time, so the first failure is
		// judged.
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

// inertCall: a call the model does not model and that changes nothing (a
// simabi_reset aside); the search leaves it out, since any place suits it
// and a consumer polling in a loop would multiply the orders to try.
func inertCall(c *op.TraceCall) bool { return c.Op.Kind == op.KindInvalid && !c.Reset }

// mergeInert puts each inert call back before the first ordered call that
// began after it.
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

// Ops is t as an op script in the order the calls began, for a replay: a
// setdev inserted (call index -1) before an entry call whose recorded
// device changed; calls the grammar cannot rebuild are left, with why.
func Ops(t *op.Trace) (ops []op.Op, calls []int, left map[int]string) {
	order := t.ByBegin()
	left = map[int]string{}
	dev, known := int32(0), false
	for _, k := range order {
		c := &t.Calls[k]
		if why := cmp.Or(map[bool]string{true: "it never returned in the recording"}[c.Unfinished], c.Skip, c.NoReplay); why != "" {
			left[k] = why
			continue
		}
		if c.Op.Kind.Entry() && c.DevKnown && (!known || dev != c.Dev) {
			ops, calls = append(ops, op.Op{Kind: op.KindSetDev, Dev: c.Dev}), append(calls, -1)
			dev, known = c.Dev, true
		}
		if c.Op.Kind == op.KindSetDev {
			dev, known = c.Op.Dev, true
		}
		ops, calls = append(ops, c.Op), append(calls, k)
	}
	return ops, calls, left
}

// CompareReplay matches a replay's history lines (History.Lines of the
// script TraceOps made) with the recorded results.
func CompareReplay(t *op.Trace, ops []op.Op, calls []int, left map[int]string, history []string) []Replay {
	var out []Replay
	for i, k := range calls {
		if k < 0 {
			continue
		}
		c := &t.Calls[k]
		r := Replay{Call: k, Op: ops[i].String(), Recorded: (&conformance.Entry{Op: c.Op, Obs: c.Obs}).Result()}
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
	r.AddResult(name, tc.Result, func(i int) []op.Op { return tc.repro(tc.Result.Findings[i].Index) })
	c := report.CheckReport{Name: name, Verdict: model.Pass, Detail: fmt.Sprintf("%d calls recorded, %d judged", len(tc.Trace.Calls), tc.Result.Checked)}
	if i := slices.IndexFunc(tc.Result.Findings, func(f model.Finding) bool { return f.Verdict == model.Fail }); i >= 0 && tc.Result.Findings[i].Index >= 0 {
		f := tc.Result.Findings[i]
		c.Verdict, c.Detail = model.Fail, conformance.OpAt(ops, f.Index)+": "+f.Rule.String()+": "+f.Detail
		c.Repro = conformance.OpLines(tc.repro(f.Index))
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
		// A failure of its own, never dropped.
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

// repro is the judged calls up to position last as a script for any
// target: calls no op stands for left out, a setdev before each call whose
// recorded device differs from the last.
func (tc *Outcome) repro(last int) []op.Op {
	var out []op.Op
	dev, known := int32(0), false
	for _, k := range tc.Order[:min(last+1, len(tc.Order))] {
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
