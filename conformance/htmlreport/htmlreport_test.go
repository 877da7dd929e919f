package htmlreport

import (
	"bytes"
	"encoding/base64"
	"html"
	"html/template"
	"image"
	_ "image/png" // the plots
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/conformance/session"
	"github.com/simabi/simabi/conformance/speed"
	"github.com/simabi/simabi/conformance/suite"
	"github.com/simabi/simabi/conformance/target/library"
	"github.com/simabi/simabi/docs"
)

// The HTML report's pages, rendered from runs made up here (the browser
// test, cmd/abicheck's TestIssue37_HTMLReportInABrowser, renders real
// ones and looks at them).

var fixedNow = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

var (
	attrURL = regexp.MustCompile(`\s(?:src|href)="([^"]*)"`)
	attrID  = regexp.MustCompile(`\sid="([^"]*)"`)
)

// selfContained checks a page points nowhere outside itself: every src
// and href is an in-page link to an id the page has, or a data: URI, and
// no script, style sheet or font is loaded.
func selfContained(t *testing.T, page string) {
	t.Helper()
	ids := map[string]bool{}
	for _, m := range attrID.FindAllStringSubmatch(page, -1) {
		if ids[m[1]] {
			t.Errorf("id %q twice", m[1])
		}
		ids[m[1]] = true
	}
	for _, m := range attrURL.FindAllStringSubmatch(page, -1) {
		u := html.UnescapeString(m[1])
		switch {
		case strings.HasPrefix(u, "data:image/png;base64,"):
		case strings.HasPrefix(u, "#"):
			if !ids[u[1:]] {
				t.Errorf("link %q has no target in the page", u)
			}
		default:
			t.Errorf("link %q points out of the page", u)
		}
	}
	for _, bad := range []string{"<script", "<link", "@import", "url(", "<iframe", "@font-face"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page has %q", bad)
		}
	}
}

