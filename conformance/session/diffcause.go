package session

import (
	"cmp"
	"slices"
	"strings"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/suite"
)

// DiffCause is one cause of a diff's changes (a launch that returns -93
// changes every case that launches): an entry and the part of its result
// that changed, with the changes it explains by clause group.
type DiffCause struct {
	// Entry is the C entry whose call changed, the op's kind for an op that
	// calls none, or "setup" / "cleanup" (the runner's own calls).
	Entry string `json:"entry"`
	Title string `json:"title"` // "ENTRY FIELD: OLD, OLD -> NEW; ...", most changes first
	// Field is what changed: "status", "out", "mem" or another key of the
	// history line, "result" (no status, or its form changed), "outcome" (a
	// build crashed or hung) or "finding" (the model judged differently).
	Field       string           `json:"field"`
	Transitions []DiffTransition `json:"transitions"` // the most changes first
	Groups      []DiffCauseGroup `json:"groups"`      // the clause groups that showed it, the most changes first
	Changes     int              `json:"changes"`     // distinct changes
	Cases       int              `json:"cases"`       // cases that showed them
	Known       int              `json:"known"`       // changes a baseline listed
}

// DiffTransition is one OLD value → NEW value of a cause.
type DiffTransition struct {
	Old     string `json:"old"`
	New     string `json:"new"`
	Changes int    `json:"changes"`
}

// DiffCauseGroup is a clause group a cause touched: its changes' indices in
// DiffReport.Changes and the cases that showed them.
type DiffCauseGroup struct {
	Group   string `json:"group"`
	Changes []int  `json:"changes"`
	Cases   int    `json:"cases"`
}

func (c DiffCause) title() string {
	var news []string
	olds := map[string][]string{}
	for _, t := range c.Transitions {
		if _, ok := olds[t.New]; !ok {
			news = append(news, t.New)
		}
		olds[t.New] = append(olds[t.New], t.Old)
	}
	parts := make([]string, len(news))
	for i, n := range news {
		parts[i] = strings.Join(olds[n], ", ") + " -> " + n
	}
	return c.Entry + " " + c.Field + ": " + strings.Join(parts, "; ")
}

// Causes groups the report's changes by cause: one per entry and field,
// the most changes first (then by entry and field).
func (r *DiffReport) Causes() []DiffCause {
	out := []DiffCause{}
	for i, ch := range r.Changes {
		ci := slices.IndexFunc(out, func(c DiffCause) bool { return c.Entry == ch.Entry && c.Field == ch.Field })
		if ci < 0 {
			ci, out = len(out), append(out, DiffCause{Entry: ch.Entry, Field: ch.Field})
		}
		c := &out[ci]
		cases := 1 + len(ch.Also)
		c.Changes++
		c.Cases += cases
		if ch.Known {
			c.Known++
		}
		if t := slices.IndexFunc(c.Transitions, func(t DiffTransition) bool { return t.Old == ch.OldValue && t.New == ch.NewValue }); t >= 0 {
			c.Transitions[t].Changes++
		} else {
			c.Transitions = append(c.Transitions, DiffTransition{Old: ch.OldValue, New: ch.NewValue, Changes: 1})
		}
		if g := slices.IndexFunc(c.Groups, func(g DiffCauseGroup) bool { return g.Group == ch.Group }); g >= 0 {
			c.Groups[g].Changes = append(c.Groups[g].Changes, i)
			c.Groups[g].Cases += cases
		} else {
			c.Groups = append(c.Groups, DiffCauseGroup{Group: ch.Group, Changes: []int{i}, Cases: cases})
		}
	}
	for i := range out {
		c := &out[i]
		slices.SortStableFunc(c.Transitions, func(a, b DiffTransition) int { return cmp.Compare(b.Changes, a.Changes) })
		slices.SortStableFunc(c.Groups, func(a, b DiffCauseGroup) int {
			return cmp.Or(cmp.Compare(len(b.Changes), len(a.Changes)), cmp.Compare(a.Group, b.Group))
		})
		c.Title = c.title()
	}
	slices.SortStableFunc(out, func(a, b DiffCause) int {
		return cmp.Or(cmp.Compare(b.Changes, a.Changes), cmp.Compare(a.Entry, b.Entry), cmp.Compare(a.Field, b.Field))
	})
	return out
}

