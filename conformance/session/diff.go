package session

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/suite"
	"github.com/simabi/simabi/internal/scratch"
)

// DiffOptions are `abicheck diff`'s own flags, beside the session's.
type DiffOptions struct {
	NoSpeed bool
	// SpeedBudget bounds the timing of the hot-path entries (both builds
	// and the noise reference together).
	SpeedBudget time.Duration
}

// DiffTarget is one side of a diff, opened: sim:PROFILE in this process,
// a library in child processes.
func DiffTarget(spec string, o *Options, stderr io.Writer) (*Target, error) {
	if IsSimSpec(spec) {
		return SimTarget(spec, o.CaseTimeout), nil
	}
	if strings.HasPrefix(spec, "sim:") {
		return nil, fmt.Errorf("unknown built-in target %q (sim:tmr or sim:refusing)", spec)
	}
	return LibTarget(spec, o, stderr)
}

// DiffReport is a diff's result in the form -json prints.
type DiffReport struct {
	Old     JSONTarget       `json:"old"`
	New     JSONTarget       `json:"new"`
	Seed    uint64           `json:"seed"`
	Profile string           `json:"profile"` // the profile whose cases ran
	Changes []JSONChange     `json:"changes"`
	Targets []string         `json:"target_changes,omitempty"` // what differs in what the builds are
	Skipped []string         `json:"skipped,omitempty"`
	Speed   any              `json:"speed,omitempty"`
	Summary JSONDiffSummary  `json:"summary"`
	groups  map[string][]int // group -> indices into Changes
}

// JSONChange is one change of a diff.
type JSONChange struct {
	Group   string   `json:"group"` // the clauses, joined
	Clauses []string `json:"clauses"`
	Rule    string   `json:"rule"`
	Case    string   `json:"case"`
	At      int      `json:"at"`
	Old     string   `json:"old"`
	New     string   `json:"new"`
	Script  []string `json:"script"`
	Shrunk  bool     `json:"shrunk"`
	File    string   `json:"file,omitempty"` // the script written for the replays
	Replay  []string `json:"replay,omitempty"`
	Key     string   `json:"key"`
	Known   bool     `json:"known"`
	Also    []string `json:"also,omitempty"` // other cases that showed the same change
}

// JSONDiffSummary counts a diff.
type JSONDiffSummary struct {
	Cases        int `json:"cases"`
	Random       int `json:"random"`
	Changes      int `json:"changes"`
	Known        int `json:"known"`
	Groups       int `json:"groups"`
	SpeedChanges int `json:"speed_changes"`
	ElapsedMs    int `json:"elapsed_ms"`
}

// New counts the changes a baseline did not list.
func (s JSONDiffSummary) New() int { return s.Changes - s.Known }

// SpeedComparer times the hot-path entries of two builds (conformance/speed):
// the report, and how many entries changed beyond the noise.
type SpeedComparer func(old, new *Target, budget time.Duration) (report any, changed int, text string, err error)

