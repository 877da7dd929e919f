package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/docs"
)

const rulesUsage = `usage: abicheck rules [-json]

Lists every rule of the contract (docs/contract.md, embedded in abicheck):
its ID, where it applies (build profiles, or the consumer or the emitter)
and the rule in one line. abicheck explain ID prints one rule's text.
`

const explainUsage = `usage: abicheck explain ID...

Prints the text of each rule ID (E-FIN, V-IMG, ...) from the contract
(docs/contract.md, embedded in abicheck), then its clauses: each with the
profiles held to it, the directed checks that judge it and the mutants that
break it, or why no call can drive it. A clause ID (E-DESTROY.3) prints that
clause alone. abicheck rules lists the rule IDs.
`

func rulesMain(args []string, stdout, stderr io.Writer) int {
	asJSON := false
	for _, a := range args {
		switch a {
		case "-json", "--json":
			asJSON = true
		case "-h", "-help", "--help":
			fmt.Fprint(stdout, rulesUsage)
			return exitOK
		default:
			fmt.Fprintf(stderr, "abicheck rules: unexpected argument %q (abicheck rules -h for help)\n", a)
			return exitUsage
		}
	}
	rows, err := conformance.RuleRows()
	if err != nil {
		fmt.Fprintf(stderr, "abicheck rules: the embedded contract is malformed: %v\n", err)
		return exitUsage
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			fmt.Fprintf(stderr, "abicheck rules: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tAPPLIES TO\tRULE IN ONE LINE")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.AppliesTo, r.OneLine)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "\n%d rules; abicheck explain ID prints one (%s).\n", len(rows), docs.ContractPath)
	return exitOK
}

func explainMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, explainUsage)
		return exitUsage
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprint(stdout, explainUsage)
		return exitOK
	}
	var texts []string
	for _, id := range args {
		if c, ok := docs.FindClause(id); ok {
			texts = append(texts, explainClause(c))
			continue
		}
		s, ok := docs.Rule(id)
		if !ok {
			msg := fmt.Sprintf("abicheck explain: %q is no rule or clause of the contract", id)
			if near := conformance.NearRules(id); len(near) > 0 {
				msg += "; did you mean " + strings.Join(near, ", ") + "?"
			} else {
				msg += " (abicheck rules lists them)"
			}
			fmt.Fprintln(stderr, msg)
			return exitUsage
		}
		var b strings.Builder
		b.WriteString(s.Text)
		fmt.Fprintf(&b, "\n(%s, under %q)\n", s.Anchor(), s.Group)
		if len(s.Clauses) > 0 {
			b.WriteString("\nClauses:\n")
			tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  CLAUSE\tHELD ON\tCHECKED BY\tBROKEN BY")
			for _, c := range s.Clauses {
				spec, _ := conformance.ClauseByID(c.ID)
				checks, mutants := strings.Join(spec.Checks, ", "), strings.Join(spec.Mutants, ", ")
				if spec.Undriven != "" {
					mutants = "(cannot be driven: see abicheck explain " + c.ID + ")"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.ID, spec.HeldOnText(), orNone(checks), orNone(mutants))
			}
			tw.Flush()
		}
		texts = append(texts, b.String())
	}
	fmt.Fprint(stdout, strings.Join(texts, "\n"))
	return exitOK
}

// explainClause renders one clause: its words, where it stands, and what
// the clause table binds to it.
func explainClause(c docs.Clause) string {
	spec, _ := conformance.ClauseByID(c.ID)
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
		if line != "" && len(line)+1+len(w) > width {
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