// changeCause is a change's cause: the entry called at op at, and the first
// part of its result that differs between the two builds' lines (a history
// line "#i OP -> RESULT", a run's death, or a model finding).
func changeCause(ops []op.Op, at int, rev abi.Revision, oldLine, newLine string) (entry, field, oldV, newV string) {
	var cur *op.Op
	switch {
	case at >= 0 && at < len(ops):
		cur = &ops[at]
		entry = entryOf(*cur, rev)
	case at == len(ops):
		entry = "cleanup"
	default:
		entry = "setup"
	}
	or, oldHist := historyResult(oldLine)
	nr, newHist := historyResult(newLine)
	if !oldHist || !newHist {
		if strings.HasPrefix(oldLine, "model: ") || strings.HasPrefix(newLine, "model: ") ||
			oldLine == suite.NoFinding || newLine == suite.NoFinding {
			return entry, "finding", findingValue(oldLine), findingValue(newLine)
		}
		return entry, "outcome", outcomeValue(or, oldHist), outcomeValue(nr, newHist)
	}
	oldParts, newParts := strings.Split(or, " | "), strings.Split(nr, " | ")
	if len(oldParts) != len(newParts) {
		return entry, "result", or, nr
	}
	for i := range oldParts {
		if oldParts[i] == newParts[i] {
			continue
		}
		if cur != nil && len(oldParts) > 1 {
			// A two-call op (holdlaunch: prepare | launch): the part's
			// own entry, its calls matched from the end of the serial
			// order (which may begin with the checker's own set-up).
			if s := cur.Serial(); len(s) >= len(oldParts) {
				p := s[len(s)-len(oldParts)+i]
				cur, entry = &p, entryOf(p, rev)
			}
		}
		field, oldV, newV = partDiff(oldParts[i], newParts[i], cur != nil && cur.StatusCall())
		return entry, field, oldV, newV
	}
	return entry, "result", or, nr
}

// entryOf is the C entry an op calls (the trace vocabulary's table), or
// the op's kind when the table has none.
func entryOf(o op.Op, rev abi.Revision) string {
	words := strings.Fields(o.String())
	if len(words) == 0 {
		return o.Kind.String()
	}
	for _, r := range []abi.Revision{rev, abi.RevKernel, abi.RevLegacy} {
		if e, err := tracevocab.Lookup(r, words[0], words[1:]); err == nil && e.Symbol != "" {
			return e.Symbol
		}
	}
	return words[0]
}

// historyResult is the result of a history line, with ok; else the line
// with op indices masked (a death names the op it died at).
func historyResult(line string) (string, bool) {
	if r := suite.ResultOf(line); r != line {
		return r, true
	}
	return suite.MaskIndices(line), false
}

// outcomeValue is one side of a change where a build died: how it ended
// ("crash", "hang") or, for the side that lived, its result's first word.
func outcomeValue(s string, hist bool) string {
	if w, _, _ := strings.Cut(s, " "); w != "" && (hist || w == "crash" || w == "hang" || w == "fail") {
		return w
	}
	return s
}

// findingValue is a model finding's rule and verdict ("E-LAUNCH fail"),
// or "none".
func findingValue(s string) string {
	f := strings.Fields(strings.TrimPrefix(s, "model: "))
	switch {
	case s == suite.NoFinding:
		return "none"
	case strings.HasPrefix(s, "model: ") && len(f) >= 3:
		return f[1] + " " + f[2]
	}
	return s
}

// partDiff is the first field of one call's result that differs (the
// leading word the status or result, KEY=VALUE the field KEY, xN a repeated
// call's count); results whose fields do not line up differ as a whole.
func partDiff(a, b string, status bool) (field, oldV, newV string) {
	fa, fb := resultFields(a, status), resultFields(b, status)
	if fa == nil || fb == nil || len(fa) != len(fb) {
		return "result", a, b
	}
	for i := range fa {
		if fa[i][0] != fb[i][0] {
			return "result", a, b
		}
		if fa[i][1] != fb[i][1] {
			return fa[i][0], fa[i][1], fb[i][1]
		}
	}
	return "result", a, b
}

// resultFields are a call's result's (field, value) pairs; nil: no such form.
func resultFields(s string, status bool) [][2]string {
	if strings.ContainsAny(s, "{;") {
		return nil
	}
	var out [][2]string
	for i, w := range strings.Fields(s) {
		k, v, kv := strings.Cut(w, "=")
		switch {
		case kv:
			out = append(out, [2]string{k, v})
		case i == 0 && status:
			out = append(out, [2]string{"status", w})
		case i == 0:
			out = append(out, [2]string{"result", w})
		case len(w) > 1 && w[0] == 'x' && strings.Trim(w[1:], "0123456789") == "":
			out = append(out, [2]string{"count", w[1:]})
		default:
			return nil
		}
	}
	return out
}
