package speed

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/simabi/simabi/conformance/isolate"
)

// Build is one side of a comparison: the built-in simulator (Sim,
// "sim:tmr" or "sim:refusing") or a library loaded as abicheck loads one in
// isolation (Lib; its TempDir unused: a child times the one instance it
// loads). Label names it in the report and errors ("": Sim or Lib.Lib).
type Build struct {
	Label string
	Sim   string
	Lib   isolate.Config
	// Test hooks: a slowdown factor (wrapSlow), the run a build dies at
	// (wrapDying).
	slow     float64
	dieAfter int
}

func (b Build) label() string {
	switch {
	case b.Label != "":
		return b.Label
	case b.Sim != "":
		return b.Sim
	}
	return b.Lib.Lib
}

// check says what is wrong with b as a side of a comparison.
func (b Build) check(side string) error {
	switch {
	case b.Sim != "" && b.Lib.Lib != "":
		return fmt.Errorf("speed: %s names both the simulator %s and the library %s", side, b.Sim, b.Lib.Lib)
	case b.Sim != "":
		if _, err := simProfile(b.Sim); err != nil {
			return fmt.Errorf("speed: %s: %v", side, err)
		}
	case b.Lib.Lib == "":
		return fmt.Errorf("speed: %s names no build (a library path, or sim:tmr or sim:refusing)", side)
	}
	return nil
}

func (b Build) config() childConfig {
	if b.Sim != "" {
		return childConfig{Sim: b.Sim, Slow: b.slow, DieAfter: b.dieAfter}
	}
	lib := b.Lib
	lib.TempDir = ""
	return childConfig{Lib: &lib, Slow: b.slow, DieAfter: b.dieAfter}
}

// Options tune a comparison; the zero value is the default.
type Options struct {
	// Budget is the time the comparison spends timing, shared by the
	// entries (what one leaves goes to the later ones); 0: 3 s. Loading
	// the children is not in it; an entry whose least sample (MinRounds
	// rounds of MinCalls calls on three sides) does not fit its share
	// overruns it.
	Budget    time.Duration
	Rounds    int      // rounds per entry when the budget allows; 0: 20, at least MinRounds
	Calls     int      // most calls of a side in a round; 0: 500, MinCalls to MaxCalls
	MinChange float64  // least change beyond the noise that is a difference (Verdict); 0: DefaultMinChange
	Entries   []string // the entries to compare (names of Entries); nil: all
	// Timeout bounds a child's every answer (a batch; past it the child
	// hangs and is killed), 0: 10 s; LoadTimeout its loading and probing,
	// 0: 30 s.
	Timeout, LoadTimeout time.Duration
	Verbose              io.Writer // receives what the children write on stdout and stderr
	// Progress, when set, is called before each entry is timed with the
	// entries done, the entries to time and the entry's name.
	Progress func(done, total int, name string)
}

// The least sample of an entry.
const (
	MinRounds = 10
	MinCalls  = 20
)

// warmCalls is the size of the two uncounted batches a side runs before
// an entry's rounds, warming it up and measuring a call's and a batch's cost.
const warmCalls = 32

func (o Options) withDefaults() (Options, error) {
	if o.Budget <= 0 {
		o.Budget = 3 * time.Second
	}
	if o.Rounds == 0 {
		o.Rounds = 20
	}
	if o.Calls == 0 {
		o.Calls = 500
	}
	if o.MinChange <= 0 {
		o.MinChange = DefaultMinChange
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.LoadTimeout <= 0 {
		o.LoadTimeout = 30 * time.Second
	}
	if o.Rounds < MinRounds {
		return o, fmt.Errorf("speed: %d rounds: at least %d", o.Rounds, MinRounds)
	}
	if o.Calls < MinCalls || o.Calls > MaxCalls {
		return o, fmt.Errorf("speed: %d calls a round: %d to %d", o.Calls, MinCalls, MaxCalls)
	}
	for _, e := range o.Entries {
		if entries[e] == nil {
			return o, fmt.Errorf("speed: unknown entry %q (one of %s)", e, strings.Join(Entries, ", "))
		}
	}
	return o, nil
}

// Crashed begins the verdict of an entry during which a child died or hung.
const Crashed = "crashed"

// orders are the six orders of the three sides, one per round in turn.
var orders = [6][3]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}

