package conformance

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// Isolated and observed execution.
//
// A checker that drives a foreign library must survive it: a runtime may
// abort, fault or never return. cmd/abicheck therefore runs each sequence of
// an external library in a child process. The pieces here are what both
// sides of that arrangement share: an Executor runs one sequence on a fresh
// runtime instance and returns an Outcome (pass with the model's Result, or
// crash / hang with the index of the op that was executing);
// FactoryExecutor runs a sequence in this process and calls
// Options.BeforeOp before each op, which a child uses to stream its progress
// to the parent; OutcomeRecord is the serialisable form of an Outcome;
// suite.ConformWith is the suite over any Executor.

// Positions of Outcome.At besides an op index.
const (
	// AtSetup: the run died before its first op (supported(NULL), resetting
	// the hooks or the device).
	AtSetup = -1
)

// Outcome is one executed sequence.
type Outcome struct {
	// Verdict is Pass when the run went to its end (Result holds what the
	// model found), Crash when the process or the run died (a signal, an
	// abnormal exit, a panic) and Hang when it exceeded its time.
	Verdict model.Verdict
	// Detail says how a crash or hang happened (the signal or exit status
	// and the runtime's last message).
	Detail string
	// Result is the checked run (Verdict Pass only).
	Result *Result
	// At is the op that was executing when the run crashed or hung: an index
	// into the ops, len(ops) for the runner's cleanup after the last op
	// (finalize and destroy of the contexts left), AtSetup before the first.
	At int
	// History is the run's history, one line per op, when it was asked for
	// and the run went to its end.
	History []string
	// Steps are the same history in the form two runs are compared in
	// (CompareSteps), with History.
	Steps []Step
	// Prior is a death of the executor's process found before this run
	// started, after the previous run had finished: it belongs to that run.
	Prior *Outcome
	// Residue is a death of this run in a process that had run earlier
	// cases, each loading and unloading its own instance of the library,
	// when the same run does not die in a fresh process: what an unloaded
	// instance left behind killed it (U-1), not this run's calls. The
	// outcome is then the fresh process's.
	Residue *Outcome
}

// Executor runs one sequence on a fresh runtime instance: in this process
// (FactoryExecutor) or in a child process (cmd/abicheck).
type Executor interface {
	Execute(ops []op.Op, history bool) Outcome
}

// FreshExecutor is an Executor that can also run a sequence in a process
// that ran nothing before it: a repro must show its finding there, not only
// in a process that earlier cases had left state in.
type FreshExecutor interface {
	Executor
	ExecuteFresh(ops []op.Op, history bool) Outcome
}

// FactoryExecutor runs sequences in this process on targets from Factory. A
// panic becomes a Crash; a run that exceeds Timeout (when positive) is
// abandoned as a Hang. It cannot survive a runtime that kills the process:
// use it for sim, and process isolation for libraries.
type FactoryExecutor struct {
	Factory Factory
	Options Options
	Timeout time.Duration
	// Finished, when set, gets the outcome as soon as the run has finished,
	// before the target is released: a child process reports it then, so
	// that a death while the library is unloaded comes after the case's
	// result and is judged as what it is (U-1), not as the case's crash.
	Finished func(Outcome)
}

