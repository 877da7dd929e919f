package session

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/isolate"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/suite"
	"github.com/simabi/simabi/sim/emit"
)

// Mechanical mutants (abicheck mutants -mechanical, issue #32) are built,
// checked like hand-written ones, and each survivor is run against a
// reference (sim; the plain emitted build for legacy, which sim lacks): one
// no op tells apart is equivalent, one that differs a gap of the checker.

// MechanicalOptions are -mechanical's own flags.
type MechanicalOptions struct {
	Count    int            // mutants to sample (0: all)
	Profiles []emit.Profile // the builds whose source is mutated
	Filter   *regexp.Regexp // only IDs that match (before sampling)
	// A survivor's differential: its random sequences' bounds and length.
	DiffDuration  time.Duration
	DiffSequences int
	DiffOps       int
}

// The outcomes of a mechanical mutant.
const (
	MechKilled       = "killed"
	MechEquivalent   = "equivalent"
	MechGap          = "gap"
	MechNotCompiling = "not compiling"
	MechError        = "error"
)

// MechanicalRow is one mechanical mutant's line of the table.
type MechanicalRow struct {
	ID       string `json:"id"`
	Op       string `json:"op"`
	Profile  string `json:"profile"`
	Func     string `json:"func"`
	Line     int    `json:"line"`
	Change   string `json:"change"`
	Outcome  string `json:"outcome"`
	Check    string `json:"check,omitempty"`   // the case that killed it
	ByRule   string `json:"by_rule,omitempty"` // the rules that case broke
	Verdict  string `json:"verdict,omitempty"`
	Compiler string `json:"compiler,omitempty"` // why it does not compile
	// A survivor's differential: the directed cases and random sequences
	// it ran on both builds, the differences two more runs did not repeat.
	DiffCases  int            `json:"diff_cases,omitempty"`
	DiffRandom int            `json:"diff_random,omitempty"`
	DiffFlaky  int            `json:"diff_flaky,omitempty"`
	Gap        *MechanicalGap `json:"gap,omitempty"`
	MS         int64          `json:"ms"`
	Error      string         `json:"error,omitempty"`
}

// MechanicalGap is what tells a surviving mutant from the reference.
type MechanicalGap struct {
	Case    string   `json:"case"`    // the directed check, its probe, or random/seed-N
	Clauses []string `json:"clauses"` // a directed check's clauses, else the rule
	Rule    string   `json:"rule"`    // the rule of the op that differs
	At      int      `json:"at"`
	Ref     string   `json:"reference"` // what the reference did there
	Mutant  string   `json:"mutant"`    // what the mutant did there
	Script  []string `json:"script"`
	Shrunk  bool     `json:"shrunk"`
	// Flagged: the model flags the mutant's run of the script (the check's
	// random budget missed it); else the model accepts both answers.
	Flagged bool `json:"flagged"`
}

// MechanicalRun is the outcome of RunMechanical.
type MechanicalRun struct {
	// The envelope of every JSON report (JSONSchema), a target per mutant.
	Schema       string          `json:"schema"`
	Command      string          `json:"command"` // "mutants -mechanical"
	Rows         []MechanicalRow `json:"targets"`
	ElapsedS     float64         `json:"elapsed_s"`
	Sites        int             `json:"sites"` // mutants the operators found, before sampling
	Total        int             `json:"generated"`
	NotCompiling int             `json:"not_compiling"`
	Killed       int             `json:"killed"`
	Equivalent   int             `json:"equivalent"`
	Gaps         int             `json:"gaps"`
	Errors       int             `json:"errors"`
	Score        float64         `json:"score"` // killed / (compiled - equivalent)
	Control      []string        `json:"control"`
	Used         time.Duration   `json:"-"`
	UsedMS       int64           `json:"used_ms"`
	Seed         uint64          `json:"seed"`
}

// ErrControlDiffers: the plain build and its reference differ under the
// differential, so a difference would say nothing about a mutant.
var ErrControlDiffers = errors.New("the plain build differs from its reference")

