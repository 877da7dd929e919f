package conformance

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"sort"
	"strings"
	"time"
)

// RuleReport is the verdict of one rule: pass, fail, warn or skip (crash and
// hang when a run died), a detail line, and for a failure the shrunk op log
// that reproduces it.
type RuleReport struct {
	Rule    string   `json:"rule"`
	Verdict Verdict  `json:"verdict"`
	Detail  string   `json:"detail,omitempty"`
	Repro   []string `json:"repro,omitempty"`
	Passes  uint32   `json:"passes"`
	Fails   uint32   `json:"fails"`
	Warns   uint32   `json:"warns"`
	Skips   uint32   `json:"skips"`
}

// CheckReport is the outcome of one directed check or random sequence.
type CheckReport struct {
	Name    string   `json:"name"`
	Rules   []string `json:"rules,omitempty"`
	Verdict Verdict  `json:"verdict"`
	Detail  string   `json:"detail,omitempty"`
	Repro   []string `json:"repro,omitempty"`
}

// Report aggregates runs per rule.
type Report struct {
	Target  string        `json:"target"`
	Profile string        `json:"profile"`
	Rules   []RuleReport  `json:"rules"`
	Checks  []CheckReport `json:"checks"`
	// Ops is the number of calls the model checked.
	Ops int `json:"ops"`

	tally Tally
	first [numRules]*Finding // first failure (else warning, else skip) per rule
	repro [numRules][]Op
}

// NewReport starts an empty report.
func NewReport(target string) *Report { return &Report{Target: target} }

// AddResult folds one run into the report: its tally and the first notable
// finding of each rule. repro is the (shrunk) sequence to show for its
// failures, nil for none.
func (r *Report) AddResult(res *Result, repro []Op) {
	r.tally.Add(&res.Tally)
	r.Ops += res.Checked
	r.Profile = res.History.Profile.String()
	for i := range res.Findings {
		f := &res.Findings[i]
		cur := r.first[f.Rule]
		if cur == nil || rank(f.Verdict) > rank(cur.Verdict) {
			ff := *f
			r.first[f.Rule] = &ff
			if f.Verdict == Fail || f.Verdict == Crash || f.Verdict == Hang {
				r.repro[f.Rule] = repro
			}
		}
	}
}

// AddOutcome records a verdict for rules outside a run (a crash, a hang, a
// skipped check).
func (r *Report) AddOutcome(rules []Rule, v Verdict, detail string, repro []Op) {
	for _, rule := range rules {
		r.tally[rule][v]++
		cur := r.first[rule]
		if cur == nil || rank(v) > rank(cur.Verdict) {
			r.first[rule] = &Finding{Rule: rule, Verdict: v, Detail: detail, Index: -1}
			r.repro[rule] = repro
		}
	}
}

// AddCheck records a check's own outcome.
func (r *Report) AddCheck(c CheckReport) { r.Checks = append(r.Checks, c) }

func rank(v Verdict) int {
	switch v {
	case Crash, Hang:
		return 5
	case Fail:
		return 4
	case Warn:
		return 3
	case Skip:
		return 1
	}
	return 0
}

// Finish computes the per-rule verdicts.
func (r *Report) Finish() {
	r.Rules = r.Rules[:0]
	for _, rule := range RuntimeRules() {
		if rule == RHooks {
			continue
		}
		t := r.tally[rule]
		rr := RuleReport{Rule: rule.String(), Passes: t[Pass], Fails: t[Fail] + t[Crash] + t[Hang], Warns: t[Warn], Skips: t[Skip]}
		f := r.first[rule]
		switch {
		case f != nil && (f.Verdict == Fail || f.Verdict == Crash || f.Verdict == Hang):
			rr.Verdict = f.Verdict
		case f != nil && f.Verdict == Warn:
			rr.Verdict = Warn
		case t[Pass] > 0:
			rr.Verdict = Pass
		default:
			rr.Verdict = Skip
		}
		if f != nil && rr.Verdict != Pass {
			rr.Detail = f.Detail
			if f.Index >= 0 {
				rr.Detail = fmt.Sprintf("#%d %s: %s", f.Index, f.Op, f.Detail)
			}
		}
		if why, ok := notChecked[rule]; ok && rr.Verdict == Skip {
			rr.Detail = why
		} else if rr.Verdict == Skip && rr.Detail == "" {
			rr.Detail = "no check exercised this rule on this target"
		}
		for _, op := range r.repro[rule] {
			if rr.Verdict == Fail || rr.Verdict == Crash || rr.Verdict == Hang {
				rr.Repro = append(rr.Repro, op.String())
			}
		}
		r.Rules = append(r.Rules, rr)
	}
	sort.SliceStable(r.Checks, func(i, j int) bool { return r.Checks[i].Name < r.Checks[j].Name })
}

