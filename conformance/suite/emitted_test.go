package suite

import (
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"

	"testing"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target/targettest"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// TestEmittedCatalogue runs the directed checks and random sequences against
// the emitted runtime (tmr and refusing) through onboard: no failure.
func TestEmittedCatalogue(t *testing.T) {
	for _, p := range []emit.Profile{emit.ProfileTMR, emit.ProfileRefusing} {
		t.Run(string(p), func(t *testing.T) {
			a := emittest.Build(t, emit.Config{Profile: p})
			n := 20
			if testing.Short() {
				n = 4
			}
			rep, err := Conform(targettest.EmittedFactory(t, a), Options{Run: Run{Name: "emitted:" + string(p), SkipSlow: testing.Short(), Cases: Cases{Random: n, RandomOps: 300, Seed: 77}}})
			if err != nil {
				t.Fatal(err)
			}
			reportFailures(t, rep)
			if testing.Verbose() {
				t.Logf("\n%+v", rep.Rules)
			}
		})
	}
}

// TestEmittedLegacy checks a legacy build (program-mode rules only, legacy
// codes: E-PINIT, E-ACL, E-PROG, S-3, V-CONTRACT).
func TestEmittedLegacy(t *testing.T) {
	a := emittest.Build(t, emit.Config{Profile: emit.ProfileLegacy})
	p := model.ProfileLegacy
	rep, err := Conform(targettest.EmittedFactory(t, a), Options{Run: Run{Name: "emitted:legacy", Cases: Cases{Random: 10, RandomOps: 200, Seed: 9}}, Options: conformance.Options{Profile: &p}})
	if err != nil {
		t.Fatal(err)
	}
	reportFailures(t, rep)
	passed := 0
	for _, rr := range rep.Rules {
		if rr.Verdict == model.Pass {
			passed++
		}
	}
	if passed < 5 {
		t.Errorf("only %d rules passed on the legacy build:\n%+v", passed, rep.Rules)
	}
	if testing.Verbose() {
		t.Logf("\n%+v", rep.Rules)
	}
}

// TestEmittedHangIsReported: a runtime whose launch never returns yields a
// hang verdict for the rules of the check that met it (the CLI's
// pass|fail|warn|skip|crash|hang), and the run is abandoned, not waited for.
func TestEmittedHangIsReported(t *testing.T) {
	if testing.Short() {
		t.Skip("abandons a thread blocked in C")
	}
	a := emittest.Build(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Hang: []string{"simpler_kernel_mode_launch"}}})
	var checks []catalogue.Check
	for _, c := range catalogue.Checks() {
		if c.Name == "v-launch/arguments" || c.Name == "v-prep-2/arguments" {
			checks = append(checks, c)
		}
	}
	rep, err := Conform(targettest.EmittedFactory(t, a), Options{Run: Run{Name: "hang", Cases: Cases{Checks: checks, NoShrink: true}}, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]model.Verdict{}
	for _, c := range rep.Checks {
		got[c.Name] = c.Verdict
	}
	if got["v-launch/arguments"] != model.Hang || got["v-prep-2/arguments"] != model.Pass {
		t.Fatalf("checks %v, want v-launch hung and v-prep-2 passed", got)
	}
	if rep.Verdict() != model.Hang {
		t.Fatalf("report verdict %v, want hang:\n%+v", rep.Verdict(), rep.Rules)
	}
}
