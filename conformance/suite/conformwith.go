// Package suite runs the checker's suite over any conformance.Executor: the
// directed catalogue (with refusal probes), then random sequences, with
// crash and hang handling, shrinking within budgets, and a report.Report per
// rule; cmd/abicheck runs it over a simulator in this process or a pool of
// child processes (conformance/isolate).
package suite

import (
	"fmt"
	"slices"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/onboard"
)

// Run configures ConformWith; the target's profile and capabilities are
// given (a parent process learns them from its child).
type Run struct {
	Name string
	Cases
	SkipSlow bool // leave out checks marked Slow
	// MaxHangs: once this many cases hung in one op kind, the cases that
	// contain it are skipped (default 2; a hang costs the case timeout).
	MaxHangs int
	Stop     func(CaseOutcome) bool // when not nil, true ends the run after that case
	// BindFindings are rules the target broke while it was bound
	// (library.Info.BindFindings): each is a failure of the report.
	BindFindings []onboard.BindFinding
}

// CaseOutcome is one directed check or random sequence of a ConformWith run.
type CaseOutcome struct {
	Name    string
	Rules   []model.Rule  // the directed check's rules (nil for a random sequence)
	Verdict model.Verdict // the case's own verdict
	Broken  []model.Rule  // the rules this case reported failed, crashed or hung
	Detail  string
	Repro   []op.Op // the (shrunk) op log of a failure, crash or hang
	Elapsed time.Duration
	// FirstFail is the first failing op (-1: none; a death: where it died).
	FirstFail int
}

// Result is what ConformWith produced.
type Result struct {
	Report  *report.Report
	Cases   []CaseOutcome // every case that ran, in order
	Random  int           // random sequences run
	Elapsed time.Duration
	Stopped bool // Run.Stop ended the run early
	Budget  bool // the random phase ended at Run.Duration
}

type suiteState struct {
	pass
	x        conformance.Executor
	s        Run
	rep      *report.Report
	hung     map[string]int
	lastName string // the case that ran last (a late death is its)
	lastOps  []op.Op
	out      *Result
}

// Finisher is an Executor that can find out, once no more cases will run,
// whether its process died after the last one (Finish returns that death, or
// nil).
type Finisher interface {
	Finish() *conformance.Outcome
}

// ConformWith runs the directed catalogue and random sequences through x and
// reports per rule. A crash
// or hang of a directed check is reported under the check's rules, one of a
// random sequence under the rule of the entry that died (EntryRule), with
// the op log up to the op that was executing. ConformWith never panics on
// anything a target returns: a panic while running a case is its crash.
func ConformWith(x conformance.Executor, s Run) *Result {
	t0 := time.Now()
	s.Cases = s.Cases.withDefaults(checkShrinkTotal)
	if s.MaxHangs <= 0 {
		s.MaxHangs = 2
	}
	checks := s.checks()
	rep := report.NewReport(s.Name)
	rep.Profile = s.Profile.String()
	for _, bf := range s.BindFindings {
		if r, ok := model.RuleByName(bf.Rule); ok {
			rep.AddBindFinding(r, bf.Detail)
		}
	}
	st := &suiteState{x: x, s: s, rep: rep, hung: map[string]int{}, out: &Result{Report: rep}}
	st.pass = newPass(&st.s.Cases, len(checks))
	if !st.directed(checks) {
		st.random()
		if f, ok := x.(Finisher); ok {
			st.late(f.Finish())
		}
	}
	rep.Finish()
	st.out.Elapsed = time.Since(t0)
	return st.out
}

// execute runs one case (a check, a probe or a sequence) and reports the
// deaths the executor found around it: a late one of the case before, a
// residue of earlier cases in this one.
func (st *suiteState) execute(name string, ops []op.Op) conformance.Outcome {
	out := st.x.Execute(ops, false)
	st.late(out.Prior)
	if r := out.Residue; r != nil {
		// What earlier, unloaded instances of the library left behind: U-1.
		detail := fmt.Sprintf("%s: %s at %s in a process that had loaded and unloaded the library for earlier cases, "+
			"and not when the case ran again in a fresh process: what an unloaded instance left behind (a thread, a "+
			"thread-exit destructor, a timer) killed it: %s", name, r.Verdict, conformance.OpAt(ops, r.At), r.Detail)
		st.rep.AddResidue("residue/"+name, r.Verdict, r.At, opPtr(ops, r.At), detail, conformance.ReproPrefix(ops, r.At))
	}
	st.lastName, st.lastOps = name, ops
	return out
}

