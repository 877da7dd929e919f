package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// comparison is every run against the first (upstream's build).
type comparison struct {
	runs    []*suiteRun
	ids     []string        // every test of any run, sorted
	loaders map[string]bool // nil without -loading
}

// regression is a test that passed on upstream's build and not on a variant.
type regression struct {
	run  *suiteRun
	test Test
}

func compareRuns(runs []*suiteRun, loaders map[string]bool) *comparison {
	seen := map[string]bool{}
	for _, r := range runs {
		for id := range r.Tests {
			seen[id] = true
		}
	}
	return &comparison{runs: runs, ids: slices.Sorted(maps.Keys(seen)), loaders: loaders}
}

// outcome is test id's outcome in r (Missing when r lacks it).
func (r *suiteRun) outcome(id string) Test {
	if t, ok := r.Tests[id]; ok {
		return t
	}
	return Test{ID: id, Outcome: Missing, Cause: "not in " + r.Path}
}

func (c *comparison) regressions() []regression {
	var out []regression
	base := c.runs[0]
	for _, r := range c.runs[1:] {
		if r.Err != nil {
			continue
		}
		for _, id := range c.ids {
			if base.outcome(id).Outcome == Passed && r.outcome(id).Outcome != Passed {
				out = append(out, regression{r, r.outcome(id)})
			}
		}
	}
	return out
}

// failed: a regression, or a variant whose JUnit file could not be read
// (pytest died before writing it).
func (c *comparison) failed() bool {
	for _, r := range c.runs[1:] {
		if r.Err != nil {
			return true
		}
	}
	return len(c.regressions()) > 0
}

// counts is one run's "N tests: a passed, b failed, ..." line.
func (c *comparison) counts(r *suiteRun) string {
	if r.Err != nil {
		return "no results: " + r.Err.Error()
	}
	n := map[Outcome]int{}
	for _, t := range r.Tests {
		n[t.Outcome]++
	}
	parts := []string{fmt.Sprintf("%d tests", len(r.Tests))}
	for _, o := range []struct {
		outcome Outcome
		name    string
	}{{Passed, "passed"}, {Failed, "failed"}, {Errored, "errors"}, {Skipped, "skipped"}} {
		parts = append(parts, fmt.Sprintf("%d %s", n[o.outcome], o.name))
	}
	s := strings.Join(parts, ", ")
	if c.loaders != nil {
		k, secs := 0, 0.0
		for id := range c.loaders {
			if t, ok := r.Tests[id]; ok {
				k++
				secs += t.Seconds
			}
		}
		s += fmt.Sprintf("; the %d tests that load a host runtime: %.2f s", k, secs)
	}
	return s
}

func (c *comparison) print(w io.Writer) {
	for _, r := range c.runs {
		fmt.Fprintf(w, "%s: %s\n", r.Label, c.counts(r))
	}
	regs := c.regressions()
	fmt.Fprintf(w, "regressions (passed on %s, not on a variant): %d\n", c.runs[0].Label, len(regs))
	for _, g := range regs {
		fmt.Fprintf(w, "  %s: %s: %s: %s\n", g.run.Label, g.test.ID, g.test.Outcome, g.test.Cause)
	}
	var also []string
	for _, id := range c.ids {
		t := c.runs[0].outcome(id)
		if t.Outcome != Failed && t.Outcome != Errored {
			continue
		}
		var on []string
		for _, r := range c.runs[1:] {
			if v := r.outcome(id); r.Err == nil && v.Outcome != t.Outcome {
				on = append(on, r.Label+" "+string(v.Outcome))
			}
		}
		line := fmt.Sprintf("  %s: %s: %s", id, t.Outcome, t.Cause)
		if len(on) > 0 {
			line += " (" + strings.Join(on, ", ") + ")"
		}
		also = append(also, line)
	}
	fmt.Fprintf(w, "failing on %s too: %d\n", c.runs[0].Label, len(also))
	for _, l := range also {
		fmt.Fprintln(w, l)
	}
}

// table is the per-file Markdown table: each test file's tests (in any
// run) and how many passed in each run.
func (c *comparison) table() string {
	type row struct {
		tests  int
		passed []int
	}
	rows := map[string]*row{}
	total := &row{passed: make([]int, len(c.runs))}
	for _, id := range c.ids {
		file := ""
		for _, r := range c.runs {
			if t, ok := r.Tests[id]; ok {
				file = t.File
				break
			}
		}
		if rows[file] == nil {
			rows[file] = &row{passed: make([]int, len(c.runs))}
		}
		rows[file].tests++
		total.tests++
		for i, r := range c.runs {
			if r.outcome(id).Outcome == Passed {
				rows[file].passed[i]++
				total.passed[i]++
			}
		}
	}
	var b strings.Builder
	b.WriteString("| test file | tests |")
	for _, r := range c.runs {
		fmt.Fprintf(&b, " passed on %s |", r.Label)
	}
	b.WriteString("\n|---|--:|" + strings.Repeat("--:|", len(c.runs)) + "\n")
	line := func(name string, r *row) {
		fmt.Fprintf(&b, "| %s | %d |", name, r.tests)
		for _, p := range r.passed {
			fmt.Fprintf(&b, " %d |", p)
		}
		b.WriteString("\n")
	}
	for _, f := range slices.Sorted(maps.Keys(rows)) {
		line(f, rows[f])
	}
	line("all", total)
	return b.String()
}
