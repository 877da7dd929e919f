package suite

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// DiffRun configures DiffWith: a behaviour diff runs the cases a check of
// Profile with Caps would run on two builds and compares them call by call
// (the canonical history lines, the model's findings, crashes and hangs),
// so it sees a change where the contract judges nothing.
type DiffRun struct {
	Cases
	// Confirm runs a change's script twice more on both builds: one that
	// does not show again (a race a loaded machine decided otherwise) is
	// counted Flaky and passed over; a shrunk script that does not is
	// reported unshrunk. First ends the diff at the first change.
	Confirm, First bool
}

// Change is one case whose two runs differ.
type Change struct {
	Case string // the directed check, probe or random sequence
	// Clauses group the change: the directed check's (a probe's check's),
	// or for a random sequence the rule of the call.
	Clauses []string
	// Rule is the rule the call concerns: the one the model judged broken
	// there on one side, else the entry's.
	Rule model.Rule
	At   int    // the first op that differs in Script; len(Script): the runner's cleanup
	Old  string // what each build did there: the call's canonical line, or how the run died
	New  string
	// Script is the shortest op script found that shows the change on both
	// builds.
	Script []op.Op
	Shrunk bool
	// Key names the change across runs and builds (baselines): the clauses,
	// the op's kind and the two results, without indices.
	Key     string
	Also    []string      // the other cases that showed a change with the same key
	Elapsed time.Duration // its cases' time on both builds, shrinking included
}

// Group is the heading a change is listed under: its clauses.
func (c Change) Group() string { return strings.Join(c.Clauses, ", ") }

// DiffResult is what DiffWith found.
type DiffResult struct {
	Changes []Change
	Cases   int // cases run on both builds
	Random  int // random sequences among them
	Skipped []string
	Flaky   int // changes that did not show again (DiffRun.Confirm)
	Elapsed time.Duration
}

type diffState struct {
	pass
	old, new conformance.Executor
	s        DiffRun
	out      *DiffResult
	byKey    map[string]int // change key -> index in out.Changes
}

// DiffWith reports every case of s whose runs on old and new differ,
// shrunk to the shortest script that still differs the same way.
func DiffWith(old, new conformance.Executor, s DiffRun) *DiffResult {
	t0 := time.Now()
	s.Cases = s.Cases.withDefaults(diffShrinkTotal)
	checks := s.checks()
	st := &diffState{old: old, new: new, s: s, out: &DiffResult{}, byKey: map[string]int{}}
	st.pass = newPass(&st.s.Cases, len(checks))
	for i := range checks {
		c := &checks[i]
		st.progress(c.Name)
		switch {
		case !c.AppliesTo(s.Profile):
			continue
		case !s.Caps.Has(c.Needs):
			st.out.Skipped = append(st.out.Skipped, c.Name+": the targets cannot drive it (missing "+(c.Needs&^s.Caps).Text()+")")
			continue
		}
		clauses := checkClauses(c.Name, s.Profile)
		st.runCase(c.Name, c.Ops(), clauses)
		if s.Probes {
			for _, pc := range conformance.ProbeCases(c, s.Profile, s.Caps) {
				if st.ended() {
					break
				}
				st.runCase(pc.Name, pc.Ops, clauses)
			}
		}
		if st.ended() {
			break
		}
	}
	if !st.ended() {
		st.random(func(name string, ops []op.Op) bool {
			st.out.Random++
			st.runCase(name, ops, nil)
			return !st.ended()
		})
	}
	st.out.Elapsed = time.Since(t0)
	return st.out
}

// ended: DiffRun.First and a change found.
func (st *diffState) ended() bool { return st.s.First && len(st.out.Changes) > 0 }

// checkClauses are the clauses of the contract that name the directed
// check and bind a build of profile p.
func checkClauses(check string, p model.Profile) []string {
	var out []string
	for _, c := range catalogue.Clauses() {
		if c.HeldOn(p) && slices.Contains(c.Checks, check) {
			out = append(out, c.ID)
		}
	}
	return out
}

