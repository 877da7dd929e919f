// Command report is the consumer lane's bookkeeping (lanes/consumer/run,
// docs/upstream.md "Upstream's own consumer"): it judges a recorded trace's
// -check-trace report against the findings a target may show, and renders
// the step-by-step table of every driver run.
//
// Usage:
//
//	report trace [-allow RULE,...] REPORT.json
//	report table [-o FILE] RUNDIR...
//
// trace reads abicheck -check-trace -json output and prints one verdict
// line: "clean: ..." (no fail, crash or hang), "explained: ..." (only
// findings of the allowed rules) or "FINDINGS: ..."; it exits 1 for the
// last. table reads each run folder (label, driver.out, driver.rc and, for
// a recorded run, trace.verdict) and writes the markdown table: one row per
// step, one column per set of runs whose steps all came out alike. The
// steps are the driver's, as it printed them: the driver alone holds its
// steps against its expectation file (every step a line, every line a
// step, in its order).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

const usage = `usage: report trace [-allow RULE,...] REPORT.json
       report table [-o FILE] RUNDIR...`

// errUsage is a command line run cannot take: main prints the usage.
var errUsage = errors.New("wrong arguments")

func main() {
	code, err := run(os.Args[1:], os.Stdout)
	switch {
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, usage)
	case err != nil:
		fmt.Fprintln(os.Stderr, "report:", err)
	}
	os.Exit(code)
}

func run(args []string, stdout io.Writer) (int, error) {
	if len(args) == 0 {
		return 2, errUsage
	}
	switch args[0] {
	case "trace":
		fs := flag.NewFlagSet("report trace", flag.ContinueOnError)
		allow := fs.String("allow", "", "rules whose findings the target may show, comma-separated")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 {
			return 2, errUsage
		}
		b, err := os.ReadFile(fs.Arg(0))
		if err != nil {
			return 2, err
		}
		line, ok, err := TraceVerdict(b, splitList(*allow))
		if err != nil {
			return 2, fmt.Errorf("%s: %w", fs.Arg(0), err)
		}
		fmt.Fprintln(stdout, line)
		if !ok {
			return 1, nil
		}
		return 0, nil
	case "table":
		fs := flag.NewFlagSet("report table", flag.ContinueOnError)
		out := fs.String("o", "", "write the table to `FILE` too")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() == 0 {
			return 2, errUsage
		}
		var runs []Run
		for _, dir := range fs.Args() {
			r, err := ReadRun(dir)
			if err != nil {
				return 2, err
			}
			runs = append(runs, r)
		}
		md := Table(runs)
		fmt.Fprint(stdout, md)
		if *out != "" {
			if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
				return 2, err
			}
		}
		return 0, nil
	}
	return 2, errUsage
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// traceSchema is the JSON schema of abicheck's reports this reads
// (docs/abicheck.md, "JSON").
const traceSchema = "abicheck/v2"

// TraceVerdict judges an abicheck -check-trace -json report (its traces
// together): ok is false when a fail, crash or hang finding has a rule
// outside allow.
func TraceVerdict(report []byte, allow []string) (line string, ok bool, err error) {
	var j struct {
		Schema  string `json:"schema"`
		Targets []struct {
			Findings []struct {
				Rule    string `json:"rule"`
				Verdict string `json:"verdict"`
				Op      string `json:"op"`
				Detail  string `json:"detail"`
			} `json:"findings"`
			Ops int `json:"ops"`
		} `json:"targets"`
		Summary struct {
			Pass, Fail, Warn, Skip, Crash, Hang int
		} `json:"summary"`
	}
	if err := json.Unmarshal(report, &j); err != nil {
		return "", false, err
	}
	if j.Schema != traceSchema {
		return "", false, fmt.Errorf("report of schema %q, want %s", j.Schema, traceSchema)
	}
	ops := 0
	for _, t := range j.Targets {
		ops += t.Ops
	}
	s := j.Summary
	counts := fmt.Sprintf("%d pass, %d fail, %d warn, %d skip, %d crash, %d hang; %d calls judged",
		s.Pass, s.Fail, s.Warn, s.Skip, s.Crash, s.Hang, ops)
	var explained, unexplained []string
	for _, t := range j.Targets {
		for _, f := range t.Findings {
			if f.Verdict != "fail" && f.Verdict != "crash" && f.Verdict != "hang" {
				continue
			}
			d := f.Rule + " " + f.Verdict + " at " + abbreviate(f.Op, 60) + ": " + abbreviate(f.Detail, 160)
			if slices.Contains(allow, f.Rule) {
				explained = append(explained, d)
			} else {
				unexplained = append(unexplained, d)
			}
		}
	}
	switch {
	case len(unexplained) > 0:
		return "FINDINGS: " + counts + "; not explained: " + strings.Join(unexplained, "; "), false, nil
	case len(explained) > 0:
		return "explained: " + counts + "; only findings of " + strings.Join(allow, ", ") + ": " + strings.Join(explained, "; "), true, nil
	}
	return "clean: " + counts, true, nil
}

func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Step is one STEP line of the driver, with its CHECK verdict.
type Step struct {
	Name, Outcome, Detail string
	Verdict               string // match, known or MISMATCH ("" when none was printed)
}

// Run is one driver run of the lane.
type Run struct {
	Label   string // the column header
	Steps   []Step
	Result  string // the driver's RESULT line, without the word
	RC      string // the driver's exit status ("" when unknown)
	Trace   string // the recorded trace's verdict line, for a recorded run
	Crashed bool   // the driver printed no RESULT line
}

