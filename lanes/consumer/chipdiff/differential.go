package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
)

// result is one variant of one action: the consumer's transcript,
// lifecycle's, and their differences, each decided by a verdict or not.
type result struct {
	Action    action
	Variant   variant
	CW, Go    transcript
	Decided   []decidedDiff
	Undecided []difference
}

type decidedDiff struct {
	D difference
	V *verdict
}

// judge compares one variant's transcripts of the consumer c and of lifecycle.
func judge(c, ours consumer, a action, v variant, theirs, mine transcript) result {
	r := result{Action: a, Variant: v, CW: theirs, Go: mine}
	for _, d := range compare([2]string{c.name, ours.name}, a, v, theirs, mine) {
		if vd := verdictFor(c.verdicts, d, theirs, mine); vd != nil {
			r.Decided = append(r.Decided, decidedDiff{d, vd})
		} else {
			r.Undecided = append(r.Undecided, d)
		}
	}
	return r
}

// parallel runs f for each action on 2*GOMAXPROCS goroutines (a run waits on
// a child process most of its time) and returns the results in action order.
func parallel(as []action, f func(action) ([]result, error)) ([]result, error) {
	out := make([][]result, len(as))
	errs := make([]error, len(as))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(2*runtime.GOMAXPROCS(0), len(as))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = f(as[i])
			}
		}()
	}
	for i := range as {
		next <- i
	}
	close(next)
	wg.Wait()
	var all []result
	for i := range as {
		if errs[i] != nil {
			return nil, fmt.Errorf("%s: %w", as[i].name, errs[i])
		}
		all = append(all, out[i]...)
	}
	return all, nil
}

// lane runs every variant of each action with both consumers: c's plain
// run decides the variants.
func lane(b *bench, c, ours consumer, as []action) ([]result, error) {
	return parallel(as, func(a action) ([]result, error) {
		plain, err := b.run(c, a.steps, a.base)
		if err != nil {
			return nil, err
		}
		var rs []result
		for _, v := range variantsOf(a, callsOf(plain)) {
			t := plain
			if v.Name != "plain" {
				if t, err = b.run(c, a.steps, v.Knobs); err != nil {
					return nil, err
				}
			}
			g, err := b.run(ours, a.steps, v.Knobs)
			if err != nil {
				return nil, err
			}
			rs = append(rs, judge(c, ours, a, v, t, g))
		}
		return rs, nil
	})
}

// replay runs lifecycle's side of every recorded variant and judges it
// against the consumer c's recorded transcript.
func replay(b *bench, c, ours consumer, recs map[string]record) ([]result, error) {
	return parallel(c.actions, func(a action) ([]result, error) {
		rec, ok := recs[a.name]
		if !ok {
			return nil, fmt.Errorf("no record of %s (run the consumer lane with CHIPDIFF_UPDATE=1)", c.name)
		}
		if !slices.Equal(rec.Steps, a.steps) {
			return nil, fmt.Errorf("the record's steps %q are not the action's %q", rec.Steps, a.steps)
		}
		var rs []result
		for _, rv := range rec.Variants {
			g, err := b.run(ours, a.steps, rv.Variant.Knobs)
			if err != nil {
				return nil, err
			}
			rs = append(rs, judge(c, ours, a, rv.Variant, rv.T, g))
		}
		return rs, nil
	})
}

func readRecords(dir string) (map[string]record, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	out := map[string]record{}
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		r, err := readRecord(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out[r.Action] = r
	}
	return out, nil
}

// writeRecords writes the consumer c's transcripts, one file per action.
func writeRecords(dir string, c consumer, rs []result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	byAction := map[string]*record{}
	var order []string
	for _, r := range rs {
		rec := byAction[r.Action.name]
		if rec == nil {
			rec = &record{Action: r.Action.name, Steps: r.Action.steps}
			byAction[r.Action.name] = rec
			order = append(order, r.Action.name)
		}
		rec.Variants = append(rec.Variants, recordedVariant{Variant: r.Variant, T: r.CW})
	}
	for _, name := range order {
		f, err := os.Create(filepath.Join(dir, name+".txt"))
		if err != nil {
			return err
		}
		err = writeRecord(f, c.about, *byAction[name])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// tally counts runs: those that agree, those that differ only where
// decided, those with an undecided difference.
type tally struct{ runs, agree, decided, undecided int }

func (t *tally) add(r result) {
	t.runs++
	switch {
	case len(r.Undecided) > 0:
		t.undecided++
	case len(r.Decided) > 0:
		t.decided++
	default:
		t.agree++
	}
}

// row is one action's results.
type row struct {
	name, steps string
	tally
	verdicts []string
}

// summary counts the results, in all and per action.
type summary struct {
	tally
	knobVariants   int
	rows           []*row
	verdictsUsed   map[*verdict]bool
	undecidedDiffs []difference
}

func summarize(rs []result) summary {
	s := summary{verdictsUsed: map[*verdict]bool{}}
	for _, r := range rs {
		if len(s.rows) == 0 || s.rows[len(s.rows)-1].name != r.Action.name {
			x := &row{name: r.Action.name, steps: strings.Join(r.Action.steps, " ")}
			if len(r.Action.base) > 0 {
				x.steps += " (" + strings.Join(r.Action.base, " ") + ")"
			}
			s.rows = append(s.rows, x)
		}
		x := s.rows[len(s.rows)-1]
		s.add(r)
		x.add(r)
		if r.Variant.Name != "plain" {
			s.knobVariants++
		}
		s.undecidedDiffs = append(s.undecidedDiffs, r.Undecided...)
		for _, d := range r.Decided {
			s.verdictsUsed[d.V] = true
			if !slices.Contains(x.verdicts, d.V.ID) {
				x.verdicts = append(x.verdicts, d.V.ID)
			}
		}
	}
	return s
}

func (s summary) text() string {
	var b strings.Builder
	for _, d := range s.undecidedDiffs {
		fmt.Fprintf(&b, "UNDECIDED %s\n", d)
	}
	byKind := map[string]int{} // distinct decided differences by verdict kind
	for v := range s.verdictsUsed {
		byKind[v.Kind]++
	}
	var kinds []string
	for k, n := range byKind {
		kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(kinds)
	fmt.Fprintf(&b, "chipdiff: %d actions, %d runs (%d plain, %d knob-forced variants): %d agree, %d differ only where decided (%d verdicts: %s), %d with an undecided difference\n",
		len(s.rows), s.runs, s.runs-s.knobVariants, s.knobVariants, s.agree, s.decided, len(s.verdictsUsed), strings.Join(kinds, ", "), s.undecided)
	return b.String()
}

// markdown is the table of actions and verdicts (docs/upstream.md).
func (s summary) markdown() string {
	var b strings.Builder
	fmt.Fprintln(&b, "| action | steps | runs | agree | decided | undecided | verdicts |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|")
	for _, x := range s.rows {
		v := strings.Join(x.verdicts, ", ")
		if v == "" {
			v = "-"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %d | %d | %d | %d | %s |\n", x.name, x.steps, x.runs, x.agree, x.decided, x.undecided, v)
	}
	fmt.Fprintln(&b)
	fmt.Fprint(&b, s.text())
	return b.String()
}
