package conformance

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateCatalogue = flag.Bool("update-catalogue", false, "rewrite testdata/catalogue.golden from the loaded catalogue and clause table")

// dumpCatalogue is every fact of the directed checks and the clause table
// that a run, abicheck explain or abicheck mutants reads, one per line.
func dumpCatalogue() string {
	var b strings.Builder
	for _, c := range Catalogue() {
		fmt.Fprintf(&b, "check %s\n  rules %v\n  profiles %v default %v\n  needs %d slow %v\n  kills %v\n", c.Name, c.Rules, c.Profiles, c.Profiles == nil, c.Needs, c.Slow, c.Kills)
		keys := make([]string, 0, len(c.Shared))
		for k := range c.Shared {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "  shared %q: %q\n", k, c.Shared[k])
		}
		for _, o := range c.Ops() {
			fmt.Fprintf(&b, "  op %s\n", o)
		}
	}
	for _, c := range Clauses() {
		fmt.Fprintf(&b, "clause %s held %d checks %q mutants %q undriven %q gaps %q\n", c.ID, c.Held, c.Checks, c.Mutants, c.Undriven, c.Gaps)
	}
	ms := make([]string, 0, len(Mutants))
	for m, r := range Mutants {
		ms = append(ms, m+" "+r.String())
	}
	slices.Sort(ms)
	fmt.Fprintf(&b, "mutants %q\n", ms)
	return b.String()
}

// The directed checks and the clause table load to exactly what they were
// when they were Go literals (testdata/catalogue.golden was written from
// those): every check's name, rules, profiles, needs, slow flag, kills,
// shared notes and ops, and every clause's binding.
func TestCatalogueEqualsGolden(t *testing.T) {
	const path = "testdata/catalogue.golden"
	got := dumpCatalogue()
	if *updateCatalogue {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("catalogue differs from %s (-want +got):\n%s", path, d)
	}
}
