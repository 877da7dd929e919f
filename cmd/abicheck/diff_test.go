package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/session"
	"github.com/simabi/simabi/sim/emit"
)

// The diff's tests run it as a user does. Speed is left out (-no-speed)
// where the test is about behaviour: the timing has tests of its own
// (conformance/speed) and only adds seconds here.

func parseDiff(t *testing.T, out string) session.DiffReport {
	t.Helper()
	var rep session.DiffReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("diff JSON: %v\n%s", err, out)
	}
	return rep
}

// A build against itself, and the emitted fake against sim (F-1: the two
// backends agree): no change, exit 0; the fake against itself twice (issue
// #30: the self-diff is empty every run; docs/performance.md gives the
// 10-run figure).
func TestDiff_noChange(t *testing.T) {
	t.Parallel()
	fake := build(t, emit.Config{Profile: emit.ProfileTMR})
	// The tmr builds' directed checks are over 100 cases without the probes
	// (-no-probes saves their children); sim:refusing's are not, so its
	// probes stay.
	noProbes := []string{"-no-probes"}
	for _, tc := range []struct {
		name, old, new string
		runs           int
		flags          []string
	}{
		{"fake-self", fake, fake, 2, noProbes},
		{"sim-fake", "sim:tmr", fake, 1, noProbes},
		{"sim-self", "sim:refusing", "sim:refusing", 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for run := 0; run < tc.runs; run++ {
				args := append(append([]string{"diff", "-json", "-no-speed"}, tc.flags...), "-sequences", "20", tc.old, tc.new)
				r := runCLI(t, nil, args...)
				if r.code != exitOK {
					t.Fatalf("run %d: exit %d, want 0\n%s\n%s", run, r.code, r.stdout, r.stderr)
				}
				rep := parseDiff(t, r.stdout)
				if len(rep.Changes) != 0 || rep.Summary.Cases < 100 || rep.Summary.Random != 20 {
					t.Fatalf("run %d: %d changes over %d cases (%d random): %+v", run, len(rep.Changes), rep.Summary.Cases, rep.Summary.Random, rep.Changes)
				}
			}
		})
	}
}

