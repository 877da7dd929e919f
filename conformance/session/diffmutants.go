package session

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/isolate"
	"github.com/simabi/simabi/conformance/suite"
	"github.com/simabi/simabi/sim/emit"
)

// DiffMutantRow is one mutant diffed against the plain fake of its profile.
type DiffMutantRow struct {
	Name    string   `json:"name"`
	Clause  string   `json:"clause"`
	Changes int      `json:"changes"`
	Named   bool     `json:"named"`  // a change is grouped under the mutant's clause
	Groups  []string `json:"groups"` // the groups of its changes
	MS      int64    `json:"ms"`
	Error   string   `json:"error,omitempty"`
}

// DiffMutantRun is `abicheck mutants -diff`: how often a diff of the fake
// against one of its mutants names the clause the mutant breaks.
type DiffMutantRun struct {
	// The envelope of every JSON report (JSONSchema), a target per mutant.
	Schema   string          `json:"schema"`
	Command  string          `json:"command"` // "mutants -diff"
	Rows     []DiffMutantRow `json:"targets"`
	ElapsedS float64         `json:"elapsed_s"`
	Named    int             `json:"named"`
	Changed  int             `json:"changed"`
	Failed   bool            `json:"-"`
	Used     time.Duration   `json:"-"`
}

// DiffMutants diffs the plain fake of each mutant's profile against the
// mutant, as `abicheck diff -no-shrink FAKE MUTANT` does.
func DiffMutants(o *Options, ms []emit.Mutant, out *Printer, stderr io.Writer) (*DiffMutantRun, error) {
	rows, used, err := eachMutant(len(ms), out, func(i int) (DiffMutantRow, error) { return diffMutant(o, ms[i], o.verboseTo(stderr)) })
	if err != nil {
		return nil, err
	}
	run := &DiffMutantRun{Rows: rows, Used: used}
	for _, r := range rows {
		run.Failed = run.Failed || r.Error != ""
		if r.Named {
			run.Named++
		}
		if r.Changes > 0 {
			run.Changed++
		}
	}
	return run, nil
}

func diffMutant(o *Options, m emit.Mutant, verbose io.Writer) (DiffMutantRow, error) {
	row := DiffMutantRow{Name: m.Name, Clause: m.Clause, Groups: []string{}}
	t0 := time.Now()
	defer func() { row.MS = time.Since(t0).Milliseconds() }()
	var pools [2]*isolate.Pool
	for i, cfg := range []emit.Config{{Profile: m.Profile}, {Profile: m.Profile, Mutant: m.Name}} {
		a, err := emit.Build(cfg, emit.BuildOptions{})
		p, why, err := mutantPool(a, err, o, verbose)
		if p == nil {
			row.Error = why
			return row, err
		}
		defer p.Close()
		pools[i] = p
	}
	info := pools[0].Info()
	profile, _ := conformance.ParseProfile(info.ProfileModel)
	res := suite.DiffWith(pools[0], pools[1], suite.DiffRun{Cases: o.cases(profile, info.Caps&pools[1].Info().Caps, true, true, nil)})
	row.Changes = len(res.Changes)
	for _, c := range res.Changes {
		row.Named = row.Named || slices.Contains(c.Clauses, m.Clause)
		row.Groups = append(row.Groups, c.Group())
	}
	slices.Sort(row.Groups)
	row.Groups = slices.Compact(row.Groups)
	return row, nil
}

// WriteDiffMutants prints the table of DiffMutants and the figure.
func WriteDiffMutants(w io.Writer, run *DiffMutantRun, o *Options) error {
	if o.JSON {
		run.Schema, run.Command, run.ElapsedS = JSONSchema, "mutants -diff", seconds(run.Used)
		return WriteJSONValue(w, run)
	}
	fmt.Fprintf(w, "%-34s %-16s %-6s %s\n", "MUTANT", "CLAUSE", "NAMED", "CHANGES (groups)")
	for _, r := range run.Rows {
		if o.Quiet && r.Named && r.Error == "" {
			continue
		}
		named := "yes"
		if !r.Named {
			named = "NO"
		}
		detail := fmt.Sprintf("%d (%s)", r.Changes, alsoText(r.Groups))
		if r.Error != "" {
			named, detail = "ERROR", r.Error
		}
		fmt.Fprintf(w, "%-34s %-16s %-6s %s\n", r.Name, r.Clause, named, detail)
	}
	n := len(run.Rows)
	fmt.Fprintf(w, "diff of the fake against each mutant: %d of %d changed; the mutant's clause named for %d of %d (%.1f%%) in %.1fs\n",
		run.Changed, n, run.Named, n, 100*float64(run.Named)/float64(max(n, 1)), run.Used.Seconds())
	return nil
}
