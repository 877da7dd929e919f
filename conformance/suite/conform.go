package suite

import (
	"github.com/simabi/simabi/conformance/model"

	"strings"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/report"
)

// Options configure Conform (a Run for targets in this process).
type Options struct {
	Name      string              // the target's name in the report
	Options   conformance.Options // runner options
	Checks    []conformance.Check // directed checks (nil: Catalogue())
	SkipSlow  bool                // leave out checks marked Slow
	Random    int                 // random sequences to run
	RandomOps int                 // ops per random sequence (default 200)
	Seed      uint64
	HoldMs    int32         // X-2 hold ops in random sequences (0: none)
	Probes    bool          // probe that every refusal of a directed check left no trace
	NoShrink  bool          // report failing sequences unshrunk
	Timeout   time.Duration // per run (default 60 s); a run that exceeds it is a hang
	// Stop, when set, ends the run after the first case it returns true
	// for (Run.Stop).
	Stop func(CaseOutcome) bool
}

// failingRules lists the rules of a run's failures, in the order found.
func failingRules(res *conformance.Result) []model.Rule {
	if res == nil {
		return nil
	}
	var rs []model.Rule
	for _, f := range res.Findings {
		if f.Verdict == model.Fail {
			rs = append(rs, f.Rule)
		}
	}
	return rs
}

// Conform runs the directed catalogue and random sequences against targets
// from f, in this process, and reports per rule. It asks one target from f
// for the capabilities and the profile (supported(NULL), unless
// o.Options.Profile gives it) and runs ConformWith over a FactoryExecutor: a
// panic of a run is its crash, a run longer than o.Timeout its hang.
func Conform(f conformance.Factory, o Options) (*report.Report, error) {
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	t, release, err := f()
	if err != nil {
		return nil, err
	}
	probe := conformance.NewRunner(t, o.Options)
	caps := probe.Caps()
	profile := model.ProfileTMR
	if o.Options.Profile != nil {
		profile = *o.Options.Profile
	} else {
		probe.Do(func() {
			if t.Runtime().KernelModeSupported(0) == 0 {
				profile = model.ProfileRefusing
			}
		})
	}
	probe.Close()
	if release != nil {
		release()
	}
	res := ConformWith(conformance.FactoryExecutor{Factory: f, Options: o.Options, Timeout: o.Timeout}, Run{
		Name: o.Name, SkipSlow: o.SkipSlow, Stop: o.Stop, Cases: Cases{Profile: profile, Caps: caps, Checks: o.Checks, Random: o.Random,
			RandomOps: o.RandomOps, Seed: o.Seed, HoldMs: o.HoldMs, NoShrink: o.NoShrink, Probes: o.Probes}})
	return res.Report, nil
}

func capsText(c conformance.Caps) string {
	var parts []string
	for _, x := range []struct {
		c    conformance.Caps
		name string
	}{{conformance.CapSetDevice, "set-device"}, {conformance.CapClearDevice, "clear-device"}, {conformance.CapGetDevice, "current-device"},
		{conformance.CapSync, "sync-stream"}, {conformance.CapInject, "simabi_inject"}, {conformance.CapCounters, "ACL counters"},
		{conformance.CapDriven, "driven stream completion (hooks)"}, {conformance.CapUnload, "unloading a private copy"},
		{conformance.CapGate, "simabi_hold_gate"}, {conformance.CapReset, "simabi_reset"}, {conformance.CapComm, "the simulated comm backend"},
		{conformance.CapPeek, "reading a CommContext (hooks)"}, {conformance.CapCommTimeout, "simabi_comm_timeout_ms"}} {
		if c&x.c != 0 {
			parts = append(parts, x.name)
		}
	}
	return strings.Join(parts, ", ")
}
