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

// Isolated execution: a runtime may abort, fault or never return, so
// cmd/abicheck runs a library's sequences in a child process. An Executor
// runs one sequence on a fresh instance and returns an Outcome;
// OutcomeRecord is its form across a process boundary.

// AtSetup is Outcome.At for a run that died before its first op.
const AtSetup = -1

// Outcome is one executed sequence.
type Outcome struct {
	// Verdict is Pass when the run went to its end, Crash when it died (a
	// signal, an abnormal exit, a panic), Hang when it exceeded its time.
	Verdict model.Verdict
	Detail  string  // how a crash or hang happened
	Result  *Result // the checked run (Pass only)
	// At is the op executing at a crash or hang: len(ops) for the cleanup,
	// AtSetup before the first.
	At      int
	History []string // one line per op, when asked for (Pass only)
	Steps   []Step   // the history in compared form (CompareSteps)
	// Prior is a death of the process found before this run started: it
	// belongs to the previous run.
	Prior *Outcome
	// Residue is a death of this run in a process that ran earlier cases,
	// when the run does not die in a fresh process: an unloaded instance's
	// leftovers killed it (U-1). The outcome is then the fresh process's.
	Residue *Outcome
}

// Executor runs one sequence on a fresh runtime instance: in this process
// (FactoryExecutor) or in a child process (cmd/abicheck).
type Executor interface {
	Execute(ops []op.Op, history bool) Outcome
}

// FreshExecutor can also run a sequence in a process that ran nothing
// before it (a repro must show its finding there).
type FreshExecutor interface {
	Executor
	ExecuteFresh(ops []op.Op, history bool) Outcome
}

// FactoryExecutor runs sequences in this process on targets from Factory: a
// panic is a Crash, a run past Timeout (when positive) a Hang. It does not
// survive a runtime that kills the process.
type FactoryExecutor struct {
	Factory Factory
	Options Options
	Timeout time.Duration
	// Finished gets the outcome before the target is released, so a death
	// while the library unloads is judged as U-1, not as the case's crash.
	Finished func(Outcome)
}

// Execute implements Executor on a fresh target from the Factory.
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
		if r.stuckWhy != "" { // a comm call never returned
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
		r.Close() // its threads' exit work runs before an unload (U-1)
		if x.Finished != nil {
			x.Finished(o)
		}
		if release != nil && r.stuckWhy == "" { // a stuck thread is still inside
			release()
		}
		return o
	case <-expire:
		return Outcome{Verdict: model.Hang, Detail: fmt.Sprintf("the run did not finish within %v", x.Timeout), At: int(at.Load())}
	}
}

// OpAt describes position at of ops for a report.
func OpAt(ops []op.Op, at int) string {
	switch {
	case at >= 0 && at < len(ops):
		return fmt.Sprintf("#%d %s", at, ops[at])
	case at == len(ops):
		return "the cleanup after the last op (finalize/destroy of the contexts left)"
	}
	return "the setup before the first op (supported(NULL), resetting hooks and device)"
}

// ReproPrefix is the part of ops a crash or hang at at needs.
func ReproPrefix(ops []op.Op, at int) []op.Op {
	if at >= 0 && at < len(ops) {
		return ops[:at+1]
	}
	return ops
}

// ParseProfile reads a profile name (tmr, refusing, legacy).
func ParseProfile(s string) (model.Profile, bool) { return abi.ParseProfile(s) }

// OutcomeRecord is an Outcome in a form that crosses a process boundary
// (JSON): ops and verdicts as their text, rules by number (parent and
// child are one binary).
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
	Profile    string                 `json:"profile"`
	Checked    int                    `json:"checked"`
	Lost       string                 `json:"lost,omitempty"`
	Findings   []FindingRecord        `json:"findings,omitempty"`
	Tally      model.Tally            `json:"tally"`
	Generic    [model.NumRules]uint32 `json:"generic"`
	RunClauses [model.NumRules]uint32 `json:"run_clauses"`
	Diverged   int                    `json:"diverged,omitempty"`
}

// FindingRecord is a Finding with its op as text.
type FindingRecord struct {
	Index   int           `json:"index"`
	Rep     int           `json:"rep,omitempty"`
	Op      string        `json:"op,omitempty"`
	Rule    model.Rule    `json:"rule"`
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
			Tally: res.Tally, Generic: res.Generic, RunClauses: res.RunClauses, Diverged: res.Divergences}
		for _, f := range res.Findings {
			fr := FindingRecord{Index: f.Index, Rep: f.Rep, Rule: f.Rule, Verdict: f.Verdict, Detail: f.Detail, Key: f.Key, Upto: f.Upto}
			if f.Index >= 0 {
				fr.Op = f.Op.String()
			}
			rr.Findings = append(rr.Findings, fr)
		}
		rec.Result = rr
	}
	return rec
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
	res := &Result{History: History{Profile: p}, Checked: rr.Checked, Lost: rr.Lost, Divergences: rr.Diverged,
		Tally: rr.Tally, Generic: rr.Generic, RunClauses: rr.RunClauses}
	for _, fr := range rr.Findings {
		f := model.Finding{Index: fr.Index, Rep: fr.Rep, Rule: fr.Rule, Verdict: fr.Verdict, Detail: fr.Detail, Key: fr.Key, Upto: fr.Upto}
		if fr.Op != "" {
			op, err := op.Parse(fr.Op)
			if err != nil {
				return o, fmt.Errorf("conformance: finding op %q: %w", fr.Op, err)
			}
			f.Op = op
		}
		res.Findings = append(res.Findings, f)
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
