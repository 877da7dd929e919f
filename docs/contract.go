// Package docs holds the project's normative contract, docs/contract.md,
// embedded so that abicheck can print any rule's text (abicheck explain)
// from the binary alone, wherever it was installed.
package docs

import (
	_ "embed" // the contract's text
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

//go:embed contract.md
var contract string

// ContractPath is where the contract lives in the repository; anchors are
// relative to it.
const ContractPath = "docs/contract.md"

// Contract is the text of docs/contract.md.
func Contract() string { return contract }

// RuleSection is one rule of the contract: its "### ID" section.
type RuleSection struct {
	ID        string // "E-FIN"
	Group     string // the "## " heading it sits under
	OneLine   string // the rule in one sentence
	AppliesTo string // "tmr, refusing, legacy", "consumers (lifecycle)", ...
	Text      string // the whole section, heading included, trailing blank lines trimmed
	Clauses   []Clause
}

// Clause is one testable clause of a rule: a sentence (or list item) of the
// contract with an outcome a call can show, marked "[E-DESTROY.3]" where it
// begins. Clauses are numbered 1, 2, ... in text order within their rule.
type Clause struct {
	ID   string // "E-DESTROY.3"
	Rule string // "E-DESTROY"
	N    int    // 3
	Text string // the clause's words, the marker removed and whitespace collapsed
	Line int    // where its marker stands in contract.md (1-based)
}

// clauseMarker is a clause's marker: "[RULE.N]".
var clauseMarker = regexp.MustCompile(`\[([A-Z]+(?:-[A-Z0-9]+)+)\.([0-9]+)\]`)

// listItem is the start of a list item ("- ", "1. "), which ends a clause.
var listItem = regexp.MustCompile(`^\s*(?:- |[0-9]+\. )`)

// Anchor is the section's link target relative to the repository root
// (GitHub's heading slug: the ID in lower case).
func (s RuleSection) Anchor() string { return Anchor(s.ID) }

// Anchor is the link to rule id's section in docs/contract.md.
func Anchor(id string) string { return ContractPath + "#" + strings.ToLower(id) }

// Rules parses the contract's rule sections in document order. Every
// section must open with its "One line:" and "Applies to:" lines; a
// contract that breaks that layout is an error naming the line.
func Rules() ([]RuleSection, error) { return ParseRules(Contract()) }

// ParseRules parses rule sections from a contract text (Rules reads the
// embedded one).
func ParseRules(text string) ([]RuleSection, error) {
	lines := strings.Split(text, "\n")
	var out []RuleSection
	group := ""
	inRule := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "## ") {
			inRule = false
		}
		if m := markers(line); len(m) > 0 && !inRule && !strings.HasPrefix(line, "### ") {
			return nil, fmt.Errorf("contract.md:%d: clause marker %s outside a rule section", i+1, line[m[0][0]:m[0][1]])
		}
		if strings.HasPrefix(line, "## ") {
			group = strings.TrimPrefix(line, "## ")
			continue
		}
		if !strings.HasPrefix(line, "### ") {
			continue
		}
		inRule = true
		s := RuleSection{ID: strings.TrimSpace(strings.TrimPrefix(line, "### ")), Group: group}
		if i+2 >= len(lines) {
			return nil, fmt.Errorf("contract.md:%d: rule %s: section ends before its One line / Applies to lines", i+1, s.ID)
		}
		var ok bool
		if s.OneLine, ok = strings.CutPrefix(lines[i+1], "One line: "); !ok {
			return nil, fmt.Errorf("contract.md:%d: rule %s: want \"One line: ...\" after the heading", i+2, s.ID)
		}
		if s.AppliesTo, ok = strings.CutPrefix(lines[i+2], "Applies to: "); !ok {
			return nil, fmt.Errorf("contract.md:%d: rule %s: want \"Applies to: ...\" after the one line", i+3, s.ID)
		}
		end := i + 1
		for end < len(lines) && !strings.HasPrefix(lines[end], "## ") && !strings.HasPrefix(lines[end], "### ") {
			end++
		}
		s.Text = strings.TrimRight(strings.Join(lines[i:end], "\n"), "\n") + "\n"
		cs, err := parseClauses(s.ID, lines[i:end], i+1)
		if err != nil {
			return nil, err
		}
		s.Clauses = cs
		out = append(out, s)
		i = end - 1
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("contract.md: no rule sections (### ID)")
	}
	return out, nil
}

// Rule finds rule id's section (IDs compare case-insensitively, so
// "e-fin" finds E-FIN).
func Rule(id string) (RuleSection, bool) {
	rs, err := Rules()
	if err != nil {
		return RuleSection{}, false
	}
	for _, r := range rs {
		if strings.EqualFold(r.ID, strings.TrimSpace(id)) {
			return r, true
		}
	}
	return RuleSection{}, false
}

// markers are the clause markers of a line; a marker in backticks
// ("`[E-FIN.2]`") is an example, not a marker.
func markers(line string) [][]int {
	var out [][]int
	for _, loc := range clauseMarker.FindAllStringSubmatchIndex(line, -1) {
		if loc[0] > 0 && line[loc[0]-1] == '`' {
			continue
		}
		out = append(out, loc)
	}
	return out
}

// parseClauses finds the clause markers of rule id in its section's lines
// (the first of which is line first of contract.md). A clause's text runs
// from its marker to the next marker, a blank line, the next list item or
// the next paragraph in italics ("*Profiles.*"), whichever comes first.
func parseClauses(id string, lines []string, first int) ([]Clause, error) {
	var out []Clause
	var cur *Clause
	var words []string
	flush := func() {
		if cur != nil {
			cur.Text = strings.Join(strings.Fields(strings.Join(words, " ")), " ")
			out = append(out, *cur)
			cur, words = nil, nil
		}
	}
	for i, line := range lines {
		if i == 0 {
			continue // the heading
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || listItem.MatchString(line) || strings.HasPrefix(trimmed, "*") && !strings.HasPrefix(trimmed, "**") {
			flush()
		}
		at := 0
		for _, loc := range markers(line) {
			if cur != nil {
				words = append(words, line[at:loc[0]])
			}
			flush()
			rule, num := line[loc[2]:loc[3]], line[loc[4]:loc[5]]
			n, _ := strconv.Atoi(num)
			if rule != id {
				return nil, fmt.Errorf("contract.md:%d: clause marker [%s.%s] in the section of %s", first+i, rule, num, id)
			}
			if n != len(out)+1 {
				return nil, fmt.Errorf("contract.md:%d: clause [%s.%s] where [%s.%d] comes next (clauses are numbered 1, 2, ... in text order)", first+i, rule, num, id, len(out)+1)
			}
			cur = &Clause{ID: id + "." + num, Rule: id, N: n, Line: first + i}
			at = loc[1]
		}
		if cur != nil {
			words = append(words, line[at:])
		}
	}
	flush()
	return out, nil
}

// Clauses lists every clause of the contract in document order.
func Clauses() ([]Clause, error) {
	rs, err := Rules()
	if err != nil {
		return nil, err
	}
	var out []Clause
	for _, r := range rs {
		out = append(out, r.Clauses...)
	}
	return out, nil
}

// FindClause finds clause id ("E-DESTROY.3", case-insensitive).
func FindClause(id string) (Clause, bool) {
	cs, err := Clauses()
	if err != nil {
		return Clause{}, false
	}
	for _, c := range cs {
		if strings.EqualFold(c.ID, strings.TrimSpace(id)) {
			return c, true
		}
	}
	return Clause{}, false
}
