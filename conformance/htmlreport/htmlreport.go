// Package htmlreport renders abicheck's -html report: one self-contained
// HTML page (no script, no link out of the file; the plots are PNG data
// URIs drawn by gonum/plot) of a check or -check-trace (verdicts per rule,
// the failures with their repro scripts), a diff (the changes in their
// groups, the speed comparison plotted against its noise band) or a
// mutants run (the kill table and the clause-coverage matrix). Every rule
// and clause the page names links to its text from docs/contract.md,
// embedded at the end of the page (catalogue.Explain's text, what
// abicheck explain prints).
package htmlreport

import (
	_ "embed" // the page's template
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/simabi/simabi/conformance/session"
)

// Pages renders the reports; the zero value will do.
type Pages struct {
	// Command is the command line the page says made it ("" leaves it out).
	Command string
	// Now is the time the page says it was made at; nil: time.Now.
	Now func() time.Time
}

var _ session.Pages = Pages{}

//go:embed page.html.tmpl
var pageText string

var pageTemplate = template.Must(template.New("page").Parse(pageText))

// page is what the template renders: a headline, the one report it is
// (Check, Diff or Mutants), and the contract's rules it names.
type page struct {
	Title    string
	Command  string
	Made     string
	Headline string
	Bad      bool // the headline is a finding (a failure, a change, a survivor)
	Nav      []navLink
	Check    []targetView
	Diff     *diffView
	Mutants  *mutantsView
	Contract []contractRule
}

type navLink struct{ Href, Text string }

// write renders pg with the contract's rules refs collected.
func (p Pages) write(w io.Writer, pg *page, rs *refs) error {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	pg.Command, pg.Made = p.Command, now().Format("2006-01-02 15:04:05 MST")
	contract, err := rs.contract()
	if err != nil {
		return err
	}
	pg.Contract = contract
	if len(contract) > 0 {
		pg.Nav = append(pg.Nav, navLink{"#contract", "Contract text"})
	}
	return pageTemplate.Execute(w, pg)
}

// verdictClass is the CSS class of a verdict's cell ("v-fail").
func verdictClass(v string) string {
	v, _, _ = strings.Cut(v, ":")
	return "v-" + strings.ReplaceAll(strings.TrimSpace(v), " ", "-")
}
