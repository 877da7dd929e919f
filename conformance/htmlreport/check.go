package htmlreport

import (
	"fmt"
	"io"
	"strings"

	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/conformance/session"
)

// targetView is one checked target: its verdicts per rule, its failures
// with their repro scripts, its known findings and its checks.
type targetView struct {
	Anchor   string
	Label    string
	About    string // revision, profile, hooks
	Summary  string
	Rules    []ruleRow
	Failures []failureView
	Known    []string
	Checks   []checkRow
}

type ruleRow struct {
	Rule, Href     string
	Verdict, Class string
	Checks         uint32
	Detail         string
}

type failureView struct {
	ruleRow
	Findings []string // every distinct finding, when there are several
	Script   string   // the repro as -repro-dir writes it
	File     string   // where it was written; "" when it was not
}

type checkRow struct {
	Name           string
	Verdict, Class string
	Detail         string
}

// Check renders a check's runs (a live check or -check-trace).
func (p Pages) Check(w io.Writer, runs []*session.Run, o *session.Options) error {
	rs := newRefs()
	pg := &page{}
	var names []string
	for i, r := range runs {
		tv := targetOf(r, o, rs)
		tv.Anchor = fmt.Sprintf("target-%d", i+1)
		pg.Check = append(pg.Check, tv)
		pg.Nav = append(pg.Nav, navLink{"#" + tv.Anchor, r.Target.Label})
		names = append(names, r.Target.Label)
	}
	pg.Title = "abicheck: " + strings.Join(names, ", ")
	tot := session.Totals(runs)
	pg.Bad = tot.Bad()
	pg.Headline = fmt.Sprintf("%d target(s): %s — %s", len(runs), tot, tot.Verdict())
	return p.write(w, pg, rs)
}

// targetOf is one run's part of the page.
func targetOf(r *session.Run, o *session.Options, rs *refs) targetView {
	i := r.Target.Info
	hooks := r.Target.HooksText()
	if i.Hooks {
		hooks = "simulation hooks"
	}
	tv := targetView{Label: r.Target.Label, Summary: runSummary(r, o),
		About: fmt.Sprintf("%s — revision %s, profile %s, supported %d, %s", i.Path, i.Revision, i.Profile, i.Supported, hooks)}
	if r.Target.Isolated {
		tv.About += ", isolated (child processes)"
	}
	rep := r.Result.Report
	for _, rr := range session.Results(r) {
		row := ruleRow{Rule: rr.Rule, Href: rs.ruleHref(ruleID(rr)), Verdict: rr.Verdict.String(), Class: verdictClass(rr.Verdict.String()),
			Checks: rr.Passes + rr.Fails + rr.Warns + rr.Skips, Detail: rr.Detail}
		tv.Rules = append(tv.Rules, row)
		if rr.Verdict.Bad() {
			tv.Failures = append(tv.Failures, failureOf(r, rr, row, o))
		}
	}
	for _, f := range rep.Findings {
		if f.Known {
			tv.Known = append(tv.Known, f.Rule+" "+f.Fingerprint+" "+session.FindingLine(f))
		}
	}
	for _, c := range rep.Checks {
		tv.Checks = append(tv.Checks, checkRow{Name: c.Name, Verdict: c.Verdict.String(), Class: verdictClass(c.Verdict.String()), Detail: c.Detail})
	}
	return tv
}

// ruleID is the contract's ID a rule's report links to: the one its
// anchor names (HOOKS: F-1), else its own.
func ruleID(rr report.RuleReport) string {
	if _, frag, ok := strings.Cut(rr.Anchor, "#"); ok && frag != "" {
		return strings.ToUpper(frag)
	}
	return rr.Rule
}

// failureOf is a failing rule with its findings and its repro script.
func failureOf(r *session.Run, rr report.RuleReport, row ruleRow, o *session.Options) failureView {
	f := failureView{ruleRow: row}
	if fs := session.FindingsOf(r.Result.Report, rr.Rule, false); len(fs) > 1 {
		for _, x := range fs {
			f.Findings = append(f.Findings, session.FindingLine(x))
		}
	}
	if len(rr.Repro) == 0 {
		return f
	}
	dir := o.ReproDir
	file, text := session.ReproScript(r, rr, dir)
	f.Script = text
	if dir != "" {
		f.File = file
	}
	return f
}

// runSummary is a run's line: its verdict counts and what ran.
func runSummary(r *session.Run, o *session.Options) string {
	s := session.SummaryOf(r)
	rep := r.Result.Report
	if r.Trace {
		return fmt.Sprintf("%s — a recorded session, %d calls judged", s, rep.Ops)
	}
	line := fmt.Sprintf("%s — %d checks, %d random sequences × %d ops (seed %d), %d calls checked, %.1fs",
		s, len(rep.Checks)-session.CountRandom(rep.Checks), r.Result.Random, o.MaxOps, o.Seed, rep.Ops, r.Elapsed.Seconds())
	if r.Result.Budget {
		line += " (the random sequences stopped at -duration " + o.Duration.String() + ")"
	}
	return line
}
