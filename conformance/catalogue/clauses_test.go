package catalogue

import (
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/docs"
	"github.com/simabi/simabi/sim/emit"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the generated parts of docs/contract.md (the *Checked.* lines) and docs/semantics.md §13 from the clause table")

// The clause table and docs/contract.md list the same clauses in the same
// order: a clause marked in the contract and missing from the table, or the
// other way round, fails with its ID.
func TestClauseTableMatchesContract(t *testing.T) {
	doc, err := docs.Clauses()
	if err != nil {
		t.Fatal(err)
	}
	var fromDoc, fromTable []string
	for _, c := range doc {
		fromDoc = append(fromDoc, c.ID)
	}
	for _, c := range Clauses() {
		fromTable = append(fromTable, c.ID)
	}
	for _, id := range fromDoc {
		if !slices.Contains(fromTable, id) {
			t.Errorf("clause %s is marked in docs/contract.md but no check judges it (conformance/catalogue/checks) and conformance/catalogue/clauses.go has no note of it", id)
		}
	}
	for _, id := range fromTable {
		if !slices.Contains(fromDoc, id) {
			t.Errorf("clause %s is judged in conformance/catalogue/checks or noted in conformance/catalogue/clauses.go but not marked in docs/contract.md", id)
		}
	}
	if d := cmp.Diff(fromDoc, fromTable); d != "" && !t.Failed() {
		t.Errorf("docs/contract.md (-) and the clause table (+) list the clauses in another order:\n%s", d)
	}
	// Every runtime rule has clauses; consumer and emitter rules have none
	// (their packages' tests hold them).
	have := map[string]bool{}
	for _, c := range doc {
		have[c.Rule] = true
	}
	for _, e := range Rules() {
		if (e.Scope == ScopeRuntime) != have[e.ID] {
			t.Errorf("rule %s (%s): has clauses %v", e.ID, e.AppliesTo(), have[e.ID])
		}
	}
}

// Each clause of the table is either driven (a directed check that judges
// it on some profile held to it, and a mutant that breaks it) or says why
// no call can drive it; a profile held to a clause and not driven there
// says why; every mutant belongs to exactly one clause, which a check that
// runs on the mutant's profile names.
func TestClauseTableIsConsistent(t *testing.T) {
	owner := map[string]string{}
	for _, c := range Clauses() {
		r := c.Rule()
		if r == model.RuleNone {
			t.Errorf("%s: no rule %s", c.ID, c.RuleID())
			continue
		}
		if c.Profiles()&^model.RuleProfiles(r) != 0 {
			t.Errorf("%s: held on a profile its rule %s does not apply to", c.ID, r)
		}
		for _, name := range c.Checks {
			if _, ok := checkByName(name); !ok {
				t.Errorf("%s: no directed check %q in conformance/catalogue/checks", c.ID, name)
			}
		}
		driven := false
		gap := false
		for _, p := range profileOrder {
			if !c.HeldOn(p) {
				continue
			}
			if len(c.ChecksOn(p)) > 0 {
				driven = true
			} else {
				gap = true
			}
		}
		switch {
		case c.Undriven != "" && len(c.Mutants) > 0:
			t.Errorf("%s: cannot be driven (%s), yet mutants %v break it", c.ID, c.Undriven, c.Mutants)
		case c.Undriven == "" && (!driven || len(c.Mutants) == 0):
			t.Errorf("%s: no check drives it (%v) or no mutant breaks it (%v), and it gives no reason", c.ID, c.Checks, c.Mutants)
		case c.Undriven == "" && gap != (c.Gaps != ""):
			t.Errorf("%s: a held profile without a check: %v; the reason given: %q", c.ID, gap, c.Gaps)
		}
		for _, m := range c.Mutants {
			if o, dup := owner[m]; dup {
				t.Errorf("mutant %s breaks %s and %s", m, o, c.ID)
			}
			owner[m] = c.ID
		}
	}
	ms := emit.Mutants()
	for _, m := range ms {
		c, ok := ClauseOfMutant(m.Name)
		switch {
		case !ok:
			t.Errorf("emit mutant %s (%s) is in no clause of the table", m.Name, m.Clause)
		case c.ID != m.Clause:
			t.Errorf("emit mutant %s breaks %s, the table says %s", m.Name, m.Clause, c.ID)
		case len(c.ChecksOn(m.Profile)) == 0:
			t.Errorf("mutant %s (%s) is a %s build, and no check of %s runs on one", m.Name, m.Clause, m.Profile, c.ID)
		}
		delete(owner, m.Name)
	}
	for m, id := range owner {
		t.Errorf("the table's mutant %s (%s) is no mutant of sim/emit", m, id)
	}
}

// Every clause ID the contract's text names ("see E-FIN.8") exists.
func TestContractClauseReferencesExist(t *testing.T) {
	ref := regexp.MustCompile(`\b([A-Z]+(?:-[A-Z0-9]+)+)\.([0-9]+)\b`)
	for _, m := range ref.FindAllString(docs.Contract(), -1) {
		if _, ok := ClauseByID(m); !ok {
			if r, _ := model.RuleByName(m[:strings.LastIndexByte(m, '.')]); r != model.RuleNone {
				t.Errorf("docs/contract.md names clause %s, which does not exist", m)
			}
		}
	}
}

// Each runtime rule of docs/contract.md closes with its *Checked.*
// paragraph, which is the clause table's (CoverageLine): it cannot go stale.
// go test ./conformance/catalogue -run TestContractShowsClauseCoverage -update-docs
// rewrites it.
func TestContractShowsClauseCoverage(t *testing.T) {
	text := docs.Contract()
	want := withCoverage(t, text)
	if *updateDocs {
		if want != text {
			if err := os.WriteFile("../../docs/contract.md", []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Log("rewrote docs/contract.md: rebuild to embed it")
		}
		return
	}
	if want != text {
		sections, _ := docs.ParseRules(text)
		for _, s := range sections {
			line := CoverageLine(s.ID)
			if line == "" {
				continue
			}
			if got := checkedParagraph(s.Text); got != line {
				t.Errorf("%s: the contract's *Checked.* paragraph is\n  %q\nthe clause table's is\n  %q", s.ID, got, line)
			}
		}
		t.Error("docs/contract.md's *Checked.* paragraphs are stale: go test ./conformance/catalogue -run TestContractShowsClauseCoverage -update-docs")
	}
}

// checkedParagraph is the *Checked.* paragraph of a section, whitespace
// collapsed.
func checkedParagraph(section string) string {
	i := strings.Index(section, "\n*Checked.*")
	if i < 0 {
		return ""
	}
	p, _, _ := strings.Cut(section[i+1:], "\n\n")
	return strings.Join(strings.Fields(p), " ")
}

// withCoverage is text with each runtime rule's *Checked.* paragraph
// replaced by (or given) the clause table's, wrapped at 100 columns, as
// the section's last paragraph.
func withCoverage(t *testing.T, text string) string {
	lines := strings.Split(text, "\n")
	var out []string
	rule := ""
	flush := func() {
		if rule == "" {
			return
		}
		p := CoverageLine(rule)
		rule = ""
		if p == "" {
			return
		}
		// Drop the trailing blank lines, add the paragraph, restore one.
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
		out = append(out, "")
		out = append(out, wrapWords(p, 100)...)
		out = append(out, "")
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "## ") || strings.HasPrefix(l, "### ") {
			flush()
			if strings.HasPrefix(l, "### ") {
				rule = strings.TrimSpace(strings.TrimPrefix(l, "### "))
			}
		}
		if strings.HasPrefix(l, "*Checked.*") && rule != "" {
			// Skip the old paragraph and the blank line before it.
			for i < len(lines) && lines[i] != "" {
				i++
			}
			for len(out) > 0 && out[len(out)-1] == "" {
				out = out[:len(out)-1]
			}
			out = append(out, "")
			continue
		}
		out = append(out, l)
	}
	flush()
	return strings.Join(out, "\n")
}
