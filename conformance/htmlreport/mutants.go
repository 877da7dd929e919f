package htmlreport

import (
	"fmt"
	"io"
	"strings"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/session"
)

// mutantsView is a mutants run: the kill table, the score, the masking,
// and the clause-coverage matrix.
type mutantsView struct {
	Kills    []killRow
	Score    string
	Coverage string
	Masking  []string
	Budget   string
	Profiles []string // the matrix's profile columns
	Clauses  []clauseRow
}

type killRow struct {
	Name          string
	Clause        linkView
	Killed, Class string
	By            string
	Time          string
}

// clauseRow is a clause of the matrix: per profile whether it is held to
// it and checked there, the checks, each mutant that breaks it with its
// fate in this run, and the clause's state.
type clauseRow struct {
	Clause       linkView
	Held         []cell
	Checks       string
	Mutants      []cell
	State, Class string
}

type cell struct{ Text, Class string }

// Mutants renders a mutants run (abicheck mutants; randomOnly:
// -random-only).
func (p Pages) Mutants(w io.Writer, run *session.MutantRun, o *session.Options, randomOnly bool) error {
	rs := newRefs()
	mv := &mutantsView{}
	pg := &page{Title: "abicheck mutants", Mutants: mv, Bad: run.Failed || run.Killed < len(run.Rows)}
	fates := map[string]cell{}
	for _, r := range run.Rows {
		k := killOf(r, rs)
		mv.Kills = append(mv.Kills, k)
		fates[r.Name] = cell{r.Name, k.Class}
	}
	mv.Score, mv.Coverage = run.ScoreLine(), run.Clauses.String()
	pg.Headline = mv.Score
	for _, m := range conformance.CatalogueMasking() {
		mv.Masking = append(mv.Masking, m.String())
	}
	mv.Budget = session.MutantBudget(o, randomOnly) + fmt.Sprintf(". Used: %.1fs for %d mutants (builds included), %d random sequences in all.",
		run.Used.Seconds(), len(run.Rows), run.Random)
	for _, p := range catalogue.ProfileOrder() {
		mv.Profiles = append(mv.Profiles, p.String())
	}
	for _, c := range catalogue.Clauses() {
		mv.Clauses = append(mv.Clauses, clauseRowOf(c, fates, rs))
	}
	pg.Nav = append(pg.Nav, navLink{"#kills", "Kill table"}, navLink{"#clauses", "Clause coverage"})
	return p.write(w, pg, rs)
}

// killOf is a mutant's row of the kill table.
func killOf(r session.MutantRow, rs *refs) killRow {
	k := killRow{Name: r.Name, Clause: linkView{r.Clause, rs.clauseHref(r.Clause)}, Class: "v-fail",
		Time: fmt.Sprintf("%.2fs", float64(r.MS)/1000)}
	k.Killed, k.By = r.Fate()
	switch k.Killed {
	case "ERROR":
		k.Killed = "error"
	case "yes":
		k.Class = "v-pass"
	}
	return k
}

// clauseRowOf is a clause's row of the matrix; fates are the mutants of
// this run by name.
func clauseRowOf(c catalogue.ClauseSpec, fates map[string]cell, rs *refs) clauseRow {
	row := clauseRow{Clause: linkView{c.ID, rs.clauseHref(c.ID)}, Checks: strings.Join(c.Checks, ", ")}
	for _, p := range catalogue.ProfileOrder() {
		switch {
		case !c.HeldOn(p):
			row.Held = append(row.Held, cell{"—", "held-no"})
		case c.Undriven != "":
			row.Held = append(row.Held, cell{"undriven", "v-skip"})
		case len(c.ChecksOn(p)) > 0:
			row.Held = append(row.Held, cell{"checked", "v-pass"})
		default:
			row.Held = append(row.Held, cell{"gap", "v-warn"})
		}
	}
	ran, survived := true, false
	for _, m := range c.Mutants {
		f, ok := fates[m]
		if !ok {
			f = cell{m, "v-skip"}
		}
		ran, survived = ran && ok, survived || ok && f.Class != "v-pass"
		row.Mutants = append(row.Mutants, f)
	}
	switch {
	case c.Undriven != "":
		row.State, row.Class = "cannot be driven: "+c.Undriven, "v-skip"
	case len(c.Mutants) == 0:
		row.State, row.Class = "no mutant", "v-skip"
	case survived:
		row.State, row.Class = "a mutant survived", "v-fail"
	case !ran:
		row.State, row.Class = "not run", "v-skip"
	default:
		row.State, row.Class = "killed", "v-pass"
	}
	return row
}