// Verdict is the worst verdict over all rules and checks (a random
// sequence that crashed or hung names no rule).
func (r *Report) Verdict() Verdict {
	worst := Pass
	for _, rr := range r.Rules {
		if rank(rr.Verdict) > rank(worst) {
			worst = rr.Verdict
		}
	}
	for _, c := range r.Checks {
		if c.Verdict != Skip && rank(c.Verdict) > rank(worst) {
			worst = c.Verdict
		}
	}
	return worst
}

// Text renders the report as a table, failures with their repro.
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "target %s (profile %s): %d model-checked calls\n", r.Target, r.Profile, r.Ops)
	fmt.Fprintf(&b, "%-16s %-7s %7s %5s %5s %5s  %s\n", "RULE", "VERDICT", "PASS", "FAIL", "WARN", "SKIP", "DETAIL")
	for _, rr := range r.Rules {
		fmt.Fprintf(&b, "%-16s %-7s %7d %5d %5d %5d  %s\n", rr.Rule, rr.Verdict, rr.Passes, rr.Fails, rr.Warns, rr.Skips, rr.Detail)
		for _, line := range rr.Repro {
			fmt.Fprintf(&b, "%-16s   | %s\n", "", line)
		}
	}
	for _, id := range ConsumerRules {
		fmt.Fprintf(&b, "%-16s %-7s %7s %5s %5s %5s  %s\n", id, "n/a", "", "", "", "", "consumer/emitter rule: not a property of a runtime")
	}
	if len(r.Checks) > 0 {
		b.WriteString("\nCHECKS\n")
		for _, c := range r.Checks {
			fmt.Fprintf(&b, "%-44s %-5s %s\n", c.Name, c.Verdict, c.Detail)
		}
	}
	return b.String()
}

// JSON renders the report as JSON.
func (r *Report) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "  ") }

// JUnitSuite is one target's per-rule verdicts for RenderJUnit.
type JUnitSuite struct {
	Name    string        // the target, e.g. "sim:tmr" or a library path
	Elapsed time.Duration // 0: no time attribute
	Rules   []RuleReport
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr,omitempty"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// RenderJUnit renders suites as JUnit XML: one <testsuite> per target under
// a <testsuites> named name, one <testcase> per rule. A failure is
// <failure>, a crash or a hang <error> (its type says which), a skip
// <skipped>, a warning a passing case with its detail in system-out; the
// shrunk op log of a failure is the element's body.
func RenderJUnit(name string, suites []JUnitSuite) ([]byte, error) {
	all := junitSuites{Name: name}
	for _, in := range suites {
		s := junitSuite{Name: in.Name}
		if in.Elapsed > 0 {
			s.Time = fmt.Sprintf("%.3f", in.Elapsed.Seconds())
		}
		for _, rr := range in.Rules {
			c := junitCase{Name: rr.Rule, ClassName: name + "." + in.Name}
			body := strings.Join(rr.Repro, "\n")
			switch rr.Verdict {
			case Fail:
				c.Failure = &junitMessage{Message: rr.Detail, Type: "fail", Body: body}
				s.Failures++
			case Crash, Hang:
				c.Error = &junitMessage{Message: rr.Detail, Type: rr.Verdict.String(), Body: body}
				s.Errors++
			case Skip:
				c.Skipped = &junitMessage{Message: rr.Detail}
				s.Skipped++
			case Warn:
				c.SystemOut = "warning: " + rr.Detail
			}
			s.Cases = append(s.Cases, c)
			s.Tests++
		}
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Errors += s.Errors
		all.Skipped += s.Skipped
		all.Suites = append(all.Suites, s)
	}
	out, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

// JUnit renders the per-rule verdicts as JUnit XML (RenderJUnit with this
// report as the only suite).
func (r *Report) JUnit() ([]byte, error) {
	return RenderJUnit("conformance", []JUnitSuite{{Name: r.Target, Rules: r.Rules}})
}