// SelectMechanical samples mo.Count of the mutants of mo's profiles that
// mo.Filter matches, with seed, and says how many there were to pick from.
func SelectMechanical(mo MechanicalOptions, seed uint64) ([]emit.MechanicalMutant, int, error) {
	var all []emit.MechanicalMutant
	for _, p := range mo.Profiles {
		ms, err := emit.MechanicalMutants(p)
		if err != nil {
			return nil, 0, err
		}
		for _, m := range ms {
			if mo.Filter == nil || mo.Filter.MatchString(m.ID) {
				all = append(all, m)
			}
		}
	}
	return emit.SampleMechanical(all, mo.Count, seed), len(all), nil
}

// openRef opens the reference a survivor of profile p is compared with:
// sim, or the plain legacy build in child processes.
func openRef(p emit.Profile, o *Options, verbose io.Writer) (*Target, error) {
	if p != emit.ProfileLegacy {
		return SimTarget(refName(p), o.CaseTimeout), nil
	}
	pool, err := plainPool(p, o, verbose)
	if err != nil {
		return nil, err
	}
	return &Target{Exec: pool, Info: pool.Info(), Close: pool.Close}, nil
}

// RunMechanical builds and checks each of ms and runs each survivor
// against its reference; first, the plain build of each profile goes
// through the same differential as a control (ErrControlDiffers).
func RunMechanical(o *Options, mo MechanicalOptions, ms []emit.MechanicalMutant, out *Printer, stderr io.Writer) (*MechanicalRun, error) {
	verbose := o.verboseTo(stderr)
	t0 := time.Now()
	run := &MechanicalRun{Seed: o.Seed, Control: []string{}}
	for _, p := range mo.Profiles {
		if !slices.ContainsFunc(ms, func(m emit.MechanicalMutant) bool { return m.Profile == p }) {
			continue
		}
		line, err := mechanicalControl(o, mo, p, verbose)
		if err != nil {
			return nil, err
		}
		run.Control = append(run.Control, line)
	}
	var done atomic.Int64
	progress := out.Progress("mutants -mechanical")
	var err error
	if run.Rows, _, err = eachMutant(len(ms), out, func(i int) (MechanicalRow, error) {
		row, err := runMechanicalMutant(o, mo, ms[i], verbose)
		if progress != nil {
			progress(int(done.Add(1)), len(ms), ms[i].ID+" "+row.Outcome)
		}
		return row, err
	}); err != nil {
		return nil, err
	}
	run.count()
	run.Used = time.Since(t0)
	run.UsedMS = run.Used.Milliseconds()
	return run, nil
}

// count fills in the figures from the rows.
func (run *MechanicalRun) count() {
	run.Total = len(run.Rows)
	by := map[string]*int{MechKilled: &run.Killed, MechEquivalent: &run.Equivalent, MechGap: &run.Gaps, MechNotCompiling: &run.NotCompiling}
	for _, r := range run.Rows {
		if n := by[r.Outcome]; n != nil {
			*n++
		} else {
			run.Errors++
		}
	}
	if d := run.Killed + run.Gaps + run.Errors; d > 0 {
		run.Score = float64(run.Killed) / float64(d)
	}
}

// mechanicalControl runs the plain build of p through the differential.
func mechanicalControl(o *Options, mo MechanicalOptions, p emit.Profile, verbose io.Writer) (string, error) {
	pool, err := plainPool(p, o, verbose)
	if err != nil {
		return "", err
	}
	defer pool.Close()
	ref, err := openRef(p, o, verbose)
	if err != nil {
		return "", err
	}
	defer ref.Close()
	var row MechanicalRow
	differential(o, mo, &row, ref, pool)
	what := fmt.Sprintf("control: the plain %s build against %s: %d directed cases and %d random sequences, ", p, refName(p), row.DiffCases, row.DiffRandom)
	if g := row.Gap; g != nil {
		return "", fmt.Errorf("%w: %s%s at %s (%s): reference %q, plain build %q", ErrControlDiffers, what, g.Case, op.Abbreviate(strings.Join(g.Script, "; ")), g.Rule, g.Ref, g.Mutant)
	}
	return what + "no difference" + flakyText(row.DiffFlaky, "did not repeat"), nil
}

func refName(p emit.Profile) string {
	if p == emit.ProfileLegacy {
		return "the plain legacy build"
	}
	return "sim:" + string(p)
}

