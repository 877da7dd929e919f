package catalogue

import (
	"slices"
	"strconv"
	"strings"

	"github.com/simabi/simabi/conformance/model"
)

// The *Checked.* paragraphs of docs/contract.md, derived from the clause
// table (TestContractShowsClauseCoverage keeps the contract equal to them).

// CoverageLine is the *Checked.* paragraph closing rule's section in
// docs/contract.md ("" for a rule without clauses).
func CoverageLine(rule string) string {
	var cs []ClauseSpec
	for _, c := range loaded().clauses {
		if c.RuleID() == rule {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("*Checked.*")
	groups := drivenGroups(rule, cs)
	if len(groups) == 0 {
		b.WriteString(" No clause is driven by a check.")
	}
	for i, g := range groups {
		switch {
		case i > 0:
			b.WriteString("; ")
		case len(g.nums) == 1:
			b.WriteString(" Clause ")
		default:
			b.WriteString(" Clauses ")
		}
		b.WriteString(numberList(g.nums) + " on " + andList(g.profiles))
	}
	if len(groups) > 0 {
		b.WriteString(".")
	}
	var gaps, undriven []clauseGroup
	for _, c := range cs {
		if c.Undriven != "" {
			undriven = addToGroup(undriven, c.N(), nil, c.Undriven)
		} else if ps := strings.Split(c.GapProfilesText(), ", "); ps[0] != "" {
			gaps = addToGroup(gaps, c.N(), ps, c.Gaps)
		}
	}
	for _, g := range gaps {
		b.WriteString(" Not driven on " + andList(g.profiles) + ": " + numberList(g.nums) + " (" + g.why + ").")
	}
	for _, g := range undriven {
		b.WriteString(" No call can drive " + numberList(g.nums) + ": " + g.why + ".")
	}
	return b.String()
}

// clauseGroup is clauses of a rule that CoverageLine names together.
type clauseGroup struct {
	nums     []int
	profiles []string
	why      string
}

// addToGroup adds clause n to the last group when it has the same
// profiles and reason.
func addToGroup(gs []clauseGroup, n int, profiles []string, why string) []clauseGroup {
	if k := len(gs); k > 0 && gs[k-1].why == why && slices.Equal(gs[k-1].profiles, profiles) {
		gs[k-1].nums = append(gs[k-1].nums, n)
		return gs
	}
	return append(gs, clauseGroup{[]int{n}, profiles, why})
}

// drivenGroups groups rule's profiles by the clauses of cs a check drives.
func drivenGroups(rule string, cs []ClauseSpec) []clauseGroup {
	var groups []clauseGroup
	r, _ := model.RuleByName(rule)
	for _, p := range profileOrder {
		if !r.Applies(p) {
			continue
		}
		var nums []int
		for _, c := range cs {
			if c.Undriven == "" && len(c.ChecksOn(p)) > 0 {
				nums = append(nums, c.N())
			}
		}
		if len(nums) == 0 {
			continue
		}
		i := slices.IndexFunc(groups, func(g clauseGroup) bool { return slices.Equal(g.nums, nums) })
		if i < 0 {
			groups = append(groups, clauseGroup{nums: nums})
			i = len(groups) - 1
		}
		groups[i].profiles = append(groups[i].profiles, p.String())
	}
	return groups
}

// numberList renders clause numbers with runs as ranges: "1–4, 6 and 8".
func numberList(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.Itoa(ns[i]))
		case j == i+1:
			parts = append(parts, strconv.Itoa(ns[i]), strconv.Itoa(ns[j]))
		default:
			parts = append(parts, strconv.Itoa(ns[i])+"–"+strconv.Itoa(ns[j]))
		}
		i = j + 1
	}
	return andList(parts)
}

// andList joins "a", "b" and "c" as "a, b and c".
func andList(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
