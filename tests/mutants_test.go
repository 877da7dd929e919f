package tests

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"strings"
	"testing"

	"github.com/simabi/simabi/sim/emit"
)

// mutantSample is one mutant per rule group (docs/semantics.md §13, F-4):
// the random state machine alone — no directed check — must find each. The
// complete kill table is `abicheck mutants` and
// conformance.TestEmittedMutantsKilled.
//
// Left out: destroy-unfinalized (E-DESTROY) and latch-cleared-on-fail (L-3).
// Both make destroy free a context the rules keep alive, and the next call
// on that handle aborts the emitted runtime (F-3) before the model sees
// anything; they need a child process per run (the CLI's crash isolation),
// and their groups are covered here by other mutants.
var mutantSample = []string{
	"prep-keeps-out",      // V: V-PREP-1
	"program-over-kernel", // L: L-2
	"poison-ignored",      // K: K-4
	"stream-switch-ok",    // E: E-LAUNCH
	"failure-consumes-id", // M: M-3
	"device-unchecked",    // D: D-2
	"launch-waits",        // X: X-2 (needs the hold ops)
}

// mutantBudget is how many random sequences a mutant may survive.
func mutantBudget() int {
	if *long {
		return 2000
	}
	return 300
}

func ruleGroup(r model.Rule) string {
	g, _, _ := strings.Cut(r.String(), "-")
	return g
}

// huntMutant runs random sequences of the rapid state machine (drawn with
// Generator.Example, seeds 0, 1, ...) on fresh instances of mutant m until
// the model reports a failure that names a rule of m's group, or the budget
// runs out. It returns how many sequences it ran, the kill (ok=false: none)
// and the failures it met first that named a rule of another group (the
// model walks the rules in their order of precedence, so a mutant can first
// show as a later rule's breach: one that skips D-2 and then passes a
// site-4 fault shows as K-4 when the model accepted the fault's code as
// D-2's tolerated "query's own code").
func huntMutant(t *testing.T, e *emittedRuntime, m emit.Mutant, budget int) (n int, kill model.Finding, ops []op.Op, ok bool, other []model.Finding) {
	gen := opsGen(rapidConfig(model.ProfileTMR))
	for i := 0; i < budget; i++ {
		ops := gen.Example(i)
		res, err := runChecked(e.open, ops)
		if err != nil {
			t.Fatal(err)
		}
		if f, bad := firstFailure(res); bad {
			if ruleGroup(f.Rule) == m.Group {
				return i + 1, f, ops, true, other
			}
			other = append(other, f)
		}
	}
	return budget, model.Finding{}, nil, false, other
}

// TestMutantSampleRandom: for one mutant of each rule group (V, L, K, E, M,
// D, X), random op sequences of the rapid state machine find the violation
// within the budget, reported as a failure of a rule of the mutant's group
// (F-4; the mutants break V-PREP-1, L-2, K-4, E-LAUNCH, M-3, D-2, X-2).
// Not parallel: every emitted instance shares the process's one fake ACL,
// whose call counters are the D-1 evidence.
func TestMutantSampleRandom(t *testing.T) {
	budget := mutantBudget()
	for _, name := range mutantSample {
		m, ok := emit.LookupMutant(name)
		if !ok {
			t.Fatalf("unknown mutant %s", name)
		}
		t.Run(name, func(t *testing.T) {
			e := emitted(t, emit.Config{Profile: emit.ProfileTMR, Mutant: name})
			n, f, ops, found, other := huntMutant(t, e, m, budget)
			for _, o := range other {
				t.Logf("killed first as another group's rule: %s", o)
			}
			if !found {
				t.Fatalf("mutant %s (%s) was not reported as a %s-rule failure within %d random sequences (%d other kills)",
					name, m.Rule, m.Group, budget, len(other))
			}
			t.Logf("killed after %d sequence(s), %d ops: %s", n, len(ops), f)
		})
	}
}