// runMechanicalMutant builds, checks and (a survivor) diffs one mutant.
func runMechanicalMutant(o *Options, mo MechanicalOptions, m emit.MechanicalMutant, verbose io.Writer) (row MechanicalRow, err error) {
	row = MechanicalRow{ID: m.ID, Op: string(m.Op), Profile: string(m.Profile), Func: m.Func, Line: m.Line, Change: m.Describe()}
	t0 := time.Now()
	defer func() { row.MS = time.Since(t0).Milliseconds() }()
	a, err := emit.BuildMechanical(m, emit.BuildOptions{})
	var ce *emit.CompileError
	switch {
	case errors.Is(err, emit.ErrNoCompiler):
		return row, err
	case errors.As(err, &ce):
		row.Outcome, row.Compiler = MechNotCompiling, ce.Out
		return row, nil
	case err != nil:
		row.Outcome, row.Error = MechError, "build: "+FirstLine(err.Error())
		return row, nil
	}
	p, err := isolate.NewPool(isolate.Config{Lib: a.RuntimePath}, o.CaseTimeout, 0, verbose)
	var le *isolate.LoadError
	switch {
	case errors.As(err, &le):
		// The checker refuses a library that does not load.
		row.Outcome, row.Check, row.Verdict = MechKilled, "load", strings.ReplaceAll(FirstLine(le.Error()), " "+a.RuntimePath, "")
		return row, nil
	case err != nil:
		row.Outcome, row.Error = MechError, FirstLine(err.Error())
		return row, nil
	}
	defer p.Close()
	info := p.Info()
	profile, _ := conformance.ParseProfile(info.ProfileModel)
	res := suite.ConformWith(p, suite.Run{Name: "mutant " + m.ID, MaxHangs: o.MaxHangs, Stop: killsAny,
		Cases: o.cases(profile, info.Caps, true, true, nil)})
	if i := slices.IndexFunc(res.Cases, killsAny); i >= 0 {
		c := res.Cases[i]
		row.Outcome, row.Check, row.ByRule, row.Verdict = MechKilled, c.Name, strings.Join(suite.RuleNames(c.Broken), ","), c.Verdict.String()
		return row, nil
	}
	ref, err := openRef(m.Profile, o, verbose)
	if err != nil {
		row.Outcome, row.Error = MechError, "reference: "+FirstLine(err.Error())
		return row, nil
	}
	defer ref.Close()
	differential(o, mo, &row, ref, p)
	row.Outcome = MechEquivalent
	if row.Gap != nil {
		row.Outcome = MechGap
	}
	return row, nil
}

// killsAny: a mechanical mutant has no rule of its own, so any rule the
// checker reports failed, crashed or hung kills it.
func killsAny(c suite.CaseOutcome) bool { return c.Verdict.Bad() }

// differential diffs ref and x (the catalogue with its probes, then random
// sequences within mo's budget) and records the first difference that two
// more runs repeat in row.Gap, shrunk; others count in row.DiffFlaky.
func differential(o *Options, mo MechanicalOptions, row *MechanicalRow, ref *Target, x *isolate.Pool) {
	info := x.Info()
	profile, _ := conformance.ParseProfile(info.ProfileModel)
	random := mo.DiffSequences
	if mo.DiffDuration <= 0 {
		random = 0 // suite's zero Duration is no bound; -mechanical-diff 0 is no random sequence
	}
	res := suite.DiffWith(ref.Exec, x, suite.DiffRun{Confirm: true, First: true, Cases: suite.Cases{Profile: profile, Caps: info.Caps & ref.Info.Caps,
		Probes: true, Random: random, RandomOps: mo.DiffOps, Seed: DiffSeed(o.Seed, 0), HoldMs: holdMs, Duration: mo.DiffDuration,
		ShrinkBudget: 10 * time.Second, ShrinkTotal: 10 * time.Second}})
	row.DiffCases, row.DiffRandom, row.DiffFlaky = res.Cases-res.Random, res.Random, res.Flaky
	for _, c := range res.Changes {
		row.Gap = &MechanicalGap{Case: c.Case, Clauses: c.Clauses, Rule: c.Rule.String(), At: c.At, Ref: c.Old, Mutant: c.New,
			Script: conformance.OpLines(c.Script), Shrunk: c.Shrunk, Flagged: flagged(x, c.Script)}
	}
}

