// Package report folds the checker's runs per rule and renders them: the
// per-rule verdicts with details and repros, every distinct finding with a
// fingerprint that names it across runs (baselines); it writes the JUnit XML.
package report

import (
	"encoding/xml"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// RuleReport is the verdict of one rule, a detail line, and for a failure
// the shrunk op log that reproduces it.
type RuleReport struct {
	Rule    string        `json:"rule"`
	Anchor  string        `json:"anchor,omitempty"` // docs/contract.md#id
	Verdict model.Verdict `json:"verdict"`
	Detail  string        `json:"detail,omitempty"`
	Repro   []string      `json:"repro,omitempty"`
	Passes  uint32        `json:"passes"`
	Fails   uint32        `json:"fails"`
	Warns   uint32        `json:"warns"`
	Skips   uint32        `json:"skips"`
	// Generic is how many passes a legacy build earned with its generic -1
	// (IS, IA, NR and INTERNAL look alike).
	Generic uint32 `json:"generic_passes,omitempty"`
	// RunClauses is how many clauses with a native run outstanding (E-FIN,
	// E-DESTROY) were checked.
	RunClauses uint32 `json:"run_clauses,omitempty"`
	Finding    string `json:"finding,omitempty"` // what Repro reproduces (FindingID.String)
	// ReproNote: Repro shows the finding only under conditions the ops do
	// not make.
	ReproNote string `json:"repro_note,omitempty"`
}

// CheckReport is the outcome of one directed check or random sequence.
type CheckReport struct {
	Name    string        `json:"name"`
	Rules   []string      `json:"rules,omitempty"`
	Verdict model.Verdict `json:"verdict"`
	Detail  string        `json:"detail,omitempty"`
	Repro   []string      `json:"repro,omitempty"`
}

// FindingReport is one distinct failure, crash or hang of a run, with a
// fingerprint that names it across runs; identical ones are counted once.
type FindingReport struct {
	Rule    string        `json:"rule"`
	Anchor  string        `json:"anchor,omitempty"` // docs/contract.md#id
	Verdict model.Verdict `json:"verdict"`
	Check   string        `json:"check"` // the directed check, or "random/seed-N"
	Index   int           `json:"index"` // the op's position (-1: no op)
	Op      string        `json:"op,omitempty"`
	Detail  string        `json:"detail"`
	// Fingerprint is stable across runs of one build (fingerprint.go).
	Fingerprint string   `json:"fingerprint"`
	Count       int      `json:"count"`
	Repro       []string `json:"repro,omitempty"`
	Known       bool     `json:"known,omitempty"` // a baseline lists it
}

// Report aggregates runs per rule.
type Report struct {
	Target   string          `json:"target"`
	Profile  string          `json:"profile"`
	Rules    []RuleReport    `json:"rules"`
	Checks   []CheckReport   `json:"checks"`
	Findings []FindingReport `json:"findings"`
	Ops      int             `json:"ops"` // the calls the model checked

	tally      model.Tally
	generic    [model.NumRules]uint32
	runClauses [model.NumRules]uint32
	first      [model.NumRules]*model.Finding // first failure (else warning, else skip) per rule
	repro      [model.NumRules][]op.Op
	id         [model.NumRules]FindingID // what repro reproduces
	reproNote  [model.NumRules]string
	byPrint    map[string]int // fingerprint -> index in Findings
}

// NewReport starts an empty report.
func NewReport(target string) *Report { return &Report{Target: target} }

// AddResult folds one run of check into the report. reproOf gives the
// sequence that reproduces res.Findings[i] (nil: none).
func (r *Report) AddResult(check string, res *conformance.Result, reproOf func(i int) []op.Op) {
	r.tally.Add(&res.Tally)
	for i, n := range res.Generic {
		r.generic[i] += n
	}
	for i, n := range res.RunClauses {
		r.runClauses[i] += n
	}
	r.Ops += res.Checked
	r.Profile = res.History.Profile.String()
	for i := range res.Findings {
		f := &res.Findings[i]
		var repro []op.Op
		if f.Verdict == model.Fail {
			if reproOf != nil {
				repro = reproOf(i)
			}
			fr := FindingReport{Rule: f.Rule.String(), Verdict: model.Fail, Check: check, Index: f.Index, Detail: f.Detail}
			if f.Index >= 0 {
				fr.Op = f.Op.String()
			}
			fr.Fingerprint = findingPrint(fr, f.Op, f.Key)
			r.addFinding(fr, repro)
		}
		if r.outranks(f.Rule, f.Verdict) {
			ff := *f
			r.first[f.Rule] = &ff
			if f.Verdict == model.Fail {
				r.repro[f.Rule], r.id[f.Rule] = repro, IDOf(*f)
			}
		}
	}
}

// NoteRepro attaches a note to the repro rule shows (RuleReport.ReproNote).
func (r *Report) NoteRepro(rule model.Rule, note string) { r.reproNote[rule] = note }

// AddOutcome records a verdict for rules outside a run.
func (r *Report) AddOutcome(rules []model.Rule, v model.Verdict, detail string, repro []op.Op) {
	for _, rule := range rules {
		r.tally[rule][v]++
		if r.outranks(rule, v) {
			r.first[rule] = &model.Finding{Rule: rule, Verdict: v, Detail: detail, Index: -1}
			r.repro[rule], r.id[rule] = repro, FindingID{}
		}
	}
}

// AddDeath records a crash or hang of check at op (nil: not at an op).
func (r *Report) AddDeath(check string, rules []model.Rule, v model.Verdict, at int, op *op.Op, detail string, repro []op.Op) {
	r.addDeathOutcome(rules, v, deathSite(at, op), detail, repro)
	for _, rule := range rules {
		fr := FindingReport{Rule: rule.String(), Verdict: v, Check: check, Index: at, Detail: detail}
		key := fr.Rule + "\x00" + checkKey(check) + "\x00" + v.String()
		if op != nil {
			fr.Op = op.String()
			key += "\x00" + opKey(check, *op)
		} else {
			key += "\x00" + strconv.Itoa(at)
		}
		fr.Fingerprint = printOf(key)
		r.addFinding(fr, repro)
	}
}

// addDeathOutcome is AddOutcome for a crash or hang at where (deathSite).
func (r *Report) addDeathOutcome(rules []model.Rule, v model.Verdict, where, detail string, repro []op.Op) {
	for _, rule := range rules {
		shown := r.Shows([]model.Rule{rule}, v)
		r.AddOutcome([]model.Rule{rule}, v, detail, repro)
		if shown && len(repro) > 0 {
			r.id[rule] = FindingID{Rule: rule.String(), Verdict: v, Op: where}
		}
	}
}

// deathSite names where a run died as FindingID does.
func deathSite(at int, o *op.Op) string {
	switch {
	case o != nil:
		return opKey("random", *o)
	case at < 0:
		return "setup"
	}
	return "cleanup"
}

// AddResidue records a death that earlier, unloaded instances caused
// (U-1); which case it hits is chance, so it is one finding however many.
func (r *Report) AddResidue(check string, v model.Verdict, at int, op *op.Op, detail string, repro []op.Op) {
	r.addDeathOutcome([]model.Rule{model.RU1}, v, deathSite(at, op), detail, repro)
	fr := FindingReport{Rule: model.RU1.String(), Verdict: v, Check: check, Index: at, Detail: detail}
	if op != nil {
		fr.Op = op.String()
	}
	fr.Fingerprint = printOf(model.RU1.String() + "\x00residue\x00" + v.String())
	r.addFinding(fr, repro)
}

// AddProbeFailure records a failure a refusal probe found, shown under its
// rule; cause is the finding a replay of repro reproduces.
func (r *Report) AddProbeFailure(check string, shown, cause model.Finding, repro []op.Op) {
	f := shown
	r.tally[f.Rule][model.Fail]++
	if r.outranks(f.Rule, model.Fail) {
		ff := f
		ff.Index = -1 // the detail names the op and the refusal
		r.first[f.Rule] = &ff
		r.repro[f.Rule], r.id[f.Rule] = repro, IDOf(cause)
	}
	fr := FindingReport{Rule: f.Rule.String(), Verdict: model.Fail, Check: check, Index: f.Index, Op: f.Op.String(), Detail: f.Detail}
	fr.Fingerprint = findingPrint(fr, f.Op, f.Key)
	r.addFinding(fr, repro)
}

// AddBindFinding records a rule the library breaks at bind time.
func (r *Report) AddBindFinding(rule model.Rule, detail string) {
	r.AddOutcome([]model.Rule{rule}, model.Fail, "at bind time: "+detail, nil)
	fr := FindingReport{Rule: rule.String(), Verdict: model.Fail, Check: "bind", Index: -1, Detail: "at bind time: " + detail}
	fr.Fingerprint = printOf(fr.Rule + "\x00bind\x00" + maskNumbers(detail))
	r.addFinding(fr, nil)
}

func (r *Report) addFinding(fr FindingReport, repro []op.Op) {
	if r.byPrint == nil {
		r.byPrint = map[string]int{}
	}
	if i, ok := r.byPrint[fr.Fingerprint]; ok {
		r.Findings[i].Count++
		if r.Findings[i].Repro == nil && repro != nil {
			r.Findings[i].Repro = conformance.OpLines(repro)
		}
		return
	}
	fr.Count = 1
	if r, ok := model.RuleByName(fr.Rule); ok && fr.Anchor == "" {
		fr.Anchor = catalogue.RuleAnchor(r)
	}
	if repro != nil {
		fr.Repro = conformance.OpLines(repro)
	}
	r.byPrint[fr.Fingerprint] = len(r.Findings)
	r.Findings = append(r.Findings, fr)
}

// CountPass counts a pass of rule outside a run.
func (r *Report) CountPass(rule model.Rule) { r.tally[rule][model.Pass]++ }

// Shows reports whether a v of one of rules would be shown (so its repro
// is worth shrinking).
func (r *Report) Shows(rules []model.Rule, v model.Verdict) bool {
	return slices.ContainsFunc(rules, func(rule model.Rule) bool { return r.outranks(rule, v) })
}

// outranks reports whether a v of rule would replace the finding shown.
func (r *Report) outranks(rule model.Rule, v model.Verdict) bool {
	cur := r.first[rule]
	return cur == nil || rank(v) > rank(cur.Verdict)
}

// AddCheck records a check's own outcome.
func (r *Report) AddCheck(c CheckReport) { r.Checks = append(r.Checks, c) }

func rank(v model.Verdict) int { return ranks[v] }

var ranks = map[model.Verdict]int{model.Crash: 5, model.Hang: 5, model.Fail: 4, model.Warn: 3, model.Known: 2, model.Skip: 1}

// Finish computes the per-rule verdicts, TraceRule's last.
func (r *Report) Finish() {
	r.Rules = r.Rules[:0]
	for _, rule := range model.RuntimeRules() {
		if rule == model.RHooks {
			continue
		}
		t, f := r.tally[rule], r.first[rule]
		rr := r.tallied(rule)
		rr.Generic = r.generic[rule]
		switch {
		case f != nil && (f.Verdict.Bad() || f.Verdict == model.Warn):
			rr.Verdict = f.Verdict
		case t[model.Pass] > 0:
			rr.Verdict = model.Pass
		default:
			rr.Verdict = model.Skip
		}
		if rr.Verdict == model.Pass {
			rr.Detail = passDetail(t, r.generic[rule], r.runClauses[rule])
		}
		rr.RunClauses = r.runClauses[rule]
		if p, known := conformance.ParseProfile(r.Profile); known && rr.Verdict == model.Skip && !rule.Applies(p) {
			rr.Detail = "does not apply to a " + p.String() + " build (" + catalogue.RuleAnchor(rule) + ")"
		} else if why, ok := model.NotChecked(rule); ok && rr.Verdict == model.Skip {
			rr.Detail = why
		} else if rr.Verdict == model.Skip && rr.Detail == "" {
			rr.Detail = "no check exercised this rule on this target"
		}
		if rr.Verdict.Bad() {
			for _, op := range r.repro[rule] {
				rr.Repro = append(rr.Repro, op.String())
			}
			if len(rr.Repro) > 0 && r.id[rule].Op != "" {
				rr.Finding, rr.ReproNote = r.id[rule].String(), r.reproNote[rule]
			}
		}
		r.Rules = append(r.Rules, rr)
	}
	if rr, ok := r.traceReport(); ok {
		r.Rules = append(r.Rules, rr)
	}
	sort.SliceStable(r.Checks, func(i, j int) bool { return r.Checks[i].Name < r.Checks[j].Name })
}

// tallied is rule's report before its verdict.
func (r *Report) tallied(rule model.Rule) RuleReport {
	t := r.tally[rule]
	rr := RuleReport{Rule: rule.String(), Anchor: catalogue.RuleAnchor(rule), Passes: t[model.Pass],
		Fails: t[model.Fail] + t[model.Crash] + t[model.Hang], Warns: t[model.Warn], Skips: t[model.Skip]}
	if f := r.first[rule]; f != nil {
		rr.Detail = f.Detail
		if f.Index >= 0 {
			rr.Detail = fmt.Sprintf("#%d %s: %s", f.Index, f.Op, f.Detail)
		}
	}
	return rr
}

// Verdict is the worst verdict over all rules and checks.
func (r *Report) Verdict() model.Verdict {
	worst := model.Pass
	for _, rr := range r.Rules {
		if rank(rr.Verdict) > rank(worst) {
			worst = rr.Verdict
		}
	}
	for _, c := range r.Checks {
		if c.Verdict != model.Skip && rank(c.Verdict) > rank(worst) {
			worst = c.Verdict
		}
	}
	return worst
}

// JUnitSuite is one <testsuite> of RenderJUnit: a target's rules
// (RuleCases), or a diff's causes.
type JUnitSuite struct {
	Name    string
	Elapsed time.Duration
	Cases   []JUnitCase
}

type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	Name    string   `xml:"name,attr"`
	junitCounts
	Suites []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name string `xml:"name,attr"`
	junitCounts
	Time  string      `xml:"time,attr"`
	Cases []JUnitCase `xml:"testcase"`
}