// late reports a death the executor found after a case had finished (a
// thread or a thread-exit destructor of the library ran after the case's
// teardown): the case's instance was already released, so it is U-1 of
// code of an unloaded library, under the case that ran last, and never
// retried in silence.
func (st *suiteState) late(prior *conformance.Outcome) {
	if prior == nil || st.lastName == "" {
		return
	}
	detail := fmt.Sprintf("%s: %s after the case finished (its contexts destroyed, the library released and unloaded): %s",
		st.lastName, prior.Verdict, prior.Detail)
	st.rep.AddResidue("late/"+st.lastName, prior.Verdict, len(st.lastOps), nil, detail, st.lastOps)
}

// opPtr is op at of ops, nil when at names no op (setup, cleanup).
func opPtr(ops []op.Op, at int) *op.Op {
	if at >= 0 && at < len(ops) {
		return &ops[at]
	}
	return nil
}

// stop records a case's outcome and reports whether the suite stops there.
func (st *suiteState) stop(co CaseOutcome) bool {
	st.out.Cases = append(st.out.Cases, co)
	if st.s.Stop != nil && st.s.Stop(co) {
		st.out.Stopped = true
	}
	return st.out.Stopped
}

// directed runs the directed checks (and their probes); true when a Stop
// ended the suite.
func (st *suiteState) directed(checks []catalogue.Check) bool {
	for i := range checks {
		c := &checks[i]
		st.progress(c.Name)
		ops, perr := c.Ops(), error(nil)
		if ops == nil {
			ops, perr = op.ParseScript(c.Script)
		}
		if why, rulesWhy := st.skipOf(c, ops, perr); why != "" {
			if rulesWhy != "" {
				st.rep.AddOutcome(c.Rules, model.Skip, rulesWhy, nil)
			}
			st.rep.AddCheck(report.CheckReport{Name: c.Name, Rules: RuleNames(c.Rules), Verdict: model.Skip, Detail: why})
			continue
		}
		co := st.runCase(c.Name, ops, c.Rules)
		st.rep.AddCheck(checkReport(co))
		// The check's own outcome, then its probes' first failure: a Stop
		// sees each (a check that killed a mutant under its rule group is
		// not hidden by a probe that failed under another).
		stopped := st.stop(co)
		if !stopped && st.s.Probes {
			if pco, ok := st.probe(c, co.FirstFail); ok {
				stopped = st.stop(pco)
			}
		}
		if stopped {
			return true
		}
	}
	return false
}

// skipOf says why check c is not run ("": it runs), and what its rules'
// report says of it ("": nothing).
func (st *suiteState) skipOf(c *catalogue.Check, ops []op.Op, perr error) (why, rulesWhy string) {
	s := st.s
	switch {
	case perr != nil:
		return "the check's script does not parse: " + perr.Error(), ""
	case !c.AppliesTo(s.Profile):
		return "does not apply to a " + s.Profile.String() + " build", profileSkip[s.Profile]
	case !s.Caps.Has(c.Needs):
		why = "the target cannot drive it: missing " + (c.Needs &^ s.Caps).Text()
		return why, c.Name + ": " + why
	case s.SkipSlow && c.Slow:
		return "slow check left out", ""
	}
	if why = st.blocked(ops); why != "" {
		return why, c.Name + ": " + why
	}
	return "", ""
}

// checkReport is a case's line of the report, with its repro when it failed.
func checkReport(co CaseOutcome) report.CheckReport {
	cr := report.CheckReport{Name: co.Name, Rules: RuleNames(co.Rules), Verdict: co.Verdict, Detail: co.Detail}
	if co.Verdict.Bad() {
		cr.Repro = conformance.OpLines(co.Repro)
	}
	return cr
}

// random runs the seeded random sequences, within the suite's duration.
func (st *suiteState) random() {
	st.out.Budget = st.pass.random(func(name string, ops []op.Op) bool {
		if why := st.blocked(ops); why != "" {
			st.rep.AddCheck(report.CheckReport{Name: name, Verdict: model.Skip, Detail: why})
			return true
		}
		st.out.Random++
		co := st.runCase(name, ops, nil)
		if co.Verdict != model.Pass {
			st.rep.AddCheck(checkReport(co))
		}
		return !st.stop(co)
	})
}

// profileSkip is the reason a report gives for the rules of checks that do
// not apply to a build of the profile.
var profileSkip = map[model.Profile]string{
	model.ProfileLegacy:   "legacy build: no kernel entries; only the program-mode rules are checked",
	model.ProfileRefusing: "refusing build (supported 0): the kernel entries validate, then refuse; the kernel lifecycle this rule governs is never reached",
}

