package session

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/report"
)

// Results are a run's per-rule verdicts: every runtime rule of docs/contract.md,
// plus HOOKS when the simulation hooks themselves misbehaved.
func Results(r *Run) []report.RuleReport {
	rep := r.Result.Report
	out := append([]report.RuleReport(nil), rep.Rules...)
	if h, ok := rep.HooksReport(); ok {
		out = append(out, h)
	}
	for i := range out {
		out[i].Detail = alignDetail(out[i].Detail, out[i].Repro)
	}
	return out
}

func reproFile(r *Run, rule string) string { return "repro-" + r.Target.FileTag + rule + ".ops" }

// reproText is a repro file: a "# key: value" header (the finding -replay
// must see, the refused call a probe's finding came from, the args that pick
// the target again), then the ops.
func reproText(r *Run, rr report.RuleReport, file string) string {
	i := r.Target.Info
	probe := ""
	if rr.Finding != "" && !strings.HasPrefix(rr.Finding, rr.Rule+" ") {
		probe = "a refused call of " + rr.Rule + " left this finding behind (the detail names the refusal)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# abicheck repro: %s %s\n", rr.Rule, rr.Verdict)
	for _, h := range [][2]string{{"finding", rr.Finding}, {"probe", probe}, {"note", rr.ReproNote}, {"rule", rr.Anchor},
		{"target", r.Target.Label}, {"profile", fmt.Sprintf("%s (revision %s, supported %d)", i.Profile, i.Revision, i.Supported)},
		{"detail", oneLine(rr.Detail)}, {"replay", replayCommand(r, file)}, {"args", r.Target.ReplayArgs}} {
		if h[1] != "" {
			fmt.Fprintf(&b, "# %s: %s\n", h[0], h[1])
		}
	}
	b.WriteString(lines(rr.Repro))
	return b.String()
}

// lines is ls, a line each.
func lines(ls []string) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// replayHint is the table's replay command for a rule's repro: on the file
// -repro-dir wrote, else on the one -repro-dir out would write.
func replayHint(r *Run, rule, reproDir string) string {
	if reproDir != "" {
		return replayCommand(r, filepath.Join(reproDir, reproFile(r, rule)))
	}
	return replayCommand(r, filepath.Join("out", reproFile(r, rule))) + " (once a run with -repro-dir out has written it)"
}

func replayCommand(r *Run, file string) string {
	cmd := "abicheck -replay " + ShellQuote(file)
	if r.Target.ReplayArgs != "" {
		cmd += " " + r.Target.ReplayArgs
	}
	return cmd
}

func oneLine(s string) string { return op.Abbreviate(strings.ReplaceAll(s, "\n", " | ")) }

// WriteRepros writes every failing rule's repro into dir and returns the
// names of the files it wrote.
func WriteRepros(dir string, runs []*Run) ([]string, error) {
	var names []string
	for _, r := range runs {
		for _, rr := range Results(r) {
			if rr.Verdict.Bad() && len(rr.Repro) > 0 {
				p, text := ReproScript(r, rr, dir)
				if err := writeOutput(p, []byte(text)); err != nil {
					return names, err
				}
				names = append(names, filepath.Base(p))
			}
		}
	}
	return names, nil
}

// JSONSchema names the shape of every JSON report abicheck writes
// (docs/abicheck.md): one object with "schema", "command", "targets" (a
// list) and "elapsed_s", then the command's own fields.
const JSONSchema = "abicheck/v2"

// JSONTarget is a build a report is about.
type JSONTarget struct {
	Role      string `json:"role,omitempty"` // diff: "old" or "new"
	Path      string `json:"path"`
	Revision  string `json:"revision"`
	Profile   string `json:"profile"`
	Supported int32  `json:"supported"`
	Hooks     bool   `json:"hooks"`
	ACL       string `json:"acl"`
	Isolated  bool   `json:"isolated"`
}