// Compare times old and new against each other, and old against itself for
// the noise, in three child processes of this binary (the package doc). The
// error is an *Error when a child does not load, dies or hangs; an entry a
// build cannot run is reported skipped, with why.
func Compare(old, new Build, o Options) (*Report, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := cmp.Or(old.check(SideOld), new.check(SideNew)); err != nil {
		return nil, err
	}
	builds := [3]Build{old, old, new}
	sides := [3]string{SideOld, SideNoise, SideNew}
	// The three run on one CPU: they take turns, and a CPU that is slower
	// than another (a busy neighbour, a virtual CPU with less time) slows
	// the three alike instead of the one that happens to run there.
	cpu := pinnedCPU()
	launch := func(s int) (*proc, error) {
		return start(sides[s], builds[s].label(), builds[s].config(), cpu, o.Verbose)
	}
	var procs [3]*proc
	failed := true
	defer func() {
		// After a failure the others are killed: what they hold dies with
		// them, and a comparison that failed ends at once.
		var wg sync.WaitGroup
		for _, p := range procs {
			if p != nil && failed {
				wg.Go(p.Kill)
			} else if p != nil {
				wg.Go(func() { p.Close(nil) })
			}
		}
		wg.Wait()
	}()
	for i := range builds {
		p, err := launch(i)
		if err != nil {
			return nil, err
		}
		procs[i] = p
	}
	// The children load at once; the first that fails ends the comparison.
	hellos := make(chan error, len(procs))
	for _, p := range procs {
		go func() { hellos <- p.hello(o.LoadTimeout) }()
	}
	for range procs {
		if err := <-hellos; err != nil {
			return nil, err
		}
	}
	rep := &Report{Old: old.label(), New: new.label(), OldBuild: procs[0].build, NewBuild: procs[2].build,
		BudgetNs: int64(o.Budget), MinChange: o.MinChange}
	todo := rep.plan(procs, o.Entries)
	t0 := time.Now()
	for i, at := range todo {
		if o.Progress != nil {
			o.Progress(i, len(todo), rep.Entries[at].Name)
		}
		share := (o.Budget - time.Since(t0)) / time.Duration(len(todo)-i)
		err := measure(procs, &rep.Entries[at], share, o)
		var died *Error
		if !errors.As(err, &died) {
			if err != nil {
				return nil, err
			}
			continue
		}
		// A build that dies or hangs while an entry is timed (a resource
		// it leaks per call, a crash after the thousandth run) is the
		// entry's verdict, and the other entries are still timed: the
		// child that died is replaced by a fresh one.
		er := &rep.Entries[at]
		er.Verdict = Crashed + ": " + died.Error()
		er.CrashedSide = died.Side
		for s, p := range procs {
			if p.side != died.Side {
				continue
			}
			p.Kill()
			np, err := launch(s)
			if err == nil {
				err = np.hello(o.LoadTimeout)
			}
			procs[s] = np
			if err != nil {
				return nil, err
			}
		}
	}
	rep.ElapsedNs = int64(time.Since(t0))
	failed = false
	return rep, nil
}

// plan lists the entries asked for (nil: every one) in the report, each a
// child cannot run marked skipped, and returns the positions of those to time.
func (rep *Report) plan(procs [3]*proc, names []string) []int {
	if names == nil {
		names = Entries
	}
	var todo []int
	for _, name := range Entries {
		if !slices.Contains(names, name) {
			continue
		}
		er := EntryReport{Name: name}
		if why := skipOf(procs, name); why != "" {
			er.Verdict = "skipped: " + why
		} else {
			todo = append(todo, len(rep.Entries))
		}
		rep.Entries = append(rep.Entries, er)
	}
	return todo
}

// skipOf is why an entry is not timed: a side's child cannot run it (OLD',
// only when it says other than OLD).
func skipOf(procs [3]*proc, name string) string {
	why := func(p *proc) string {
		w, known := p.skips[name]
		if !known {
			w = "the child does not know the entry"
		}
		return w
	}
	var whys []string
	old := why(procs[0])
	for _, p := range []*proc{procs[0], procs[2], procs[1]} {
		w := why(p)
		if w == "" || (p.side == SideNoise && w == old) {
			continue
		}
		whys = append(whys, p.side+": "+w)
	}
	return strings.Join(whys, "; ")
}

