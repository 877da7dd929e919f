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

// Diff renders a diff's report.
func (p Pages) Diff(w io.Writer, rep *session.DiffReport, o *session.Options) error {
	rs := newRefs()
	dv := &diffView{Old: targetLine(rep.Old()), New: targetLine(rep.New()), Targets: rep.TargetChanges, Skipped: rep.Skipped}
	pg := &page{Title: "abicheck diff " + rep.Old().Path + " " + rep.New().Path, Diff: dv}
	// A group per cause (DiffReport.Causes, in the text's order), with the
	// clauses its changes' checks are under.
	for i, cause := range rep.Causes() {
		gv := groupView{Anchor: fmt.Sprintf("group-%d", i+1), Title: cause.Title}
		var clauses []string
		for _, cg := range cause.Groups {
			for _, ci := range cg.Changes {
				c := rep.Changes[ci]
				gv.Changes = append(gv.Changes, changeView{Case: c.Case, At: c.At, Old: c.Old, New: c.New, Known: c.Known,
					Rule: linkView{c.Rule, rs.ruleHref(c.Rule)}, Also: c.Also, Script: strings.Join(c.Script, "\n"), Ops: len(c.Script),
					File: c.File, Replay: c.Replay})
				for _, cl := range c.Clauses {
					if !slices.Contains(clauses, cl) {
						clauses = append(clauses, cl)
					}
				}
			}
		}
		for _, c := range clauses {
			gv.Clauses = append(gv.Clauses, linkView{c, rs.clauseHref(c)})
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
	case rep.Differs():
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