// Diff runs `abicheck diff OLD NEW` once both are open: the behaviour
// diff, then the speed comparison when compare is given.
func Diff(old, new *Target, o *Options, d DiffOptions, compare SpeedComparer, stdout, stderr io.Writer) int {
	t0 := time.Now()
	rep := &DiffReport{Old: jsonTarget(old), New: jsonTarget(new), Seed: o.Seed, Changes: []JSONChange{}}
	profile, _ := conformance.ParseProfile(old.Info.ProfileModel)
	rep.Profile = profile.String()
	for _, f := range []struct{ what, a, b string }{
		{"revision", old.Info.Revision, new.Info.Revision},
		{"profile", old.Info.Profile, new.Info.Profile},
		{"simulation hooks", strconv.FormatBool(old.Info.Hooks), strconv.FormatBool(new.Info.Hooks)},
	} {
		if f.a != f.b {
			rep.Targets = append(rep.Targets, fmt.Sprintf("%s: %s → %s", f.what, f.a, f.b))
		}
	}
	known, err := readDiffBaseline(o.Baseline)
	if err != nil {
		fmt.Fprintf(stderr, "abicheck: %v\n", err)
		return ExitUsage
	}
	out := NewPrinter(o, stdout)
	progress := out.Progress("diff")
	res := suite.DiffWith(old.Exec, new.Exec, suite.DiffRun{Profile: profile, Caps: old.Info.Caps & new.Info.Caps, Probes: !o.NoProbes,
		Random: o.Sequences, RandomOps: o.MaxOps, Seed: o.Seed, HoldMs: 10, Duration: o.Duration, NoShrink: o.NoShrink, Progress: progress})
	out.ClearProgress()
	rep.Skipped = res.Skipped
	scripts, err := newDiffScripts(o.ReproDir, len(res.Changes))
	if err != nil {
		fmt.Fprintf(stderr, "abicheck: writing the scripts: %v\n", err)
		return ExitUsage
	}
	defer scripts.done(stderr)
	rep.groups = map[string][]int{}
	for i, c := range res.Changes {
		jc := JSONChange{Group: c.Group(), Clauses: c.Clauses, Rule: c.Rule.String(), Case: c.Case, At: c.At, Old: c.Old, New: c.New,
			Script: conformance.OpLines(c.Script), Shrunk: c.Shrunk, Key: c.Key, Known: known[c.Key], Also: c.Also}
		if jc.Known {
			rep.Summary.Known++
		}
		jc.File = filepath.Join(scripts.dir, fmt.Sprintf("diff-%d.ops", i+1))
		jc.Replay = []string{replayLine(old, jc.File), replayLine(new, jc.File)}
		if err := scripts.write(jc.File, diffScript(old, new, jc)); err != nil {
			fmt.Fprintf(stderr, "abicheck: writing %s: %v\n", jc.File, err)
			return ExitUsage
		}
		rep.groups[jc.Group] = append(rep.groups[jc.Group], len(rep.Changes))
		rep.Changes = append(rep.Changes, jc)
	}
	rep.Summary.Cases, rep.Summary.Random, rep.Summary.Changes, rep.Summary.Groups = res.Cases, res.Random, len(rep.Changes), len(rep.groups)
	speedText := ""
	if compare != nil && !d.NoSpeed {
		sr, changed, text, err := compare(old, new, d.SpeedBudget)
		if err != nil {
			fmt.Fprintf(stderr, "abicheck: timing the builds: %v\n", err)
			return ExitUsage
		}
		rep.Speed, rep.Summary.SpeedChanges, speedText = sr, changed, text
	}
	rep.Summary.ElapsedMs = int(time.Since(t0).Milliseconds())
	if o.WriteBaseline != "" {
		n, err := writeDiffBaseline(o.WriteBaseline, rep)
		if err != nil {
			fmt.Fprintf(stderr, "abicheck: %v\n", err)
			return ExitUsage
		}
		defer announce(stderr, "the baseline of %s to %s", plural(n, "change key"), o.WriteBaseline)
	}
	if o.JUnit != "" {
		if err := writeDiffJUnit(o.JUnit, rep); err != nil {
			fmt.Fprintf(stderr, "abicheck: %v\n", err)
			return ExitUsage
		}
		defer announce(stderr, "the JUnit report to %s", o.JUnit)
	}
	if o.JSON {
		if err := WriteJSONValue(stdout, rep); err != nil {
			fmt.Fprintf(stderr, "abicheck: %v\n", err)
			return ExitUsage
		}
	} else {
		printDiff(stdout, rep, o, speedText)
	}
	scripts.reported = true
	if rep.Summary.New() > 0 || rep.Summary.SpeedChanges > 0 || len(rep.Targets) > 0 {
		return ExitFindings
	}
	return ExitOK
}

// diffScripts are a diff's op scripts: in -repro-dir, else in a new
// temporary directory, which is kept, and named, only once the report that
// refers to it has been printed (an interrupted or failed diff removes it).
type diffScripts struct {
	dir      string
	temp     bool
	release  func() // the temporary directory's scratch entry
	names    []string
	reported bool
}

// newDiffScripts is where n scripts go (no directory is made for none).
func newDiffScripts(reproDir string, n int) (*diffScripts, error) {
	s := &diffScripts{dir: reproDir}
	if reproDir == "" && n > 0 {
		dir, release, err := scratch.MkdirTemp("", "abicheck-diff-")
		if err != nil {
			return nil, err
		}
		s.dir, s.temp, s.release = dir, true, release
	}
	return s, nil
}

func (s *diffScripts) write(path, text string) error {
	if err := writeOutput(path, []byte(text)); err != nil {
		return err
	}
	s.names = append(s.names, filepath.Base(path))
	return nil
}

