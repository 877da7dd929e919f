package report

import (
	"github.com/simabi/simabi/conformance/op"

	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
)

func TestReportRender(t *testing.T) {
	rep := NewReport("fake")
	res := &conformance.Result{History: conformance.History{Profile: model.ProfileTMR}, Checked: 3}
	res.Tally[model.RVPrep1][model.Pass] = 2
	res.Tally[model.RVCfg][model.Warn] = 1
	res.Tally[model.RM1][model.Fail] = 1
	res.Findings = []model.Finding{
		{Index: 4, Op: op.MustParse("prepare c0 img=valid()"), Rule: model.RM1, Verdict: model.Fail, Detail: "succeeded with id 1; want id 0"},
		{Index: 2, Op: op.MustParse("kinit c0 dev=0 gen=1 cfg=threads=1"), Rule: model.RVCfg, Verdict: model.Warn, Detail: "INTERNAL (tolerated)"},
	}
	repro := op.MustParseScript("create c0\nsetdev 0\nkinit c0 dev=0 gen=1\nprepare c0 img=valid()\n")
	rep.AddResult("check", res, func(int) []op.Op { return repro })
	rep.AddOutcome([]model.Rule{model.RD1}, model.Skip, "d-1: missing ACL counters", nil)
	rep.AddOutcome([]model.Rule{model.RX2}, model.Hang, "the run did not finish", repro[:1])
	rep.Finish()
	byRule := map[string]RuleReport{}
	for _, rr := range rep.Rules {
		byRule[rr.Rule] = rr
	}
	for rule, want := range map[string]model.Verdict{"V-PREP-1": model.Pass, "V-CFG": model.Warn, "M-1": model.Fail, "D-1": model.Skip, "X-2": model.Hang, "V-ARENA": model.Skip} {
		if got := byRule[rule].Verdict; got != want {
			t.Errorf("%s: verdict %v, want %v", rule, got, want)
		}
	}
	if got := byRule["M-1"].Repro; len(got) != 4 || got[3] != "prepare c0 img=valid()" {
		t.Errorf("M-1 repro %q", got)
	}
	if rep.Verdict() != model.Hang {
		t.Errorf("worst verdict %v, want hang", rep.Verdict())
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Rules []struct{ Rule, Verdict, Detail string }
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range back.Rules {
		if r.Rule == "M-1" && r.Verdict == "fail" && strings.Contains(r.Detail, "want id 0") {
			found = true
		}
	}
	if !found {
		t.Errorf("JSON lacks the M-1 failure:\n%s", js)
	}
	cases := RuleCases("conformance", rep.Target, rep.Rules, nil)
	x, err := RenderJUnit("conformance", []JUnitSuite{{Name: rep.Target, Cases: cases}})
	if err != nil {
		t.Fatal(err)
	}
	var suites junitSuites
	if err := xml.Unmarshal(x, &suites); err != nil {
		t.Fatal(err)
	}
	if len(suites.Suites) != 1 {
		t.Fatalf("JUnit: %d suites, want 1", len(suites.Suites))
	}
	suite := suites.Suites[0]
	if suite.Failures != 1 || suite.Errors != 1 || suite.Tests != len(rep.Rules) || suites.Failures != 1 || suites.Tests != suite.Tests {
		t.Errorf("JUnit: %d failures, %d errors, %d tests (all: %d failures, %d tests)",
			suite.Failures, suite.Errors, suite.Tests, suites.Failures, suites.Tests)
	}
}

// Every report counts alike (abicheck diff's too): each suite its tests,
// failures, errors and skips, <testsuites> their sums.
func TestRenderJUnit_countsEverySuite(t *testing.T) {
	cases := []JUnitCase{{Name: "a", Failure: &JUnitMessage{Message: "m"}}, {Name: "b", SystemOut: "ok"}}
	crash := []JUnitCase{{Name: "c", Error: &JUnitMessage{Message: "SIGSEGV"}}, {Name: "d", Skipped: &JUnitMessage{Message: "n/a"}}}
	x, err := RenderJUnit("abicheck diff", []JUnitSuite{{Name: "s", Elapsed: 1500 * time.Millisecond, Cases: cases}, {Name: "t", Cases: crash}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<testsuites name="abicheck diff" tests="4" failures="1" errors="1" skipped="1">`,
		`<testsuite name="s" tests="2" failures="1" errors="0" skipped="0" time="1.500">`,
		`<testsuite name="t" tests="2" failures="0" errors="1" skipped="1" time="0.000">`} {
		if !strings.Contains(string(x), want) {
			t.Errorf("JUnit lacks %s:\n%s", want, x)
		}
	}
}

// A rule whose passes all came from a legacy build's generic -1 says so in
// its detail (they prove less than a kernel build's; E-FIN, E-PINIT, S-3).
func TestPassDetail_legacyGenericOnly(t *testing.T) {
	d := passDetail([model.NumVerdicts]uint32{model.Pass: 2}, 2, 0)
	if !strings.Contains(d, "passed on the legacy generic -1 only") {
		t.Errorf("pass detail %q", d)
	}
}
