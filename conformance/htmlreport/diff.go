package htmlreport

import (
	"fmt"
	"io"
	"sort"
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

// changeGroup is a group of a diff's changes with its title and the
// clauses (or rules) it is under.
type changeGroup struct {
	Title   string
	Clauses []string
	Changes []session.JSONChange
}

// changeGroups groups a diff's changes for the page.
//
// THE ONE PLACE TO SWITCH to (*session.DiffReport).Causes() (issue #37:
// the changes grouped by cause, the entry and the status or value that
// changed, each with the clauses it touches) once it exists: build one
// changeGroup per cause, its Title the cause and its Clauses the clauses
// it touches. Until then the groups are DiffReport's own, in the order the
// text prints them: the clauses whose check produced each change
// (JSONChange.Group).
func changeGroups(rep *session.DiffReport) []changeGroup {
	byGroup := map[string]*changeGroup{}
	var titles []string
	for _, c := range rep.Changes {
		g := byGroup[c.Group]
		if g == nil {
			g = &changeGroup{Title: c.Group, Clauses: c.Clauses}
			byGroup[c.Group] = g
			titles = append(titles, c.Group)
		}
		g.Changes = append(g.Changes, c)
	}
	sort.Strings(titles)
	out := make([]changeGroup, len(titles))
	for i, t := range titles {
		out[i] = *byGroup[t]
	}
	return out
}

// Diff renders a diff's report.
func (p Pages) Diff(w io.Writer, rep *session.DiffReport, o *session.Options) error {
	rs := newRefs()
	dv := &diffView{Old: targetLine(rep.Old), New: targetLine(rep.New), Targets: rep.Targets, Skipped: rep.Skipped}
	pg := &page{Title: "abicheck diff " + rep.Old.Path + " " + rep.New.Path, Diff: dv}
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
	case s.New() > 0 || s.SpeedChanges > 0 || len(rep.Targets) > 0:
		verdict = fmt.Sprintf("%d change(s) in %d group(s), %d in speed", s.New(), len(dv.Groups), s.SpeedChanges)
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
