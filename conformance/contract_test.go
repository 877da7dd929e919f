package conformance

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/docs"
	"github.com/simabi/simabi/sim/emit"
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
	for _, e := range RuleCatalogue() {
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

// The catalogue's applicability is what the checker does: on a build of
// profile p no rule that does not apply to p is passed, failed or warned,
// every rule that applies is exercised (passes) unless the engine cannot
// drive it, and a rule that does not apply is reported skip with the
// contract's anchor.
func TestRuleApplicabilityIsWhatTheCheckerHoldsBuildsTo(t *testing.T) {
	legacy := ProfileLegacy
	cases := []struct {
		name string
		p    Profile
		f    func(t *testing.T) Factory
		opt  Options
	}{
		{"tmr", ProfileTMR, func(t *testing.T) Factory {
			return emittedFactory(t, emittedBuild(t, emit.Config{Profile: emit.ProfileTMR}))
		}, Options{}},
		{"refusing", ProfileRefusing, func(t *testing.T) Factory {
			return emittedFactory(t, emittedBuild(t, emit.Config{Profile: emit.ProfileRefusing}))
		}, Options{}},
		{"legacy", ProfileLegacy, func(t *testing.T) Factory {
			return emittedFactory(t, emittedBuild(t, emit.Config{Profile: emit.ProfileLegacy}))
		}, Options{Profile: &legacy}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Conform(tc.f(t), SuiteOptions{Name: tc.name, Options: tc.opt, Random: 4, RandomOps: 150, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			for _, rr := range rep.Rules {
				r, _ := RuleByName(rr.Rule)
				_, undrivable := model.NotChecked(r)
				switch {
				case !r.Applies(tc.p) && rr.Passes+rr.Fails+rr.Warns > 0:
					t.Errorf("%s does not apply to %s builds, but the checker held one to it: %d pass, %d fail, %d warn",
						rr.Rule, tc.p, rr.Passes, rr.Fails, rr.Warns)
				case !r.Applies(tc.p) && rr.Detail != "does not apply to a "+tc.p.String()+" build ("+ruleAnchor(r)+")":
					t.Errorf("%s on %s: detail %q, want the does-not-apply reason with the anchor", rr.Rule, tc.p, rr.Detail)
				case r.Applies(tc.p) && !undrivable && rr.Passes == 0:
					t.Errorf("%s applies to %s builds, but nothing passed it: %s %q", rr.Rule, tc.p, rr.Verdict, rr.Detail)
				}
				if rr.Anchor != "docs/contract.md#"+strings.ToLower(rr.Rule) {
					t.Errorf("%s: anchor %q", rr.Rule, rr.Anchor)
				}
			}
		})
	}
}
