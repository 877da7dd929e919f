package catalogue

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/simabi/simabi/docs"
)

// Explain is what abicheck explain prints for id, a rule or a clause
// (case-insensitive): the rule's section and its clause table, or the
// clause with what the table binds to it; an unknown id is an error naming
// the rules it may have meant.
func Explain(id string) (string, error) {
	if c, ok := docs.FindClause(id); ok {
		return explainClause(c), nil
	}
	s, ok := docs.Rule(id)
	if !ok {
		msg := fmt.Sprintf("%q is no rule or clause of the contract", id)
		if near := NearRules(id); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, ", ") + "?"
		} else {
			msg += " (abicheck rules lists them)"
		}
		return "", fmt.Errorf("%s", msg)
	}
	return ExplainRule(s), nil
}

// ExplainRule is Explain's text of a rule section (docs.Rules parsed).
func ExplainRule(s docs.RuleSection) string {
	var b strings.Builder
	b.WriteString(s.Text)
	fmt.Fprintf(&b, "\n(%s, under %q)\n", s.Anchor(), s.Group)
	if len(s.Clauses) > 0 {
		b.WriteString("\nClauses:\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  CLAUSE\tHELD ON\tCHECKED BY\tBROKEN BY")
		for _, c := range s.Clauses {
			spec, _ := ClauseByID(c.ID)
			checks, mutants := strings.Join(spec.Checks, ", "), strings.Join(spec.Mutants, ", ")
			if spec.Undriven != "" {
				mutants = "(cannot be driven: see abicheck explain " + c.ID + ")"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.ID, spec.HeldOnText(), orNone(checks), orNone(mutants))
		}
		tw.Flush()
	}
	return b.String()
}

// explainClause renders one clause and what the clause table binds to it.
func explainClause(c docs.Clause) string {
	spec, _ := ClauseByID(c.ID)
	var b strings.Builder
	fmt.Fprintf(&b, "%s (rule %s, %s:%d)\n\n", c.ID, c.Rule, docs.ContractPath, c.Line)
	for _, l := range wrapWords(c.Text, 100) {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "held on:    %s\n", spec.HeldOnText())
	fmt.Fprintf(&b, "checked by: %s\n", orNone(strings.Join(spec.Checks, ", ")))
	if spec.Undriven != "" {
		fmt.Fprintf(&b, "cannot be driven: %s\n", spec.Undriven)
	} else {
		fmt.Fprintf(&b, "broken by:  %s (emitted mutants, abicheck mutants -run)\n", orNone(strings.Join(spec.Mutants, ", ")))
	}
	if spec.Gaps != "" {
		fmt.Fprintf(&b, "not driven on %s: %s\n", spec.GapProfilesText(), spec.Gaps)
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// wrapWords breaks text into lines of at most width columns.
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