type JSONResult struct {
	Rule    string `json:"rule"`
	Anchor  string `json:"anchor"`
	Verdict string `json:"verdict"`
	Detail  string `json:"detail"`
	Repro   string `json:"repro"`
	Checks  uint32 `json:"checks"`
	Fails   uint32 `json:"fails"`
	Warns   uint32 `json:"warns"`
	Skips   uint32 `json:"skips"`
	Generic uint32 `json:"generic_passes,omitempty"`
	Runs    uint32 `json:"run_clauses,omitempty"`
}

type JSONCheck struct {
	Name    string   `json:"name"`
	Rules   []string `json:"rules"`
	Verdict string   `json:"verdict"`
	Detail  string   `json:"detail"`
	Repro   string   `json:"repro"`
}

type JSONSummary struct {
	Pass  int `json:"pass"`
	Fail  int `json:"fail"`
	Warn  int `json:"warn"`
	Skip  int `json:"skip"`
	Crash int `json:"crash"`
	Hang  int `json:"hang"`
	Known int `json:"known"`
}

// counts are s's counters by verdict.
func (s *JSONSummary) counts() map[model.Verdict]*int {
	return map[model.Verdict]*int{model.Pass: &s.Pass, model.Fail: &s.Fail, model.Warn: &s.Warn, model.Skip: &s.Skip,
		model.Crash: &s.Crash, model.Hang: &s.Hang, model.Known: &s.Known}
}

// AddAll adds o's counts to s.
func (s *JSONSummary) AddAll(o JSONSummary) {
	for v, n := range o.counts() {
		*s.counts()[v] += *n
	}
}

func (s *JSONSummary) add(v model.Verdict) {
	if n := s.counts()[v]; n != nil {
		*n++
	}
}

type JSONReport struct {
	Target     JSONTarget             `json:"target"`
	Results    []JSONResult           `json:"results"`
	Summary    JSONSummary            `json:"summary"`
	Checks     []JSONCheck            `json:"checks"`
	Findings   []report.FindingReport `json:"findings"`
	Seed       uint64                 `json:"seed"`
	Sequences  int                    `json:"sequences"`
	MaxOps     int                    `json:"max_ops"`
	Ops        int                    `json:"ops"`
	DurationMS int64                  `json:"duration_ms"`
}

// report is t as a check's or a replay's report names it.
func (t *Target) report() JSONTarget {
	i := t.Info
	return JSONTarget{Path: i.Path, Revision: i.Revision, Profile: i.Profile, Supported: i.Supported, Hooks: i.Hooks, ACL: i.ACL, Isolated: t.Isolated}
}

func ReportJSON(r *Run, o *Options) JSONReport {
	rep := r.Result.Report
	j := JSONReport{Target: r.Target.report(),
		Seed: o.Seed, Sequences: r.Result.Random, MaxOps: o.MaxOps, Ops: rep.Ops, DurationMS: r.Elapsed.Milliseconds(),
		Results: []JSONResult{}, Checks: []JSONCheck{}, Findings: rep.Findings}
	if j.Findings == nil {
		j.Findings = []report.FindingReport{}
	}
	for _, rr := range Results(r) {
		j.Results = append(j.Results, JSONResult{Rule: rr.Rule, Anchor: rr.Anchor, Verdict: rr.Verdict.String(), Detail: rr.Detail,
			Repro: strings.Join(rr.Repro, "\n"), Checks: rr.Passes + rr.Fails + rr.Warns + rr.Skips,
			Fails: rr.Fails, Warns: rr.Warns, Skips: rr.Skips, Generic: rr.Generic, Runs: rr.RunClauses})
		j.Summary.add(rr.Verdict)
	}
	for _, c := range rep.Checks {
		j.Checks = append(j.Checks, JSONCheck{Name: c.Name, Rules: append([]string{}, c.Rules...), Verdict: c.Verdict.String(), Detail: alignDetail(c.Detail, c.Repro),
			Repro: strings.Join(c.Repro, "\n")})
	}
	return j
}

