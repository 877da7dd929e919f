package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/tests/conformance"
)

const mutantsUsage = `usage: abicheck mutants [flags]

Builds every mutant of the emitted fake runtime (sim/emit, F-4: each breaks
exactly one rule), checks each in child processes with the directed
catalogue (the checks that claim the mutant first) and then random
sequences, and prints the kill table and the
mutation score. A mutant is killed only when the checker reports a rule of
the mutant's rule group (S, V, L, K, E, M, D or X) failed, crashed or hung; the
check of a mutant stops at its first kill. Exit status 1 when one survives,
2 on a usage or build error.

Flags:
`

type mutantRow struct {
	Name      string   `json:"name"`
	Rule      string   `json:"rule"`
	Group     string   `json:"group"`
	Killed    bool     `json:"killed"`
	Check     string   `json:"check,omitempty"`
	ByRule    string   `json:"by_rule,omitempty"`
	Verdict   string   `json:"verdict,omitempty"`
	Elsewhere []string `json:"elsewhere"`
	Cases     int      `json:"cases"`
	Random    int      `json:"random"`
	MS        int64    `json:"ms"`
	Error     string   `json:"error,omitempty"`
}

type mutantsJSON struct {
	Mutants []mutantRow `json:"mutants"`
	Score   struct {
		Killed int     `json:"killed"`
		Total  int     `json:"total"`
		Ratio  float64 `json:"ratio"`
	} `json:"score"`
	Budget struct {
		Sequences     int    `json:"sequences"`
		MaxOps        int    `json:"max_ops"`
		DurationMS    int64  `json:"duration_ms"`
		CaseTimeoutMS int64  `json:"case_timeout_ms"`
		Seed          uint64 `json:"seed"`
		UsedMS        int64  `json:"used_ms"`
		RandomRun     int    `json:"random_run"`
	} `json:"budget"`
}

func mutantsMain(args []string, stdout, stderr io.Writer) int {
	o := options{loadTimeout: 30 * time.Second}
	var filter string
	var randomOnly bool
	fs := flag.NewFlagSet("abicheck mutants", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&o.sequences, "sequences", 50, "random sequences per mutant after the directed checks (until the first kill)")
	fs.IntVar(&o.maxOps, "max-ops", 300, "ops per random sequence")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "time budget of the random sequences per mutant")
	fs.DurationVar(&o.caseTimeout, "case-timeout", 10*time.Second, "a sequence running longer is a hang")
	fs.Uint64Var(&o.seed, "seed", defaultSeed, "seed of the random sequences")
	fs.BoolVar(&randomOnly, "random-only", false, "leave out the directed catalogue: how far random sequences alone get")
	fs.StringVar(&filter, "run", "", "check only the mutants whose name matches `REGEXP`")
	fs.BoolVar(&o.json, "json", false, "print the kill table as JSON")
	fs.BoolVar(&o.verbose, "v", false, "verbose: the children's stderr")
	fs.BoolVar(&o.quiet, "q", false, "quiet: only survivors and the score")
	fs.BoolVar(&o.noColor, "no-color", false, "no colors")
	fs.IntVar(&o.maxHangs, "max-hangs", 2, "after this many hangs in one entry, cases that call it are skipped")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(fs, mutantsUsage, stdout)
			return exitOK
		}
		return usage(stderr, "mutants: "+err.Error())
	}
	if fs.NArg() > 0 {
		return usage(stderr, "mutants takes no arguments, got "+strings.Join(fs.Args(), " "))
	}
	if err := o.validate(""); err != nil {
		return usage(stderr, "mutants: "+err.Error())
	}
	var re *regexp.Regexp
	if filter != "" {
		var err error
		if re, err = regexp.Compile(filter); err != nil {
			return usage(stderr, "mutants: -run: "+err.Error())
		}
	}
	var ms []emit.Mutant
	for _, m := range emit.Mutants() {
		if re == nil || re.MatchString(m.Name) {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return usage(stderr, "mutants: -run "+filter+" matches no mutant")
	}
	out := newPrinter(&o, stdout)
	var verbose io.Writer
	if o.verbose {
		verbose = stderr
	}
	t0 := time.Now()
	var rows []mutantRow
	code := exitOK
	random := 0
	for _, m := range ms {
		row := mutantRow{Name: m.Name, Rule: m.Rule, Group: m.Group, Elsewhere: []string{}}
		m0 := time.Now()
		a, err := emit.Build(emit.Config{Profile: emit.ProfileTMR, Mutant: m.Name}, emit.BuildOptions{})
		if errors.Is(err, emit.ErrNoCompiler) {
			out.clearProgress()
			fmt.Fprintln(stderr, "abicheck: no C compiler found (set CC or install gcc); the mutants need one")
			return exitUsage
		}
		if err != nil {
			row.Error = "build: " + firstLine(err.Error())
			rows = append(rows, row)
			code = exitUsage
			continue
		}
		p, err := newPool(childConfig{Lib: a.RuntimePath}, o.caseTimeout, 0, verbose)
		if err != nil {
			row.Error = err.Error()
			rows = append(rows, row)
			code = exitUsage
			continue
		}
		info := p.Info()
		profile, _ := conformance.ParseProfile(info.ProfileModel)
		checks := claimingFirst(conformance.Catalogue(), m.Name)
		if randomOnly {
			checks = []conformance.Check{}
		}
		res := conformance.ConformWith(p, conformance.SuiteRun{Name: "mutant " + m.Name, Profile: profile, Caps: info.Caps, Checks: checks,
			Random: o.sequences, RandomOps: o.maxOps, Seed: o.seed, HoldMs: 10, Duration: o.duration, NoShrink: true,
			MaxHangs: o.maxHangs, Stop: conformance.StopAtKill(m.Rule), Progress: out.progressFunc("mutant " + m.Name), Probes: !randomOnly})
		p.Close()
		out.clearProgress()
		k := conformance.KillOf(res.Cases, m.Rule)
		row.Killed, row.Check, row.ByRule = k.Killed, k.Case, k.Rule
		if k.Killed {
			row.Verdict = k.How.String()
		}
		row.Elsewhere = append(row.Elsewhere, k.Elsewhere...)
		row.Cases, row.Random = len(res.Cases), res.Random
		random += res.Random
		row.MS = time.Since(m0).Milliseconds()
		rows = append(rows, row)
	}
	killed := 0
	for _, r := range rows {
		if r.Killed {
			killed++
		}
	}
	used := time.Since(t0)
	if o.json {
		var j mutantsJSON
		j.Mutants = rows
		j.Score.Killed, j.Score.Total = killed, len(rows)
		if len(rows) > 0 {
			j.Score.Ratio = float64(killed) / float64(len(rows))
		}
		j.Budget.Sequences, j.Budget.MaxOps, j.Budget.Seed = o.sequences, o.maxOps, o.seed
		j.Budget.DurationMS, j.Budget.CaseTimeoutMS = o.duration.Milliseconds(), o.caseTimeout.Milliseconds()
		j.Budget.UsedMS, j.Budget.RandomRun = used.Milliseconds(), random
		if err := writeJSONTo(stdout, j); err != nil {
			fmt.Fprintf(stderr, "abicheck: %v\n", err)
			return exitUsage
		}
	} else {
		printKillTable(out, rows, &o)
		fmt.Fprintf(stdout, "mutation score: %d/%d (%.0f%%)\n", killed, len(rows), 100*float64(killed)/float64(max(len(rows), 1)))
		what := "the directed catalogue, then up to"
		if randomOnly {
			what = "no directed checks (-random-only),"
		}
		fmt.Fprintf(stdout, "budget per mutant: %s %d random sequences × %d ops within %v (case timeout %v, seed %d); a mutant's check stops at its first kill\n",
			what, o.sequences, o.maxOps, o.duration, o.caseTimeout, o.seed)
		fmt.Fprintf(stdout, "used: %.1fs for %d mutants (builds included), %d random sequences in all\n", used.Seconds(), len(rows), random)
	}
	if code != exitOK {
		return code
	}
	if killed < len(rows) {
		return exitFindings
	}
	return exitOK
}

