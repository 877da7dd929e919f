package session

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/suite"
	"github.com/simabi/simabi/docs"
	"github.com/simabi/simabi/sim/emit"
)

// MutantRow is one line of the kill table (abicheck mutants).
type MutantRow struct {
	Name      string   `json:"name"`
	Clause    string   `json:"clause"`
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

// MutantsJSON is the kill table as JSON: a target per mutant.
type MutantsJSON struct {
	Schema   string      `json:"schema"`
	Command  string      `json:"command"` // "mutants"
	Targets  []MutantRow `json:"targets"`
	ElapsedS float64     `json:"elapsed_s"`
	Score    struct {
		Killed int     `json:"killed"`
		Total  int     `json:"total"`
		Ratio  float64 `json:"ratio"`
	} `json:"score"`
	Clauses ClauseCoverage   `json:"clauses"`
	Masking []MaskedCallJSON `json:"masking"` // conformance.MaskedCalls
	Budget  struct {
		Sequences     int    `json:"sequences"`
		MaxOps        int    `json:"max_ops"`
		DurationMS    int64  `json:"duration_ms"`
		CaseTimeoutMS int64  `json:"case_timeout_ms"`
		Seed          uint64 `json:"seed"`
		UsedMS        int64  `json:"used_ms"`
		RandomRun     int    `json:"random_run"`
	} `json:"budget"`
}

// MaskedCallJSON is one masked call of the catalogue, with each condition
// that alone refuses it, in the entry's order.
type MaskedCallJSON struct {
	Check      string   `json:"check"`
	Profile    string   `json:"profile"`
	Index      int      `json:"index"`
	Op         string   `json:"op"`
	Conditions []string `json:"conditions"`
}

// MaskingJSON is masked as JSON.
func MaskingJSON(masked []conformance.RefusedCall) []MaskedCallJSON {
	out := make([]MaskedCallJSON, len(masked))
	for i, r := range masked {
		cs := make([]string, len(r.Refusers))
		for j, x := range r.Refusers {
			cs[j] = x.String()
		}
		out[i] = MaskedCallJSON{Check: r.Check, Profile: string(r.Profile), Index: r.Index, Op: r.Op, Conditions: cs}
	}
	return out
}

// PrintMasking writes the masking of the catalogue after the kill table:
// a call whose refusal the clause that decides shares with the next one
// passes a runtime that dropped that clause, so no mutant of it can be
// killed there.
func PrintMasking(w io.Writer, masked []conformance.RefusedCall) {
	switch len(masked) {
	case 0:
		fmt.Fprintln(w, "masking: none")
	case 1:
		fmt.Fprintln(w, "masking: 1 refused call shares its refusal between two clauses")
	default:
		fmt.Fprintf(w, "masking: %d refused calls share their refusal between two clauses\n", len(masked))
	}
	for _, r := range masked {
		fmt.Fprintln(w, "  "+r.String())
	}
}

// ErrNoCompiler: the mutants are emitted C and need a C compiler.
var ErrNoCompiler = errors.New("no C compiler found (set CC or install gcc); the mutants need one")

// MutantRun is the outcome of RunMutants.
type MutantRun struct {
	Rows    []MutantRow
	Killed  int
	Random  int // random sequences run in all
	Used    time.Duration
	Failed  bool // a mutant did not build or load (its row says why)
	Clauses ClauseCoverage
}

// ClauseCoverage is what the run says of the contract's clauses: how many
// there are, no call can drive, a directed check drives, and of those
// whose mutants this run built, how many had every mutant killed.
type ClauseCoverage struct {
	Clauses   int      `json:"clauses"`
	Undriven  int      `json:"undriven"`
	Checked   int      `json:"checked"`
	Run       int      `json:"run"`    // clauses whose mutants all ran
	Killed    int      `json:"killed"` // of those, clauses whose mutants were all killed
	Survivors []string `json:"survivors,omitempty"`
}

// RunMutants builds and checks each mutant of ms in its own child
// processes: the directed catalogue (the checks that claim it first; none
// with randomOnly), then random sequences, to its first kill.
func RunMutants(o *Options, ms []emit.Mutant, randomOnly bool, out *Printer, stderr io.Writer) (*MutantRun, error) {
	rows, used, err := eachMutant(len(ms), out, func(i int) (MutantRow, error) {
		return runMutant(o, ms[i], randomOnly, out, o.verboseTo(stderr))
	})
	if err != nil {
		return nil, err
	}
	run := &MutantRun{Rows: rows, Used: used, Clauses: clauseCoverage(rows)}
	for _, row := range rows {
		run.Failed = run.Failed || row.Error != ""
		if row.Killed {
			run.Killed++
		}
		run.Random += row.Random
	}
	return run, nil
}

// runMutant builds and checks one mutant.
func runMutant(o *Options, m emit.Mutant, randomOnly bool, out *Printer, verbose io.Writer) (MutantRow, error) {
	row := MutantRow{Name: m.Name, Clause: m.Clause, Rule: m.Rule, Group: m.Group, Elsewhere: []string{}}
	m0 := time.Now()
	a, err := emit.Build(emit.Config{Profile: m.Profile, Mutant: m.Name}, emit.BuildOptions{})
	p, why, err := mutantPool(a, err, o, verbose)
	if p == nil {
		row.Error = why
		return row, err
	}
	info := p.Info()
	profile, _ := conformance.ParseProfile(info.ProfileModel)
	s := suite.Run{Name: "mutant " + m.Name, MaxHangs: o.MaxHangs, Stop: suite.StopAtKill(m.Rule),
		Cases: o.cases(profile, info.Caps, !randomOnly, true, out.Progress("mutant "+m.Name))}
	if s.Checks = []catalogue.Check{}; !randomOnly {
		s.Checks = ClaimingFirst(catalogue.Checks(), m.Name)
	}
	res := suite.ConformWith(p, s)
	p.Close()
	k := suite.KillOf(res.Cases, m.Rule)
	row.Killed, row.Check, row.ByRule, row.Cases, row.Random = k.Killed, k.Case, k.Rule, len(res.Cases), res.Random
	if k.Killed {
		row.Verdict = k.How.String()
	}
	row.Elsewhere = append(row.Elsewhere, k.Elsewhere...)
	row.MS = time.Since(m0).Milliseconds()
	return row, nil
}

// clauseCoverage counts the clause table against a run's rows.
func clauseCoverage(rows []MutantRow) ClauseCoverage {
	byName := map[string]MutantRow{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	var cc ClauseCoverage
	for _, c := range catalogue.Clauses() {
		cc.Clauses++
		if c.Undriven != "" {
			cc.Undriven++
			continue
		}
		if len(c.Checks) > 0 {
			cc.Checked++
		}
		ran, killed := true, true
		for _, m := range c.Mutants {
			r, ok := byName[m]
			ran = ran && ok
			killed = killed && ok && r.Killed
		}
		if !ran || len(c.Mutants) == 0 {
			continue
		}
		cc.Run++
		if killed {
			cc.Killed++
		} else {
			cc.Survivors = append(cc.Survivors, c.ID)
		}
	}
	return cc
}

// WriteMutants prints the kill table, the score and the budget.
func WriteMutants(w io.Writer, run *MutantRun, o *Options, randomOnly bool, out *Printer) error {
	rows := run.Rows
	if o.JSON {
		j := MutantsJSON{Schema: JSONSchema, Command: "mutants", Targets: rows, ElapsedS: seconds(run.Used)}
		j.Clauses = run.Clauses
		j.Masking = MaskingJSON(conformance.CatalogueMasking())
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
	PrintMasking(w, conformance.CatalogueMasking())
	fmt.Fprintf(w, "%s\n%s\n%s\n", run.ScoreLine(), run.Clauses, MutantBudget(o, randomOnly))
	fmt.Fprintf(w, "used: %.1fs for %d mutants (builds included), %d random sequences in all\n", run.Used.Seconds(), len(rows), run.Random)
	return nil
}

// ScoreLine is the run's mutation score (the text's line, the HTML's headline).
func (run *MutantRun) ScoreLine() string {
	return fmt.Sprintf("mutation score: %d/%d (%.0f%%)", run.Killed, len(run.Rows), 100*float64(run.Killed)/float64(max(len(run.Rows), 1)))
}

func (cc ClauseCoverage) String() string {
	s := fmt.Sprintf("clauses of %s: %d; %d cannot be driven through the ABI; %d checked by a directed check; mutant killed: %d of the %d whose mutants ran",
		docs.ContractPath, cc.Clauses, cc.Undriven, cc.Checked, cc.Killed, cc.Run)
	if len(cc.Survivors) > 0 {
		s += " (a mutant survived: " + strings.Join(cc.Survivors, ", ") + ")"
	}
	return s
}

// MutantBudget is what each mutant's check may spend.
func MutantBudget(o *Options, randomOnly bool) string {
	what := "the directed catalogue, then up to"
	if randomOnly {
		what = "no directed checks (-random-only),"
	}
	return fmt.Sprintf("budget per mutant: %s %d random sequences × %d ops within %v (case timeout %v, seed %d); a mutant's check stops at its first kill",
		what, o.Sequences, o.MaxOps, o.Duration, o.CaseTimeout, o.Seed)
}

// ClaimingFirst orders the catalogue for one mutant: the checks that claim
// it (catalogue.Check.Kills) first, then the others in catalogue order. A mutant's run
// stops at its first kill, so the table shows the designated check when it
// kills, and another check only when the designated ones do not.
func ClaimingFirst(checks []catalogue.Check, mutant string) []catalogue.Check {
	out := make([]catalogue.Check, 0, len(checks))
	claiming := catalogue.ChecksClaiming(mutant)
	for _, c := range claiming {
		if slices.ContainsFunc(checks, func(x catalogue.Check) bool { return x.Name == c.Name }) {
			out = append(out, c)
		}
	}
	for _, c := range checks {
		if !slices.ContainsFunc(claiming, func(x catalogue.Check) bool { return x.Name == c.Name }) {
			out = append(out, c)
		}
	}
	return out
}

// Fate is a row's KILLED and BY in the kill table.
func (r MutantRow) Fate() (killed, by string) {
	switch {
	case r.Error != "":
		return "ERROR", r.Error
	case r.Killed:
		return "yes", r.Check + ": " + r.ByRule + " " + r.Verdict
	case len(r.Elsewhere) > 0:
		return "no", "survived; out of group only: " + strings.Join(r.Elsewhere, ", ")
	}
	return "no", "survived"
}

func PrintKillTable(p *Printer, rows []MutantRow, o *Options) {
	w := p.w
	fmt.Fprintf(w, "%-32s %-17s %-6s %-58s %s\n", "MUTANT", "CLAUSE", "KILLED", "BY (check: reported rule)", "TIME")
	for _, r := range rows {
		if o.Quiet && r.Killed {
			continue
		}
		killed, by := r.Fate()
		k := p.paint(verdictColor[model.Fail], fmt.Sprintf("%-6s", killed))
		if killed == "yes" {
			k = p.paint(verdictColor[model.Pass], fmt.Sprintf("%-6s", killed))
		}
		fmt.Fprintf(w, "%-32s %-17s %s %-58s %.2fs\n", r.Name, r.Clause, k, by, float64(r.MS)/1000)
	}
	fmt.Fprintln(w, "A kill counts only when the reported broken rule is in the mutant's rule group (e.g. V-IMG for a V mutant).")
}
