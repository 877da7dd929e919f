package conformance

import (
	"strings"
	"time"
)

// Factory opens a target for one run: a fresh runtime instance when the
// backend can make one (sim), or the one loaded library (onboard), and a
// function that releases it.
type Factory func() (Target, func(), error)

// SuiteOptions configure Conform (a SuiteRun for targets in this process).
type SuiteOptions struct {
	Name      string  // the target's name in the report
	Options   Options // runner options
	Checks    []Check // directed checks (nil: Catalogue())
	SkipSlow  bool    // leave out checks marked Slow
	Random    int     // random sequences to run
	RandomOps int     // ops per random sequence (default 200)
	Seed      uint64
	HoldMs    int32         // X-2 hold ops in random sequences (0: none)
	Probes    bool          // probe that every refusal of a directed check left no trace
	NoShrink  bool          // report failing sequences unshrunk
	Timeout   time.Duration // per run (default 60 s); a run that exceeds it is a hang
	// Stop, when set, ends the run after the first case it returns true
	// for (SuiteRun.Stop).
	Stop func(CaseOutcome) bool
}

// failingRules lists the rules of a run's failures, in the order found.
func failingRules(res *Result) []Rule {
	if res == nil {
		return nil
	}
	var rs []Rule
	for _, f := range res.Findings {
		if f.Verdict == Fail {
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
func Conform(f Factory, o SuiteOptions) (*Report, error) {
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	t, release, err := f()
	if err != nil {
		return nil, err
	}
	probe := NewRunner(t, o.Options)
	caps := probe.Caps()
	profile := ProfileTMR
	if o.Options.Profile != nil {
		profile = *o.Options.Profile
	} else {
		probe.main.do(func() {
			if t.Runtime().KernelModeSupported(0) == 0 {
				profile = ProfileRefusing
			}
		})
	}
	probe.Close()
	if release != nil {
		release()
	}
	res := ConformWith(FactoryExecutor{Factory: f, Options: o.Options, Timeout: o.Timeout}, SuiteRun{
		Name: o.Name, Profile: profile, Caps: caps, Checks: o.Checks, SkipSlow: o.SkipSlow, Random: o.Random,
		RandomOps: o.RandomOps, Seed: o.Seed, HoldMs: o.HoldMs, NoShrink: o.NoShrink, Probes: o.Probes, Stop: o.Stop})
	return res.Report, nil
}

func opLines(ops []Op) []string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = op.String()
	}
	return out
}

func capsText(c Caps) string {
	var parts []string
	for _, x := range []struct {
		c    Caps
		name string
	}{{CapSetDevice, "set-device"}, {CapClearDevice, "clear-device"}, {CapGetDevice, "current-device"},
		{CapSync, "sync-stream"}, {CapInject, "simabi_inject"}, {CapCounters, "ACL counters"},
		{CapDriven, "driven stream completion (hooks)"}, {CapUnload, "unloading a private copy"}} {
		if c&x.c != 0 {
			parts = append(parts, x.name)
		}
	}
	return strings.Join(parts, ", ")
}

// RunDiff runs the same ops on two targets and diffs their histories; ""
// means they behaved identically. Both runs go to the end even after the
// model lost track.
func RunDiff(a, b Target, ops []Op, opt Options) (string, *Result, *Result) {
	opt.ContinueAfterLoss = true
	ra := NewRunner(a, opt)
	defer ra.Close()
	rb := NewRunner(b, opt)
	defer rb.Close()
	x, y := ra.Run(ops), rb.Run(ops)
	return Diff(x.History, y.History), x, y
}
