package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/simabi/simabi/tests/conformance"
)

// results are a run's per-rule verdicts: every runtime rule of docs/contract.md,
// plus HOOKS when the simulation hooks themselves misbehaved.
func results(r *targetRun) []conformance.RuleReport {
	rep := r.res.Report
	out := append([]conformance.RuleReport(nil), rep.Rules...)
	if h, ok := rep.HooksReport(); ok {
		out = append(out, h)
	}
	for i := range out {
		out[i].Detail = alignDetail(out[i].Detail, out[i].Repro)
	}
	return out
}

// reproFile is the file name of a rule's repro.
func reproFile(r *targetRun, rule string) string {
	return "repro-" + r.t.fileTag + rule + ".ops"
}

func reproText(r *targetRun, rr conformance.RuleReport, file string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# abicheck repro: %s %s\n", rr.Rule, rr.Verdict)
	if rr.Anchor != "" {
		fmt.Fprintf(&b, "# rule: %s\n", rr.Anchor)
	}
	fmt.Fprintf(&b, "# target: %s\n", r.t.label)
	fmt.Fprintf(&b, "# profile: %s (revision %s, supported %d)\n", r.t.info.Profile, r.t.info.Revision, r.t.info.Supported)
	if rr.Detail != "" {
		fmt.Fprintf(&b, "# detail: %s\n", oneLine(rr.Detail))
	}
	fmt.Fprintf(&b, "# replay: %s\n", replayCommand(r, file))
	if r.t.replayArgs != "" {
		// What -replay FILE without LIB runs: the target and its flags.
		fmt.Fprintf(&b, "# args: %s\n", r.t.replayArgs)
	}
	for _, l := range rr.Repro {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

func replayCommand(r *targetRun, file string) string {
	cmd := "abicheck -replay " + shellQuote(file)
	if r.t.replayArgs != "" {
		cmd += " " + r.t.replayArgs
	}
	return cmd
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " | ") }

// writeRepros writes every failing rule's op log into dir.
func writeRepros(dir string, runs []*targetRun) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, r := range runs {
		for _, rr := range results(r) {
			if !bad(rr.Verdict) || len(rr.Repro) == 0 {
				continue
			}
			p := filepath.Join(dir, reproFile(r, rr.Rule))
			if err := os.WriteFile(p, []byte(reproText(r, rr, p)), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// ---- JSON ----

type jsonTarget struct {
	Path      string `json:"path"`
	Revision  string `json:"revision"`
	Profile   string `json:"profile"`
	Supported int32  `json:"supported"`
	Hooks     bool   `json:"hooks"`
	ACL       string `json:"acl"`
	Isolated  bool   `json:"isolated"`
}

type jsonResult struct {
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

type jsonCheck struct {
	Name    string   `json:"name"`
	Rules   []string `json:"rules"`
	Verdict string   `json:"verdict"`
	Detail  string   `json:"detail"`
	Repro   string   `json:"repro"`
}

type jsonSummary struct {
	Pass  int `json:"pass"`
	Fail  int `json:"fail"`
	Warn  int `json:"warn"`
	Skip  int `json:"skip"`
	Crash int `json:"crash"`
	Hang  int `json:"hang"`
	Known int `json:"known"`
}

func (s *jsonSummary) add(v conformance.Verdict) {
	switch v {
	case conformance.Pass:
		s.Pass++
	case conformance.Fail:
		s.Fail++
	case conformance.Warn:
		s.Warn++
	case conformance.Skip:
		s.Skip++
	case conformance.Crash:
		s.Crash++
	case conformance.Hang:
		s.Hang++
	case conformance.Known:
		s.Known++
	}
}

type jsonReport struct {
	Target     jsonTarget                  `json:"target"`
	Results    []jsonResult                `json:"results"`
	Summary    jsonSummary                 `json:"summary"`
	Checks     []jsonCheck                 `json:"checks"`
	Findings   []conformance.FindingReport `json:"findings"`
	Seed       uint64                      `json:"seed"`
	Sequences  int                         `json:"sequences"`
	MaxOps     int                         `json:"max_ops"`
	Ops        int                         `json:"ops"`
	DurationMS int64                       `json:"duration_ms"`
}

func reportJSON(r *targetRun, o *options) jsonReport {
	i := r.t.info
	rep := r.res.Report
	j := jsonReport{Target: jsonTarget{Path: i.Path, Revision: i.Revision, Profile: i.Profile, Supported: i.Supported,
		Hooks: i.Hooks, ACL: i.ACL, Isolated: r.t.isolated},
		Seed: o.seed, Sequences: r.res.Random, MaxOps: o.maxOps, Ops: rep.Ops, DurationMS: r.elapsed.Milliseconds(),
		Results: []jsonResult{}, Checks: []jsonCheck{}, Findings: rep.Findings}
	if j.Findings == nil {
		j.Findings = []conformance.FindingReport{}
	}
	for _, rr := range results(r) {
		j.Results = append(j.Results, jsonResult{Rule: rr.Rule, Anchor: rr.Anchor, Verdict: rr.Verdict.String(), Detail: rr.Detail,
			Repro: strings.Join(rr.Repro, "\n"), Checks: rr.Passes + rr.Fails + rr.Warns + rr.Skips,
			Fails: rr.Fails, Warns: rr.Warns, Skips: rr.Skips, Generic: rr.Generic, Runs: rr.RunClauses})
		j.Summary.add(rr.Verdict)
	}
	for _, c := range rep.Checks {
		rules := c.Rules
		if rules == nil {
			rules = []string{}
		}
		j.Checks = append(j.Checks, jsonCheck{Name: c.Name, Rules: rules, Verdict: c.Verdict.String(), Detail: alignDetail(c.Detail, c.Repro),
			Repro: strings.Join(c.Repro, "\n")})
	}
	return j
}

// printJSON writes one object per target, an array when there are several.
func printJSON(w io.Writer, runs []*targetRun, o *options) error {
	var v any
	if len(runs) == 1 {
		v = reportJSON(runs[0], o)
	} else {
		all := []jsonReport{}
		for _, r := range runs {
			all = append(all, reportJSON(r, o))
		}
		v = all
	}
	return writeJSONTo(w, v)
}

// writeJSONTo writes v indented, without HTML escaping (op logs hold "->").
func writeJSONTo(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ---- JUnit ----

// writeJUnit writes one test suite per target and one test case per rule
// (conformance.RenderJUnit).
func writeJUnit(path string, runs []*targetRun) error {
	suites := make([]conformance.JUnitSuite, 0, len(runs))
	for _, r := range runs {
		suites = append(suites, conformance.JUnitSuite{Name: r.t.label, Elapsed: r.elapsed, Rules: results(r)})
	}
	b, err := conformance.RenderJUnit("abicheck", suites)
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		_ = os.MkdirAll(dir, 0o755)
	}
	return os.WriteFile(path, b, 0o644)
}

// ---- the human table ----

type printer struct {
	o     *options
	w     io.Writer
	tty   bool
	color bool

	mu       sync.Mutex
	last     time.Time
	progress bool
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func newPrinter(o *options, w io.Writer) *printer {
	tty := isTerminal(w)
	return &printer{o: o, w: w, tty: tty, color: tty && !o.noColor && os.Getenv("NO_COLOR") == ""}
}

// progressFunc updates a carriage-return progress line (terminal only).
func (p *printer) progressFunc(label string) func(done, total int, name string) {
	if !p.tty || p.o.json || p.o.quiet {
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
			p.progress = true
		}
	}
}

func (p *printer) clearProgress() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.progress {
		fmt.Fprint(p.w, "\r\033[K")
		p.progress = false
	}
}

var verdictColor = map[conformance.Verdict]string{
	conformance.Pass: "32", conformance.Fail: "31;1", conformance.Warn: "33", conformance.Skip: "2",
	conformance.Crash: "35;1", conformance.Hang: "35;1", conformance.Known: "36",
}

func (p *printer) verdict(v conformance.Verdict, width int) string {
	s := fmt.Sprintf("%-*s", width, v.String())
	if !p.color {
		return s
	}
	return "\033[" + verdictColor[v] + "m" + s + "\033[0m"
}

func summaryOf(r *targetRun) jsonSummary {
	var s jsonSummary
	for _, rr := range results(r) {
		s.add(rr.Verdict)
	}
	return s
}

func (s jsonSummary) String() string {
	out := fmt.Sprintf("%d pass, %d fail, %d warn, %d skip, %d crash, %d hang", s.Pass, s.Fail, s.Warn, s.Skip, s.Crash, s.Hang)
	if s.Known > 0 {
		out += fmt.Sprintf(", %d known", s.Known)
	}
	return out
}

func (p *printer) report(runs []*targetRun) {
	w := p.w
	for i, r := range runs {
		if i > 0 && !p.o.quiet {
			fmt.Fprintln(w)
		}
		p.target(r)
	}
	if len(runs) > 1 {
		var tot jsonSummary
		for _, r := range runs {
			s := summaryOf(r)
			tot.Pass += s.Pass
			tot.Fail += s.Fail
			tot.Warn += s.Warn
			tot.Skip += s.Skip
			tot.Crash += s.Crash
			tot.Hang += s.Hang
			tot.Known += s.Known
		}
		verdict := "no failures"
		if tot.Fail+tot.Crash+tot.Hang > 0 {
			verdict = "FINDINGS"
		}
		fmt.Fprintf(w, "\nabicheck: %d targets: %s — %s\n", len(runs), tot, verdict)
	}
	if p.o.verbose {
		fmt.Fprintf(w, "\nnot checked here (rules of consumers and of the emitter): %s\n", strings.Join(conformance.ConsumerRules, " "))
	}
}

func (p *printer) target(r *targetRun) {
	w, o, i := p.w, p.o, r.t.info
	rep := r.res.Report
	hooks := "hooks"
	switch {
	case !i.Hooks && i.ACL != "":
		hooks = "no hooks, ACL " + i.ACL
	case !i.Hooks:
		hooks = "no hooks, no ACL"
	}
	iso := ""
	if r.t.isolated {
		iso = ", isolated"
	}
	name := r.t.label
	if i.Path != r.t.label {
		name += " " + i.Path
	}
	fmt.Fprintf(w, "== %s (revision %s, profile %s, supported %d, %s%s)\n", name, i.Revision, i.Profile, i.Supported, hooks, iso)
	rs := results(r)
	if !o.quiet {
		fmt.Fprintf(w, "%-15s %-7s %s\n", "RULE", "VERDICT", "DETAIL")
		for _, rr := range rs {
			detail := rr.Detail
			if rr.Verdict == conformance.Pass {
				detail = plural(int(rr.Passes), "check")
				if rr.Detail != "" {
					detail += "; " + rr.Detail
				}
			}
			fmt.Fprintf(w, "%-15s %s %s\n", rr.Rule, p.verdict(rr.Verdict, 7), oneLine(detail))
		}
	}
	if o.verbose {
		fmt.Fprintln(w, "CHECKS")
		for _, c := range rep.Checks {
			fmt.Fprintf(w, "  %-42s %s %s\n", c.Name, p.verdict(c.Verdict, 5), oneLine(alignDetail(c.Detail, c.Repro)))
		}
	}
	nbad := 0
	for _, rr := range rs {
		if bad(rr.Verdict) {
			nbad++
		}
	}
	if nbad > 0 {
		fmt.Fprintf(w, "FAILURES (%d)\n", nbad)
		for _, rr := range rs {
			if !bad(rr.Verdict) {
				continue
			}
			fmt.Fprintf(w, "--- %s %s: %s\n", rr.Rule, p.verdict(rr.Verdict, 0), oneLine(rr.Detail))
			if rr.Anchor != "" {
				fmt.Fprintf(w, "    rule: %s (abicheck explain %s)\n", rr.Anchor, rr.Rule)
			}
			// Every distinct finding of the rule, not only the first.
			if fs := findingsOf(rep, rr.Rule, false); len(fs) > 1 {
				fmt.Fprintf(w, "    %d distinct findings:\n", len(fs))
				for _, f := range fs {
					fmt.Fprintf(w, "      %s\n", findingLine(f))
				}
			}
			if len(rr.Repro) > 0 {
				fmt.Fprintf(w, "    repro (%d ops):\n", len(rr.Repro))
				for _, l := range rr.Repro {
					fmt.Fprintf(w, "      %s\n", l)
				}
				file := filepath.Join(o.reproDir, reproFile(r, rr.Rule))
				fmt.Fprintf(w, "    replay: %s\n", replayCommand(r, file))
			}
		}
	}
	if known := knownFindings(rep); len(known) > 0 {
		fmt.Fprintf(w, "KNOWN (%d, accepted by the baseline)\n", len(known))
		for _, f := range known {
			fmt.Fprintf(w, "    %s %s %s\n", f.Rule, f.Fingerprint, findingLine(f))
		}
	}
	s := summaryOf(r)
	random := fmt.Sprintf("%d random sequences × %d ops", r.res.Random, o.maxOps)
	if r.res.Budget {
		random += " (stopped at -duration " + o.duration.String() + ")"
	}
	fmt.Fprintf(w, "%s: %s — %d checks, %s (seed %d), %d calls checked, %.1fs\n", r.t.label, s,
		len(rep.Checks)-countRandom(rep.Checks), random, o.seed, rep.Ops, r.elapsed.Seconds())
}

// findingsOf lists the failing findings of rule (known ones only when
// known is set).
func findingsOf(rep *conformance.Report, rule string, known bool) []conformance.FindingReport {
	var out []conformance.FindingReport
	for _, f := range rep.Findings {
		if f.Rule == rule && f.Verdict.Bad() && f.Known == known {
			out = append(out, f)
		}
	}
	return out
}

func knownFindings(rep *conformance.Report) []conformance.FindingReport {
	var out []conformance.FindingReport
	for _, f := range rep.Findings {
		if f.Known {
			out = append(out, f)
		}
	}
	return out
}

// findingLine is one finding: its check, op, detail and how often it was seen.
func findingLine(f conformance.FindingReport) string {
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
			rep := ""
			if m[4] >= 0 {
				rep = detail[m[4]:m[5]]
			}
			return "#" + strconv.Itoa(j) + rep + " " + rest
		}
	}
	return detail
}

func countRandom(cs []conformance.CheckReport) int {
	n := 0
	for _, c := range cs {
		if strings.HasPrefix(c.Name, "random/") {
			n++
		}
	}
	return n
}