// measure times one entry within its share of the budget and fills er.
func measure(procs [3]*proc, er *EntryReport, share time.Duration, o Options) error {
	deadline := time.Now().Add(share)
	// The warm-up: what a call costs (in the child, untimed steps
	// included) and what a batch costs besides its calls (the round trip),
	// the least of two batches per side (the first may pay for first use,
	// either for a scheduling delay), the most over the sides.
	var perCall, perBatch time.Duration
	for _, p := range procs {
		call, batch := time.Duration(1<<62), time.Duration(1<<62)
		for range 2 {
			_, elapsed, wall, failed, err := p.batch(er.Name, warmCalls, o.Timeout)
			if err != nil {
				return err
			}
			if failed != "" {
				er.Verdict = "skipped: " + p.side + ": " + failed
				return nil
			}
			call, batch = min(call, elapsed/warmCalls), min(batch, wall-elapsed)
		}
		perCall, perBatch = max(perCall, call), max(perBatch, batch)
	}
	plan := planner{perCall: max(perCall, 1), perBatch: perBatch, calls: o.Calls, rounds: o.Rounds}
	var all [3][]int64
	var mids [3][]float64
	rounds := 0
	for ; rounds < o.Rounds; rounds++ {
		calls, ok := plan.next(rounds, time.Until(deadline))
		if !ok {
			break
		}
		t0 := time.Now()
		for _, s := range orders[rounds%len(orders)] {
			p := procs[s]
			ns, _, _, failed, err := p.batch(er.Name, calls, o.Timeout)
			if err != nil {
				return err
			}
			if failed != "" {
				er.Verdict = fmt.Sprintf("skipped: %s: in round %d: %s", p.side, rounds+1, failed)
				return nil
			}
			all[s] = append(all[s], ns...)
			// At least 1 ns: a ratio's denominator.
			mids[s] = append(mids[s], max(centre(ns), 1))
		}
		plan.took(calls, time.Since(t0))
	}
	er.Rounds, er.Calls = rounds, len(all[0])
	er.OldRoundNs, er.NoiseRoundNs, er.NewRoundNs = mids[0], mids[1], mids[2]
	ratios, noise := make([]float64, rounds), make([]float64, rounds)
	for r := range rounds {
		ratios[r] = mids[2][r] / mids[0][r]
		noise[r] = mids[1][r] / mids[0][r]
	}
	er.Ratio, er.RatioLo, er.RatioHi = medianCI(ratios)
	er.Noise, er.NoiseLo, er.NoiseHi = medianCI(noise)
	er.Verdict, er.BandLo, er.BandHi = Verdict(er.Ratio, er.RatioLo, er.RatioHi, er.Noise, o.MinChange)
	er.OldMedianNs, er.NoiseMedianNs, er.NewMedianNs = median(all[0]), median(all[1]), median(all[2])
	er.OldP99Ns, er.NoiseP99Ns, er.NewP99Ns = p99(all[0]), p99(all[1]), p99(all[2])
	return nil
}

// planner sizes an entry's rounds to the time left: before each round, the
// largest batches (up to Options.Calls) for the rounds to come to fit, from
// the warm-up's costs scaled by how far the rounds so far overran or
// underran them; at MinCalls with the time up it stops, after MinRounds.
type planner struct {
	perCall, perBatch time.Duration
	calls, rounds     int
	predicted, actual time.Duration
}

// cost is what a round of calls per side is predicted to take.
func (p *planner) cost(calls int) time.Duration {
	c := 3 * (p.perBatch + time.Duration(calls)*p.perCall)
	if p.predicted > 0 {
		c = time.Duration(float64(c) * float64(p.actual) / float64(p.predicted))
	}
	return c
}

// next is the size of round r's batches, and whether to run it.
func (p *planner) next(r int, left time.Duration) (int, bool) {
	todo := time.Duration(p.rounds - r)
	for p.calls > MinCalls && todo*p.cost(p.calls) > left {
		p.calls = max(MinCalls, p.calls*3/4)
	}
	if r >= MinRounds && p.cost(p.calls) > left {
		return 0, false
	}
	return p.calls, true
}

// took records that a round of calls per side took d.
func (p *planner) took(calls int, d time.Duration) {
	p.predicted += 3 * (p.perBatch + time.Duration(calls)*p.perCall)
	p.actual += d
}
