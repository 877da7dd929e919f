package session

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/conformance/speed"
	"github.com/simabi/simabi/conformance/suite"
	"github.com/simabi/simabi/internal/scratch"
)

// DiffOptions are `abicheck diff`'s own flags, beside the session's.
type DiffOptions struct {
	NoSpeed     bool
	SpeedBudget time.Duration // both builds' timing and the noise reference's together
}

// DiffMain is `abicheck diff OLD NEW` once its flags are parsed (sides: o
// with each side's build flags); it returns the exit status.
func DiffMain(o *Options, sides [2]*Options, d DiffOptions, args []string, stdout, stderr io.Writer) int {
	flag := slices.IndexFunc(args, func(a string) bool { return strings.HasPrefix(a, "-") })
	switch {
	case flag >= 0:
		return UsageError(stderr, "diff: flags must come before OLD and NEW: "+args[flag])
	case len(args) == 0:
		return UsageError(stderr, "diff needs OLD and NEW, got 0 argument(s)")
	case len(args) != 2:
		return UsageError(stderr, fmt.Sprintf("diff needs OLD and NEW, got %d argument(s): %s", len(args), strings.Join(args, " ")))
	case slices.Contains(args, ""):
		return UsageError(stderr, "diff: OLD and NEW must not be empty (a library path, sim:tmr or sim:refusing)")
	case o.JSON && o.Quiet:
		return UsageError(stderr, "diff: -json and -q do not go together")
	}
	names := [2]string{"OLD", "NEW"}
	for i, side := range sides {
		if err := side.Validate(args[i]); err != nil {
			return UsageError(stderr, "diff: "+names[i]+": "+err.Error())
		}
	}
	if err := o.CheckOutputs(); err != nil {
		return UsageError(stderr, "diff: "+err.Error())
	}
	var ts [2]*Target
	for i, side := range sides {
		t, err := OpenTarget(args[i], side, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "abicheck: %s: %v\n", names[i], err)
			return ExitUsage
		}
		defer t.Close()
		ts[i] = t
	}
	return diffWith(NewPrinter(o, stdout), ts[0], ts[1], o, d, speedComparer(sides), stdout, stderr)
}

// speedComparer times the hot-path entries of both builds, interleaved, and
// OLD against itself for the noise (conformance/speed).
func speedComparer(sides [2]*Options) SpeedComparer {
	build := func(t *Target, o *Options) speed.Build {
		if IsSimSpec(t.Label) {
			return speed.Build{Label: t.Label, Sim: t.Label}
		}
		return speed.Build{Label: t.Label, Lib: o.libConfig(t.Label)}
	}
	return func(old, new *Target, budget time.Duration, progress func(done, total int, name string)) (any, int, string, error) {
		so := speed.Options{Budget: budget, Timeout: sides[0].CaseTimeout, LoadTimeout: sides[0].LoadTimeout, Progress: progress}
		rep, err := speed.Compare(build(old, sides[0]), build(new, sides[1]), so)
		if err != nil {
			return nil, 0, "", err
		}
		var b bytes.Buffer
		rep.WriteText(&b)
		return rep, len(rep.Differences()), b.String(), nil
	}
}

// OpenTarget opens a target: sim:PROFILE in this process, a library in
// child processes.
func OpenTarget(spec string, o *Options, stderr io.Writer) (*Target, error) {
	if IsSimSpec(spec) {
		return SimTarget(spec, o.CaseTimeout), nil
	}
	if strings.HasPrefix(spec, "sim:") {
		return nil, fmt.Errorf("unknown built-in target %q (sim:tmr or sim:refusing)", spec)
	}
	return LibTarget(spec, o, stderr)
}

// DiffReport is a diff's -json report: the envelope of every JSON report
// (JSONSchema), then the diff's own fields.
type DiffReport struct {
	Schema        string          `json:"schema"`
	Command       string          `json:"command"`
	Targets       []JSONTarget    `json:"targets"` // OLD then NEW (role "old", "new")
	ElapsedS      float64         `json:"elapsed_s"`
	Seed          uint64          `json:"seed"`
	Profile       string          `json:"profile"` // the profile whose cases ran
	ByCause       []DiffCause     `json:"causes"`  // Causes(): by entry and the part of its result that changed
	Changes       []JSONChange    `json:"changes"`
	TargetChanges []string        `json:"target_changes,omitempty"` // what differs in what the builds are
	Skipped       []string        `json:"skipped,omitempty"`
	Speed         any             `json:"speed,omitempty"`
	Summary       JSONDiffSummary `json:"summary"`
}