// DiffSeed is the seed of the differential's random sequence i, apart
// from the check's (seed+i): a survivor meets sequences its check did not.
func DiffSeed(seed uint64, i int) uint64 { return seed + 1<<32 + uint64(i) }

// flagged says whether the checker would fail the mutant's run of ops.
func flagged(x conformance.Executor, ops []op.Op) bool {
	out := x.Execute(ops, false)
	return out.Verdict != model.Pass || out.Result == nil || out.Result.Failed()
}

// WriteMechanical prints the table of a mechanical run, its figures and
// every gap with its script.
func WriteMechanical(w io.Writer, run *MechanicalRun, o *Options, mo MechanicalOptions) error {
	if o.JSON {
		run.Schema, run.Command, run.ElapsedS = JSONSchema, "mutants -mechanical", seconds(run.Used)
		return WriteJSONValue(w, run)
	}
	fmt.Fprintf(w, "%-14s %-8s %-13s %-62s %s\n", "MUTANT", "PROFILE", "OUTCOME", "CHANGE", "BY")
	for _, r := range run.Rows {
		if o.Quiet && (r.Outcome == MechKilled || r.Outcome == MechNotCompiling) {
			continue
		}
		by := ""
		switch r.Outcome {
		case MechKilled:
			by = r.Check + ": " + r.ByRule + " " + r.Verdict
		case MechNotCompiling:
			by = r.Compiler
		case MechEquivalent:
			by = fmt.Sprintf("not distinguished in %d directed cases and %d random sequences", r.DiffCases, r.DiffRandom) +
				flakyText(r.DiffFlaky, "differences did not repeat")
		case MechGap:
			by = fmt.Sprintf("differs at %s (%s) in %s", op.Abbreviate(gapOp(r.Gap)), strings.Join(r.Gap.Clauses, ", "), r.Gap.Case)
		default:
			by = r.Error
		}
		fmt.Fprintf(w, "%-14s %-8s %-13s %-62s %s\n", r.ID, r.Profile, r.Outcome, r.Change, by)
	}
	for _, r := range run.Rows {
		if r.Outcome != MechGap {
			continue
		}
		g := r.Gap
		why := "the model accepts both answers"
		if g.Flagged {
			why = "the model flags the mutant on this script: the check's random sequences missed it"
		}
		fmt.Fprintf(w, "\ngap %s (%s): %s\n  escapes %s (rule %s): %s\n  %s: %s\n  mutant:    %s\n  script:\n", r.ID, r.Profile, r.Change,
			strings.Join(g.Clauses, ", "), g.Rule, why, refName(emit.Profile(r.Profile)), g.Ref, g.Mutant)
		for _, l := range g.Script {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	for _, c := range run.Control {
		fmt.Fprintln(w, c)
	}
	compiled := run.Total - run.NotCompiling
	fmt.Fprintf(w, "mechanical mutants: %d of %d sites (seed %d); %d do not compile; of the %d that do: %d killed, %d equivalent, %d gaps",
		run.Total, run.Sites, run.Seed, run.NotCompiling, compiled, run.Killed, run.Equivalent, run.Gaps)
	if run.Errors > 0 {
		fmt.Fprintf(w, ", %d errors", run.Errors)
	}
	fmt.Fprintf(w, "\nmechanical score: %d/%d (%.1f%%) over the non-equivalent mutants\n", run.Killed, compiled-run.Equivalent, 100*run.Score)
	fmt.Fprintf(w, "budget per mutant: the directed catalogue with its probes, then up to %d random sequences × %d ops within %v (case timeout %v); per survivor against its reference: the directed catalogue with its probes, then up to %d random sequences × %d ops within %v\n",
		o.Sequences, o.MaxOps, o.Duration, o.CaseTimeout, mo.DiffSequences, mo.DiffOps, mo.DiffDuration)
	fmt.Fprintf(w, "used: %.1fs for %d mutants (builds included)\n", run.Used.Seconds(), run.Total)
	return nil
}

// flakyText is " (N what)", or "" for none.
func flakyText(n int, what string) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d %s)", n, what)
}

// gapOp is the op a gap's scripts differs at.
func gapOp(g *MechanicalGap) string {
	if g.At >= 0 && g.At < len(g.Script) {
		return g.Script[g.At]
	}
	if g.At == len(g.Script) {
		return "cleanup"
	}
	return "setup"
}