// done names the scripts written, or removes the temporary directory
// whose report was not printed.
func (s *diffScripts) done(stderr io.Writer) {
	if s.temp && !s.reported {
		os.RemoveAll(s.dir)
		s.release()
		return
	}
	if s.temp {
		s.release()
	}
	if len(s.names) == 0 {
		return
	}
	where := s.dir
	if s.temp {
		where += ", a new directory (-repro-dir DIR chooses it)"
	}
	list := strings.Join(s.names, ", ")
	if len(s.names) > 3 {
		list = s.names[0] + " to " + s.names[len(s.names)-1] // numbered 1 to N
	}
	announce(stderr, "%s to %s: %s", plural(len(s.names), "op script"), where, list)
}

func jsonTarget(t *Target) JSONTarget {
	return JSONTarget{Path: t.Label, Revision: t.Info.Revision, Profile: t.Info.Profile, Supported: t.Info.Supported}
}

// replayLine is the command that replays file on t.
func replayLine(t *Target, file string) string {
	args := t.ReplayArgs
	if args == "" {
		args = "sim:tmr"
	}
	return "abicheck -replay " + ShellQuote(file) + " " + args
}

// diffScript is a change's op script, with a header saying what differs.
func diffScript(old, new *Target, c JSONChange) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# abicheck diff: %s (%s)\n", c.Group, c.Case)
	fmt.Fprintf(&b, "# old: %s\n#   %s\n", old.Label, c.Old)
	fmt.Fprintf(&b, "# new: %s\n#   %s\n", new.Label, c.New)
	for _, r := range c.Replay {
		fmt.Fprintf(&b, "# replay: %s\n", r)
	}
	for _, l := range c.Script {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// printDiff writes the human report: the changes by group, old → new,
// with the replay commands, then the speed table and a summary.
func printDiff(w io.Writer, rep *DiffReport, o *Options, speedText string) {
	fmt.Fprintf(w, "abicheck diff\n  old: %s (%s, %s)\n  new: %s (%s, %s)\n", rep.Old.Path, rep.Old.Revision, rep.Old.Profile,
		rep.New.Path, rep.New.Revision, rep.New.Profile)
	for _, t := range rep.Targets {
		fmt.Fprintf(w, "  the builds differ: %s\n", t)
	}
	groups := make([]string, 0, len(rep.groups))
	for g := range rep.groups {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s\n", g)
		for _, i := range rep.groups[g] {
			c := rep.Changes[i]
			tag := ""
			if c.Known {
				tag = " (known)"
			}
			fmt.Fprintf(w, "  %s, #%d%s:\n    old: %s\n    new: %s\n", c.Case, c.At, tag, c.Old, c.New)
			if len(c.Also) > 0 {
				fmt.Fprintf(w, "    also in %d other case(s): %s\n", len(c.Also), alsoText(c.Also))
			}
			if !o.Quiet {
				fmt.Fprintf(w, "    script (%d ops): %s\n", len(c.Script), c.File)
				for _, r := range c.Replay {
					fmt.Fprintf(w, "    %s\n", r)
				}
			}
		}
	}
	if speedText != "" {
		fmt.Fprintf(w, "\n%s", speedText)
	}
	s := rep.Summary
	verdict := "no change"
	switch {
	case s.New() > 0 || s.SpeedChanges > 0 || len(rep.Targets) > 0:
		verdict = fmt.Sprintf("%d change(s) in %d group(s), %d in speed", s.New(), s.Groups, s.SpeedChanges)
	case s.Known > 0:
		verdict = fmt.Sprintf("no new change (%d known)", s.Known)
	}
	fmt.Fprintf(w, "\nabicheck diff: %d cases (%d random, seed %d) on both builds, %s profile: %s\n", s.Cases, s.Random, rep.Seed, rep.Profile, verdict)
}

// alsoText names the first few cases.
func alsoText(cases []string) string {
	if len(cases) <= 4 {
		return strings.Join(cases, ", ")
	}
	return strings.Join(cases[:4], ", ") + fmt.Sprintf(" and %d more", len(cases)-4)
}

// ---- baselines ----

const diffBaselineHeader = "# abicheck diff baseline: one change key per line (abicheck diff -write-baseline)"

func readDiffBaseline(path string) (map[string]bool, error) {
	known := map[string]bool{}
	if path == "" {
		return known, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("-baseline %s: %v", path, errors.Unwrap(err))
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		known[l] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("-baseline %s: %v", path, err)
	}
	return known, nil
}

// writeDiffBaseline writes the keys of rep's changes and returns how many.
func writeDiffBaseline(path string, rep *DiffReport) (int, error) {
	var b strings.Builder
	b.WriteString(diffBaselineHeader + "\n")
	seen := map[string]bool{}
	for _, c := range rep.Changes {
		if !seen[c.Key] {
			seen[c.Key] = true
			fmt.Fprintf(&b, "# %s: %s\n%s\n", c.Group, c.Case, c.Key)
		}
	}
	if err := writeOutput(path, []byte(b.String())); err != nil {
		return 0, fmt.Errorf("-write-baseline %s: %v", path, errors.Unwrap(err))
	}
	return len(seen), nil
}

// ---- JUnit ----

type junitDiffSuites struct {
	XMLName xml.Name         `xml:"testsuites"`
	Name    string           `xml:"name,attr"`
	Suites  []junitDiffSuite `xml:"testsuite"`
}

type junitDiffSuite struct {
	Name     string          `xml:"name,attr"`
	Tests    int             `xml:"tests,attr"`
	Failures int             `xml:"failures,attr"`
	Time     string          `xml:"time,attr"`
	Cases    []junitDiffCase `xml:"testcase"`
}

type junitDiffCase struct {
	Name      string            `xml:"name,attr"`
	Classname string            `xml:"classname,attr"`
	Failure   *junitDiffFailure `xml:"failure,omitempty"`
	SystemOut string            `xml:"system-out,omitempty"`
}

type junitDiffFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// writeDiffJUnit writes one test case per group of changes (failed unless
// every change of it is known), one for the behaviour as a whole, and one
// for the speed comparison.
func writeDiffJUnit(path string, rep *DiffReport) error {
	s := junitDiffSuite{Name: rep.Old.Path + " -> " + rep.New.Path, Time: fmt.Sprintf("%.3f", float64(rep.Summary.ElapsedMs)/1000)}
	add := func(c junitDiffCase) {
		s.Cases = append(s.Cases, c)
		s.Tests++
		if c.Failure != nil {
			s.Failures++
		}
	}
	groups := make([]string, 0, len(rep.groups))
	for g := range rep.groups {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		var text strings.Builder
		allKnown := true
		for _, i := range rep.groups[g] {
			c := rep.Changes[i]
			allKnown = allKnown && c.Known
			fmt.Fprintf(&text, "%s #%d\n  old: %s\n  new: %s\n", c.Case, c.At, c.Old, c.New)
			for _, r := range c.Replay {
				fmt.Fprintf(&text, "  %s\n", r)
			}
		}
		jc := junitDiffCase{Name: g, Classname: "abicheck.diff.behaviour"}
		if allKnown {
			jc.SystemOut = "known: " + text.String()
		} else {
			jc.Failure = &junitDiffFailure{Message: fmt.Sprintf("%d change(s)", len(rep.groups[g])), Text: text.String()}
		}
		add(jc)
	}
	whole := junitDiffCase{Name: "behaviour", Classname: "abicheck.diff",
		SystemOut: fmt.Sprintf("%d cases (%d random), %d changes, %d known", rep.Summary.Cases, rep.Summary.Random, rep.Summary.Changes, rep.Summary.Known)}
	if len(rep.Targets) > 0 {
		whole.Failure = &junitDiffFailure{Message: "the builds differ", Text: strings.Join(rep.Targets, "\n")}
	}
	add(whole)
	if rep.Speed != nil {
		jc := junitDiffCase{Name: "speed", Classname: "abicheck.diff"}
		if rep.Summary.SpeedChanges > 0 {
			jc.Failure = &junitDiffFailure{Message: fmt.Sprintf("%d entries changed speed beyond the noise", rep.Summary.SpeedChanges)}
		}
		add(jc)
	}
	b, err := xml.MarshalIndent(junitDiffSuites{Name: "abicheck diff", Suites: []junitDiffSuite{s}}, "", "  ")
	if err != nil {
		return err
	}
	if err := writeOutput(path, append([]byte(xml.Header), append(b, '\n')...)); err != nil {
		return fmt.Errorf("-junit %s: %v", path, errors.Unwrap(err))
	}
	return nil
}
