package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/simabi/simabi/conformance/catalogue"
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
	rows, err := catalogue.RuleRows()
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
		text, err := catalogue.Explain(id)
		if err != nil {
			fmt.Fprintln(stderr, "abicheck explain: "+err.Error())
			return exitUsage
		}
		texts = append(texts, text)
	}
	fmt.Fprint(stdout, strings.Join(texts, "\n"))
	return exitOK
}
