package tests

import (
	"slices"
	"strings"
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/sim/emit"
)

// recordedMutantReasons are the emitted mutants whose directed checks,
// recorded, cannot show the mutant in the trace, and why. Every other
// mutant is flagged by the live model under a rule of its group in one of
// its claiming checks run through the recorder, and -check-trace flags
// every rule the live model flagged there.
var recordedMutantReasons = map[string]string{
	"finalize-resets-device": "D-1 is judged from the ACL calls a runtime makes (the fake ACL's counters); " +
		"the recorder records the runtime's entries, not the ACL calls the runtime makes",
	"launch-waits": "X-2's waiting is a matter of time (a launch that takes half the hold waited): a trace's sequence " +
		"numbers order the calls but carry no time, and a launch that overlapped the end of a prepare and succeeded " +
		"may have entered just after the prepare released the gate",
	"thread-key-leak":  "U-1: its check unloads the runtime, and the mutant then crashes the process; the live check runs in a child process",
	"late-thread-leak": "U-1: its check unloads the runtime, and the mutant then crashes the process; the live check runs in a child process",
	"refusal-latches": "only a refusal probe kills it (a call after the refusal that finds the context latched); " +
		"no directed check's script makes one, so the live model does not flag it there either",
}

// liveOnly are rules the live model judges from what a trace does not
// hold: M-7's directions (the committed memory before a call), D-1 (the
// ACL calls a runtime makes). The trace checker need not flag them where
// the live model did.
var liveOnly = []string{"M-7", "D-1"}

// The mutant half of the differential net (issue "Record anything, read
// everything"): each emitted mutant's directed checks (the catalogue's
// checks that claim it) run live through the recorder over the mutant; the
// trace checker must flag the mutant's rule where the live model did.
func TestRecordedTraceFlagsEachMutant(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	cat := conformance.Catalogue()
	for _, mu := range emit.Mutants() {
		t.Run(mu.Name, func(t *testing.T) {
			a, err := buildEmitted(emit.Config{Profile: emit.ProfileTMR, Mutant: mu.Name})
			if isNoCompiler(err) {
				t.Skip("no C compiler")
			}
			if err != nil {
				t.Fatal(err)
			}
			e, err := newEmittedRuntime(a)
			if err != nil {
				t.Fatal(err)
			}
			var kills, flaggedAt []string
			for _, c := range cat {
				if !slices.Contains(c.Kills, mu.Name) || !c.AppliesTo(conformance.ProfileTMR) || c.Needs.Has(conformance.CapUnload) {
					continue
				}
				rr, err := runRecorded(e, c.Ops(), t.TempDir())
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				live := liveFailedRules(rr.live)
				got := failedRules(rr.check.Report())
				t.Logf("%s: live %v, trace %v", c.Name, live, got)
				if slices.Contains(got, mu.Rule) {
					flaggedAt = append(flaggedAt, c.Name)
				}
				if slices.ContainsFunc(live, func(r string) bool { return groupOf(r) == mu.Group || r == mu.Rule }) {
					kills = append(kills, c.Name)
				}
				var missed []string
				for _, r := range live {
					if !slices.Contains(got, r) && !(slices.Contains(liveOnly, r) && r != mu.Rule) {
						missed = append(missed, r)
					}
				}
				if _, excused := recordedMutantReasons[mu.Name]; len(missed) > 0 && !excused {
					t.Errorf("%s: the live model flagged %v, the trace checker %v: it missed %v", c.Name, live, got, missed)
				}
			}
			if why, excused := recordedMutantReasons[mu.Name]; excused {
				if len(flaggedAt) > 0 {
					t.Errorf("listed as not shown (%s), but the trace checker flagged %s in %v", why, mu.Rule, flaggedAt)
				}
				t.Logf("not required: %s", why)
			} else if len(kills) == 0 {
				t.Errorf("no claiming check flags a rule of group %s live through the recorder", mu.Group)
			}
		})
	}
}

// groupOf is a rule's group: the letters before its first '-' ("E-LAUNCH" → "E").
func groupOf(rule string) string {
	g, _, _ := strings.Cut(rule, "-")
	return g
}
