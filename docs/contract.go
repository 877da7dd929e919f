// Package docs holds the project's normative contract, docs/contract.md,
// embedded so that abicheck can print any rule's text (abicheck explain)
// from the binary alone, wherever it was installed.
package docs

import (
	_ "embed" // the contract's text
	"fmt"
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
}

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
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "## ") {
			group = strings.TrimPrefix(line, "## ")
			continue
		}
		if !strings.HasPrefix(line, "### ") {
			continue
		}
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