// Old is the report's OLD build, New its NEW.
func (r *DiffReport) Old() JSONTarget { return r.Targets[0] }
func (r *DiffReport) New() JSONTarget { return r.Targets[1] }

// JSONChange is one change of a diff.
type JSONChange struct {
	Group   string   `json:"group"` // the clauses, joined
	Clauses []string `json:"clauses"`
	Rule    string   `json:"rule"`
	Case    string   `json:"case"`
	At      int      `json:"at"`
	Old     string   `json:"old"`
	New     string   `json:"new"`
	// The change's cause (DiffCause): the entry called at At and the part
	// of its result that differs, with the two values.
	Entry     string   `json:"entry"`
	Field     string   `json:"field"`
	OldValue  string   `json:"old_value"`
	NewValue  string   `json:"new_value"`
	Script    []string `json:"script"`
	Shrunk    bool     `json:"shrunk"`
	File      string   `json:"file,omitempty"` // the script written for the replays
	Replay    []string `json:"replay,omitempty"`
	Key       string   `json:"key"`
	Known     bool     `json:"known"`
	Also      []string `json:"also,omitempty"` // other cases that showed the same change
	ElapsedMs int64    `json:"elapsed_ms"`     // its cases' time on both builds, shrinking included
}

// JSONDiffSummary counts a diff.
type JSONDiffSummary struct {
	Cases        int `json:"cases"`
	Random       int `json:"random"`
	Changes      int `json:"changes"`
	Known        int `json:"known"`
	Groups       int `json:"groups"`
	Causes       int `json:"causes"`
	SpeedChanges int `json:"speed_changes"`
	// The behaviour diff's time (cases on both builds, shrinking), the
	// speed comparison's (children loading included), the whole diff's.
	BehaviourMs int `json:"behaviour_ms"`
	SpeedMs     int `json:"speed_ms"`
	ElapsedMs   int `json:"elapsed_ms"`
}

// Differs: the builds differ in what they are, or in a change no baseline
// listed, or in speed (the diff's exit status 1).
func (r *DiffReport) Differs() bool {
	return r.Summary.New() > 0 || r.Summary.SpeedChanges > 0 || len(r.TargetChanges) > 0
}

// New counts the changes a baseline did not list.
func (s JSONDiffSummary) New() int { return s.Changes - s.Known }

// SpeedComparer times the hot-path entries of two builds (conformance/speed):
// the report, and how many entries changed beyond the noise.
type SpeedComparer func(old, new *Target, budget time.Duration, progress func(done, total int, name string)) (report any, changed int, text string, err error)

