package suite

import (
	"fmt"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// Cases are the options a check (Run) and a behaviour diff (DiffRun)
// share: which cases run, on what, and the budgets of shrinking.
type Cases struct {
	Profile   model.Profile     // the target's build profile (legacy must be given; default tmr)
	Caps      catalogue.Caps    // what the target lets the checker drive
	Checks    []catalogue.Check // directed checks (nil: catalogue.Checks())
	Probes    bool              // after every refused call of a directed check, a probe that it left no trace (probe.go)
	Random    int               // random sequences after the directed checks
	RandomOps int               // ops per random sequence (default 200)
	Seed      uint64            // sequence i uses Seed+i
	HoldMs    int32             // X-2 hold ops in random sequences (0: none)
	Duration  time.Duration     // no random sequence starts after it (0: no bound)
	NoShrink  bool              // failures (changes) cut after the op that failed (differs)
	// KillOnly: the run decides a mutant's kill and shows no repro, so a
	// failure is cut, neither shrunk nor confirmed in a fresh process (a
	// child process more per kill: a third of abicheck mutants' children).
	// It implies NoShrink.
	KillOnly bool
	// ShrinkBudget bounds the shrinking of one failure or change,
	// ShrinkTotal all shrinking of the run; past either, the smallest
	// sequence found so far is reported.
	ShrinkBudget, ShrinkTotal time.Duration
	Progress                  func(done, total int, name string) // before each case, when not nil
}

// The default shrinking budgets docs/abicheck.md promises.
const (
	shrinkEach       = 10 * time.Second
	checkShrinkTotal = 30 * time.Second
	diffShrinkTotal  = 60 * time.Second
)

// withDefaults fills in the options left zero (total: ShrinkTotal's).
func (c Cases) withDefaults(total time.Duration) Cases {
	if c.Profile == "" {
		c.Profile = model.ProfileTMR
	}
	if c.RandomOps <= 0 {
		c.RandomOps = 200
	}
	if c.ShrinkBudget <= 0 {
		c.ShrinkBudget = shrinkEach
	}
	if c.ShrinkTotal <= 0 {
		c.ShrinkTotal = total
	}
	c.NoShrink = c.NoShrink || c.KillOnly
	return c
}

// checks are the directed checks to run.
func (c *Cases) checks() []catalogue.Check {
	if c.Checks == nil {
		return catalogue.Checks()
	}
	return c.Checks
}

// pass is what a run of Cases keeps, check or diff: the progress count and
// the shrinking budget.
type pass struct {
	c           *Cases
	done, total int
	shrinkLeft  time.Duration
}

func newPass(c *Cases, checks int) pass {
	return pass{c: c, total: checks + c.Random, shrinkLeft: c.ShrinkTotal}
}

// progress reports the case about to run.
func (p *pass) progress(name string) {
	if p.c.Progress != nil {
		p.c.Progress(p.done, p.total, name)
	}
	p.done++
}

// random hands the seeded random sequences to visit in turn until it
// returns false; budget is true when Duration ended them.
func (p *pass) random(visit func(name string, ops []op.Op) bool) (budget bool) {
	c := p.c
	deadline := time.Time{}
	if c.Duration > 0 {
		deadline = time.Now().Add(c.Duration)
	}
	for i := 0; i < c.Random; i++ {
		if !deadline.IsZero() && time.Now().After(deadline) {
			return true
		}
		seed := c.Seed + uint64(i)
		name := fmt.Sprintf("random/seed-%d", seed)
		p.progress(name)
		ops := conformance.Generate(conformance.GenOptions{Seed: seed, Ops: c.RandomOps, Caps: c.Caps, Profile: c.Profile, HoldMs: c.HoldMs, Comm: conformance.MixesComm(seed)})
		if !visit(name, ops) {
			break
		}
	}
	return false
}

// shrink runs Shrink with still as the predicate, within the budgets; ran
// is false when ops came back as they were (no budget left, too short).
func (p *pass) shrink(ops []op.Op, still func(cand []op.Op) bool) (got []op.Op, ran bool) {
	budget := min(p.c.ShrinkBudget, p.shrinkLeft)
	if budget <= 0 || len(ops) < 2 {
		return ops, false
	}
	t0 := time.Now()
	deadline := t0.Add(budget)
	got = conformance.Shrink(ops, func(cand []op.Op) bool {
		return !time.Now().After(deadline) && still(cand)
	})
	p.shrinkLeft -= time.Since(t0)
	return got, true
}