// opSig names where a run died (grouping crashes and hangs) or differs (a
// diff's change): the op kind (and program entry) of op at, "cleanup" or
// "setup".
func opSig(ops []op.Op, at int) string {
	switch {
	case at >= 0 && at < len(ops):
		if ops[at].Kind == op.KindProg {
			return "prog fn=" + ops[at].Fn.String()
		}
		return ops[at].Kind.String()
	case at == len(ops):
		return "cleanup"
	}
	return "setup"
}

// blocked says why ops must not run: it would call what hung MaxHangs times.
func (st *suiteState) blocked(ops []op.Op) string {
	for sig, n := range st.hung {
		if n < st.s.MaxHangs {
			continue
		}
		hit := sig == "setup"
		for i, o := range ops {
			hit = hit || (sig == "cleanup" && o.Kind == op.KindCreate) || opSig(ops, i) == sig
		}
		if hit {
			what := "`" + sig + "`"
			if sig == "setup" || sig == "cleanup" {
				what = "the runner's " + sig
			}
			return fmt.Sprintf("not run: %s hung in %d earlier cases; cases that reach it are left out", what, n)
		}
	}
	return ""
}

// runCase runs one sequence, shrinks its first failure of a kind and folds
// the outcome into the report.
func (st *suiteState) runCase(name string, ops []op.Op, rules []model.Rule) (co CaseOutcome) {
	t0 := time.Now()
	co = CaseOutcome{Name: name, Rules: rules, FirstFail: -1}
	defer func() { co.Elapsed = time.Since(t0) }()
	out := st.execute(name, ops)
	if out.Verdict == model.Pass && out.Result == nil {
		out = conformance.Outcome{Verdict: model.Crash, Detail: "the executor returned no result", At: conformance.AtSetup}
	}
	switch {
	case out.Verdict != model.Pass:
		return st.died(co, ops, out)
	case out.Result.Failed():
		return st.failed(co, ops, out.Result)
	}
	return st.passed(co, out.Result)
}

// died is a case whose library crashed or hung: the check's rules could
// not be verified, and the entry that died is at fault (a random sequence
// names no rules but that one).
func (st *suiteState) died(co CaseOutcome, ops []op.Op, out conformance.Outcome) CaseOutcome {
	at := out.At
	entry := model.RESup
	if at >= 0 && at < len(ops) {
		entry = conformance.EntryRule(ops[at])
	} else if at == len(ops) {
		entry = model.REFin
	}
	rs := slices.Clone(co.Rules)
	if !slices.Contains(rs, entry) {
		rs = append(rs, entry)
	}
	sig := opSig(ops, at)
	repro := conformance.ReproPrefix(ops, at)
	if out.Verdict == model.Hang {
		st.hung[sig]++
	} else if !st.s.NoShrink && st.rep.Shows(rs, model.Crash) {
		repro = st.shrinkRuns(repro, st.x.Execute, func(o conformance.Outcome, cand []op.Op) bool {
			return o.Verdict == model.Crash && opSig(cand, o.At) == sig
		})
	}
	// Name the op by its place in the repro shown (a shrunk crash ends at
	// the op that died).
	where := conformance.OpAt(ops, at)
	if at >= 0 && at < len(ops) && len(repro) > 0 {
		where = conformance.OpAt(repro, len(repro)-1)
	}
	detail := fmt.Sprintf("%s: %s at %s: %s", co.Name, out.Verdict, where, out.Detail)
	st.rep.AddDeath(co.Name, rs, out.Verdict, at, opPtr(ops, at), detail, repro)
	co.Verdict, co.Broken, co.Detail, co.Repro, co.FirstFail = out.Verdict, rs, detail, repro, at
	return co
}

// failed is a case the model found failing. Each rule it broke is shown
// with a repro of its own first finding: the ops up to that finding, shrunk
// while the same finding (report.FindingID: rule, verdict, op kind, what
// differed) still shows, so that a repro replays the finding it is named
// for, not the case's first failure under another rule.
func (st *suiteState) failed(co CaseOutcome, ops []op.Op, res *conformance.Result) CaseOutcome {
	var firsts []model.Finding // the first failure of each rule broken
	repros, ids := map[model.Rule][]op.Op{}, map[model.Rule]report.FindingID{}
	for _, f := range res.Findings {
		if _, seen := ids[f.Rule]; f.Verdict != model.Fail || seen {
			continue
		}
		firsts, ids[f.Rule] = append(firsts, f), report.IDOf(f)
		repros[f.Rule] = conformance.ReproPrefix(ops, f.Through())
		if st.rep.Shows([]model.Rule{f.Rule}, model.Fail) {
			var note string
			repros[f.Rule], note = st.reproOf(ids[f.Rule], repros[f.Rule])
			defer st.rep.NoteRepro(f.Rule, note) // once AddResult has set the repro
		}
	}
	st.rep.AddResult(co.Name, res, func(i int) []op.Op {
		f := res.Findings[i]
		if id, ok := ids[f.Rule]; ok && id.Matches(report.IDOf(f)) {
			return repros[f.Rule]
		}
		return conformance.ReproPrefix(ops, f.Through())
	})
	co.Verdict, co.Repro, co.FirstFail, co.Detail = model.Fail, repros[firsts[0].Rule], firsts[0].Index, firsts[0].String()
	for _, f := range firsts {
		co.Broken = append(co.Broken, f.Rule)
	}
	slices.Sort(co.Broken)
	return co
}

