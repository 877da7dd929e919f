package catalogue

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/conformance/model"
)

var updateCatalogue = flag.Bool("update-catalogue", false, "rewrite testdata/catalogue.golden from the loaded catalogue and clause table")

// dumpCatalogue is every fact of the directed checks and the clause table
// that a run, abicheck explain or abicheck mutants reads, one per line.
func dumpCatalogue() string {
	var b strings.Builder
	for _, c := range Checks() {
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
	ms := make([]string, 0, len(Mutants()))
	for m, r := range Mutants() {
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

// A malformed check file is refused with one line naming the file, the
// line and what is wrong; the op parser's errors name the file's line.
func TestCatalogueFileErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"op before a check", "create c0\n", `x.ops:1: "create c0" is outside a check (a check starts at "# check: NAME")`},
		{"unknown header", "# check: a\n# rule: S-1\ncreate c0\n", `x.ops:2: check a: unknown header "rule" (rules, profiles, needs, slow, judges)`},
		{"unknown rule", "# check: a\n# rules: S-9\ncreate c0\n", `x.ops:2: check a: no rule "S-9"`},
		{"unknown profile", "# check: a\n# rules: S-1\n# profiles: tmr fast\ncreate c0\n", `x.ops:3: check a: no profile "fast"`},
		{"unknown capability", "# check: a\n# rules: S-1\n# needs: inject fly\ncreate c0\n", `x.ops:3: check a: no capability "fly"`},
		{"judges nothing", "# check: a\n# rules: S-1\n# judges:  \ncreate c0\n", `x.ops:3: check a: judges names no clause`},
		{"no rules", "# check: a\ncreate c0\n# check: b\n", `x.ops:1: check a names no rules`},
		{"shared twice", "# check: a\n# rules: S-1\ncreate c0 # shared: x\ncreate c0 # shared: y\n", `x.ops:4: check a: a second or empty shared note for "create c0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseChecks("x.ops", tc.text, map[string]*judged{})
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
	cs, err := parseChecks("x.ops", "# check: a\n# rules: S-1\n#\n# why\ncreate c0\ndestroy c7 c8\n\n# check: b\n# rules: S-1\n\n", map[string]*judged{})
	if err != nil || len(cs) != 2 {
		t.Fatalf("%v, %d checks", err, len(cs))
	}
	for i, want := range []string{
		`x.ops: check a: line 6: conformance: bad op: destroy: want 1 positional argument(s), have 2`,
		`x.ops:9: check b has no ops`,
	} {
		if err := cs[i].parse(); err == nil || err.Error() != want {
			t.Errorf("check %s: got %v, want %s", cs[i].Name, err, want)
		}
	}
}

// A clause's checks are those naming its mutants, then the others, each in
// catalogue order; a mutant is named once, and a clause ID names a rule.
func TestCatalogueJudgesBindClauses(t *testing.T) {
	j := map[string]*judged{}
	text := "# check: a\n# rules: S-1\n# judges: S-1.1\ncreate c0\n# check: b\n# rules: S-1\n# judges: S-1.1 m1 m2\ncreate c0\n"
	if _, err := parseChecks("x.ops", text, j); err != nil {
		t.Fatal(err)
	}
	cl, err := clauseTable(j)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(cl, func(c ClauseSpec) bool { return c.ID == "S-1.1" })
	if d := cmp.Diff(ClauseSpec{ID: "S-1.1", Checks: []string{"b", "a"}, Mutants: []string{"m1", "m2"}}, cl[i]); d != "" {
		t.Errorf("S-1.1 (-want +got):\n%s", d)
	}
	for _, tc := range []struct{ text, want string }{
		{"# check: a\n# rules: S-1\n# judges: S-1.1 m\n# judges: S-1.2 m\ncreate c0\n", "checks: mutant m is named for S-1.1 and S-1.2"},
		{"# check: a\n# rules: S-1\n# judges: S-99 m\ncreate c0\n", `checks: "S-99" is no clause ID of a rule (RULE.N)`},
	} {
		j := map[string]*judged{}
		if _, err := parseChecks("x.ops", tc.text, j); err != nil {
			t.Fatal(err)
		}
		if _, err := clauseTable(j); err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %s", err, tc.want)
		}
	}
}

// Mutants maps each emitted mutant to the rule it breaks.
func Mutants() map[string]model.Rule {
	out := map[string]model.Rule{}
	for _, c := range loaded().clauses {
		for _, m := range c.Mutants {
			out[m] = c.Rule()
		}
	}
	return out
}
