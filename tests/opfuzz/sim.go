package opfuzz

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim"
)

// Profiles pairs each model profile with the sim profile that builds it.
var Profiles = []struct {
	Model model.Profile
	Sim   sim.Profile
}{{model.ProfileTMR, sim.TMR}, {model.ProfileRefusing, sim.Refusing}}

// RunnerOptions: each input runs on the fuzz engine's goroutine (its OS
// thread locked for the run), not handed to the runner's thread.
var RunnerOptions = conformance.Options{OnCallerThread: true}

// simRunners are the worker's sim instances, one per profile, made once per
// process (each fuzz worker is a process) and brought back to a fresh
// instance's state before every input (Runner.ResetTarget).
var (
	simUsed    atomic.Bool
	simRunners = sync.OnceValue(func() map[model.Profile]*conformance.Runner {
		simUsed.Store(true)
		rs := map[model.Profile]*conformance.Runner{}
		for _, p := range Profiles {
			rs[p.Model] = conformance.NewRunner(target.SimTarget(p.Sim), RunnerOptions)
		}
		return rs
	})
)

// SimRunner is the worker's sim runner of profile p.
func SimRunner(p model.Profile) *conformance.Runner { return simRunners()[p] }

// Release stops the worker's sim runners (TestMain, after the tests: they
// must leave no thread behind).
func Release() {
	if !simUsed.Load() {
		return
	}
	for _, r := range simRunners() {
		r.Close()
	}
}

// Fresh runs ops on r after bringing its target back to a fresh load.
func Fresh(r *conformance.Runner, ops []op.Op) (*conformance.Result, error) {
	if !r.ResetTarget() {
		return nil, errors.New("the target cannot be reset (no simabi_reset)")
	}
	return r.Run(ops), nil
}

// OnSim is the op-sequence targets' first half: data decoded into an op
// sequence (at most MaxOps) run on the worker's sim of its profile, every
// call checked by the model. It returns the profile, the ops and the
// result, or what failed.
func OnSim(data []byte) (p model.Profile, ops []op.Op, res *conformance.Result, failure string) {
	p, ops = Decode(data, MaxOps, HoldMs)
	res, err := Fresh(SimRunner(p), ops)
	switch {
	case err != nil:
		return p, ops, nil, err.Error()
	case res.Failed():
		return p, ops, nil, FailureText("sim:"+string(p), ops, res)
	}
	return p, ops, res, ""
}

// FailureText is a failed run's report: the first failure, every failing
// finding, the op log and the history.
func FailureText(target string, ops []op.Op, res *conformance.Result) string {
	var b strings.Builder
	first := true
	for _, f := range res.Findings {
		if f.Verdict != model.Fail {
			continue
		}
		if first {
			fmt.Fprintf(&b, "%s: %s\n", target, f)
			first = false
		}
		fmt.Fprintf(&b, "  finding %s\n", f)
	}
	fmt.Fprintf(&b, "op log (%d ops):\n%s", len(ops), op.FormatOps(ops))
	fmt.Fprintf(&b, "history:\n%s", ClipLines(res.History.String()))
	if res.Lost != "" {
		fmt.Fprintf(&b, "(the model stopped predicting: %s)\n", res.Lost)
	}
	return b.String()
}

// ClipLines shortens overlong lines of a report (a repeated op whose
// repetitions all differ renders as one very long history line).
func ClipLines(s string) string {
	const limit = 400
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if len(l) > limit {
			lines[i] = l[:limit] + fmt.Sprintf(" ... (%d more bytes)", len(l)-limit)
		}
	}
	return strings.Join(lines, "\n")
}