type junitCounts struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Skipped  int `xml:"skipped,attr"`
}

// JUnitCase is one <testcase>: a failure, an error (a crash or hang), a
// skip, or a pass with what it said in system-out.
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Props     *[]junitProp  `xml:"properties>property,omitempty"`
	Failure   *JUnitMessage `xml:"failure,omitempty"`
	Error     *JUnitMessage `xml:"error,omitempty"`
	Skipped   *JUnitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitMessage is a failure's, an error's or a skip's element.
type JUnitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// JUnitTime is a duration as JUnit's seconds.
func JUnitTime(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// RenderJUnit renders suites as JUnit XML: each suite counts its cases,
// failures, errors (crashes, hangs) and skips, and <testsuites> adds them up.
func RenderJUnit(name string, suites []JUnitSuite) ([]byte, error) {
	all := junitSuites{Name: name}
	for _, in := range suites {
		s := junitSuite{Name: in.Name, Time: JUnitTime(in.Elapsed), Cases: in.Cases}
		for _, c := range in.Cases {
			s.Tests++
			switch {
			case c.Failure != nil:
				s.Failures++
			case c.Error != nil:
				s.Errors++
			case c.Skipped != nil:
				s.Skipped++
			}
		}
		a := &all.junitCounts
		a.Tests, a.Failures, a.Errors, a.Skipped = a.Tests+s.Tests, a.Failures+s.Failures, a.Errors+s.Errors, a.Skipped+s.Skipped
		all.Suites = append(all.Suites, s)
	}
	out, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

// RuleCases are a target's rules as JUnit test cases, one per rule: a
// failure <failure>, a crash or hang <error>, a skip <skipped>, a warning
// its detail in system-out; the repro is the element's body. name is the
// report's, times by rule (absent: 0).
func RuleCases(name, target string, rules []RuleReport, times map[string]time.Duration) []JUnitCase {
	var cases []JUnitCase
	for _, rr := range rules {
		c := JUnitCase{Name: rr.Rule, ClassName: junitClass(name, target), Time: JUnitTime(times[rr.Rule])}
		body := strings.Join(rr.Repro, "\n")
		if rr.Anchor != "" {
			// A property, and the body's first line for viewers without.
			c.Props = &[]junitProp{{Name: "contract", Value: rr.Anchor}}
			body = "rule: " + rr.Anchor + "\n" + body
		}
		switch rr.Verdict {
		case model.Fail:
			c.Failure = &JUnitMessage{Message: op.Abbreviate(rr.Detail), Type: "fail", Body: body}
		case model.Crash, model.Hang:
			c.Error = &JUnitMessage{Message: op.Abbreviate(rr.Detail), Type: rr.Verdict.String(), Body: body}
		case model.Skip:
			c.Skipped = &JUnitMessage{Message: rr.Detail}
		case model.Warn:
			c.SystemOut = "warning: " + rr.Detail
		case model.Known:
			c.SystemOut = rr.Detail
		}
		cases = append(cases, c)
	}
	return cases
}

// junitClass is a test case's classname: viewers split them on '.' and
// '/', so only letters, digits, '-' and '_' stay.
func junitClass(name, target string) string {
	b := []byte(name + "_" + target)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}