// runCase runs ops on both builds and records a change if they differ.
func (st *diffState) runCase(name string, ops []op.Op, clauses []string) {
	t0 := time.Now()
	st.out.Cases++
	a, b := st.both(ops)
	d, ok := compareOutcomes(ops, a, b)
	if !ok {
		return
	}
	if st.s.Confirm && !st.repeats(ops, d.sig()) {
		st.out.Flaky++
		return
	}
	ch := Change{Case: name, At: d.at, Old: d.old, New: d.new, Script: ops, Rule: d.rule}
	// A change is listed under the clauses of the directed check that
	// showed it (written to judge them; the model's rule is ch.Rule), or
	// for a random sequence under the rule of the call.
	if ch.Clauses = slices.Clone(clauses); len(clauses) == 0 {
		ch.Clauses = []string{d.rule.String()}
	}
	ch.Key = changeKey(ch.Clauses, ops, d)
	if i, ok := st.byKey[ch.Key]; ok {
		st.out.Changes[i].Also = append(st.out.Changes[i].Also, name)
		st.out.Changes[i].Elapsed += time.Since(t0)
		return
	}
	st.byKey[ch.Key] = len(st.out.Changes)
	if st.s.NoShrink {
		ch.Script = conformance.ReproPrefix(ops, d.at)
	} else if cut := ch; st.shrinkChange(&ch, d) && st.s.Confirm && !st.repeats(ch.Script, d.sig()) {
		ch = cut
		ch.Script = conformance.ReproPrefix(ops, d.at)
	}
	ch.Elapsed = time.Since(t0)
	st.out.Changes = append(st.out.Changes, ch)
}

// both runs ops on the two builds at once (each its own runtime instance,
// so they cannot see each other): the diff takes the slower build's time.
func (st *diffState) both(ops []op.Op) (a, b conformance.Outcome) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		b = st.new.Execute(ops, true)
	}()
	a = st.old.Execute(ops, true)
	<-done
	return a, b
}

// repeats says whether two more runs of ops on both builds differ again
// with signature sig.
func (st *diffState) repeats(ops []op.Op, sig string) bool {
	for range 2 {
		a, b := st.both(ops)
		if d, ok := compareOutcomes(ops, a, b); !ok || d.sig() != sig {
			return false
		}
	}
	return true
}

// shrinkChange looks for the shortest script that still differs the same
// way (sig), within the budgets; it says whether it shrank.
func (st *diffState) shrinkChange(ch *Change, d outcomeDiff) bool {
	want, best := d.sig(), d
	got, ran := st.shrink(conformance.ReproPrefix(ch.Script, d.at), func(cand []op.Op) bool {
		a, b := st.both(cand)
		cd, ok := compareOutcomes(cand, a, b)
		if !ok || cd.sig() != want {
			return false
		}
		best = cd
		return true
	})
	if !ran {
		ch.Script = got
		return false
	}
	ch.Shrunk = len(got) < len(ch.Script)
	ch.Script = conformance.ReproPrefix(got, best.at)
	ch.At, ch.Old, ch.New = best.at, best.old, best.new
	return ch.Shrunk
}

// outcomeDiff is the first place where two runs of the same ops differ.
type outcomeDiff struct {
	at       int
	old, new string
	rule     model.Rule
	judged   bool   // the model found rule broken there on one side
	kind     string // the op's kind at `at` ("cleanup", "setup")
}

// sig is what a shrunk script must still show: the kind of op and the two
// results, without the op's arguments and index.
func (d outcomeDiff) sig() string {
	return d.kind + "\x00" + ResultOf(d.old) + "\x00" + ResultOf(d.new)
}

// resultOf is what follows " -> " in a history line, or a death's text.
func ResultOf(line string) string {
	if i := strings.Index(line, " -> "); i >= 0 && strings.HasPrefix(line, "#") {
		return line[i+4:]
	}
	return line
}

var indexRE = regexp.MustCompile(`#\d+`)

// MaskIndices writes every op index ("#12") of s as "#".
func MaskIndices(s string) string { return indexRE.ReplaceAllString(s, "#") }

// changeKey fingerprints a change for baselines: its clauses, the op's
// kind and the two results, without op indices (so the same change found
// by another case, or shrunk differently, keeps its key).
func changeKey(clauses []string, ops []op.Op, d outcomeDiff) string {
	return strings.Join(clauses, ",") + "|" + d.kind + "|" + MaskIndices(ResultOf(d.old)) + " -> " + MaskIndices(ResultOf(d.new))
}