// ReadRun reads a run folder of the lane.
func ReadRun(dir string) (Run, error) {
	var r Run
	label, err := os.ReadFile(filepath.Join(dir, "label"))
	if err != nil {
		return r, err
	}
	r.Label = strings.TrimSpace(string(label))
	f, err := os.Open(filepath.Join(dir, "driver.out"))
	if err != nil {
		return r, err
	}
	defer f.Close()
	if r, err = ParseDriverOutput(f, r); err != nil {
		return r, fmt.Errorf("%s: %w", filepath.Join(dir, "driver.out"), err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "driver.rc")); err == nil {
		r.RC = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile(filepath.Join(dir, "trace.verdict")); err == nil {
		r.Trace = strings.TrimSpace(string(b))
	}
	return r, nil
}

// ParseDriverOutput adds the STEP, CHECK and RESULT lines of a driver's
// output to r.
func ParseDriverOutput(in io.Reader, r Run) (Run, error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	index := map[string]int{}
	r.Crashed = true
	for sc.Scan() {
		line := sc.Text()
		word, rest, _ := strings.Cut(line, " ")
		fields := strings.Split(rest, " | ")
		switch word {
		case "STEP":
			if len(fields) != 3 {
				return r, fmt.Errorf("malformed STEP line %q", line)
			}
			index[fields[0]] = len(r.Steps)
			r.Steps = append(r.Steps, Step{Name: fields[0], Outcome: fields[1], Detail: fields[2]})
		case "CHECK":
			if len(fields) < 2 {
				return r, fmt.Errorf("malformed CHECK line %q", line)
			}
			if i, ok := index[fields[0]]; ok {
				r.Steps[i].Verdict = fields[1]
			}
		case "RESULT":
			r.Result, r.Crashed = rest, false
		}
	}
	return r, sc.Err()
}

// Short is a step's cell: the outcome and, when it says something, the
// detail, with a run's identity (and any other parenthesized tail of a long
// detail) left out.
func (s Step) Short() string {
	d := s.Detail
	if len(d) > 48 {
		if i := strings.Index(d, " ("); i > 0 {
			d = d[:i]
		}
	}
	if d == "-" {
		return s.Outcome
	}
	return s.Outcome + ": " + d
}

// Table renders the runs as markdown: runs whose steps all read alike (and
// whose drivers agree on the verdict) share a column.
func Table(runs []Run) string {
	type column struct {
		runs []Run
		key  string
	}
	var cols []*column
	for _, r := range runs {
		key := columnKey(r)
		merged := false
		for _, c := range cols {
			if c.key == key {
				c.runs = append(c.runs, r)
				merged = true
				break
			}
		}
		if !merged {
			cols = append(cols, &column{runs: []Run{r}, key: key})
		}
	}
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, s := range r.Steps {
			if !seen[s.Name] {
				seen[s.Name] = true
				names = append(names, s.Name)
			}
		}
	}
	var b strings.Builder
	b.WriteString("| step |")
	for _, c := range cols {
		var labels []string
		for _, r := range c.runs {
			labels = append(labels, r.Label)
		}
		b.WriteString(" " + strings.Join(labels, "; ") + " |")
	}
	b.WriteString("\n|---|")
	for range cols {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, n := range names {
		b.WriteString("| " + cell(n) + " |")
		for _, c := range cols {
			b.WriteString(" " + cell(stepCell(c.runs[0], n)) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("| **driver** |")
	for _, c := range cols {
		b.WriteString(" " + cell(driverCell(c.runs[0])) + " |")
	}
	b.WriteString("\n| **-check-trace** |")
	for _, c := range cols {
		var vs []string
		for _, r := range c.runs {
			if r.Trace != "" {
				vs = append(vs, r.Label+": "+traceCell(r.Trace))
			}
		}
		if len(vs) == 0 {
			vs = []string{"(not recorded)"}
		}
		b.WriteString(" " + cell(strings.Join(vs, "; ")) + " |")
	}
	b.WriteString("\n")
	return b.String()
}

func columnKey(r Run) string {
	var b strings.Builder
	for _, s := range r.Steps {
		b.WriteString(s.Name + "\x00" + s.Short() + "\x00" + s.Verdict + "\x01")
	}
	b.WriteString(driverCell(r))
	return b.String()
}

func stepCell(r Run, name string) string {
	for _, s := range r.Steps {
		if s.Name != name {
			continue
		}
		c := s.Short()
		switch s.Verdict {
		case "match":
		case "known":
			c += " (known difference)"
		case "":
			c += " (not judged)"
		default:
			c = "**" + c + " (" + s.Verdict + ")**"
		}
		return c
	}
	return "(not reached)"
}

func driverCell(r Run) string {
	switch {
	case r.Crashed:
		return "**died (exit " + r.RC + ") before its verdict**"
	case r.RC != "0":
		return "**exit " + r.RC + ": " + r.Result + "**"
	}
	return "exit 0: " + r.Result
}

// traceCell keeps a trace verdict's word and counts.
func traceCell(v string) string {
	word, rest, _ := strings.Cut(v, ": ")
	counts, _, _ := strings.Cut(rest, "; not explained")
	counts, _, _ = strings.Cut(counts, "; only findings")
	return word + " (" + counts + ")"
}

func cell(s string) string { return strings.ReplaceAll(s, "|", "/") }