// diffWith runs `abicheck diff OLD NEW` once both are open: the behaviour
// diff, then the speed comparison when compare is given.
func diffWith(out *Printer, old, new *Target, o *Options, d DiffOptions, compare SpeedComparer, stdout, stderr io.Writer) int {
	t0 := time.Now()
	var ts []JSONTarget
	for i, t := range []*Target{old, new} {
		ts = append(ts, JSONTarget{Role: [2]string{"old", "new"}[i], Path: t.Label, Revision: t.Info.Revision, Profile: t.Info.Profile,
			Supported: t.Info.Supported})
	}
	rep := &DiffReport{Schema: JSONSchema, Command: "diff", Targets: ts, Seed: o.Seed, Changes: []JSONChange{}}
	profile, _ := conformance.ParseProfile(old.Info.ProfileModel)
	rep.Profile = profile.String()
	for _, f := range []struct{ what, a, b string }{
		{"revision", old.Info.Revision, new.Info.Revision},
		{"profile", old.Info.Profile, new.Info.Profile},
		{"simulation hooks", strconv.FormatBool(old.Info.Hooks), strconv.FormatBool(new.Info.Hooks)},
	} {
		if f.a != f.b {
			rep.TargetChanges = append(rep.TargetChanges, fmt.Sprintf("%s: %s → %s", f.what, f.a, f.b))
		}
	}
	known, err := readDiffBaseline(o.Baseline)
	if err != nil {
		return Failed(stderr, err)
	}
	res := suite.DiffWith(old.Exec, new.Exec, suite.DiffRun{Cases: o.cases(profile, old.Info.Caps&new.Info.Caps, !o.NoProbes, false, out.Progress("diff"))})
	out.ClearProgress()
	rep.Skipped, rep.Summary.BehaviourMs = res.Skipped, int(res.Elapsed.Milliseconds())
	scripts, err := newDiffScripts(o.ReproDir, len(res.Changes))
	if err != nil {
		fmt.Fprintf(stderr, "abicheck: writing the scripts: %v\n", err)
		return ExitUsage
	}
	defer scripts.done(stderr)
	if err := addChanges(rep, res, old, new, scripts, known); err != nil {
		return Failed(stderr, err)
	}
	speedText := ""
	if compare != nil && !d.NoSpeed {
		ts := time.Now()
		sr, changed, text, err := compare(old, new, d.SpeedBudget, out.Progress("diff: timing"))
		out.ClearProgress()
		rep.Summary.SpeedMs = int(time.Since(ts).Milliseconds())
		if err != nil {
			fmt.Fprintf(stderr, "abicheck: timing the builds: %v\n", err)
			return ExitUsage
		}
		rep.Speed, rep.Summary.SpeedChanges, speedText = sr, changed, text
	}
	rep.Summary.ElapsedMs = int(time.Since(t0).Milliseconds())
	rep.ElapsedS = seconds(time.Since(t0))
	return writeDiff(rep, o, speedText, scripts, stdout, stderr)
}

// addChanges adds the diff's changes to rep with their causes and scripts.
func addChanges(rep *DiffReport, res *suite.DiffResult, old, new *Target, scripts *diffScripts, known map[string]bool) error {
	rev := abi.RevKernel
	if old.Info.Revision == "legacy" {
		rev = abi.RevLegacy
	}
	groups := map[string]bool{}
	for i, c := range res.Changes {
		jc := JSONChange{Group: c.Group(), Clauses: c.Clauses, Rule: c.Rule.String(), Case: c.Case, At: c.At, Old: c.Old, New: c.New,
			Script: conformance.OpLines(c.Script), Shrunk: c.Shrunk, Key: c.Key, Known: known[c.Key], Also: c.Also,
			ElapsedMs: c.Elapsed.Milliseconds()}
		jc.Entry, jc.Field, jc.OldValue, jc.NewValue = changeCause(c.Script, c.At, rev, c.Old, c.New)
		if jc.Known {
			rep.Summary.Known++
		}
		jc.File = filepath.Join(scripts.dir, fmt.Sprintf("diff-%d.ops", i+1))
		jc.Replay = []string{replayLine(old, jc.File), replayLine(new, jc.File)}
		if err := scripts.write(jc.File, diffScript(old, new, jc)); err != nil {
			return fmt.Errorf("writing %s: %v", jc.File, err)
		}
		groups[jc.Group] = true
		rep.Changes = append(rep.Changes, jc)
	}
	rep.ByCause = rep.Causes()
	rep.Summary.Cases, rep.Summary.Random, rep.Summary.Changes = res.Cases, res.Random, len(rep.Changes)
	rep.Summary.Groups, rep.Summary.Causes = len(groups), len(rep.ByCause)
	return nil
}

// writeDiff writes the reports o asks for and returns the exit status.
func writeDiff(rep *DiffReport, o *Options, speedText string, scripts *diffScripts, stdout, stderr io.Writer) int {
	if o.WriteBaseline != "" {
		n, err := writeDiffBaseline(o.WriteBaseline, rep)
		if err != nil {
			return Failed(stderr, err)
		}
		defer announce(stderr, "the baseline of %s to %s", plural(n, "change key"), o.WriteBaseline)
	}
	if o.JUnit != "" {
		if err := writeDiffJUnit(o.JUnit, rep); err != nil {
			return Failed(stderr, err)
		}
		defer announce(stderr, "the JUnit report to %s", o.JUnit)
	}
	if o.JSON {
		if err := WriteJSONValue(stdout, rep); err != nil {
			return Failed(stderr, err)
		}
	} else {
		printDiff(stdout, rep, o, speedText)
	}
	scripts.reported = true
	if err := writePageOf(o, stderr, func(p Pages, w io.Writer) error { return p.Diff(w, rep, o) }); err != nil {
		return Failed(stderr, err)
	}
	if rep.Differs() {
		return ExitFindings
	}
	return ExitOK
}