// A mutant against the fake: exit 1, a change grouped under the mutant's
// clause, old → new with the two replay commands, and a script that
// replays: -replay FILE on the mutant shows the new result.
func TestDiff_mutantChangeNamesItsClause(t *testing.T) {
	t.Parallel()
	const mutant = "finalize-null-ia" // E-FIN: finalize(NULL) answers another code
	cl, ok := catalogue.ClauseOfMutant(mutant)
	if !ok {
		t.Fatal("no clause")
	}
	fake := build(t, emit.Config{Profile: emit.ProfileTMR})
	mut := build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: mutant})
	dir := t.TempDir()
	junit := filepath.Join(dir, "diff.xml")
	// E-FIN's change shows in the directed check of finalize(NULL).
	r := runCLI(t, nil, "diff", "-json", "-no-speed", "-no-probes", "-sequences", "0", "-repro-dir", dir, "-junit", junit, fake, mut)
	if r.code != exitFindings {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	rep := parseDiff(t, r.stdout)
	var hit *session.JSONChange
	for i, c := range rep.Changes {
		if slices.Contains(c.Clauses, cl.ID) && hit == nil {
			hit = &rep.Changes[i]
		}
		if c.Old == c.New || c.Key == "" || len(c.Replay) != 2 || !strings.HasPrefix(c.File, dir) {
			t.Errorf("change %+v", c)
		}
	}
	if hit == nil {
		t.Fatalf("no change under %s: %+v", cl.ID, rep.Changes)
	}
	if !strings.Contains(hit.Replay[0], fake) || !strings.Contains(hit.Replay[1], mut) {
		t.Errorf("replays %q", hit.Replay)
	}
	text, err := os.ReadFile(hit.File)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := op.ParseScript(string(text))
	if err != nil || len(ops) != len(hit.Script) {
		t.Fatalf("script %s: %v, %d ops, want %d", hit.File, err, len(ops), len(hit.Script))
	}
	// The script replays on the mutant with the new result at the op.
	rr := runCLI(t, nil, "-replay", hit.File, mut)
	if strings.HasPrefix(hit.New, "#") && !strings.Contains(rr.stdout, hit.New) {
		t.Errorf("replay on the mutant does not show %q:\n%s", hit.New, rr.stdout)
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var x struct {
		Suites []struct {
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string    `xml:"name,attr"`
				Time    *string   `xml:"time,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &x); err != nil || len(x.Suites) != 1 || x.Suites[0].Failures == 0 {
		t.Fatalf("JUnit %v: %+v\n%s", err, x, b)
	}
	// A case per cause, then the behaviour as a whole; each with its time.
	for i, c := range x.Suites[0].Cases {
		if c.Time == nil {
			t.Errorf("test case %s has no time", c.Name)
		}
		if i < len(rep.ByCause) && c.Name != rep.ByCause[i].Title {
			t.Errorf("test case %d is %q, want the cause %q", i, c.Name, rep.ByCause[i].Title)
		}
	}
}

// Issue #37: the fake against the same fake with one knob (launch returns
// -93) is one cause, shown first: the entry, the statuses OLD answered and
// NEW's -93, then the clause groups it touched with their scripts; the
// JSON carries the same cause. Not a terminal: no progress line.
func TestDiff_oneKnobIsOneCause(t *testing.T) {
	t.Parallel()
	plain := build(t, emit.Config{Profile: emit.ProfileTMR})
	knob := build(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Status: map[string]int32{"simpler_kernel_mode_launch": -93}}})
	dir := t.TempDir()
	args := []string{"-no-speed", "-sequences", "0", "-no-shrink", "-repro-dir", dir, plain, knob}
	j := runCLI(t, nil, append([]string{"diff", "-json"}, args...)...)
	if j.code != exitFindings {
		t.Fatalf("exit %d, want 1\n%s", j.code, j.stderr)
	}
	rep := parseDiff(t, j.stdout)
	if rep.Schema != session.JSONSchema || rep.Command != "diff" || len(rep.Targets) != 2 || rep.Old().Path != plain || rep.New().Path != knob {
		t.Errorf("envelope: %s %s %+v", rep.Schema, rep.Command, rep.Targets)
	}
	if len(rep.ByCause) != 1 || rep.Summary.Causes != 1 {
		t.Fatalf("%d causes (summary %d), want 1: %+v", len(rep.ByCause), rep.Summary.Causes, rep.ByCause)
	}
	c := rep.ByCause[0]
	var olds []string
	for _, tr := range c.Transitions {
		if tr.New != "-93" {
			t.Errorf("transition %+v: NEW is not -93", tr)
		}
		olds = append(olds, tr.Old)
	}
	want := []string{"OK", "INVALID_STATE", "INVALID_ARGUMENT", "-1300", "CALLABLE_NOT_RESIDENT", "-2001"}
	if d := cmp.Diff(want, olds); d != "" || c.Entry != "simpler_kernel_mode_launch" || c.Field != "status" {
		t.Errorf("cause %s %s, OLD statuses (-want +got):\n%s", c.Entry, c.Field, d)
	}
	cases := 0
	for _, ch := range rep.Changes {
		cases += 1 + len(ch.Also)
	}
	if c.Changes != len(rep.Changes) || c.Cases != cases || len(c.Groups) != rep.Summary.Groups {
		t.Errorf("cause counts %d changes, %d cases, %d groups; the report %d, %d, %d", c.Changes, c.Cases, len(c.Groups),
			len(rep.Changes), cases, rep.Summary.Groups)
	}
	r := runCLI(t, nil, append([]string{"diff"}, args...)...)
	blocks := strings.Split(r.stdout, "\n\n")
	if r.code != exitFindings || len(blocks) != 3 || strings.Contains(r.stdout, "\r") {
		t.Fatalf("exit %d, %d blocks, want 1, the header, one cause and the summary:\n%q", r.code, len(blocks), r.stdout)
	}
	if d := cmp.Diff(causeText(rep, c), blocks[1]); d != "" {
		t.Errorf("the first change block (-want +got):\n%s", d)
	}
}

// causeText is what the text of a diff shows of cause c of rep.
func causeText(rep session.DiffReport, c session.DiffCause) string {
	b := fmt.Sprintf("cause 1: simpler_kernel_mode_launch status: OK, INVALID_STATE, INVALID_ARGUMENT, -1300, CALLABLE_NOT_RESIDENT, -2001 -> -93\n"+
		"  %d changes (%d cases) under %d clause groups\n  the shortest:\n", c.Changes, c.Cases, len(c.Groups))
	short := 0
	for i, ch := range rep.Changes {
		if len(ch.Script) < len(rep.Changes[short].Script) {
			short = i
		}
	}
	ch := rep.Changes[short]
	b += fmt.Sprintf("    %s, #%d:\n      old: %s\n      new: %s\n", ch.Case, ch.At, ch.Old, ch.New)
	if len(ch.Also) > 0 {
		b += fmt.Sprintf("      also in %d other case(s): %s\n", len(ch.Also), alsoText(ch.Also))
	}
	b += fmt.Sprintf("      script (%s): %s\n      %s\n      %s\n", count(len(ch.Script), "op"), ch.File, ch.Replay[0], ch.Replay[1])
	for _, g := range c.Groups {
		var files []string
		for _, i := range g.Changes {
			files = append(files, filepath.Base(rep.Changes[i].File))
		}
		b += fmt.Sprintf("  %s: %s (%s): %s\n", g.Group, count(len(g.Changes), "change"), count(g.Cases, "case"), strings.Join(files, " "))
	}
	return strings.TrimSuffix(b, "\n")
}

func alsoText(cases []string) string {
	if len(cases) <= 4 {
		return strings.Join(cases, ", ")
	}
	return strings.Join(cases[:4], ", ") + fmt.Sprintf(" and %d more", len(cases)-4)
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// -write-baseline then -baseline: the same changes are known and the diff
// exits 0; the text says so.
func TestDiff_baseline(t *testing.T) {
	t.Parallel()
	fake := build(t, emit.Config{Profile: emit.ProfileTMR})
	mut := build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: "prep-keeps-out"})
	base := filepath.Join(t.TempDir(), "diff.baseline")
	// Both runs leave out the same work, so that the baseline holds what
	// the second finds: the directed checks see prep-keeps-out.
	r := runCLI(t, nil, "diff", "-q", "-no-speed", "-no-probes", "-sequences", "0", "-no-shrink", "-write-baseline", base, fake, mut)
	if r.code != exitFindings {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	r = runCLI(t, nil, "diff", "-q", "-no-speed", "-no-probes", "-sequences", "0", "-no-shrink", "-baseline", base, fake, mut)
	if r.code != exitOK || !strings.Contains(r.stdout, "no new change (") {
		t.Fatalf("with the baseline: exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// What is not a diff: exit 2 with a message naming the side.
func TestDiff_usageAndLoadErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", "sim:tmr"}, "diff needs OLD and NEW, got 1 argument(s): sim:tmr"},
		{[]string{"diff", "sim:tmr", "/nonexistent/libhost_runtime.so"}, "NEW: "},
		{[]string{"diff", "sim:nope", "sim:tmr"}, "OLD: unknown built-in target"},
		{[]string{"diff", "sim:tmr", "sim:tmr", "-json"}, "flags must come before OLD and NEW"},
		{[]string{"diff", "-json", "-q", "sim:tmr", "sim:tmr"}, "-json and -q do not go together"},
		{[]string{"diff", "-baseline", "/nonexistent/b", "-no-speed", "-sequences", "0", "sim:tmr", "sim:tmr"}, "-baseline /nonexistent/b"},
	} {
		r := runCLI(t, nil, tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// The speed comparison is part of a diff: each hot-path entry timed on
// both builds with the noise of OLD against itself, in the JSON report.
// Whether an entry is flagged depends on the machine's load, so the test
// holds the report's shape and the noise reference, not the verdicts.
func TestDiff_speedInTheReport(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "diff", "-json", "-sequences", "0", "-no-probes", "sim:tmr", "sim:tmr")
	if r.code != exitOK && r.code != exitFindings {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var rep struct {
		Speed struct {
			Entries []struct {
				Name    string  `json:"name"`
				Verdict string  `json:"verdict"`
				Noise   float64 `json:"noise"`
			} `json:"entries"`
		} `json:"speed"`
		Summary session.JSONDiffSummary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	timed := map[string]bool{}
	flagged := 0
	for _, e := range rep.Speed.Entries {
		switch {
		case e.Verdict == "same":
		case e.Verdict == "slower" || e.Verdict == "faster":
			flagged++
		default:
			t.Errorf("%s: verdict %q", e.Name, e.Verdict)
		}
		if e.Noise <= 0 {
			t.Errorf("%s: no noise reference (%v)", e.Name, e.Noise)
		}
		timed[e.Name] = true
	}
	for _, want := range []string{"create+destroy", "kernel_prepare", "kernel_launch", "register+unregister", "run", "poll_run", "wait_run"} {
		if !timed[want] {
			t.Errorf("%s not timed: %+v", want, rep.Speed.Entries)
		}
	}
	if flagged != rep.Summary.SpeedChanges || (flagged > 0) != (r.code == exitFindings) {
		t.Errorf("%d flagged, summary %d, exit %d", flagged, rep.Summary.SpeedChanges, r.code)
	}
}
