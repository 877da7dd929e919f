package session

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/conformance/suite"
	"github.com/simabi/simabi/conformance/target/library"
)

// fixedRun is a run whose report is written out, so that what the printer
// makes of it is exact: a failure (V-IMG), a warning (E-FIN), four skips
// for three reasons, a pass.
func fixedRun() *Run {
	rep := &report.Report{Target: "sim:tmr", Ops: 1234,
		Rules: []report.RuleReport{
			{Rule: "S-1", Verdict: model.Pass, Passes: 30},
			{Rule: "V-IMG", Anchor: "docs/contract.md#v-img", Verdict: model.Fail, Passes: 9, Fails: 1,
				Detail: "#6 prepare c0 img=valid()+long(64): want INVALID_ARGUMENT, got OK",
				Repro:  []string{"create c0", "setdev 0", "kinit c0 dev=0 gen=1", "prepare c0 img=valid()+long(64)"}},
			{Rule: "E-FIN", Verdict: model.Warn, Passes: 1, Warns: 1, Detail: "finalize answered late"},
			{Rule: "K-1", Verdict: model.Skip, Detail: "does not apply to a refusing build (docs/contract.md#k-1)"},
			{Rule: "U-1", Verdict: model.Skip, Detail: "u-1/program-thread-exits-after-unload: the target cannot drive it: missing unloading a private copy"},
			{Rule: "K-2", Verdict: model.Skip, Detail: "does not apply to a refusing build (docs/contract.md#k-2)"},
			{Rule: "V-ARENA", Verdict: model.Skip, Detail: "V-ARENA: nothing to drive from outside"},
		},
		Checks: []report.CheckReport{
			{Name: "v-img/defects", Rules: []string{"V-IMG"}, Verdict: model.Fail, Detail: "#6 prepare c0 img=valid()+long(64): want INVALID_ARGUMENT, got OK"},
			{Name: "s-1/documented-codes", Rules: []string{"S-1", "E-FIN"}, Verdict: model.Pass},
		}}
	cases := []suite.CaseOutcome{
		{Name: "v-img/defects", Rules: []model.Rule{model.RVImg}, Elapsed: 300 * time.Millisecond},
		{Name: "s-1/documented-codes", Rules: []model.Rule{model.RS1, model.REFin}, Elapsed: 200 * time.Millisecond},
		{Name: "random/seed-1", Elapsed: 900 * time.Millisecond},
	}
	return &Run{Target: &Target{Label: "sim:tmr", Info: library.Info{Path: "sim:tmr", Revision: "kernel", Profile: "tmr", Supported: 1, Hooks: true}},
		Result: &suite.Result{Report: rep, Cases: cases, Random: 5}, Elapsed: 1500 * time.Millisecond}
}

const fixedHeader = "== sim:tmr (revision kernel, profile tmr, supported 1, hooks)\n"

const fixedFailures = `FAILURES (1)
--- V-IMG fail: #3 prepare c0 img=valid()+long(64): want INVALID_ARGUMENT, got OK
    rule: docs/contract.md#v-img (abicheck explain V-IMG)
    repro (4 ops):
      create c0
      setdev 0
      kinit c0 dev=0 gen=1
      prepare c0 img=valid()+long(64)
    replay: abicheck -replay /r/repro-V-IMG.ops
`

const fixedSummary = "sim:tmr: 1 pass, 1 fail, 1 warn, 4 skip, 0 crash, 0 hang — 2 checks, 5 random sequences × 300 ops (seed 1), 1234 calls checked, 1.5s\n"

const fixedTotal = "\nabicheck: 1 target: 1 pass, 1 fail, 1 warn, 4 skip, 0 crash, 0 hang — FINDINGS — 2.0s\n"