// ruleAt is the rule a difference at op at concerns: the rule of a model
// finding there on either side (judged), else the rule of the op's entry.
func ruleAt(ops []op.Op, at int, outs ...conformance.Outcome) (model.Rule, bool) {
	for _, o := range outs {
		if o.Result == nil {
			continue
		}
		for _, f := range o.Result.Findings {
			if f.Index == at && f.Rule != model.RuleNone {
				return f.Rule, true
			}
		}
	}
	switch {
	case at >= 0 && at < len(ops):
		return conformance.EntryRule(ops[at]), false
	case at == len(ops):
		return model.REDestroy, false // the runner's cleanup finalizes and destroys
	}
	return model.RESup, false // setup asks supported(NULL) first
}

// newDiff is a difference at op at, with the rule it concerns.
func newDiff(ops []op.Op, at int, old, new string, outs ...conformance.Outcome) outcomeDiff {
	d := outcomeDiff{at: at, old: old, new: new, kind: opSig(ops, at)}
	d.rule, d.judged = ruleAt(ops, at, outs...)
	return d
}

// compareOutcomes finds the first difference between two runs of ops.
func compareOutcomes(ops []op.Op, a, b conformance.Outcome) (outcomeDiff, bool) {
	aPass, bPass := a.Verdict == model.Pass && a.Result != nil, b.Verdict == model.Pass && b.Result != nil
	// The calls both runs made before either died are compared first: a
	// build that answered differently and then crashed shows the answer.
	if ds, _ := conformance.CompareSteps(a.Steps, b.Steps); aPass && bPass && len(ds) > 0 {
		return newDiff(ops, ds[0].Index, ds[0].Old, ds[0].New, a, b), true
	}
	switch {
	case aPass && bPass:
		fa, fb := findingKeys(a.Result), findingKeys(b.Result)
		for i := range max(len(fa), len(fb)) {
			if x, y := keyAt(fa, i), keyAt(fb, i); x != y {
				return newDiff(ops, min(x.index, y.index), x.text(), y.text(), a, b), true
			}
		}
		return outcomeDiff{}, false
	case !aPass && !bPass:
		if a.Verdict == b.Verdict && a.At == b.At {
			return outcomeDiff{}, false
		}
	}
	at := a.At
	switch {
	case aPass:
		at = b.At
	case !bPass:
		at = min(a.At, b.At)
	}
	if at < 0 {
		at = conformance.AtSetup
	}
	return newDiff(ops, at, describeAt(ops, a, at), describeAt(ops, b, at), a, b), true
}

// describeAt is what run o did at op at: its line there, or its death.
func describeAt(ops []op.Op, o conformance.Outcome, at int) string {
	if o.Verdict != model.Pass || o.Result == nil {
		if o.Verdict == model.Pass {
			return "no result"
		}
		line, _, _ := strings.Cut(o.Detail, "\n")
		return fmt.Sprintf("%s at %s: %s", o.Verdict, conformance.OpAt(ops, o.At), line)
	}
	if at >= 0 && at < len(o.Steps) {
		return o.Steps[at].Line
	}
	if at == len(ops) {
		return "cleanup finished"
	}
	return "set up"
}

// NoFinding is a change's side where the model found nothing.
const NoFinding = "no finding"

type findingKey struct {
	index   int
	rule    model.Rule
	verdict model.Verdict
	key     string
}

func (k findingKey) text() string {
	if k.rule == model.RuleNone && k.key == "" {
		return NoFinding
	}
	return fmt.Sprintf("model: #%d %s %s %s", k.index, k.rule, k.verdict, k.key)
}

// keyAt is ks[i], or no finding (whose index gives way to the other side's).
func keyAt(ks []findingKey, i int) findingKey {
	if i < len(ks) {
		return ks[i]
	}
	return findingKey{index: math.MaxInt}
}

// findingKeys are a run's findings as what names them, in op order.
func findingKeys(r *conformance.Result) []findingKey {
	var out []findingKey
	for _, f := range r.Findings {
		k := f.Key
		if k == "" {
			k = f.Detail
		}
		out = append(out, findingKey{index: f.Index, rule: f.Rule, verdict: f.Verdict, key: k})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].index < out[j].index })
	return out
}
