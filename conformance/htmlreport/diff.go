package htmlreport

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/simabi/simabi/conformance/session"
	"github.com/simabi/simabi/conformance/speed"
)

// diffView is a diff: what the builds are, the changes in their groups,
// the speed comparison and the summary.
type diffView struct {
	Old, New string
	Targets  []string // what differs in what the builds are
	Skipped  []string
	Groups   []groupView
	Speed    *speedView
	Summary  string
}

type groupView struct {
	Anchor  string
	Title   string
	Clauses []linkView
	Changes []changeView
}

type linkView struct{ Text, Href string }

type changeView struct {
	Case     string
	At       int
	Old, New string
	Known    bool
	Rule     linkView
	Also     []string // other cases that showed it
	Script   string   // the op script, as written to File
	Ops      int
	File     string
	Replay   []string
}

// changeGroup is a cause of a diff's changes (the entry and the part of
// its result that changed) with the clauses its changes touch.
type changeGroup struct {
	Title   string
	Clauses []string
	Changes []session.JSONChange
}

// changeGroups are a diff's changes by cause (DiffReport.Causes, the order
// the text prints them: the most changes first), each with the clauses its
// changes' checks are under.
func changeGroups(rep *session.DiffReport) []changeGroup {
	var out []changeGroup
	for _, cause := range rep.Causes() {
		g := changeGroup{Title: cause.Title}
		for _, cg := range cause.Groups {
			for _, i := range cg.Changes {
				c := rep.Changes[i]
				g.Changes = append(g.Changes, c)
				for _, cl := range c.Clauses {
					if !slices.Contains(g.Clauses, cl) {
						g.Clauses = append(g.Clauses, cl)
					}
				}
			}
		}
		out = append(out, g)
	}
	return out
}

// Diff renders a diff's report.
func (p Pages) Diff(w io.Writer, rep *session.DiffReport, o *session.Options) error {
	rs := newRefs()
	dv := &diffView{Old: targetLine(rep.Old()), New: targetLine(rep.New()), Targets: rep.TargetChanges, Skipped: rep.Skipped}
	pg := &page{Title: "abicheck diff " + rep.Old().Path + " " + rep.New().Path, Diff: dv}
	for i, g := range changeGroups(rep) {
		gv := groupView{Anchor: fmt.Sprintf("group-%d", i+1), Title: g.Title}
		for _, c := range g.Clauses {
			gv.Clauses = append(gv.Clauses, linkView{c, rs.clauseHref(c)})
		}
		for _, c := range g.Changes {
			gv.Changes = append(gv.Changes, changeView{Case: c.Case, At: c.At, Old: c.Old, New: c.New, Known: c.Known,
				Rule: linkView{c.Rule, rs.ruleHref(c.Rule)}, Also: c.Also, Script: strings.Join(c.Script, "\n"), Ops: len(c.Script),
				File: c.File, Replay: c.Replay})
		}
		dv.Groups = append(dv.Groups, gv)
	}
	if len(dv.Groups) > 0 {
		pg.Nav = append(pg.Nav, navLink{"#changes", fmt.Sprintf("Changes (%d)", rep.Summary.Changes)})
	}
	if sr, ok := rep.Speed.(*speed.Report); ok && sr != nil {
		dv.Speed = speedOf(sr)
		pg.Nav = append(pg.Nav, navLink{"#speed", "Speed"})
	}
	s := rep.Summary
	verdict := "no change"
	switch {
	case s.New() > 0 || s.SpeedChanges > 0 || len(rep.TargetChanges) > 0:
		verdict = fmt.Sprintf("%d change(s) of %d cause(s), %d in speed", s.New(), len(dv.Groups), s.SpeedChanges)
		pg.Bad = true
	case s.Known > 0:
		verdict = fmt.Sprintf("no new change (%d known)", s.Known)
	}
	pg.Headline = fmt.Sprintf("%d cases (%d random, seed %d) on both builds, %s profile: %s", s.Cases, s.Random, rep.Seed, rep.Profile, verdict)
	dv.Summary = fmt.Sprintf("%s; %.1fs", pg.Headline, float64(s.ElapsedMs)/1000)
	return p.write(w, pg, rs)
}

func targetLine(t session.JSONTarget) string {
	return fmt.Sprintf("%s (revision %s, profile %s, supported %d)", t.Path, t.Revision, t.Profile, t.Supported)
}
