package suite

import (
	"strings"

	"github.com/simabi/simabi/conformance/model"
)

// Mutation testing (F-4): a mutant breaks exactly one rule, and the checker
// kills it when it reports a rule of the same group broken. A failure
// elsewhere (a crash under another group's rule, a knock-on failure) shows
// that something differs but does not prove the checker understood what.

// RuleGroup is the group of a rule ID: "V" for "V-IMG", "E" for
// "E-LAUNCH-ASYNC".
func RuleGroup(rule string) string {
	g, _, _ := strings.Cut(rule, "-")
	return g
}

// Kill is how a run judged one mutant.
type Kill struct {
	Killed bool
	Case   string // the first case that reported a rule of the group broken
	Rule   string // that rule
	How    model.Verdict
	// Elsewhere lists broken rules outside the group ("K-4 fail"), which do
	// not count.
	Elsewhere []string
}

// KillOf judges cases against a mutant breaking rule: killed when some case
// reported a rule of rule's group (RuleGroup) failed, crashed or hung.
func KillOf(cases []CaseOutcome, rule string) Kill {
	group := RuleGroup(rule)
	var k Kill
	seen := map[string]bool{}
	for _, c := range cases {
		if !c.Verdict.Bad() {
			continue
		}
		for _, r := range c.Broken {
			name := r.String()
			if RuleGroup(name) == group {
				// The first killing case counts; within it the mutant's own
				// rule is named when it is among the broken ones.
				if !k.Killed || (k.Case == c.Name && name == rule) {
					k.Killed, k.Case, k.Rule, k.How = true, c.Name, name, c.Verdict
				}
				continue
			}
			if s := name + " " + c.Verdict.String(); !seen[s] {
				seen[s] = true
				k.Elsewhere = append(k.Elsewhere, s)
			}
		}
	}
	return k
}

// StopAtKill is a Run.Stop that ends a run at the first case killing a
// mutant that breaks rule.
func StopAtKill(rule string) func(CaseOutcome) bool {
	return func(c CaseOutcome) bool { return KillOf([]CaseOutcome{c}, rule).Killed }
}
