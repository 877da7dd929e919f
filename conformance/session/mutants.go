package session

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/isolate"
	"github.com/simabi/simabi/sim/emit"
)

// MutantRow is one line of the kill table (abicheck mutants).
type MutantRow struct {
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

// MutantsJSON is the kill table as JSON (abicheck mutants -json).
type MutantsJSON struct {
	Mutants []MutantRow `json:"mutants"`
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

// ErrNoCompiler: the mutants are emitted C and need a C compiler.
var ErrNoCompiler = errors.New("no C compiler found (set CC or install gcc); the mutants need one")

// MutantRun is the outcome of RunMutants.
type MutantRun struct {
	Rows   []MutantRow
	Killed int
	Random int // random sequences run in all
	Used   time.Duration
	Failed bool // a mutant did not build or load (its row says why)
}

// RunMutants builds each mutant of ms, checks it in child processes with
// the directed catalogue (the checks that claim it first; none with
// randomOnly) and then random sequences, each mutant's run stopping at its
// first kill under a rule of the mutant's group.
func RunMutants(o *Options, ms []emit.Mutant, randomOnly bool, out *Printer, stderr io.Writer) (*MutantRun, error) {
	var verbose io.Writer
	if o.Verbose {
		verbose = stderr
	}
	t0 := time.Now()
	run := &MutantRun{}
	for _, m := range ms {
		row := MutantRow{Name: m.Name, Rule: m.Rule, Group: m.Group, Elsewhere: []string{}}
		m0 := time.Now()
		a, err := emit.Build(emit.Config{Profile: emit.ProfileTMR, Mutant: m.Name}, emit.BuildOptions{})
		if errors.Is(err, emit.ErrNoCompiler) {
			out.ClearProgress()
			return nil, ErrNoCompiler
		}
		if err != nil {
			row.Error = "build: " + FirstLine(err.Error())
			run.Rows, run.Failed = append(run.Rows, row), true
			continue
		}
		p, err := isolate.NewPool(isolate.Config{Lib: a.RuntimePath}, o.CaseTimeout, 0, verbose)
		if err != nil {
			row.Error = err.Error()
			run.Rows, run.Failed = append(run.Rows, row), true
			continue
		}
		info := p.Info()
		profile, _ := conformance.ParseProfile(info.ProfileModel)
		checks := ClaimingFirst(conformance.Catalogue(), m.Name)
		if randomOnly {
			checks = []conformance.Check{}
		}
		res := conformance.ConformWith(p, conformance.SuiteRun{Name: "mutant " + m.Name, Profile: profile, Caps: info.Caps, Checks: checks,
			Random: o.Sequences, RandomOps: o.MaxOps, Seed: o.Seed, HoldMs: 10, Duration: o.Duration, NoShrink: true,
			MaxHangs: o.MaxHangs, Stop: conformance.StopAtKill(m.Rule), Progress: out.Progress("mutant " + m.Name), Probes: !randomOnly})
		p.Close()
		out.ClearProgress()
		k := conformance.KillOf(res.Cases, m.Rule)
		row.Killed, row.Check, row.ByRule = k.Killed, k.Case, k.Rule
		if k.Killed {
			row.Verdict = k.How.String()
			run.Killed++
		}
		row.Elsewhere = append(row.Elsewhere, k.Elsewhere...)
		row.Cases, row.Random = len(res.Cases), res.Random
		run.Random += res.Random
		row.MS = time.Since(m0).Milliseconds()
		run.Rows = append(run.Rows, row)
	}
	run.Used = time.Since(t0)
	return run, nil
}

// WriteMutants prints the kill table, the score and the budget (JSON with
// o.JSON).
func WriteMutants(w io.Writer, run *MutantRun, o *Options, randomOnly bool, out *Printer) error {
	rows := run.Rows
	if o.JSON {
		var j MutantsJSON
		j.Mutants = rows
		j.Score.Killed, j.Score.Total = run.Killed, len(rows)
		if len(rows) > 0 {
			j.Score.Ratio = float64(run.Killed) / float64(len(rows))
		}
		j.Budget.Sequences, j.Budget.MaxOps, j.Budget.Seed = o.Sequences, o.MaxOps, o.Seed
		j.Budget.DurationMS, j.Budget.CaseTimeoutMS = o.Duration.Milliseconds(), o.CaseTimeout.Milliseconds()
		j.Budget.UsedMS, j.Budget.RandomRun = run.Used.Milliseconds(), run.Random
		return WriteJSONValue(w, j)
	}
	PrintKillTable(out, rows, o)
	fmt.Fprintf(w, "mutation score: %d/%d (%.0f%%)\n", run.Killed, len(rows), 100*float64(run.Killed)/float64(max(len(rows), 1)))
	what := "the directed catalogue, then up to"
	if randomOnly {
		what = "no directed checks (-random-only),"
	}
	fmt.Fprintf(w, "budget per mutant: %s %d random sequences × %d ops within %v (case timeout %v, seed %d); a mutant's check stops at its first kill\n",
		what, o.Sequences, o.MaxOps, o.Duration, o.CaseTimeout, o.Seed)
	fmt.Fprintf(w, "used: %.1fs for %d mutants (builds included), %d random sequences in all\n", run.Used.Seconds(), len(rows), run.Random)
	return nil
}

// ClaimingFirst orders the catalogue for one mutant: the checks that claim
// it (Check.Kills) first, then the others in catalogue order. A mutant's run
// stops at its first kill, so the table shows the designated check when it
// kills, and another check only when the designated ones do not.
func ClaimingFirst(checks []conformance.Check, mutant string) []conformance.Check {
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

func PrintKillTable(p *Printer, rows []MutantRow, o *Options) {
	w := p.w
	fmt.Fprintf(w, "%-26s %-15s %-6s %-58s %s\n", "MUTANT", "RULE", "KILLED", "BY (check: reported rule)", "TIME")
	for _, r := range rows {
		if o.Quiet && r.Killed {
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
