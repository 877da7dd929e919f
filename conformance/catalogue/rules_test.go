package catalogue

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/docs"
)

// The checker's rule catalogue and docs/contract.md name the same rules, in
// the same order, applying to the same profiles.
func TestRuleCatalogueMatchesContract(t *testing.T) {
	sections, err := docs.Rules()
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ ID, AppliesTo string }
	var fromDoc, fromCode []row
	for _, s := range sections {
		fromDoc = append(fromDoc, row{s.ID, s.AppliesTo})
	}
	for _, e := range Rules() {
		fromCode = append(fromCode, row{e.ID, e.AppliesTo()})
	}
	if d := cmp.Diff(fromDoc, fromCode); d != "" {
		t.Errorf("docs/contract.md (-) and the checker's catalogue (+) disagree:\n%s", d)
	}
	for _, s := range sections {
		if s.OneLine == "" || strings.HasSuffix(s.OneLine, ".") {
			t.Errorf("%s: one line %q: want one sentence without a closing period", s.ID, s.OneLine)
		}
	}
}

// The contract parser refuses a section that breaks the layout, naming the
// line, so a malformed edit fails the test above with a reason.
func TestParseRulesReportsLayoutErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"no one line", "## S\n### S-1\nApplies to: tmr\n", "contract.md:3: rule S-1: want \"One line: ...\" after the heading"},
		{"no applies", "## S\n### S-1\nOne line: x\ntext\n", "contract.md:4: rule S-1: want \"Applies to: ...\" after the one line"},
		{"short", "### S-1\nOne line: x", "contract.md:1: rule S-1: section ends before its One line / Applies to lines"},
		{"empty", "# nothing\n", "contract.md: no rule sections (### ID)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := docs.ParseRules(tc.text)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("ParseRules: got %v, want %q", err, tc.want)
			}
		})
	}
	rs, err := docs.ParseRules("## S — x\n### S-1\nOne line: a\nApplies to: tmr\n\nbody\n### S-2\nOne line: b\nApplies to: tmr, refusing\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []docs.RuleSection{
		{ID: "S-1", Group: "S — x", OneLine: "a", AppliesTo: "tmr", Text: "### S-1\nOne line: a\nApplies to: tmr\n\nbody\n"},
		{ID: "S-2", Group: "S — x", OneLine: "b", AppliesTo: "tmr, refusing", Text: "### S-2\nOne line: b\nApplies to: tmr, refusing\n"},
	}
	if d := cmp.Diff(want, rs); d != "" {
		t.Errorf("ParseRules (-want +got):\n%s", d)
	}
}
