package suite

import (
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"

	"strings"
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim"
)

// simACLTarget drives a fresh sim instance through its ACL only, as a
// checker does on silicon: no hooks, so no injection and no driven stream
// completion.
func simACLTarget(p sim.Profile) *conformance.Basic {
	rt := sim.New(p, sim.Options{})
	return &conformance.Basic{RT: rt, ACLib: rt.ACL()}
}

func simFactory(p sim.Profile, viaACL bool) conformance.Factory {
	return func() (conformance.Target, func(), error) {
		if viaACL {
			return simACLTarget(p), nil, nil
		}
		return target.SimTarget(p), nil, nil
	}
}

func reportFailures(t *testing.T, rep *report.Report) {
	t.Helper()
	for _, rr := range rep.Rules {
		switch rr.Verdict {
		case model.Fail, model.Crash, model.Hang:
			t.Errorf("%s %s: %s\nrepro:\n  %s", rr.Rule, rr.Verdict, rr.Detail, strings.Join(rr.Repro, "\n  "))
		}
	}
	for _, c := range rep.Checks {
		if c.Verdict == model.Fail || c.Verdict == model.Crash || c.Verdict == model.Hang {
			t.Errorf("check %s: %s: %s\nrepro:\n  %s", c.Name, c.Verdict, c.Detail, strings.Join(c.Repro, "\n  "))
		}
	}
}

// TestSimCatalogue runs every directed check against sim in both profiles
// and requires no failure (every rule of docs/contract.md the catalogue names).
func TestSimCatalogue(t *testing.T) {
	for _, c := range []struct {
		p      sim.Profile
		viaACL bool
	}{{sim.TMR, false}, {sim.Refusing, false}, {sim.TMR, true}} {
		name := string(c.p)
		if c.viaACL {
			name += "-acl"
		}
		t.Run(name, func(t *testing.T) {
			rep, err := Conform(simFactory(c.p, c.viaACL), Options{Run: Run{Name: "sim:" + name, SkipSlow: testing.Short() || raceEnabled}})
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

// TestSimRandom runs random sequences against sim (both profiles, hooks and
// ACL-only) and requires no failure.
func TestSimRandom(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 10
	}
	for _, c := range []struct {
		p      sim.Profile
		viaACL bool
	}{{sim.TMR, false}, {sim.Refusing, false}, {sim.TMR, true}} {
		name := string(c.p)
		if c.viaACL {
			name += "-acl"
		}
		t.Run(name, func(t *testing.T) {
			rep, err := Conform(simFactory(c.p, c.viaACL), Options{Run: Run{Name: "sim:" + name, Cases: Cases{Checks: []catalogue.Check{}, Random: n, RandomOps: 400, Seed: 1000}}})
			if err != nil {
				t.Fatal(err)
			}
			reportFailures(t, rep)
		})
	}
}