// Issue #37: the default text is the failures, the warnings, the skips one
// line per reason with the rules it covers, one summary line per target and
// the total with the wall time; -q the failures and the summaries; -v the
// full per-rule table and every check.
func TestReportText(t *testing.T) {
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"default", Options{}, fixedHeader + fixedFailures +
			"warn E-FIN: finalize answered late\n" +
			"skip (2): does not apply to a refusing build: K-1 K-2\n" +
			"skip (1): the target cannot drive it: missing unloading a private copy: U-1\n" +
			"skip (1): nothing to drive from outside: V-ARENA\n" +
			fixedSummary + fixedTotal},
		{"-q", Options{Quiet: true}, fixedHeader + fixedFailures + fixedSummary + fixedTotal},
		{"-v", Options{Verbose: true}, fixedHeader +
			"RULE            VERDICT DETAIL\n" +
			"S-1             pass    30 checks\n" +
			"V-IMG           fail    #3 prepare c0 img=valid()+long(64): want INVALID_ARGUMENT, got OK\n" +
			"E-FIN           warn    finalize answered late\n" +
			"K-1             skip    does not apply to a refusing build (docs/contract.md#k-1)\n" +
			"U-1             skip    u-1/program-thread-exits-after-unload: the target cannot drive it: missing unloading a private copy\n" +
			"K-2             skip    does not apply to a refusing build (docs/contract.md#k-2)\n" +
			"V-ARENA         skip    V-ARENA: nothing to drive from outside\n" +
			"CHECKS\n" +
			"  v-img/defects                              fail  #6 prepare c0 img=valid()+long(64): want INVALID_ARGUMENT, got OK\n" +
			"  s-1/documented-codes                       pass  \n" +
			fixedFailures + fixedSummary + fixedTotal +
			"\nnot checked here (rules of consumers and of the emitter): " + consumerRules() + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.Seed, o.MaxOps, o.ReproDir = 1, 300, "/r"
			var b bytes.Buffer
			NewPrinter(&o, &b).Report([]*Run{fixedRun()}, 2*time.Second)
			if d := cmp.Diff(c.want, b.String()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func consumerRules() string {
	s := ""
	for i, r := range model.ConsumerRules {
		if i > 0 {
			s += " "
		}
		s += r
	}
	return s
}

// A skip's reason is its detail without what names the rule, so that the
// rules skipped for one reason share a line.
func TestSkipGroups(t *testing.T) {
	got := SkipGroups(Results(fixedRun()))
	want := []SkipGroup{
		{Reason: "does not apply to a refusing build", Rules: []string{"K-1", "K-2"}},
		{Reason: "the target cannot drive it: missing unloading a private copy", Rules: []string{"U-1"}},
		{Reason: "nothing to drive from outside", Rules: []string{"V-ARENA"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// JUnit: every test case carries the time RuleTimes gives its rule, the
// suite the run's: a directed check's time in equal shares to its rules,
// the rest (1.5 s - 0.5 s) by the rules' checks (S-1 30, V-IMG 10, E-FIN
// 2: 42 in all).
func TestJUnitTimes(t *testing.T) {
	r := fixedRun()
	wantTimes := map[string]time.Duration{
		"V-IMG": 300*time.Millisecond + time.Second*10/42,
		"S-1":   100*time.Millisecond + time.Second*30/42,
		"E-FIN": 100*time.Millisecond + time.Second*2/42,
	}
	got := RuleTimes(r)
	if d := cmp.Diff(wantTimes, got, cmp.Comparer(func(a, b time.Duration) bool { return (a - b).Abs() < time.Microsecond })); d != "" {
		t.Errorf("RuleTimes (-want +got):\n%s", d)
	}
	file := filepath.Join(t.TempDir(), "j.xml")
	if err := WriteJUnit(file, []*Run{r}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var x struct {
		Suites []struct {
			Time  string `xml:"time,attr"`
			Cases []struct {
				Name string  `xml:"name,attr"`
				Time *string `xml:"time,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &x); err != nil || len(x.Suites) != 1 {
		t.Fatalf("%v\n%s", err, b)
	}
	cases := map[string]string{}
	for _, c := range x.Suites[0].Cases {
		if c.Time == nil {
			t.Errorf("test case %s has no time", c.Name)
			continue
		}
		cases[c.Name] = *c.Time
	}
	want := map[string]string{"S-1": "0.814", "V-IMG": "0.538", "E-FIN": "0.148", "K-1": "0.000", "U-1": "0.000", "K-2": "0.000", "V-ARENA": "0.000"}
	if d := cmp.Diff(want, cases); d != "" || x.Suites[0].Time != "1.500" {
		t.Errorf("suite time %s, want 1.500; case times (-want +got):\n%s", x.Suites[0].Time, d)
	}
}

// The JSON of a check has one shape whatever the number of targets: the
// envelope, a report per target, the totals.
func TestChecksJSONShape(t *testing.T) {
	o := &Options{Seed: 1, MaxOps: 300}
	for _, n := range []int{1, 3} {
		var runs []*Run
		for range n {
			runs = append(runs, fixedRun())
		}
		var b bytes.Buffer
		if err := WriteJSONValue(&b, ChecksJSON(runs, o, 2500*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Schema   string            `json:"schema"`
			Command  string            `json:"command"`
			Targets  []json.RawMessage `json:"targets"`
			Summary  JSONSummary       `json:"summary"`
			ElapsedS float64           `json:"elapsed_s"`
		}
		dec := json.NewDecoder(&b)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("%d targets: %v", n, err)
		}
		want := JSONSummary{Pass: n, Fail: n, Warn: n, Skip: 4 * n}
		if got.Schema != "abicheck/v2" || got.Command != "check" || len(got.Targets) != n || got.Summary != want || got.ElapsedS != 2.5 {
			t.Errorf("%d targets: %s %s, %d targets, summary %+v, %v s", n, got.Schema, got.Command, len(got.Targets), got.Summary, got.ElapsedS)
		}
	}
}

// docs/abicheck.md names the schema the JSON reports carry.
func TestDocsNameTheJSONSchema(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "abicheck.md"))
	if err != nil {
		t.Fatal(err)
	}
	if doc := strings.Join(strings.Fields(string(b)), " "); !strings.Contains(doc, "an object whose `schema` is `"+JSONSchema+"`") {
		t.Errorf("docs/abicheck.md does not say that a report's schema is %s", JSONSchema)
	}
}