// diffScripts are a diff's op scripts: in -repro-dir, else in a temporary
// directory kept only once the report that names it has been printed.
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
	b.WriteString(lines(c.Script))
	return b.String()
}

// printDiff writes the human report: the changes by cause, then the speed
// table and a summary.
func printDiff(w io.Writer, rep *DiffReport, o *Options, speedText string) {
	old, nw := rep.Old(), rep.New()
	fmt.Fprintf(w, "abicheck diff\n  old: %s (%s, %s)\n  new: %s (%s, %s)\n", old.Path, old.Revision, old.Profile,
		nw.Path, nw.Revision, nw.Profile)
	for _, t := range rep.TargetChanges {
		fmt.Fprintf(w, "  the builds differ: %s\n", t)
	}
	if dir := scriptDir(rep.Changes); dir != "" {
		fmt.Fprintf(w, "  scripts: %s\n", dir)
	}
	for i, c := range rep.ByCause {
		printCause(w, rep, i, c, o)
	}
	if speedText != "" {
		fmt.Fprintf(w, "\n%s", speedText)
	}
	s := rep.Summary
	verdict := "no change"
	switch {
	case rep.Differs():
		verdict = fmt.Sprintf("%s: %d change(s) in %d group(s), %d in speed", plural(s.Causes, "cause"), s.New(), s.Groups, s.SpeedChanges)
	case s.Known > 0:
		verdict = fmt.Sprintf("no new change (%d known)", s.Known)
	}
	fmt.Fprintf(w, "\nabicheck diff: %d cases (%d random, seed %d) on both builds, %s profile: %s — %.1fs\n", s.Cases, s.Random, rep.Seed,
		rep.Profile, verdict, rep.ElapsedS)
}

// printCause writes cause i: its title and counts, (not -q) its shortest
// change in full and a line per clause group (-v: its every change).
func printCause(w io.Writer, rep *DiffReport, i int, c DiffCause, o *Options) {
	tag := ""
	switch {
	case c.Known == c.Changes:
		tag = " (known)"
	case c.Known > 0:
		tag = fmt.Sprintf(" (%d known)", c.Known)
	}
	fmt.Fprintf(w, "\ncause %d: %s%s\n", i+1, c.Title, tag)
	fmt.Fprintf(w, "  %s (%s) under %s\n", plural(c.Changes, "change"), plural(c.Cases, "case"), plural(len(c.Groups), "clause group"))
	if o.Quiet {
		return
	}
	if !o.Verbose {
		fmt.Fprintf(w, "  the shortest:\n")
		printChange(w, rep.Changes[shortestChange(rep.Changes, c)], "    ")
	}
	for _, g := range c.Groups {
		var files []string
		for _, ci := range g.Changes {
			files = append(files, filepath.Base(rep.Changes[ci].File))
		}
		fmt.Fprintf(w, "  %s: %s (%s): %s\n", g.Group, plural(len(g.Changes), "change"), plural(g.Cases, "case"), strings.Join(files, " "))
		if o.Verbose {
			for _, ci := range g.Changes {
				printChange(w, rep.Changes[ci], "    ")
			}
		}
	}
}

// printChange writes one change: its case, old → new, and the replays.
func printChange(w io.Writer, c JSONChange, indent string) {
	tag := ""
	if c.Known {
		tag = " (known)"
	}
	fmt.Fprintf(w, "%s%s, #%d%s:\n%s  old: %s\n%s  new: %s\n", indent, c.Case, c.At, tag, indent, c.Old, indent, c.New)
	if len(c.Also) > 0 {
		fmt.Fprintf(w, "%s  also in %d other case(s): %s\n", indent, len(c.Also), alsoText(c.Also))
	}
	fmt.Fprintf(w, "%s  script (%s): %s\n", indent, plural(len(c.Script), "op"), c.File)
	for _, r := range c.Replay {
		fmt.Fprintf(w, "%s  %s\n", indent, r)
	}
}