// CheckJSON is the JSON report of a check or of -check-trace.
type CheckJSON struct {
	Schema   string       `json:"schema"`
	Command  string       `json:"command"` // "check" or "check-trace"
	Targets  []JSONReport `json:"targets"`
	Summary  JSONSummary  `json:"summary"` // the targets' verdicts added up
	ElapsedS float64      `json:"elapsed_s"`
}

// ChecksJSON is the JSON report of runs that took elapsed in all.
func ChecksJSON(runs []*Run, o *Options, elapsed time.Duration) CheckJSON {
	j := CheckJSON{Schema: JSONSchema, Command: "check", Targets: []JSONReport{}, ElapsedS: seconds(elapsed)}
	if o.CheckTrace {
		j.Command = "check-trace"
	}
	for _, r := range runs {
		rep := ReportJSON(r, o)
		j.Targets = append(j.Targets, rep)
		j.Summary.AddAll(rep.Summary)
	}
	return j
}

// seconds is d in seconds, to the millisecond (a report's elapsed_s).
func seconds(d time.Duration) float64 { return float64(d.Milliseconds()) / 1000 }

// WriteJSONValue writes v indented, without HTML escaping (op logs hold "->").
func WriteJSONValue(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteJUnit writes one test suite per target and one test case per rule
// (report.RuleCases), with the times of RuleTimes.
func WriteJUnit(path string, runs []*Run) error {
	suites := make([]report.JUnitSuite, 0, len(runs))
	for _, r := range runs {
		cases := report.RuleCases("abicheck", r.Target.Label, Results(r), RuleTimes(r))
		suites = append(suites, report.JUnitSuite{Name: r.Target.Label, Elapsed: r.Elapsed, Cases: cases})
	}
	b, err := report.RenderJUnit("abicheck", suites)
	if err != nil {
		return err
	}
	return writeOutput(path, b)
}

// RuleTimes attributes a run's time to its rules (JUnit's times), adding up
// to the run's: a directed check's time goes to its rules in equal shares,
// the rest (random sequences, probes, children starting, a trace) in
// proportion to the calls the model judged under each.
func RuleTimes(r *Run) map[string]time.Duration {
	out := map[string]time.Duration{}
	rest := r.Elapsed
	for _, c := range r.Result.Cases {
		if len(c.Rules) == 0 {
			continue
		}
		share := c.Elapsed / time.Duration(len(c.Rules))
		for _, rule := range c.Rules {
			out[rule.String()] += share
		}
		rest -= share * time.Duration(len(c.Rules))
	}
	var total uint64
	rs := Results(r)
	for _, rr := range rs {
		total += uint64(rr.Passes + rr.Fails + rr.Warns)
	}
	for _, rr := range rs {
		if n := uint64(rr.Passes + rr.Fails + rr.Warns); n > 0 && rest > 0 {
			out[rr.Rule] += time.Duration(float64(rest) * float64(n) / float64(total))
		}
	}
	return out
}

type Printer struct {
	o     *Options
	w     io.Writer
	tty   bool
	color bool

	mu      sync.Mutex
	last    time.Time
	showing bool
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Stat() (os.FileInfo, error) }) // an *os.File, or abicheck's gate in front of one
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func NewPrinter(o *Options, w io.Writer) *Printer {
	tty := isTerminal(w)
	return &Printer{o: o, w: w, tty: tty, color: tty && !o.NoColor && os.Getenv("NO_COLOR") == ""}
}

// Progress updates a carriage-return progress line (terminal only).
func (p *Printer) Progress(label string) func(done, total int, name string) {
	if !p.tty || p.o.JSON || p.o.Quiet {
		return nil
	}
	return func(done, total int, name string) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if now := time.Now(); now.Sub(p.last) >= 50*time.Millisecond {
			p.last = now
			line := fmt.Sprintf("abicheck %s: %d/%d %s", label, done, total, name)
			if len(line) > 100 {
				line = line[:100]
			}
			fmt.Fprintf(p.w, "\r\033[K%s", line)
			p.showing = true
		}
	}
}

