package htmlreport

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/docs"
)

// refs collects the rules of the contract a page names, so that the page
// embeds the text of each (and only those): a link points into the page,
// never out of it. It reads the contract once (a mutants page links every
// clause).
type refs struct {
	sections []docs.RuleSection
	rules    map[string]string      // upper-case ID -> ID
	clauses  map[string]docs.Clause // upper-case ID -> clause
	named    map[string]bool        // the rules the page names
	err      error
}

func newRefs() *refs {
	r := &refs{rules: map[string]string{}, clauses: map[string]docs.Clause{}, named: map[string]bool{}}
	r.sections, r.err = docs.Rules()
	for _, s := range r.sections {
		r.rules[strings.ToUpper(s.ID)] = s.ID
		for _, c := range s.Clauses {
			r.clauses[strings.ToUpper(c.ID)] = c
		}
	}
	return r
}

// ruleHref is the in-page link to rule id's text ("#rule-E-FIN"), "" when
// the contract has no such rule (no link then). The simulation hooks'
// pseudo-rule HOOKS links to F-1, which defines them.
func (r *refs) ruleHref(id string) string {
	if id == "HOOKS" {
		id = "F-1"
	}
	rule, ok := r.rules[strings.ToUpper(strings.TrimSpace(id))]
	if !ok {
		return ""
	}
	r.named[rule] = true
	return "#" + ruleAnchor(rule)
}

// clauseHref is the in-page link to a clause's marker in its rule's text
// ("#clause-E-FIN.3"); a rule ID links to the rule; "" for neither.
func (r *refs) clauseHref(id string) string {
	c, ok := r.clauses[strings.ToUpper(strings.TrimSpace(id))]
	if !ok {
		return r.ruleHref(id)
	}
	r.named[c.Rule] = true
	return "#" + clauseAnchor(c.ID)
}

func ruleAnchor(id string) string   { return "rule-" + id }
func clauseAnchor(id string) string { return "clause-" + id }

// contractRule is one rule's text as the page embeds it.
type contractRule struct {
	ID, Anchor, OneLine string
	Text                template.HTML
}

// contract is the text of every rule named, in the contract's order.
func (r *refs) contract() ([]contractRule, error) {
	if r.err != nil {
		return nil, fmt.Errorf("the embedded contract: %v", r.err)
	}
	var out []contractRule
	for _, s := range r.sections {
		if !r.named[s.ID] {
			continue
		}
		text := catalogue.ExplainRule(s)
		out = append(out, contractRule{ID: s.ID, Anchor: ruleAnchor(s.ID), OneLine: s.OneLine, Text: markClauses(text, s.Clauses)})
	}
	return out, nil
}

// markClauses escapes a rule's text and gives each clause's marker
// ("[E-FIN.3]", the first not in backticks: those are examples) the
// clause's anchor, so that a link to the clause lands on its words.
func markClauses(text string, clauses []docs.Clause) template.HTML {
	var b strings.Builder
	at := 0
	for _, c := range clauses {
		marker := "[" + c.ID + "]"
		i := at
		for {
			j := strings.Index(text[i:], marker)
			if j < 0 {
				i = -1
				break
			}
			i += j
			if i == 0 || text[i-1] != '`' {
				break
			}
			i += len(marker)
		}
		if i < 0 {
			continue
		}
		b.WriteString(template.HTMLEscapeString(text[at:i]))
		fmt.Fprintf(&b, `<span class="clause" id="%s">%s</span>`, clauseAnchor(c.ID), template.HTMLEscapeString(marker))
		at = i + len(marker)
	}
	b.WriteString(template.HTMLEscapeString(text[at:]))
	return template.HTML(b.String())
}
