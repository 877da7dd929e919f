package suite

import (
	"strings"
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/target/targettest"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// The catalogue's applicability is what the checker does: on a build of
// profile p no rule that does not apply to p is passed, failed or warned,
// every rule that applies is exercised (passes) unless the engine cannot
// drive it, and a rule that does not apply is reported skip with the
// contract's anchor.
func TestRuleApplicabilityIsWhatTheCheckerHoldsBuildsTo(t *testing.T) {
	legacy := model.ProfileLegacy
	cases := []struct {
		name string
		p    model.Profile
		f    func(t *testing.T) conformance.Factory
		opt  conformance.Options
	}{
		{"tmr", model.ProfileTMR, func(t *testing.T) conformance.Factory {
			return targettest.EmittedFactory(t, emittest.Build(t, emit.Config{Profile: emit.ProfileTMR}))
		}, conformance.Options{}},
		{"refusing", model.ProfileRefusing, func(t *testing.T) conformance.Factory {
			return targettest.EmittedFactory(t, emittest.Build(t, emit.Config{Profile: emit.ProfileRefusing}))
		}, conformance.Options{}},
		{"legacy", model.ProfileLegacy, func(t *testing.T) conformance.Factory {
			return targettest.EmittedFactory(t, emittest.Build(t, emit.Config{Profile: emit.ProfileLegacy}))
		}, conformance.Options{Profile: &legacy}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Conform(tc.f(t), Options{Run: Run{Name: tc.name, Cases: Cases{Random: 4, RandomOps: 150, Seed: 5}}, Options: tc.opt})
			if err != nil {
				t.Fatal(err)
			}
			for _, rr := range rep.Rules {
				r, _ := model.RuleByName(rr.Rule)
				_, undrivable := model.NotChecked(r)
				switch {
				case !r.Applies(tc.p) && rr.Passes+rr.Fails+rr.Warns > 0:
					t.Errorf("%s does not apply to %s builds, but the checker held one to it: %d pass, %d fail, %d warn",
						rr.Rule, tc.p, rr.Passes, rr.Fails, rr.Warns)
				case !r.Applies(tc.p) && rr.Detail != "does not apply to a "+tc.p.String()+" build ("+catalogue.RuleAnchor(r)+")":
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