// Execute implements Executor: it runs ops on a fresh target from the
// Factory. Options.BeforeOp, when set, is called before each op as for any
// run (a child process streams the indices to its parent).
func (x FactoryExecutor) Execute(ops []op.Op, history bool) (out Outcome) {
	out.At = AtSetup
	defer func() {
		if p := recover(); p != nil {
			out = Outcome{Verdict: model.Crash, Detail: fmt.Sprint("checker panic: ", p), At: out.At}
		}
	}()
	t, release, err := x.Factory()
	if err != nil {
		return Outcome{Verdict: model.Crash, Detail: "opening the target: " + err.Error(), At: AtSetup}
	}
	var at atomic.Int64
	at.Store(AtSetup)
	opt := x.Options
	user := opt.BeforeOp
	opt.BeforeOp = func(i int) {
		at.Store(int64(i))
		if user != nil {
			user(i)
		}
	}
	r := NewRunner(t, opt)
	ch := make(chan Outcome, 1)
	go func() {
		var o Outcome
		defer func() {
			if p := recover(); p != nil {
				o = Outcome{Verdict: model.Crash, Detail: fmt.Sprint("panic: ", p), At: int(at.Load())}
			}
			ch <- o
		}()
		var res *Result
		r.main.do(func() {
			defer func() {
				if p := recover(); p != nil {
					o = Outcome{Verdict: model.Crash, Detail: fmt.Sprint("panic: ", p), At: int(at.Load())}
				}
			}()
			res = r.run(ops)
		})
		if res == nil {
			return
		}
		if r.unloadAt >= 0 {
			r.finishUnload(ops, res)
		}
		o = Outcome{Verdict: model.Pass, Result: res, At: len(ops)}
		if r.stuckWhy != "" {
			// A released comm call never returned: its thread is in the
			// runtime still, so the instance is not used again.
			o.Verdict, o.Detail, o.At = model.Hang, r.stuckWhy, r.stuckAt
		}
		if history {
			o.History = res.History.Lines()
			o.Steps = res.History.Steps()
		}
	}()
	var expire <-chan time.Time
	if x.Timeout > 0 {
		timer := time.NewTimer(x.Timeout)
		defer timer.Stop()
		expire = timer.C
	}
	select {
	case o := <-ch:
		// The runner's threads exit before the library is released, so
		// that their thread-exit work never runs after an unload (only the
		// unload op tests that, U-1).
		r.Close()
		if x.Finished != nil {
			x.Finished(o)
		}
		if release != nil && r.stuckWhy == "" {
			// (A comm call that never returned keeps a thread inside the
			// library: it is never unloaded then.)
			release()
		}
		return o
	case <-expire:
		return Outcome{Verdict: model.Hang, Detail: fmt.Sprintf("the run did not finish within %v", x.Timeout), At: int(at.Load())}
	}
}

// OpAt describes position at of ops for a report: "#i op", "cleanup after
// the last op" or "setup before the first op".
func OpAt(ops []op.Op, at int) string {
	switch {
	case at >= 0 && at < len(ops):
		return fmt.Sprintf("#%d %s", at, ops[at])
	case at == len(ops):
		return "the cleanup after the last op (finalize/destroy of the contexts left)"
	}
	return "the setup before the first op (supported(NULL), resetting hooks and device)"
}

// ReproPrefix is the part of ops a crash or hang at position at needs: up to
// and including the op that was executing (all of them for the cleanup or
// an unknown position).
func ReproPrefix(ops []op.Op, at int) []op.Op {
	if at >= 0 && at < len(ops) {
		return ops[:at+1]
	}
	return ops
}

// ParseProfile reads a profile name (tmr, refusing, legacy).
func ParseProfile(s string) (model.Profile, bool) { return abi.ParseProfile(s) }

// Verdicts lists every verdict in order (pass, fail, warn, skip, crash, hang).
func Verdicts() []model.Verdict {
	out := make([]model.Verdict, model.NumVerdicts)
	for i := range out {
		out[i] = model.Verdict(i)
	}
	return out
}

// OutcomeRecord is an Outcome in a form that crosses a process boundary
// (JSON): ops, rules and verdicts as their text.
type OutcomeRecord struct {
	Verdict model.Verdict `json:"verdict"`
	Detail  string        `json:"detail,omitempty"`
	At      int           `json:"at"`
	Result  *ResultRecord `json:"result,omitempty"`
	History []string      `json:"history,omitempty"`
	Steps   []Step        `json:"steps,omitempty"`
}

// ResultRecord is a Result without its history entries (History lines travel
// separately).
type ResultRecord struct {
	Profile    string              `json:"profile"`
	Checked    int                 `json:"checked"`
	Lost       string              `json:"lost,omitempty"`
	Findings   []FindingRecord     `json:"findings,omitempty"`
	Tally      map[string][]uint32 `json:"tally,omitempty"`       // rule -> count per verdict
	Generic    map[string]uint32   `json:"generic,omitempty"`     // rule -> passes on a legacy build's generic -1
	RunClauses map[string]uint32   `json:"run_clauses,omitempty"` // rule -> outstanding-run clauses checked
	Diverged   int                 `json:"diverged,omitempty"`
}

