package session

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

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

// reproFile is the file name of a rule's repro.
func reproFile(r *Run, rule string) string {
	return "repro-" + r.Target.FileTag + rule + ".ops"
}

func reproText(r *Run, rr report.RuleReport, file string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# abicheck repro: %s %s\n", rr.Rule, rr.Verdict)
	if rr.Anchor != "" {
		fmt.Fprintf(&b, "# rule: %s\n", rr.Anchor)
	}
	fmt.Fprintf(&b, "# target: %s\n", r.Target.Label)
	fmt.Fprintf(&b, "# profile: %s (revision %s, supported %d)\n", r.Target.Info.Profile, r.Target.Info.Revision, r.Target.Info.Supported)
	if rr.Detail != "" {
		fmt.Fprintf(&b, "# detail: %s\n", oneLine(rr.Detail))
	}
	fmt.Fprintf(&b, "# replay: %s\n", replayCommand(r, file))
	if r.Target.ReplayArgs != "" {
		// What -replay FILE without LIB runs: the target and its flags.
		fmt.Fprintf(&b, "# args: %s\n", r.Target.ReplayArgs)
	}
	for _, l := range rr.Repro {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// hintDir is the directory the replay hint of a run without -repro-dir
// names: nothing was written, and the hint says how to have it written.
const hintDir = "out"

// replayHint is the table's replay line for a rule's repro: the command
// on the file -repro-dir wrote, or without it the command on the file a
// run with -repro-dir out would write, and that it needs that run.
func replayHint(r *Run, rule, reproDir string) string {
	if reproDir != "" {
		return replayCommand(r, filepath.Join(reproDir, reproFile(r, rule)))
	}
	return replayCommand(r, filepath.Join(hintDir, reproFile(r, rule))) + " (once a run with -repro-dir " + hintDir + " has written it)"
}

func replayCommand(r *Run, file string) string {
	cmd := "abicheck -replay " + ShellQuote(file)
	if r.Target.ReplayArgs != "" {
		cmd += " " + r.Target.ReplayArgs
	}
	return cmd
}

func oneLine(s string) string { return op.Abbreviate(strings.ReplaceAll(s, "\n", " | ")) }

// WriteRepros writes every failing rule's op log into dir (made when
// there is one) and returns the names of the files it wrote.
func WriteRepros(dir string, runs []*Run) ([]string, error) {
	var names []string
	for _, r := range runs {
		for _, rr := range Results(r) {
			if !Bad(rr.Verdict) || len(rr.Repro) == 0 {
				continue
			}
			name := reproFile(r, rr.Rule)
			p := filepath.Join(dir, name)
			if err := writeOutput(p, []byte(reproText(r, rr, p))); err != nil {
				return names, err
			}
			names = append(names, name)
		}
	}
	return names, nil
}

// ---- JSON ----

type JSONTarget struct {
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

func (s *JSONSummary) add(v model.Verdict) {
	switch v {
	case model.Pass:
		s.Pass++
	case model.Fail:
		s.Fail++
	case model.Warn:
		s.Warn++
	case model.Skip:
		s.Skip++
	case model.Crash:
		s.Crash++
	case model.Hang:
		s.Hang++
	case model.Known:
		s.Known++
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

func ReportJSON(r *Run, o *Options) JSONReport {
	i := r.Target.Info
	rep := r.Result.Report
	j := JSONReport{Target: JSONTarget{Path: i.Path, Revision: i.Revision, Profile: i.Profile, Supported: i.Supported,
		Hooks: i.Hooks, ACL: i.ACL, Isolated: r.Target.Isolated},
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
		rules := c.Rules
		if rules == nil {
			rules = []string{}
		}
		j.Checks = append(j.Checks, JSONCheck{Name: c.Name, Rules: rules, Verdict: c.Verdict.String(), Detail: alignDetail(c.Detail, c.Repro),
			Repro: strings.Join(c.Repro, "\n")})
	}
	return j
}

// WriteJSON writes one object per target, an array when there are several.
func WriteJSON(w io.Writer, runs []*Run, o *Options) error {
	var v any
	if len(runs) == 1 {
		v = ReportJSON(runs[0], o)
	} else {
		all := []JSONReport{}
		for _, r := range runs {
			all = append(all, ReportJSON(r, o))
		}
		v = all
	}
	return WriteJSONValue(w, v)
}

// WriteJSONValue writes v indented, without HTML escaping (op logs hold "->").
func WriteJSONValue(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ---- JUnit ----

// WriteJUnit writes one test suite per target and one test case per rule
// (report.RenderJUnit).
func WriteJUnit(path string, runs []*Run) error {
	suites := make([]report.JUnitSuite, 0, len(runs))
	for _, r := range runs {
		suites = append(suites, report.JUnitSuite{Name: r.Target.Label, Elapsed: r.Elapsed, Rules: Results(r)})
	}
	b, err := report.RenderJUnit("abicheck", suites)
	if err != nil {
		return err
	}
	return writeOutput(path, b)
}

// ---- the human table ----

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
	s := fmt.Sprintf("%-*s", width, v.String())
	if !p.color {
		return s
	}
	return "\033[" + verdictColor[v] + "m" + s + "\033[0m"
}

func SummaryOf(r *Run) JSONSummary {
	var s JSONSummary
	for _, rr := range Results(r) {
		s.add(rr.Verdict)
	}
	return s
}

func (s JSONSummary) String() string {
	out := fmt.Sprintf("%d pass, %d fail, %d warn, %d skip, %d crash, %d hang", s.Pass, s.Fail, s.Warn, s.Skip, s.Crash, s.Hang)
	if s.Known > 0 {
		out += fmt.Sprintf(", %d known", s.Known)
	}
	return out
}

// Report prints every run as a table, then the totals.
func (p *Printer) Report(runs []*Run) {
	w := p.w
	for i, r := range runs {
		if i > 0 && !p.o.Quiet {
			fmt.Fprintln(w)
		}
		p.printTarget(r)
	}
	if len(runs) > 1 {
		var tot JSONSummary
		for _, r := range runs {
			s := SummaryOf(r)
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
	if p.o.Verbose {
		fmt.Fprintf(w, "\nnot checked here (rules of consumers and of the emitter): %s\n", strings.Join(model.ConsumerRules, " "))
	}
}

func (p *Printer) printTarget(r *Run) {
	w, o, i := p.w, p.o, r.Target.Info
	rep := r.Result.Report
	hooks := "hooks"
	switch {
	case !i.Hooks && i.ACL != "":
		hooks = "no hooks, ACL " + i.ACL
	case !i.Hooks:
		hooks = "no hooks, no ACL"
	}
	iso := ""
	if r.Target.Isolated {
		iso = ", isolated"
	}
	name := r.Target.Label
	if i.Path != r.Target.Label {
		name += " " + i.Path
	}
	fmt.Fprintf(w, "== %s (revision %s, profile %s, supported %d, %s%s)\n", name, i.Revision, i.Profile, i.Supported, hooks, iso)
	rs := Results(r)
	if !o.Quiet {
		fmt.Fprintf(w, "%-15s %-7s %s\n", "RULE", "VERDICT", "DETAIL")
		for _, rr := range rs {
			detail := rr.Detail
			if rr.Verdict == model.Pass {
				detail = plural(int(rr.Passes), "check")
				if rr.Detail != "" {
					detail += "; " + rr.Detail
				}
			}
			fmt.Fprintf(w, "%-15s %s %s\n", rr.Rule, p.verdict(rr.Verdict, 7), oneLine(detail))
		}
	}
	if o.Verbose {
		fmt.Fprintln(w, "CHECKS")
		for _, c := range rep.Checks {
			fmt.Fprintf(w, "  %-42s %s %s\n", c.Name, p.verdict(c.Verdict, 5), oneLine(alignDetail(c.Detail, c.Repro)))
		}
	}
	nbad := 0
	for _, rr := range rs {
		if Bad(rr.Verdict) {
			nbad++
		}
	}
	if nbad > 0 {
		fmt.Fprintf(w, "FAILURES (%d)\n", nbad)
		for _, rr := range rs {
			if !Bad(rr.Verdict) {
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
					fmt.Fprintf(w, "      %s\n", shortOp(l))
				}
				fmt.Fprintf(w, "    replay: %s\n", replayHint(r, rr.Rule, o.ReproDir))
			}
		}
	}
	if known := knownFindings(rep); len(known) > 0 {
		fmt.Fprintf(w, "KNOWN (%d, accepted by the baseline)\n", len(known))
		for _, f := range known {
			fmt.Fprintf(w, "    %s %s %s\n", f.Rule, f.Fingerprint, findingLine(f))
		}
	}
	s := SummaryOf(r)
	if r.Trace {
		fmt.Fprintf(w, "%s: %s — a recorded session, %d calls judged\n", r.Target.Label, s, rep.Ops)
		return
	}
	random := fmt.Sprintf("%d random sequences × %d ops", r.Result.Random, o.MaxOps)
	if r.Result.Budget {
		random += " (stopped at -duration " + o.Duration.String() + ")"
	}
	fmt.Fprintf(w, "%s: %s — %d checks, %s (seed %d), %d calls checked, %.1fs\n", r.Target.Label, s,
		len(rep.Checks)-countRandom(rep.Checks), random, o.Seed, rep.Ops, r.Elapsed.Seconds())
}

// findingsOf lists the failing findings of rule (known ones only when
// known is set).
func findingsOf(rep *report.Report, rule string, known bool) []report.FindingReport {
	var out []report.FindingReport
	for _, f := range rep.Findings {
		if f.Rule == rule && f.Verdict.Bad() && f.Known == known {
			out = append(out, f)
		}
	}
	return out
}

func knownFindings(rep *report.Report) []report.FindingReport {
	var out []report.FindingReport
	for _, f := range rep.Findings {
		if f.Known {
			out = append(out, f)
		}
	}
	return out
}

// findingLine is one finding: its check, op, detail and how often it was seen.
func findingLine(f report.FindingReport) string {
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

func countRandom(cs []report.CheckReport) int {
	n := 0
	for _, c := range cs {
		if strings.HasPrefix(c.Name, "random/") {
			n++
		}
	}
	return n
}

// shortOp shortens an op line for the table: a recorded image's bytes are
// in the repro file, not on the screen.
func shortOp(l string) string { return op.Abbreviate(l) }
