package conformance

import (
	"fmt"
	"strings"
	"time"
)

// Factory opens a target for one run: a fresh runtime instance when the
// backend can make one (sim), or the one loaded library (onboard), and a
// function that releases it.
type Factory func() (Target, func(), error)

// SuiteOptions configure Conform.
type SuiteOptions struct {
	Name      string  // the target's name in the report
	Options   Options // runner options
	Checks    []Check // directed checks (nil: Catalogue())
	SkipSlow  bool    // leave out checks marked Slow
	Random    int     // random sequences to run
	RandomOps int     // ops per random sequence (default 200)
	Seed      uint64
	HoldMs    int32         // X-2 hold ops in random sequences (0: none)
	NoShrink  bool          // report failing sequences unshrunk
	Timeout   time.Duration // per run (default 60 s); a run that exceeds it is a hang
}

// runOutcome is one isolated run.
type runOutcome struct {
	res     *Result
	verdict Verdict // Pass, or Crash / Hang
	detail  string
}

// runOnce runs ops on a fresh target from f, turning a panic into Crash and
// a run that exceeds timeout (when positive) into Hang (the runner and
// target are then abandoned).
func runOnce(f Factory, ops []Op, opt Options, timeout time.Duration) runOutcome {
	t, release, err := f()
	if err != nil {
		return runOutcome{verdict: Crash, detail: "opening the target: " + err.Error()}
	}
	r := NewRunner(t, opt)
	ch := make(chan runOutcome, 1)
	go func() {
		var out runOutcome
		r.main.do(func() {
			defer func() {
				if p := recover(); p != nil {
					out = runOutcome{verdict: Crash, detail: fmt.Sprint("panic: ", p)}
				}
			}()
			out.res = r.run(ops)
		})
		ch <- out
	}()
	var expire <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expire = timer.C
	}
	select {
	case out := <-ch:
		r.Close()
		if release != nil {
			release()
		}
		return out
	case <-expire:
		return runOutcome{verdict: Hang, detail: fmt.Sprintf("the run did not finish within %v", timeout)}
	}
}

// failingRules lists the rules of a run's failures.
func failingRules(o runOutcome) []Rule {
	if o.res == nil {
		return nil
	}
	var rs []Rule
	for _, f := range o.res.Findings {
		if f.Verdict == Fail {
			rs = append(rs, f.Rule)
		}
	}
	return rs
}

// shrinkFailure shrinks ops to a shortest sequence that still fails the
// same way (the same first failing rule, or the same crash / hang).
func shrinkFailure(f Factory, ops []Op, first runOutcome, opt Options, timeout time.Duration) []Op {
	var want Rule
	if rs := failingRules(first); len(rs) > 0 {
		want = rs[0]
	}
	return Shrink(ops, func(cand []Op) bool {
		o := runOnce(f, cand, opt, timeout)
		if first.verdict != Pass {
			return o.verdict == first.verdict
		}
		for _, r := range failingRules(o) {
			if r == want {
				return true
			}
		}
		return false
	})
}

// Conform runs the directed catalogue and random sequences against targets
// from f and reports per rule.
func Conform(f Factory, o SuiteOptions) (*Report, error) {
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.RandomOps <= 0 {
		o.RandomOps = 200
	}
	checks := o.Checks
	if checks == nil {
		checks = Catalogue()
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
	rep := NewReport(o.Name)
	rep.Profile = profile.String()
	for i := range checks {
		c := &checks[i]
		if c.ops == nil {
			c.ops = MustParseScript(c.Script)
		}
		cr := CheckReport{Name: c.Name}
		for _, r := range c.Rules {
			cr.Rules = append(cr.Rules, r.String())
		}
		switch {
		case !c.AppliesTo(profile):
			cr.Verdict, cr.Detail = Skip, "does not apply to a "+profile.String()+" build"
		case !caps.Has(c.Needs):
			cr.Verdict, cr.Detail = Skip, "the target cannot drive it: missing "+capsText(c.Needs&^caps)
			rep.AddOutcome(c.Rules, Skip, c.Name+": "+cr.Detail, nil)
		case o.SkipSlow && c.Slow:
			cr.Verdict, cr.Detail = Skip, "slow check left out"
		default:
			cr.Verdict, cr.Detail, cr.Repro = runAndReport(f, rep, c.ops, c.Rules, o)
		}
		rep.AddCheck(cr)
	}
	for i := 0; i < o.Random; i++ {
		seed := o.Seed + uint64(i)
		ops := Generate(GenOptions{Seed: seed, Ops: o.RandomOps, Caps: caps, Profile: profile, HoldMs: o.HoldMs})
		v, detail, repro := runAndReport(f, rep, ops, nil, o)
		if v != Pass {
			rep.AddCheck(CheckReport{Name: fmt.Sprintf("random/seed-%d", seed), Verdict: v, Detail: detail, Repro: repro})
		}
	}
	rep.Finish()
	return rep, nil
}

// runAndReport runs one sequence, shrinks a failure and folds it into rep.
func runAndReport(f Factory, rep *Report, ops []Op, rules []Rule, o SuiteOptions) (Verdict, string, []string) {
	out := runOnce(f, ops, o.Options, o.Timeout)
	if out.verdict != Pass {
		repro := ops
		if !o.NoShrink {
			repro = shrinkFailure(f, ops, out, o.Options, o.Timeout)
		}
		if len(rules) == 0 {
			rules = []Rule{RuleNone}
		}
		rep.AddOutcome(rules, out.verdict, out.detail, repro)
		return out.verdict, out.detail, opLines(repro)
	}
	res := out.res
	if res.Failed() {
		repro := ops
		if !o.NoShrink {
			repro = shrinkFailure(f, ops, out, o.Options, o.Timeout)
		}
		rep.AddResult(res, repro)
		for _, fd := range res.Findings {
			if fd.Verdict == Fail {
				return Fail, fd.String(), opLines(repro)
			}
		}
	}
	rep.AddResult(res, nil)
	for _, fd := range res.Findings {
		if fd.Verdict == Skip {
			// Part of the sequence could not be driven (a fault site the
			// target does not model, a device it cannot clear): the check
			// proves less than it says.
			return Skip, "partly not driven: " + fd.String(), nil
		}
	}
	// A clean directed check is a pass of the rules it is about (some, like
	// E-DESTROY, are only visible through the calls after the one they
	// govern).
	rep.AddOutcome(rules, Pass, "", nil)
	for _, fd := range res.Findings {
		if fd.Verdict == Warn {
			return Warn, fd.String(), nil
		}
	}
	return Pass, "", nil
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
		{CapDriven, "driven stream completion (hooks)"}} {
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
