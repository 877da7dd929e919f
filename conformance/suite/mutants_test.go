package suite

import (
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"

	"strings"
	"sync"
	"testing"

	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/conformance/target/targettest"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// checksKilling lists the directed checks that claim to kill mutant name,
// in its clause's order.
func checksKilling(name string) []catalogue.Check { return catalogue.ChecksClaiming(name) }

// killedInGroup reports the first rule of group (RuleGroup) the report
// shows failed, crashed or hung: a kill of a mutant of that group (F-4).
func killedInGroup(rep *report.Report, group string) string {
	for _, rr := range rep.Rules {
		if (rr.Verdict == model.Fail || rr.Verdict == model.Crash || rr.Verdict == model.Hang) && RuleGroup(rr.Rule) == group {
			return rr.Rule
		}
	}
	return ""
}

// TestEmittedMutantsKilled builds every mutant of the emitted runtime (F-4)
// and runs the directed checks that claim it: each must fail, under a rule
// of the mutant's group. Names the rule each mutant breaks (S-1 ...
// E-LAUNCH-ASYNC). A mutant that shows itself only by ending the process
// (emit.Mutant.Isolate) is killed by abicheck mutants, which runs cases in
// child processes (TestMutantsCommand).
func TestEmittedMutantsKilled(t *testing.T) {
	ms := emit.Mutants()
	prebuild(t, ms)
	for _, m := range ms {
		t.Run(m.Name, func(t *testing.T) {
			if m.Isolate {
				t.Skip("needs process isolation: killed by abicheck mutants")
			}
			a := emittest.Build(t, emit.Config{Profile: m.Profile, Mutant: m.Name})
			checks := checksKilling(m.Name)
			// The first killing case ends the run: a mutant that frees a
			// context the rules keep alive is killed before a later check
			// calls the freed handle (which the emitted runtime aborts on).
			rep, err := Conform(targettest.EmittedFactory(t, a), Options{Run: Run{Name: "mutant:" + m.Name, Stop: StopAtKill(m.Rule), Cases: Cases{Checks: checks, NoShrink: true, Probes: true}}})
			if err != nil {
				t.Fatal(err)
			}
			killed := false
			var lines []string
			for _, c := range rep.Checks {
				lines = append(lines, c.Name+": "+c.Verdict.String()+" "+c.Detail)
				if c.Verdict == model.Fail || c.Verdict == model.Crash || c.Verdict == model.Hang {
					killed = true
				}
			}
			switch {
			case !killed:
				t.Errorf("mutant %s (%s) survived its checks:\n  %s", m.Name, m.Clause, strings.Join(lines, "\n  "))
			case killedInGroup(rep, m.Group) == "":
				t.Errorf("mutant %s (%s) failed its checks under no %s rule:\n  %s", m.Name, m.Clause, m.Group, strings.Join(lines, "\n  "))
			case testing.Verbose():
				t.Logf("killed:\n  %s", strings.Join(lines, "\n  "))
			}
		})
	}
}

// prebuild builds the mutants two at a time before the tests run them one
// by one: the compiles are most of a cold run's time, and the build cache
// is content-addressed, so a warm run builds nothing.
func prebuild(t *testing.T, ms []emit.Mutant) {
	t.Helper()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			_, _ = emit.Build(emit.Config{Profile: m.Profile, Mutant: m.Name}, emit.BuildOptions{})
		}()
	}
	wg.Wait()
}

// randomHunt are the mutants TestEmittedMutantsRandom hunts with random
// sequences alone, in this process: the mutants of the first catalogue,
// less those random sequences can meet only with process isolation. Three
// make destroy free a context the rules keep alive (destroy-unfinalized
// directly; latch-cleared-on-fail by unlatching a failed kernel init, which
// destroy may then free; prepared-run-not-outstanding by letting destroy
// through while a run is prepared): the next op on it is a call with a
// freed handle, which the emitted runtime aborts on (F-3) before the model
// can see anything. The hunt over every mutant, each in child processes,
// is abicheck mutants -random-only (docs/performance.md).
var randomHunt = []string{
	"prep-keeps-out", "prep-misaligned-ok", "launch-id-8192-ok", "img-trailing-ok", "img-dup-funcid-ok", "init-gen0-ok",
	"span-half-ok", "cfg-pmu-ok", "latch-before-cfg", "program-over-kernel", "poison-ignored", "closed-accepts-dispatch",
	"close-failure-swallowed", "reinit-after-close", "launch-before-prepare-nr", "finalize-null-ia", "prog-args-first",
	"supported-after-init-0", "claim-kept-on-fail", "ids-from-one", "failure-consumes-id", "dedup", "count-8191",
	"no-byte-budget", "committed-after-finalize", "device-unchecked", "finalize-resets-device", "fatal-resets",
	"launch-waits", "stream-switch-ok", "async-poisons", "device-band-code", "undocumented-code", "null-prepare-internal",
	"program-teardown-swallowed", "run-null-config-ok", "refusal-latches",
}

// TestEmittedMutantsRandom runs random sequences (no directed checks)
// against the mutants of randomHunt and reports which they detect under a
// rule of the mutant's group. The directed catalogue must kill every mutant
// (TestEmittedMutantsKilled); random sequences must kill most of these on
// their own, and these always: the S mutants (S-1, S-2, S-3), L-5's
// latch-before-cfg, M-5's no-byte-budget and D-2's device-unchecked, whose
// failures the model attributes to their rules (not only to E-LAUNCH,
// V-PREP-2, E-KINIT or E-PREP).
func TestEmittedMutantsRandom(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("the random mutant hunt is long")
	}
	seqs, ops := 25, 300
	var survivors []string
	killed := 0
	for _, name := range randomHunt {
		m, ok := emit.LookupMutant(name)
		if !ok {
			t.Fatalf("no mutant %s", name)
		}
		a := emittest.Build(t, emit.Config{Profile: m.Profile, Mutant: m.Name})
		rep, err := Conform(targettest.EmittedFactory(t, a), Options{Run: Run{Name: m.Name, Cases: Cases{Checks: []catalogue.Check{}, Random: seqs, RandomOps: ops, Seed: 5150, HoldMs: 10, NoShrink: true}}})
		if err != nil {
			t.Fatal(err)
		}
		if killedInGroup(rep, m.Group) != "" {
			killed++
			continue
		}
		survivors = append(survivors, m.Name+" ("+m.Rule+")")
		switch m.Name {
		case "device-band-code", "undocumented-code", "null-prepare-internal", "latch-before-cfg", "no-byte-budget", "device-unchecked":
			t.Errorf("random sequences did not kill %s under a %s rule", m.Name, m.Group)
		}
	}
	t.Logf("random sequences killed %d mutants; survivors: %s", killed, strings.Join(survivors, ", "))
	if len(survivors) > 4 {
		t.Errorf("random sequences let %d mutants survive: %s", len(survivors), strings.Join(survivors, ", "))
	}
}