// historyNote is a repro's note when its finding showed only in a child
// process that had run earlier cases, never in a fresh one.
const historyNote = "the finding showed only in a process that had run earlier cases (state an earlier case left in the library); a fresh process does not reproduce it"

// reproOf is the repro of finding id, cut is the case up to it: shrunk
// while id still shows, then, where the executor can run in a fresh
// process, confirmed there (a child that ran earlier cases may hold state
// they left in the library); a repro that shows id only after earlier
// cases is shrunk again in fresh processes, or kept whole with a note.
func (st *suiteState) reproOf(id report.FindingID, cut []op.Op) ([]op.Op, string) {
	shows := func(o conformance.Outcome, _ []op.Op) bool {
		if o.Verdict != model.Pass || o.Result == nil {
			return false
		}
		return slices.ContainsFunc(o.Result.Findings, func(f model.Finding) bool {
			return f.Verdict == model.Fail && id.Matches(report.IDOf(f))
		})
	}
	if st.s.KillOnly {
		return cut, ""
	}
	repro := cut
	if !st.s.NoShrink {
		repro = st.shrinkRuns(cut, st.x.Execute, shows)
	}
	fx, ok := st.x.(conformance.FreshExecutor)
	if !ok || shows(fx.ExecuteFresh(repro, false), nil) {
		return repro, ""
	}
	if len(repro) == len(cut) || !shows(fx.ExecuteFresh(cut, false), nil) {
		return cut, historyNote
	}
	if st.s.NoShrink {
		return cut, ""
	}
	return st.shrinkRuns(cut, fx.ExecuteFresh, shows), ""
}

// passed is a case that ran without a failure: skipped when nothing of it
// was driven, a warning when one was tolerated, else a pass of its rules.
func (st *suiteState) passed(co CaseOutcome, res *conformance.Result) CaseOutcome {
	rules := co.Rules
	st.rep.AddResult(co.Name, res, nil)
	passed := false
	for _, row := range res.Tally {
		passed = passed || row[model.Pass] > 0
	}
	if i := slices.IndexFunc(res.Findings, func(f model.Finding) bool { return f.Verdict == model.Skip }); i >= 0 {
		if !passed {
			co.Verdict, co.Detail = model.Skip, "not driven: "+res.Findings[i].String()
			return co
		}
		co.Detail = "partly not checked: " + res.Findings[i].String()
	}
	// The check's own pass counts for its rules, but not for a rule the run
	// only skipped (a clause that does not apply to this build).
	var held []model.Rule
	var generic, passes uint32
	for _, r := range rules {
		if t := res.Tally[r]; t[model.Pass] > 0 || t[model.Skip] == 0 {
			held = append(held, r)
		}
		generic += res.Generic[r]
		passes += res.Tally[r][model.Pass]
	}
	st.rep.AddOutcome(held, model.Pass, "", nil)
	if i := slices.IndexFunc(res.Findings, func(f model.Finding) bool { return f.Verdict == model.Warn }); i >= 0 {
		co.Verdict, co.Detail = model.Warn, res.Findings[i].String()
		return co
	}
	co.Verdict = model.Pass
	if generic > 0 && co.Detail == "" {
		// A legacy build's -1 for every refusal proves less than a pass on
		// a kernel build: say so.
		co.Detail = fmt.Sprintf("%d of %d passes of its rules saw only the legacy generic -1 (IS, IA, NR and INTERNAL not told apart)", generic, passes)
	}
	return co
}

// shrinkRuns shrinks ops while still holds of exec's runs, within the
// budgets.
func (st *suiteState) shrinkRuns(ops []op.Op, exec func([]op.Op, bool) conformance.Outcome, still func(conformance.Outcome, []op.Op) bool) []op.Op {
	got, _ := st.shrink(ops, func(cand []op.Op) bool { return still(exec(cand, false), cand) })
	return got
}

// RuleNames are the IDs of rs.
func RuleNames(rs []model.Rule) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}