// claimingFirst orders the catalogue for one mutant: the checks that claim
// it (Check.Kills) first, then the others in catalogue order. A mutant's run
// stops at its first kill, so the table shows the designated check when it
// kills, and another check only when the designated ones do not.
func claimingFirst(checks []conformance.Check, mutant string) []conformance.Check {
	out := make([]conformance.Check, 0, len(checks))
	for _, c := range checks {
		if slices.Contains(c.Kills, mutant) {
			out = append(out, c)
		}
	}
	for _, c := range checks {
		if !slices.Contains(c.Kills, mutant) {
			out = append(out, c)
		}
	}
	return out
}

func printKillTable(p *printer, rows []mutantRow, o *options) {
	w := p.w
	fmt.Fprintf(w, "%-26s %-15s %-6s %-58s %s\n", "MUTANT", "RULE", "KILLED", "BY (check: reported rule)", "TIME")
	for _, r := range rows {
		if o.quiet && r.Killed {
			continue
		}
		killed, by := "no", "survived"
		switch {
		case r.Error != "":
			killed, by = "ERROR", r.Error
		case r.Killed:
			killed, by = "yes", r.Check+": "+r.ByRule+" "+r.Verdict
		case len(r.Elsewhere) > 0:
			by = "survived; out of group only: " + strings.Join(r.Elsewhere, ", ")
		}
		k := fmt.Sprintf("%-6s", killed)
		if p.color {
			c := "32"
			if killed != "yes" {
				c = "31;1"
			}
			k = "\033[" + c + "m" + k + "\033[0m"
		}
		fmt.Fprintf(w, "%-26s %-15s %s %-58s %.2fs\n", r.Name, r.Rule, k, by, float64(r.MS)/1000)
	}
	fmt.Fprintln(w, "A kill counts only when the reported broken rule is in the mutant's rule group (e.g. V-IMG for a V mutant).")
}