// ClearProgress removes the progress line.
func (p *Printer) ClearProgress() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.showing {
		fmt.Fprint(p.w, "\r\033[K")
		p.showing = false
	}
}

var verdictColor = map[model.Verdict]string{
	model.Pass: "32", model.Fail: "31;1", model.Warn: "33", model.Skip: "2",
	model.Crash: "35;1", model.Hang: "35;1", model.Known: "36",
}

func (p *Printer) verdict(v model.Verdict, width int) string {
	return p.paint(verdictColor[v], fmt.Sprintf("%-*s", width, v.String()))
}

// paint colours s with an SGR code on a colour terminal.
func (p *Printer) paint(code, s string) string {
	if !p.color {
		return s
	}
	return "\033[" + code + "m" + s + "\033[0m"
}

func SummaryOf(r *Run) JSONSummary {
	var s JSONSummary
	for _, rr := range Results(r) {
		s.add(rr.Verdict)
	}
	return s
}

// Totals adds up the runs' verdict counts.
func Totals(runs []*Run) (s JSONSummary) {
	for _, r := range runs {
		s.AddAll(SummaryOf(r))
	}
	return s
}

// Bad: a rule failed, crashed or hung.
func (s JSONSummary) Bad() bool { return s.Fail+s.Crash+s.Hang > 0 }

// Verdict is the word on totals: FINDINGS when they are bad.
func (s JSONSummary) Verdict() string {
	if s.Bad() {
		return "FINDINGS"
	}
	return "no failures"
}

func (s JSONSummary) String() string {
	out := fmt.Sprintf("%d pass, %d fail, %d warn, %d skip, %d crash, %d hang", s.Pass, s.Fail, s.Warn, s.Skip, s.Crash, s.Hang)
	if s.Known > 0 {
		out += fmt.Sprintf(", %d known", s.Known)
	}
	return out
}

// Report prints every run (its failures, warnings and skips by reason; -v:
// every rule and check; -q: failures only), then the totals and the time.
func (p *Printer) Report(runs []*Run, elapsed time.Duration) {
	w := p.w
	for i, r := range runs {
		if i > 0 && !p.o.Quiet {
			fmt.Fprintln(w)
		}
		p.printTarget(r)
	}
	tot, what := Totals(runs), "target"
	if len(runs) > 0 && runs[0].Trace {
		what = "trace"
	}
	fmt.Fprintf(w, "\nabicheck: %s: %s — %s — %.1fs\n", plural(len(runs), what), tot, tot.Verdict(), elapsed.Seconds())
	if p.o.Verbose {
		fmt.Fprintf(w, "\nnot checked here (rules of consumers and of the emitter): %s\n", strings.Join(model.ConsumerRules, " "))
	}
}

func (p *Printer) printTarget(r *Run) {
	w, o := p.w, p.o
	rep := r.Result.Report
	fmt.Fprintln(w, targetHeader(r))
	rs := Results(r)
	if o.Verbose {
		p.printRuleTable(rs)
		fmt.Fprintln(w, "CHECKS")
		for _, c := range rep.Checks {
			fmt.Fprintf(w, "  %-42s %s %s\n", c.Name, p.verdict(c.Verdict, 5), oneLine(alignDetail(c.Detail, c.Repro)))
		}
	}
	p.printFailures(r, rs)
	if known := findingsWhere(rep, func(f report.FindingReport) bool { return f.Known }); len(known) > 0 {
		fmt.Fprintf(w, "KNOWN (%d, accepted by the baseline)\n", len(known))
		for _, f := range known {
			fmt.Fprintf(w, "    %s %s %s\n", f.Rule, f.Fingerprint, FindingLine(f))
		}
	}
	if !o.Verbose && !o.Quiet {
		for _, rr := range rs {
			if rr.Verdict == model.Warn {
				fmt.Fprintf(w, "%s %s: %s\n", p.verdict(model.Warn, 0), rr.Rule, oneLine(rr.Detail))
			}
		}
		for _, g := range SkipGroups(rs) {
			fmt.Fprintf(w, "%s (%d): %s: %s\n", p.verdict(model.Skip, 0), len(g.Rules), g.Reason, strings.Join(g.Rules, " "))
		}
	}
	fmt.Fprintln(w, SummaryLine(r, o))
}