// shortestChange is the cause's (first) change with the shortest script.
func shortestChange(changes []JSONChange, c DiffCause) int {
	var all []int
	for _, g := range c.Groups {
		all = append(all, g.Changes...)
	}
	return slices.MinFunc(all, func(a, b int) int {
		return cmp.Or(cmp.Compare(len(changes[a].Script), len(changes[b].Script)), cmp.Compare(a, b))
	})
}

// scriptDir is the directory the changes' scripts were written to.
func scriptDir(changes []JSONChange) string {
	if len(changes) == 0 || changes[0].File == "" {
		return ""
	}
	return filepath.Dir(changes[0].File)
}

// alsoText names the first few cases.
func alsoText(cases []string) string {
	if len(cases) <= 4 {
		return strings.Join(cases, ", ")
	}
	return strings.Join(cases[:4], ", ") + fmt.Sprintf(" and %d more", len(cases)-4)
}

const diffBaselineHeader = "# abicheck diff baseline: one change key per line (abicheck diff -write-baseline)"

func readDiffBaseline(path string) (map[string]bool, error) {
	known := map[string]bool{}
	if path == "" {
		return known, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-baseline %s: %v", path, errors.Unwrap(err))
	}
	for _, l := range baselineEntries(string(b)) {
		known[l] = true
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

// writeDiffJUnit writes one test case per cause (failed unless every
// change of it is known), one for the behaviour as a whole, and one for
// the speed comparison, each with its time.
func writeDiffJUnit(path string, rep *DiffReport) error {
	sum := rep.Summary
	s := report.JUnitSuite{Name: rep.Old().Path + " -> " + rep.New().Path, Elapsed: time.Duration(sum.ElapsedMs) * time.Millisecond}
	add := func(name, class string, ms int64, out string, fail *report.JUnitMessage) {
		t := report.JUnitTime(time.Duration(ms) * time.Millisecond)
		s.Cases = append(s.Cases, report.JUnitCase{Name: name, ClassName: class, Time: t, SystemOut: out, Failure: fail})
	}
	for _, c := range rep.ByCause {
		var text strings.Builder
		var ms int64
		for _, g := range c.Groups {
			fmt.Fprintf(&text, "%s:\n", g.Group)
			for _, i := range g.Changes {
				ch := rep.Changes[i]
				ms += ch.ElapsedMs
				fmt.Fprintf(&text, "  %s #%d\n    old: %s\n    new: %s\n", ch.Case, ch.At, ch.Old, ch.New)
				for _, r := range ch.Replay {
					fmt.Fprintf(&text, "    %s\n", r)
				}
			}
		}
		out, fail := "known: "+text.String(), (*report.JUnitMessage)(nil)
		if c.Known < c.Changes {
			msg := fmt.Sprintf("%d change(s) under %d clause group(s)", c.Changes-c.Known, len(c.Groups))
			out, fail = "", &report.JUnitMessage{Message: msg, Body: text.String()}
		}
		add(c.Title, "abicheck.diff.behaviour", ms, out, fail)
	}
	var fail *report.JUnitMessage
	if len(rep.TargetChanges) > 0 {
		fail = &report.JUnitMessage{Message: "the builds differ", Body: strings.Join(rep.TargetChanges, "\n")}
	}
	add("behaviour", "abicheck.diff", int64(sum.BehaviourMs), fmt.Sprintf("%d cases (%d random), %d changes, %d known", sum.Cases, sum.Random, sum.Changes, sum.Known), fail)
	if rep.Speed != nil {
		fail = nil
		if sum.SpeedChanges > 0 {
			fail = &report.JUnitMessage{Message: fmt.Sprintf("%d entries changed speed beyond the noise", sum.SpeedChanges)}
		}
		add("speed", "abicheck.diff", int64(sum.SpeedMs), "", fail)
	}
	b, err := report.RenderJUnit("abicheck diff", []report.JUnitSuite{s})
	if err != nil {
		return err
	}
	if err := writeOutput(path, b); err != nil {
		return fmt.Errorf("-junit %s: %v", path, errors.Unwrap(err))
	}
	return nil
}