// FindingRecord is a Finding with its op and rule as text.
type FindingRecord struct {
	Index   int           `json:"index"`
	Rep     int           `json:"rep,omitempty"`
	Op      string        `json:"op,omitempty"`
	Rule    string        `json:"rule"`
	Verdict model.Verdict `json:"verdict"`
	Detail  string        `json:"detail,omitempty"`
	Key     string        `json:"key,omitempty"`
	Upto    int           `json:"upto,omitempty"`
}

// Record converts o for transport.
func (o Outcome) Record() OutcomeRecord {
	rec := OutcomeRecord{Verdict: o.Verdict, Detail: o.Detail, At: o.At, History: o.History, Steps: o.Steps}
	if res := o.Result; res != nil {
		rr := &ResultRecord{Profile: res.History.Profile.String(), Checked: res.Checked, Lost: res.Lost,
			Tally: map[string][]uint32{}, Diverged: res.Divergences}
		for _, f := range res.Findings {
			fr := FindingRecord{Index: f.Index, Rep: f.Rep, Rule: f.Rule.String(), Verdict: f.Verdict, Detail: f.Detail, Key: f.Key, Upto: f.Upto}
			if f.Index >= 0 {
				fr.Op = f.Op.String()
			}
			rr.Findings = append(rr.Findings, fr)
		}
		for rule := model.Rule(0); rule < model.NumRules; rule++ {
			row := res.Tally[rule]
			if row != ([model.NumVerdicts]uint32{}) {
				rr.Tally[rule.String()] = append([]uint32(nil), row[:]...)
			}
			if n := res.Generic[rule]; n > 0 {
				if rr.Generic == nil {
					rr.Generic = map[string]uint32{}
				}
				rr.Generic[rule.String()] = n
			}
			if n := res.RunClauses[rule]; n > 0 {
				if rr.RunClauses == nil {
					rr.RunClauses = map[string]uint32{}
				}
				rr.RunClauses[rule.String()] = n
			}
		}
		rec.Result = rr
	}
	return rec
}

// ruleOrNone reads a rule ID; "-" and unknown IDs are RuleNone.
func ruleOrNone(s string) model.Rule {
	if s == "HOOKS" {
		return model.RHooks
	}
	r, _ := model.RuleByName(s)
	return r
}

// Outcome converts a record back. An op that does not parse is an error
// (the two sides disagree on the op grammar).
func (rec OutcomeRecord) Outcome() (Outcome, error) {
	o := Outcome{Verdict: rec.Verdict, Detail: rec.Detail, At: rec.At, History: rec.History, Steps: rec.Steps}
	if rec.Result == nil {
		if o.Verdict == model.Pass {
			return o, fmt.Errorf("conformance: a passing outcome without a result")
		}
		return o, nil
	}
	rr := rec.Result
	p, ok := ParseProfile(rr.Profile)
	if !ok {
		return o, fmt.Errorf("conformance: unknown profile %q", rr.Profile)
	}
	res := &Result{History: History{Profile: p}, Checked: rr.Checked, Lost: rr.Lost, Divergences: rr.Diverged}
	for name, n := range rr.Generic {
		res.Generic[ruleOrNone(name)] = n
	}
	for name, n := range rr.RunClauses {
		res.RunClauses[ruleOrNone(name)] = n
	}
	for _, fr := range rr.Findings {
		f := model.Finding{Index: fr.Index, Rep: fr.Rep, Rule: ruleOrNone(fr.Rule), Verdict: fr.Verdict, Detail: fr.Detail, Key: fr.Key, Upto: fr.Upto}
		if fr.Op != "" {
			op, err := op.Parse(fr.Op)
			if err != nil {
				return o, fmt.Errorf("conformance: finding op %q: %w", fr.Op, err)
			}
			f.Op = op
		}
		res.Findings = append(res.Findings, f)
	}
	for name, row := range rr.Tally {
		rule := ruleOrNone(name)
		for v := 0; v < len(row) && v < int(model.NumVerdicts); v++ {
			res.Tally[rule][v] += row[v]
		}
	}
	o.Result = res
	return o, nil
}

// OpLines renders ops one per line (a repro or a request).
func OpLines(ops []op.Op) []string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = op.String()
	}
	return out
}

// ParseOpLines parses ops written one per line by OpLines.
func ParseOpLines(lines []string) ([]op.Op, error) {
	return op.ParseScript(strings.Join(lines, "\n"))
}