func render(t *testing.T, f func(w *bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkRun is a run of sim:tmr whose E-FIN failed (with a repro) and
// whose E-SUP passed.
func checkRun() *session.Run {
	rep := &report.Report{Rules: []report.RuleReport{
		{Rule: "E-SUP", Anchor: docs.Anchor("E-SUP"), Verdict: model.Pass, Passes: 3, Detail: ""},
		{Rule: "E-FIN", Anchor: docs.Anchor("E-FIN"), Verdict: model.Fail, Fails: 1, Passes: 2,
			Detail: "#1 finalize c0: returned 0, want INTERNAL", Repro: []string{"create c0", "finalize c0"}},
		{Rule: "V-ARENA", Anchor: docs.Anchor("V-ARENA"), Verdict: model.Skip, Detail: "no check drives it"},
	}, Checks: []report.CheckReport{{Name: "e-fin/null", Rules: []string{"E-FIN"}, Verdict: model.Fail}}, Ops: 7}
	info := library.Info{Path: "sim:tmr", Revision: "kernel", Profile: "tmr", Supported: 1, Hooks: true, ProfileModel: "tmr"}
	return &session.Run{Target: &session.Target{Label: "sim:tmr", Info: info, Close: func() {}},
		Result: &suite.Result{Report: rep, Random: 2}, Elapsed: 1500 * time.Millisecond}
}

// Issue #37: a check's page has a row per rule, linked to the rule's text
// in the page, and the failing rule's repro script as -repro-dir writes it.
func TestIssue37_CheckPage(t *testing.T) {
	r, o := checkRun(), &session.Options{ReproDir: "/tmp/out", MaxOps: 300, Seed: 1}
	page := render(t, func(w *bytes.Buffer) error { return Pages{Now: fixedNow}.Check(w, []*session.Run{r}, o) })
	selfContained(t, page)
	rows := regexp.MustCompile(`<tr class="rule-row" data-rule="([^"]+)"><td><a href="([^"]+)">[^<]+</a></td><td class="verdict ([^"]+)">`).FindAllStringSubmatch(page, -1)
	var got [][]string
	for _, m := range rows {
		got = append(got, m[1:])
	}
	want := [][]string{{"E-SUP", "#rule-E-SUP", "v-pass"}, {"E-FIN", "#rule-E-FIN", "v-fail"}, {"V-ARENA", "#rule-V-ARENA", "v-skip"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the rule rows (-want +got):\n%s", diff)
	}
	file, script := session.ReproScript(r, r.Result.Report.Rules[1], "/tmp/out")
	if file != "/tmp/out/repro-E-FIN.ops" {
		t.Errorf("the repro file is %s", file)
	}
	for _, want := range []string{
		`<pre class="repro">` + template.HTMLEscapeString(script) + `</pre>`,
		"written to <code>/tmp/out/repro-E-FIN.ops</code>",
		`<p class="headline bad">1 target(s): 1 pass, 1 fail, 0 warn, 1 skip, 0 crash, 0 hang — FINDINGS</p>`,
		"1 pass, 1 fail, 0 warn, 1 skip, 0 crash, 0 hang — 1 checks, 2 random sequences × 300 ops (seed 1), 7 calls checked, 1.5s",
		"made 2026-01-02 03:04:05 UTC",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The rules' texts, in the contract's order, each as abicheck
	// explain prints it.
	sections := regexp.MustCompile(`<section class="rule" id="(rule-[^"]+)">`).FindAllStringSubmatch(page, -1)
	if diff := cmp.Diff([][]string{{`<section class="rule" id="rule-V-ARENA">`, "rule-V-ARENA"}, {`<section class="rule" id="rule-E-SUP">`, "rule-E-SUP"},
		{`<section class="rule" id="rule-E-FIN">`, "rule-E-FIN"}}, sections); diff != "" {
		t.Errorf("the contract's sections (-want +got):\n%s", diff)
	}
	text, err := catalogue.Explain("E-FIN")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := docs.Rule("E-FIN")
	if !strings.Contains(page, `<pre class="contract">`+string(markClauses(text, s.Clauses))+`</pre>`) {
		t.Error("the page lacks E-FIN's text")
	}
}

// Issue #37: a clause's marker in its rule's text is its link target,
// the first marker not in backticks (those are examples); the rest is
// escaped.
func TestIssue37_MarkClauses(t *testing.T) {
	got := markClauses("a < b: see `[X-1.1]`, then [X-1.1] & [X-1.2]; [X-1.1] again", []docs.Clause{{ID: "X-1.1"}, {ID: "X-1.2"}, {ID: "X-1.3"}})
	want := template.HTML("a &lt; b: see `[X-1.1]`, then <span class=\"clause\" id=\"clause-X-1.1\">[X-1.1]</span> &amp; " +
		"<span class=\"clause\" id=\"clause-X-1.2\">[X-1.2]</span>; [X-1.1] again")
	if got != want {
		t.Errorf("markClauses =\n%s\nwant\n%s", got, want)
	}
	// Every clause of the contract gets its anchor in its rule's text.
	rules, err := docs.Rules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		marked := string(markClauses(catalogue.ExplainRule(r), r.Clauses))
		for _, c := range r.Clauses {
			if n := strings.Count(marked, `id="`+clauseAnchor(c.ID)+`"`); n != 1 {
				t.Errorf("clause %s: %d anchors in its rule's text, want 1", c.ID, n)
			}
		}
	}
}

// The links of rules and clauses: HOOKS is F-1's; a clause links to its
// marker; what the contract does not have gets no link.
func TestIssue37_Refs(t *testing.T) {
	rs := newRefs()
	got := []string{rs.ruleHref("HOOKS"), rs.ruleHref("e-fin"), rs.clauseHref("E-DESTROY.3"), rs.clauseHref("K-5"), rs.ruleHref("Q-9"), rs.clauseHref("E-FIN.99")}
	want := []string{"#rule-F-1", "#rule-E-FIN", "#clause-E-DESTROY.3", "#rule-K-5", "", ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hrefs (-want +got):\n%s", diff)
	}
	cs, err := rs.contract()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	if diff := cmp.Diff([]string{"K-5", "E-FIN", "E-DESTROY", "F-1"}, ids); diff != "" {
		t.Errorf("the rules embedded, in the contract's order (-want +got):\n%s", diff)
	}
}

// speedReport has two entries timed (NEW slower on the first) and one
// skipped.
func speedReport() *speed.Report {
	rounds := func(base float64) []float64 {
		out := make([]float64, 12)
		for i := range out {
			out[i] = base * (1 + 0.01*float64(i%5))
		}
		return out
	}
	return &speed.Report{Old: "sim:tmr", New: "lib.so", OldBuild: "the built-in simulator", NewBuild: "lib.so", BudgetNs: 3e9, ElapsedNs: 2e9,
		Entries: []speed.EntryReport{
			{Name: "create+destroy", Rounds: 12, Calls: 1200, OldMedianNs: 800, NewMedianNs: 1600, NoiseMedianNs: 810, Ratio: 2, RatioLo: 1.9, RatioHi: 2.1,
				Noise: 1.01, NoiseLo: 0.99, NoiseHi: 1.03, BandLo: 0.8, BandHi: 1.2625, Verdict: speed.Slower,
				OldRoundNs: rounds(800), NoiseRoundNs: rounds(808), NewRoundNs: rounds(1600)},
			{Name: "run", Rounds: 12, Calls: 1200, OldMedianNs: 120, NewMedianNs: 121, Ratio: 1.01, RatioLo: 0.99, RatioHi: 1.02,
				Noise: 1, NoiseLo: 0.98, NoiseHi: 1.02, BandLo: 0.8, BandHi: 1.25, Verdict: speed.Same,
				OldRoundNs: rounds(120), NoiseRoundNs: rounds(120), NewRoundNs: rounds(121)},
			{Name: "kernel_prepare", Verdict: "skipped: NEW: the build does not run kernel mode (not a tmr build)"},
		}}
}

// diffReport has three changes of two causes (in two clause groups) and the
// speed of two entries.
func diffReport(sp any) *session.DiffReport {
	ch := func(group string, clauses []string, c, got string) session.JSONChange {
		return session.JSONChange{Group: group, Clauses: clauses, Rule: "E-FIN", Case: c, At: 1, Old: "#1 finalize c0 -> OK",
			New: "#1 finalize c0 -> " + got, Entry: "simpler_finalize_device", Field: "status", OldValue: "OK", NewValue: got,
			Script: []string{"create c0", "finalize c0"}, File: "/tmp/d/" + c + ".ops",
			Replay: []string{"abicheck -replay /tmp/d/" + c + ".ops sim:tmr", "abicheck -replay /tmp/d/" + c + ".ops lib.so"}}
	}
	return &session.DiffReport{Targets: []session.JSONTarget{{Path: "sim:tmr", Revision: "kernel", Profile: "tmr", Supported: 1},
		{Path: "lib.so", Revision: "kernel", Profile: "tmr", Supported: 1}}, Seed: 1, Profile: "tmr",
		Changes: []session.JSONChange{ch("E-FIN.4", []string{"E-FIN.4"}, "b", "INTERNAL"), ch("E-DESTROY.3, E-FIN.1", []string{"E-DESTROY.3", "E-FIN.1"}, "a", "INVALID_STATE"),
			ch("E-FIN.4", []string{"E-FIN.4"}, "c", "INTERNAL")},
		Speed:   sp,
		Summary: session.JSONDiffSummary{Cases: 10, Random: 2, Changes: 3, Groups: 2, SpeedChanges: 1, ElapsedMs: 2500}}
}

// Issue #37: a diff's page has the changes in their groups, each with its
// script, and the speed comparison's two plots: PNGs 6 in wide at 192 dpi,
// 1.6 in plus 0.45 in per entry timed high.
func TestIssue37_DiffPage(t *testing.T) {
	page := render(t, func(w *bytes.Buffer) error {
		return Pages{Now: fixedNow}.Diff(w, diffReport(speedReport()), &session.Options{})
	})
	selfContained(t, page)
	groups := regexp.MustCompile(`<section class="group" id="(group-\d+)">\s*<h3>(.*)</h3>\s*<p>Touches (.*)</p>`).FindAllStringSubmatch(page, -1)
	var got [][]string
	for _, g := range groups {
		got = append(got, g[1:])
	}
	// One cause: the entry and the part of its result that changed, every
	// OLD value that went to one NEW value together, the clauses after it.
	want := [][]string{
		{"group-1", `simpler_finalize_device status: OK -&gt; INTERNAL; OK -&gt; INVALID_STATE`, `<a href="#clause-E-FIN.4">E-FIN.4</a>, <a href="#clause-E-DESTROY.3">E-DESTROY.3</a>, <a href="#clause-E-FIN.1">E-FIN.1</a>`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the groups (-want +got):\n%s", diff)
	}
	if n := strings.Count(page, `<pre class="script">create c0`+"\n"+`finalize c0</pre>`); n != 3 {
		t.Errorf("%d scripts, want 3", n)
	}
	var sizes [][2]int
	for _, m := range regexp.MustCompile(`<img class="plot" id="[a-z-]+" src="data:image/png;base64,([^"]+)"`).FindAllStringSubmatch(page, -1) {
		b, err := base64.StdEncoding.DecodeString(html.UnescapeString(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, [2]int{cfg.Width, cfg.Height})
	}
	if diff := cmp.Diff([][2]int{{1152, 480}, {1152, 480}}, sizes); diff != "" {
		t.Errorf("the plots' sizes in pixels (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		`<td>create&#43;destroy</td><td class="num">1200</td><td class="num">12</td><td class="num">800ns</td><td class="num">1.6µs</td>`,
		`<td class="num">2.00 [1.90, 2.10]</td><td class="num">1.01 [0.99, 1.03]</td><td class="num">0.80..1.26</td><td class="v-slower">slower</td>`,
		"<li>kernel_prepare: skipped: NEW: the build does not run kernel mode (not a tmr build)</li>",
		`<p class="headline bad">10 cases (2 random, seed 1) on both builds, tmr profile: 3 change(s) of 1 cause(s), 1 in speed</p>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// A diff without a speed comparison (-no-speed) has no speed section; an
// entry timed without its rounds (a report of an older abicheck) cannot be
// plotted, and the page says so instead.
func TestIssue37_DiffPageWithoutPlots(t *testing.T) {
	page := render(t, func(w *bytes.Buffer) error { return Pages{}.Diff(w, diffReport(nil), &session.Options{}) })
	selfContained(t, page)
	if strings.Contains(page, `id="speed"`) {
		t.Error("a diff without speed has a speed section")
	}
	sp := speedReport()
	sp.Entries[1].OldRoundNs = nil
	page = render(t, func(w *bytes.Buffer) error { return Pages{}.Diff(w, diffReport(sp), &session.Options{}) })
	selfContained(t, page)
	if strings.Contains(page, "<img") || !strings.Contains(page, `<p class="v-warn">the plot could not be drawn: `) {
		t.Error("an entry without its rounds: want no plot and why")
	}
}

// Issue #37: a mutants run's page has the kill table and a row per clause
// of the contract in the coverage matrix, each clause's state from its
// mutants' fates.
func TestIssue37_MutantsPage(t *testing.T) {
	run := &session.MutantRun{Killed: 1, Rows: []session.MutantRow{
		{Name: "device-band-code", Clause: "S-1.1", Rule: "S-1", Killed: true, Check: "s-1/host-refusals-below-1000", ByRule: "S-1", Verdict: "fail", MS: 1200},
		{Name: "undocumented-code", Clause: "S-2.1", Rule: "S-2", MS: 800},
	}}
	o := &session.Options{Sequences: 5, MaxOps: 300, Duration: time.Second, CaseTimeout: time.Second, Seed: 1}
	page := render(t, func(w *bytes.Buffer) error { return Pages{}.Mutants(w, run, o, false) })
	selfContained(t, page)
	if n, want := strings.Count(page, "\n<tr><td><a href=\"#clause-"), len(catalogue.Clauses()); n != want {
		t.Errorf("%d clause rows, want %d (one per clause)", n, want)
	}
	state := func(id string) string {
		m := regexp.MustCompile(`<tr><td><a href="#clause-` + regexp.QuoteMeta(id) + `">[^<]*</a></td>.*<td class="([^"]+) detail">([^<]*)</td></tr>`).FindStringSubmatch(page)
		if m == nil {
			return "no row"
		}
		return m[1] + " " + m[2]
	}
	got := []string{state("S-1.1"), state("S-2.1"), state("S-2.2"), state("X-3.1")}
	want := []string{"v-pass killed", "v-fail a mutant survived", "v-skip not run", "v-skip cannot be driven: no result is asserted"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("clause states (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		`<td>device-band-code</td><td><a href="#clause-S-1.1">S-1.1</a></td><td class="v-pass">yes</td><td class="detail">s-1/host-refusals-below-1000: S-1 fail</td><td class="num">1.20s</td>`,
		`<td>undocumented-code</td><td><a href="#clause-S-2.1">S-2.1</a></td><td class="v-fail">no</td><td class="detail">survived</td>`,
		`<p class="headline bad">mutation score: 1/2 (50%)</p>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