// HooksText says how a target's device is driven.
func (t *Target) HooksText() string {
	switch i := t.Info; {
	case i.Hooks:
		return "hooks"
	case i.ACL != "":
		return "no hooks, ACL " + i.ACL
	}
	return "no hooks, no ACL"
}

// targetHeader is the line that opens a run's report: what was checked.
func targetHeader(r *Run) string {
	i, name, hooks := r.Target.Info, r.Target.Label, r.Target.HooksText()
	if i.Path != r.Target.Label {
		name += " " + i.Path
	}
	if r.Target.Isolated {
		hooks += ", isolated"
	}
	return fmt.Sprintf("== %s (revision %s, profile %s, supported %d, %s)", name, i.Revision, i.Profile, i.Supported, hooks)
}

// SummaryLine is a run's verdict counts and what ran.
func SummaryLine(r *Run, o *Options) string {
	s, rep := SummaryOf(r), r.Result.Report
	if r.Trace {
		return fmt.Sprintf("%s: %s — a recorded session, %d calls judged", r.Target.Label, s, rep.Ops)
	}
	random := fmt.Sprintf("%d random sequences × %d ops", r.Result.Random, o.MaxOps)
	if r.Result.Budget {
		random += " (stopped at -duration " + o.Duration.String() + ")"
	}
	return fmt.Sprintf("%s: %s — %d checks, %s (seed %d), %d calls checked, %.1fs", r.Target.Label, s,
		len(rep.Checks)-CountRandom(rep.Checks), random, o.Seed, rep.Ops, r.Elapsed.Seconds())
}

// printRuleTable prints a line per rule (-v).
func (p *Printer) printRuleTable(rs []report.RuleReport) {
	fmt.Fprintf(p.w, "%-15s %-7s %s\n", "RULE", "VERDICT", "DETAIL")
	for _, rr := range rs {
		detail := rr.Detail
		if rr.Verdict == model.Pass {
			detail = plural(int(rr.Passes), "check")
			if rr.Detail != "" {
				detail += "; " + rr.Detail
			}
		}
		fmt.Fprintf(p.w, "%-15s %s %s\n", rr.Rule, p.verdict(rr.Verdict, 7), oneLine(detail))
	}
}

// printFailures prints every rule that failed, crashed or hung, with its
// distinct findings, repro and replay command.
func (p *Printer) printFailures(r *Run, rs []report.RuleReport) {
	w, rep := p.w, r.Result.Report
	var bad []report.RuleReport
	for _, rr := range rs {
		if rr.Verdict.Bad() {
			bad = append(bad, rr)
		}
	}
	if len(bad) > 0 {
		fmt.Fprintf(w, "FAILURES (%d)\n", len(bad))
	}
	for _, rr := range bad {
		fmt.Fprintf(w, "--- %s %s: %s\n", rr.Rule, p.verdict(rr.Verdict, 0), oneLine(rr.Detail))
		if rr.Anchor != "" {
			fmt.Fprintf(w, "    rule: %s (abicheck explain %s)\n", rr.Anchor, rr.Rule)
		}
		// Every distinct finding of the rule, not only the first.
		if fs := FindingsOf(rep, rr.Rule, false); len(fs) > 1 {
			fmt.Fprintf(w, "    %d distinct findings:\n", len(fs))
			for _, f := range fs {
				fmt.Fprintf(w, "      %s\n", FindingLine(f))
			}
		}
		if len(rr.Repro) > 0 {
			// Abbreviated: a recorded image's bytes are in the repro file.
			fmt.Fprintf(w, "    repro (%d ops):\n", len(rr.Repro))
			for _, l := range rr.Repro {
				fmt.Fprintf(w, "      %s\n", op.Abbreviate(l))
			}
			fmt.Fprintf(w, "    replay: %s\n", replayHint(r, rr.Rule, p.o.ReproDir))
		}
	}
}

