package catalogue

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/simabi/simabi/sim/emit"
)

// TestCatalogueNamesEveryMutant: every mutant of docs/semantics.md §13
// (F-4) is claimed by at least one directed check, and §13 lists each with
// the clause it breaks, row for row.
func TestCatalogueNamesEveryMutant(t *testing.T) {
	for name := range Mutants() {
		if len(ChecksClaiming(name)) == 0 {
			t.Errorf("mutant %s (%s): no directed check claims it", name, Mutants()[name])
		}
	}
	doc, err := os.ReadFile("../../docs/semantics.md")
	if err != nil {
		t.Fatal(err)
	}
	if *updateDocs {
		doc = withMutantTable(t, doc)
		if err := os.WriteFile("../../docs/semantics.md", doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, table, _ := strings.Cut(string(doc), "## 13. Mutants")
	rows := regexp.MustCompile(`(?m)^\| ([a-z0-9-]+) \| ([A-Z]+(?:-[A-Z0-9]+)+\.[0-9]+) \|`).FindAllStringSubmatch(table, -1)
	documented := map[string]string{}
	for _, r := range rows {
		documented[r[1]] = r[2]
	}
	for name := range Mutants() {
		c, _ := ClauseOfMutant(name)
		if documented[name] != c.ID {
			t.Errorf("mutant %s (%s): docs/semantics.md §13 says %q", name, c.ID, documented[name])
		}
	}
	if len(documented) != len(Mutants()) {
		t.Errorf("docs/semantics.md §13 lists %d mutants, the clause table %d", len(documented), len(Mutants()))
	}
}

// withMutantTable is docs/semantics.md with §13's table replaced by the
// mutants of sim/emit, in their order (go test -update-docs).
func withMutantTable(t *testing.T, doc []byte) []byte {
	const head = "| Mutant | Clause | What it does |\n|---|---|---|\n"
	text := string(doc)
	i := strings.Index(text, "## 13. Mutants")
	if i < 0 {
		t.Fatal("docs/semantics.md has no §13")
	}
	start := i + strings.Index(text[i:], "\n| Mutant |") + 1
	end := start
	for end < len(text) {
		nl := strings.IndexByte(text[end:], '\n')
		if nl < 0 || !strings.HasPrefix(text[end:], "|") {
			break
		}
		end += nl + 1
	}
	var b strings.Builder
	b.WriteString(head)
	for _, m := range emit.Mutants() {
		d := m.Description
		if m.Profile != emit.ProfileTMR {
			d += " (a " + string(m.Profile) + " build)"
		}
		if m.Isolate {
			d += " (killed only in a child process)"
		}
		b.WriteString("| " + m.Name + " | " + m.Clause + " | " + strings.ReplaceAll(d, "|", "\\|") + " |\n")
	}
	return []byte(text[:start] + b.String() + text[end:])
}
