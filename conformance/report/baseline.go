package report

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/simabi/simabi/conformance/model"
)

// Baseline is a set of known findings, which a run reports as known and
// fails only on new ones. Its file holds one a line, '#' comments aside:
//
//	RULE FINGERPRINT  what the finding was (free text, ignored)
type Baseline struct {
	known map[string]bool // rule + " " + fingerprint
}

// Len is the number of findings the baseline lists.
func (b *Baseline) Len() int {
	if b == nil {
		return 0
	}
	return len(b.known)
}

// Has reports whether the baseline lists the finding.
func (b *Baseline) Has(rule, fingerprint string) bool {
	return b != nil && b.known[rule+" "+fingerprint]
}

// Lines are the findings, "RULE FINGERPRINT" each, sorted.
func (b *Baseline) Lines() []string {
	if b == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(b.known))
}

// ParseBaseline reads a baseline; an error names the bad line.
func ParseBaseline(r io.Reader) (*Baseline, error) {
	b := &Baseline{known: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			return nil, fmt.Errorf("line %d: want RULE FINGERPRINT, got %q", n, line)
		}
		if _, ok := model.RuleByName(f[0]); !ok {
			return nil, fmt.Errorf("line %d: unknown rule %q", n, f[0])
		}
		if !IsFingerprint(f[1]) {
			return nil, fmt.Errorf("line %d: %q is not a fingerprint (16 hex digits)", n, f[1])
		}
		b.known[f[0]+" "+f[1]] = true
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return b, nil
}

// IsFingerprint reports whether s is 16 lower-case hex digits.
func IsFingerprint(s string) bool { return len(s) == 16 && strings.Trim(s, "0123456789abcdef") == "" }

// WriteBaseline writes the findings of reports that fail a run (known ones
// too) as a baseline, grouped by report.
func WriteBaseline(w io.Writer, reports []*Report) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# abicheck baseline: findings accepted as known (abicheck -baseline FILE).")
	fmt.Fprintln(bw, "# One per line: RULE FINGERPRINT, then what the finding was (ignored when read).")
	for _, r := range reports {
		fmt.Fprintf(bw, "\n# target %s (profile %s)\n", r.Target, r.Profile)
		for _, f := range r.Findings {
			if !f.Verdict.Bad() && !f.Known || f.Rule == TraceRule { // a trace's fault is no runtime's
				continue
			}
			what := f.Check
			if f.Index >= 0 && f.Op != "" {
				what += fmt.Sprintf(" #%d %s", f.Index, f.Op)
			}
			fmt.Fprintf(bw, "%s %s  %s %s: %s\n", f.Rule, f.Fingerprint, f.Verdict, what, oneLineText(f.Detail, 240))
		}
	}
	return bw.Flush()
}

func oneLineText(s string, max int) string {
	s = strings.ReplaceAll(s, "\n", " | ")
	if len(s) > max {
		s = s[:max] + "..."
	}
	return s
}

// ApplyBaseline marks the findings b lists as known, and returns how many:
// a rule or check whose every failing finding is known is known, one with
// a new finding shows the first new one.
func (r *Report) ApplyBaseline(b *Baseline) int {
	if b.Len() == 0 {
		return 0
	}
	marked := 0
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Verdict.Bad() && b.Has(f.Rule, f.Fingerprint) {
			f.Known = true
			marked++
		}
	}
	for i := range r.Rules {
		rr := &r.Rules[i]
		if !rr.Verdict.Bad() {
			continue
		}
		if first, all := r.firstUnknown(func(f *FindingReport) bool { return f.Rule == rr.Rule }); all {
			rr.Verdict, rr.Detail = model.Known, "known (baseline): "+rr.Detail
		} else if first != nil {
			rr.Detail = findingText(first)
			rr.Repro = first.Repro
		}
	}
	for i := range r.Checks {
		c := &r.Checks[i]
		if !c.Verdict.Bad() {
			continue
		}
		if _, all := r.firstUnknown(func(f *FindingReport) bool { return f.Check == c.Name }); all {
			c.Verdict, c.Detail = model.Known, "known (baseline): "+c.Detail
		}
	}
	return marked
}

// firstUnknown is the first failing finding sel picks that is not known;
// all: sel picked some, every one known.
func (r *Report) firstUnknown(sel func(*FindingReport) bool) (first *FindingReport, all bool) {
	n := 0
	for i := range r.Findings {
		f := &r.Findings[i]
		if !f.Verdict.Bad() || !sel(f) {
			continue
		}
		n++
		if !f.Known && first == nil {
			first = f
		}
	}
	return first, n > 0 && first == nil
}

// findingText is a finding in one line: "check #i op: detail".
func findingText(f *FindingReport) string {
	s := f.Check
	if f.Index >= 0 && f.Op != "" {
		s += fmt.Sprintf(": #%d %s", f.Index, f.Op)
	}
	return s + ": " + f.Detail
}