// SkipGroup is the rules a run skipped for one reason.
type SkipGroup struct {
	Reason string   `json:"reason"`
	Rules  []string `json:"rules"`
}

// SkipGroups groups the skipped rules of rs by reason (skipReason), in the
// order of their first rule.
func SkipGroups(rs []report.RuleReport) []SkipGroup {
	var out []SkipGroup
	for _, rr := range rs {
		if rr.Verdict != model.Skip {
			continue
		}
		why := skipReason(rr.Rule, rr.Detail)
		i := slices.IndexFunc(out, func(g SkipGroup) bool { return g.Reason == why })
		if i < 0 {
			i, out = len(out), append(out, SkipGroup{Reason: why})
		}
		out[i].Rules = append(out[i].Rules, rr.Rule)
	}
	return out
}

var (
	anchorTail = regexp.MustCompile(` \(docs/contract\.md#[a-z0-9.-]+\)$`)
	namingHead = regexp.MustCompile(`^[A-Za-z0-9./#_-]+: `)
)

// skipReason is a skip's detail without what names its rule (a leading
// "RULE: " or "CHECK: ", a trailing anchor), so that rules skipped for one
// reason share it.
func skipReason(rule, detail string) string {
	why := anchorTail.ReplaceAllString(oneLine(detail), "")
	if h := namingHead.FindString(why); h != "" && (h == rule+": " || strings.Contains(h, "/")) {
		why = why[len(h):]
	}
	if why == "" {
		return "no reason given"
	}
	return why
}

// FindingsOf are the failing findings of rule in rep, the known ones only
// when known is set.
func FindingsOf(rep *report.Report, rule string, known bool) []report.FindingReport {
	return findingsWhere(rep, func(f report.FindingReport) bool { return f.Rule == rule && f.Verdict.Bad() && f.Known == known })
}

func findingsWhere(rep *report.Report, keep func(report.FindingReport) bool) []report.FindingReport {
	return slices.DeleteFunc(slices.Clone(rep.Findings), func(f report.FindingReport) bool { return !keep(f) })
}

// findingLine is one finding: its check, op, detail and how often it was seen.
func FindingLine(f report.FindingReport) string {
	s := f.Check
	if f.Index >= 0 && f.Op != "" {
		s += fmt.Sprintf(" #%d %s", f.Index, f.Op)
	}
	s += ": " + oneLine(f.Detail)
	if f.Count > 1 {
		s += fmt.Sprintf(" (×%d)", f.Count)
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

var (
	detailOp    = regexp.MustCompile(`^#(\d+)(\.\d+)? `)
	findingHead = regexp.MustCompile(`^(fail|warn|skip|crash|hang) [A-Z0-9-]+: `)
)

// alignDetail renumbers the op a detail names ("#57 prepare c0 ...: ...",
// its index in the original sequence) to its index in the shrunk repro, when
// the repro holds that op.
func alignDetail(detail string, repro []string) string {
	m := detailOp.FindStringSubmatchIndex(detail)
	if m == nil || len(repro) == 0 {
		return detail
	}
	rest := detail[m[1]:]
	opText := rest
	if v := findingHead.FindString(rest); v != "" { // a Finding's "fail V-IMG: "
		opText = rest[len(v):]
	}
	for j := len(repro) - 1; j >= 0; j-- {
		if strings.HasPrefix(opText, repro[j]+": ") {
			return "#" + strconv.Itoa(j) + detail[m[3]:m[1]-1] + " " + rest // keeps a repeat's ".N"
		}
	}
	return detail
}

// CountRandom counts the random sequences among a report's checks.
func CountRandom(cs []report.CheckReport) int {
	n := 0
	for _, c := range cs {
		if strings.HasPrefix(c.Name, "random/") {
			n++
		}
	}
	return n
}
