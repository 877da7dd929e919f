package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/isolate"
	"github.com/simabi/simabi/conformance/session"
	"github.com/simabi/simabi/conformance/speed"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// The CLI is tested as a user runs it, as a subprocess: the test binary
// itself is abicheck when asCLIEnv is set (and a checker child when the
// isolation protocol's isolate.ChildEnv is set, since abicheck re-executes itself).

const asCLIEnv = "ABICHECK_TEST_AS_CLI"

var binary string

func TestMain(m *testing.M) {
	switch {
	case os.Getenv(isolate.ChildEnv) != "":
		os.Exit(isolate.ChildMain())
	case os.Getenv(speed.ChildEnv) != "":
		os.Exit(speed.ChildMain())
	case os.Getenv(asCLIEnv) != "":
		os.Exit(abicheck(os.Args[1:], os.Stdout, os.Stderr))
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	binary = exe
	os.Exit(emittest.Released("cmd/abicheck", m.Run(), onboard.Preloaded))
}

type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

// runCLI runs abicheck in a directory of its own, with a temporary
// directory of its own ($TMPDIR, unless env sets it).
func runCLI(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return runIn(t, t.TempDir(), env, args...)
}

// runIn is runCLI in the working directory dir.
func runIn(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), asCLIEnv+"=1", "TMPDIR="+t.TempDir()), env...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	t0 := time.Now()
	err := cmd.Run()
	r := result{stdout: so.String(), stderr: se.String(), elapsed: time.Since(t0)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("running abicheck %v: %v", args, err)
	}
	return r
}

// build emits a fake runtime (cached) or skips without a C compiler.
func build(t *testing.T, cfg emit.Config) string {
	t.Helper()
	return emittest.Path(t, cfg)
}

// ---- the JSON schema of docs/abicheck.md ----

type jTarget struct {
	Path      *string `json:"path"`
	Revision  *string `json:"revision"`
	Profile   *string `json:"profile"`
	Supported *int    `json:"supported"`
}

type jResult struct {
	Rule    *string `json:"rule"`
	Verdict *string `json:"verdict"`
	Detail  *string `json:"detail"`
	Repro   *string `json:"repro"`
}

type jReport struct {
	Target  *jTarget        `json:"target"`
	Results []jResult       `json:"results"`
	Summary map[string]*int `json:"summary"`
	Seed    *uint64         `json:"seed"`
}

var verdicts = []string{"pass", "fail", "warn", "skip", "crash", "hang", "known"}

func oneOf(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// validate checks one target object against the schema: every required
// field present, enums respected, summary counts equal to the results.
func validate(t *testing.T, r jReport) {
	t.Helper()
	if r.Target == nil || r.Target.Path == nil || r.Target.Revision == nil || r.Target.Profile == nil || r.Target.Supported == nil {
		t.Fatalf("target incomplete: %+v", r.Target)
	}
	if !oneOf(*r.Target.Revision, "kernel", "legacy") {
		t.Errorf("target.revision %q", *r.Target.Revision)
	}
	if !oneOf(*r.Target.Profile, "tmr", "refusing", "unknown") {
		t.Errorf("target.profile %q", *r.Target.Profile)
	}
	if r.Seed == nil {
		t.Errorf("no seed")
	}
	if len(r.Results) == 0 {
		t.Fatalf("no results")
	}
	count := map[string]int{}
	for _, res := range r.Results {
		if res.Rule == nil || res.Verdict == nil || res.Detail == nil || res.Repro == nil {
			t.Fatalf("result incomplete: %+v", res)
		}
		if !oneOf(*res.Verdict, verdicts...) {
			t.Errorf("%s: verdict %q", *res.Rule, *res.Verdict)
		}
		if oneOf(*res.Verdict, "fail", "crash", "hang") && *res.Repro == "" && !strings.HasPrefix(*res.Detail, "at bind time: ") {
			t.Errorf("%s %s without a repro", *res.Rule, *res.Verdict)
		}
		count[*res.Verdict]++
	}
	for _, v := range verdicts {
		n := r.Summary[v]
		if n == nil {
			t.Fatalf("summary has no %q", v)
		}
		if *n != count[v] {
			t.Errorf("summary.%s = %d, results have %d", v, *n, count[v])
		}
	}
}

// checkJSON is the envelope of a check's JSON report (docs/abicheck.md,
// schema abicheck/v2): the same for one target and for several.
type checkJSON struct {
	Schema   *string           `json:"schema"`
	Command  *string           `json:"command"`
	Targets  []json.RawMessage `json:"targets"`
	Summary  map[string]*int   `json:"summary"`
	ElapsedS *float64          `json:"elapsed_s"`
}

// parseCheck parses the JSON report of a command ("check", "check-trace")
// over n targets: the envelope, each target valid against the schema,
// the totals the targets' sums.
func parseCheck(t *testing.T, out, command string, n int) []jReport {
	t.Helper()
	var j checkJSON
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	if j.Schema == nil || *j.Schema != session.JSONSchema || j.Command == nil || *j.Command != command || j.ElapsedS == nil || *j.ElapsedS < 0 {
		t.Fatalf("envelope: schema %v, command %v, elapsed_s %v; want %s, %s and a time", j.Schema, j.Command, j.ElapsedS, session.JSONSchema, command)
	}
	if len(j.Targets) != n {
		t.Fatalf("%d targets, want %d", len(j.Targets), n)
	}
	var reps []jReport
	total := map[string]int{}
	for _, raw := range j.Targets {
		var r jReport
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("target: %v\n%s", err, raw)
		}
		validate(t, r)
		for _, v := range verdicts {
			total[v] += *r.Summary[v]
		}
		reps = append(reps, r)
	}
	for _, v := range verdicts {
		if n := j.Summary[v]; n == nil || *n != total[v] {
			t.Errorf("summary.%s = %v, the targets have %d", v, n, total[v])
		}
	}
	return reps
}

// parseOne parses the JSON report of a check of one target.
func parseOne(t *testing.T, out string) jReport {
	t.Helper()
	return parseCheck(t, out, "check", 1)[0]
}

// onlyTarget is the one target of a check's JSON report, undecoded.
func onlyTarget(t *testing.T, out string) []byte {
	t.Helper()
	var j checkJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil || len(j.Targets) != 1 {
		t.Fatalf("JSON: %v, want one target:\n%s", err, out)
	}
	return j.Targets[0]
}

func resultOf(r jReport, rule string) jResult {
	for _, res := range r.Results {
		if *res.Rule == rule {
			return res
		}
	}
	return jResult{}
}

// TestDefaultRun: no LIB checks sim (tmr, refusing) and the emitted fake
// and exits 0; when everything passes the text is, per target, its header,
// its skips one line per reason (their counts adding up to the summary's)
// and its summary line, then the total with the wall time (issue #37).
func TestDefaultRun(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil)
	if r.code != exitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	labels := []string{"sim:tmr", "sim:refusing", "emitted:tmr"}
	if strings.Contains(r.stderr, "no C compiler") {
		labels = labels[:2]
	}
	blocks := strings.Split(r.stdout, "\n\n")
	if len(blocks) != len(labels)+1 {
		t.Fatalf("%d blocks, want one per target and the total:\n%s", len(blocks), r.stdout)
	}
	skipLine := regexp.MustCompile(`^skip \((\d+)\): [^:]+(: [^:]+)*: ([A-Z][A-Z0-9-]*( |$))+$`)
	for i, label := range labels {
		lines := strings.Split(strings.TrimSuffix(blocks[i], "\n"), "\n")
		if !strings.HasPrefix(lines[0], "== "+label+" ") {
			t.Errorf("block %d opens %q, want the header of %s", i, lines[0], label)
		}
		skips := 0
		for _, l := range lines[1 : len(lines)-1] {
			m := skipLine.FindStringSubmatch(l)
			if m == nil {
				t.Errorf("%s: %q is not a skip line", label, l)
				continue
			}
			n, _ := strconv.Atoi(m[1])
			if got := len(strings.Fields(l[strings.LastIndex(l, ": ")+2:])); got != n {
				t.Errorf("%s: %q counts %d rules, lists %d", label, l, n, got)
			}
			skips += n
		}
		summary := regexp.MustCompile(`^` + regexp.QuoteMeta(label) + `: \d+ pass, 0 fail, 0 warn, ` + strconv.Itoa(skips) +
			` skip, 0 crash, 0 hang — \d+ checks, 100 random sequences × 300 ops \(seed 1\), \d+ calls checked, \d+\.\ds$`)
		if last := lines[len(lines)-1]; !summary.MatchString(last) {
			t.Errorf("%s: summary %q, want %s", label, last, summary)
		}
	}
	total := regexp.MustCompile(`^abicheck: ` + strconv.Itoa(len(labels)) + ` targets: \d+ pass, 0 fail, 0 warn, \d+ skip, 0 crash, 0 hang — no failures — \d+\.\ds\n$`)
	if last := blocks[len(blocks)-1]; !total.MatchString(last) {
		t.Errorf("total %q, want %s", last, total)
	}
	t.Logf("default run: %v", r.elapsed)
}

// -check-trace of a tiny trace: the rules it does not exercise are one
// skip line, not a row each (issue #37), and -v gives the table back.
func TestCheckTraceTinyTraceText(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "s.ops")
	trace := "# simabi trace v2\n# target: /x/libhost_runtime.so\n# revision: kernel\n# pid: 7\n" +
		"@1-2 t0 dev=0 create -> c0\n@3-4 t0 dev=0 supported c0 -> 1\n@5-6 t0 dev=0 destroy c0 -> done\n"
	if err := os.WriteFile(file, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	j := runCLI(t, nil, "-check-trace", "-json", file)
	rep := parseCheck(t, j.stdout, "check-trace", 1)[0]
	groups := map[string][]string{}
	var order []string
	for _, res := range rep.Results {
		if *res.Verdict != "skip" {
			continue
		}
		why := *res.Detail
		if i := strings.Index(why, ": "); i >= 0 && why[:i] == *res.Rule {
			why = why[i+2:]
		}
		if groups[why] == nil {
			order = append(order, why)
		}
		groups[why] = append(groups[why], *res.Rule)
	}
	label := file + " (recorded on /x/libhost_runtime.so)"
	want := "== " + label + " /x/libhost_runtime.so (revision kernel, profile tmr, supported 1, no hooks, no ACL)\n"
	for _, why := range order {
		want += fmt.Sprintf("skip (%d): %s: %s\n", len(groups[why]), why, strings.Join(groups[why], " "))
	}
	s := rep.Summary
	counts := fmt.Sprintf("%d pass, 0 fail, 0 warn, %d skip, 0 crash, 0 hang", *s["pass"], *s["skip"])
	want += label + ": " + counts + " — a recorded session, 3 calls judged\n\nabicheck: 1 trace: " + counts + " — no failures — "
	r := runCLI(t, nil, "-check-trace", file)
	if r.code != exitOK || !strings.HasPrefix(r.stdout, want) || !regexp.MustCompile(`— \d+\.\ds\n$`).MatchString(r.stdout) {
		t.Errorf("exit %d:\n%s\nwant:\n%s<time>s", r.code, r.stdout, want)
	}
	if len(order) > 3 || *s["skip"] < 40 {
		t.Errorf("%d skip reasons over %d skips: the tiny trace should skip most rules for a few reasons", len(order), *s["skip"])
	}
	v := runCLI(t, nil, "-check-trace", "-v", file)
	if rows := strings.Count(v.stdout, " skip    "); rows != *s["skip"] {
		t.Errorf("-v: %d skip rows, want %d", rows, *s["skip"])
	}
}

// TestNoCompiler: without a C compiler the default run says so in one line
// and checks sim alone.
func TestNoCompiler(t *testing.T) {
	t.Parallel()
	// Neither the probes nor random sequences bear on which targets are checked.
	r := runCLI(t, []string{"CC=/nonexistent/cc", "SIMABI_FAKE_CACHE=" + t.TempDir()}, "-q", "-no-probes", "-sequences", "0")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.TrimSpace(r.stderr) != session.NoCompilerLine {
		t.Errorf("stderr %q, want the one no-compiler line", r.stderr)
	}
	if strings.Contains(r.stdout, "emitted") {
		t.Errorf("an emitted target was checked:\n%s", r.stdout)
	}
}

// TestJSONSchema: -json has one shape whatever the number of targets
// (issue #37): the envelope of schema abicheck/v2 with a report per target,
// for the default run (sim:tmr, sim:refusing and the emitted fake when a
// compiler is there) as for one LIB.
func TestJSONSchema(t *testing.T) {
	t.Parallel()
	// The shape is the same whatever was run: no probes, no random sequences.
	r := runCLI(t, nil, "-json", "-no-probes", "-sequences", "0")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	n := 3
	if strings.Contains(r.stderr, "no C compiler") {
		n = 2
	}
	paths := map[string]jReport{}
	for _, rep := range parseCheck(t, r.stdout, "check", n) {
		paths[*rep.Target.Path] = rep
	}
	if p := paths["sim:tmr"]; p.Target == nil || *p.Target.Profile != "tmr" || *p.Target.Supported != 1 {
		t.Errorf("sim:tmr target wrong: %+v", p.Target)
	}
	if p := paths["sim:refusing"]; p.Target == nil || *p.Target.Profile != "refusing" || *p.Target.Supported != 0 {
		t.Errorf("sim:refusing target wrong: %+v", p.Target)
	}
	// E-SUP: supported is a build constant, checked on both profiles.
	if v := resultOf(paths["sim:tmr"], "E-SUP"); v.Verdict == nil || *v.Verdict != "pass" {
		t.Errorf("sim:tmr E-SUP: %+v", v)
	}
	one := runCLI(t, nil, "-json", "-no-probes", "-sequences", "0", "sim:refusing")
	if one.code != exitOK {
		t.Fatalf("sim:refusing: exit %d\n%s", one.code, one.stderr)
	}
	if rep := parseOne(t, one.stdout); *rep.Target.Path != "sim:refusing" {
		t.Errorf("one LIB: target %s", *rep.Target.Path)
	}
	if a, b := jsonKeys(t, r.stdout), jsonKeys(t, one.stdout); !slices.Equal(a, b) {
		t.Errorf("the default run's keys %v, one LIB's %v", a, b)
	}
}

// jsonKeys are the keys of a JSON object, sorted.
func jsonKeys(t *testing.T, out string) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, out)
	}
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
	return keys
}

// TestMutantIsReported: a mutant .so exits 1 and names the broken rule
// (V-IMG: trailing bytes accepted; K-4: a registration failure does not
// poison), with a shrunk repro.
func TestMutantIsReported(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ mutant, rule string }{{"img-trailing-ok", "V-IMG"}, {"poison-ignored", "K-4"}} {
		t.Run(c.mutant, func(t *testing.T) {
			lib := build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: c.mutant})
			// A directed check finds either rule's break: no probe, no random sequence.
			r := runCLI(t, nil, "-json", "-no-probes", "-sequences", "0", lib)
			if r.code != exitFindings {
				t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
			}
			rep := parseOne(t, r.stdout)
			if *rep.Target.Path != lib || *rep.Target.Revision != "kernel" || *rep.Target.Profile != "tmr" {
				t.Errorf("target %+v", *rep.Target)
			}
			res := resultOf(rep, c.rule)
			if res.Verdict == nil || *res.Verdict != "fail" {
				t.Fatalf("%s: %+v, want fail", c.rule, res)
			}
			if lines := strings.Split(*res.Repro, "\n"); len(lines) > 12 {
				t.Errorf("repro of %d ops, want a shrunk one:\n%s", len(lines), *res.Repro)
			}
		})
	}
}

// TestMissingSymbol: a library without a required symbol exits 2 with one
// line naming the path, the symbol and its group (C-BIND-1).
func TestMissingSymbol(t *testing.T) {
	t.Parallel()
	lib := build(t, emit.Config{Profile: emit.ProfileTMR, Omit: []string{"simpler_kernel_mode_launch"}})
	r := runCLI(t, nil, lib)
	if r.code != exitUsage {
		t.Fatalf("exit %d, want 2\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	msg := strings.TrimSpace(r.stderr)
	if strings.Count(msg, "\n") != 0 {
		t.Errorf("want one line, got:\n%s", msg)
	}
	for _, want := range []string{lib, "simpler_kernel_mode_launch (kernel mode)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

// TestCrashIsAFinding: a runtime whose launch aborts (knob
// crash.simpler_kernel_mode_launch) gets verdict crash with the op log that
// caused it, and the run completes with the other rules reported.
func TestCrashIsAFinding(t *testing.T) {
	t.Parallel()
	lib := build(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Crash: []string{"simpler_kernel_mode_launch"}}})
	// The rules read are judged by directed checks: every probe and random
	// sequence that launches would only crash once more.
	r := runCLI(t, nil, "-json", "-no-probes", "-sequences", "0", lib)
	if r.code != exitFindings {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	rep := parseOne(t, r.stdout)
	// E-LAUNCH: the launch-before-prepare check dies in launch.
	res := resultOf(rep, "E-LAUNCH")
	if res.Verdict == nil || *res.Verdict != "crash" {
		t.Fatalf("E-LAUNCH %+v, want crash", res)
	}
	if !strings.Contains(*res.Detail, "SIGABRT") || !strings.Contains(*res.Detail, "crash knob") {
		t.Errorf("detail %q lacks the signal or the runtime's message", *res.Detail)
	}
	lines := strings.Split(*res.Repro, "\n")
	if !strings.HasPrefix(lines[len(lines)-1], "launch ") {
		t.Errorf("repro does not end in the launch that crashed:\n%s", *res.Repro)
	}
	// V-INIT and V-CFG (no launch) are still checked and pass.
	for _, rule := range []string{"V-INIT", "V-CFG", "E-PROG"} {
		if v := resultOf(rep, rule); v.Verdict == nil || *v.Verdict != "pass" {
			t.Errorf("%s: %+v, want pass", rule, v)
		}
	}
}

// TestHangIsAFinding: a runtime whose launch never returns (knob
// hang.simpler_kernel_mode_launch) gets verdict hang within -case-timeout,
// and the run completes.
// Not parallel: a 700 ms case timeout must not be spent waiting for a core.
func TestHangIsAFinding(t *testing.T) {
	lib := build(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Hang: []string{"simpler_kernel_mode_launch"}}})
	// Directed checks hang in launch (V-LAUNCH, K-4); probes and random
	// sequences would only wait out more timeouts.
	r := runCLI(t, nil, "-json", "-case-timeout", "700ms", "-no-probes", "-sequences", "0", lib)
	if r.code != exitFindings {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	rep := parseOne(t, r.stdout)
	hung := 0
	for _, res := range rep.Results {
		if *res.Verdict == "hang" {
			hung++
			if !strings.Contains(*res.Repro, "launch ") || !strings.Contains(*res.Detail, "700ms") {
				t.Errorf("%s hang: detail %q repro %q", *res.Rule, *res.Detail, *res.Repro)
			}
		}
	}
	if hung == 0 {
		t.Fatalf("no hang reported:\n%s", r.stdout)
	}
	if v := resultOf(rep, "V-INIT"); v.Verdict == nil || *v.Verdict != "pass" {
		t.Errorf("V-INIT: %+v, want pass", v)
	}
	// -max-hangs 2: two cases wait out the timeout, later ones are skipped.
	if r.elapsed > 30*time.Second {
		t.Errorf("took %v", r.elapsed)
	}
}

// TestReplay: a written repro reproduces its finding on the mutant (exit 0,
// "reproduces V-IMG ...") and does not on a correct runtime (exit 1): V-IMG.
func TestReplay(t *testing.T) {
	t.Parallel()
	lib := build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: "img-trailing-ok"})
	good := build(t, emit.Config{Profile: emit.ProfileTMR})
	dir := t.TempDir()
	// V-IMG's repro comes from a directed check (v-img/...).
	r := runCLI(t, nil, "-q", "-no-probes", "-sequences", "0", "-repro-dir", dir, lib)
	if r.code != exitFindings {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	file := filepath.Join(dir, "repro-V-IMG.ops")
	if !strings.Contains(r.stdout, "replay: abicheck -replay "+file+" "+lib) {
		t.Errorf("no replay hint for %s:\n%s", file, r.stdout)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("repro not written: %v", err)
	}
	r = runCLI(t, nil, "-replay", file, lib)
	if r.code != exitOK || !strings.Contains(r.stdout, "fail V-IMG") || !strings.Contains(r.stdout, "replay: reproduces V-IMG fail at prepare: ") {
		t.Errorf("replay on the mutant: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, nil, "-replay", file, good)
	if r.code != exitFindings || !strings.Contains(r.stdout, "INVALID_ARGUMENT") || !strings.Contains(r.stdout, "replay: does not reproduce V-IMG fail at prepare: ") {
		t.Errorf("replay on the correct runtime: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// Without LIB the file's header names the library it came from.
	r = runCLI(t, nil, "-replay", file)
	if r.code != exitOK || !strings.Contains(r.stdout, "on "+lib+" (named by the file's header)") {
		t.Errorf("replay without LIB: exit %d, want 0 on the mutant the header names\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// A hand-written script names nothing: sim:tmr, and the output says so;
	// it names no finding either, so it exits 1 only when it fails.
	plain := filepath.Join(dir, "plain.ops")
	if err := os.WriteFile(plain, []byte("create c0\nsetdev 0\nkinit c0 dev=0 gen=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r = runCLI(t, nil, "-replay", plain); r.code != exitOK || !strings.Contains(r.stdout, "on sim:tmr (the default: the file names no target)") ||
		lastLine(r.stdout) != "replay: PASS (no failure)" {
		t.Errorf("replay of a plain script: exit %d\n%s", r.code, r.stdout)
	}
}

// TestLegacy: a legacy build is checked for the program-mode rules it is
// held to (E-PINIT, E-FIN, E-PROG with a live init); E-PROG's clauses for a
// context without a live init are target-revision decisions (docs/contract.md
// Revisions), skipped with that reason, and its kernel rules (E-KINIT) are
// skipped with theirs.
func TestLegacy(t *testing.T) {
	t.Parallel()
	lib := build(t, emit.Config{Profile: emit.ProfileLegacy})
	r := runCLI(t, nil, "-json", "-sequences", "10", lib)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rep := parseOne(t, r.stdout)
	if *rep.Target.Revision != "legacy" || *rep.Target.Profile != "unknown" {
		t.Errorf("target %+v", *rep.Target)
	}
	for _, rule := range []string{"E-PINIT", "E-FIN"} {
		if v := resultOf(rep, rule); *v.Verdict != "pass" || !strings.Contains(*v.Detail, "generic -1") {
			t.Errorf("%s: %s %q, want a pass that says what the generic -1 hides", rule, *v.Verdict, *v.Detail)
		}
	}
	// E-PROG: the run family is checked with a live init; the clauses for a
	// context without one are skipped.
	if v := resultOf(rep, "E-PROG"); *v.Verdict != "pass" || !strings.Contains(*v.Detail, "skipped") {
		t.Errorf("E-PROG: %s %q, want a pass with the no-init clauses skipped", *v.Verdict, *v.Detail)
	}
	if v := resultOf(rep, "E-KINIT"); *v.Verdict != "skip" || !strings.Contains(*v.Detail, "legacy") {
		t.Errorf("E-KINIT: %s %q, want skip with the legacy reason", *v.Verdict, *v.Detail)
	}
}

// TestJUnit: -junit writes one suite per target, one case per rule.
func TestJUnit(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "out", "abicheck.xml")
	r := runCLI(t, nil, "-q", "-sequences", "3", "-junit", file, "sim:tmr")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Suites []struct {
			Name  string  `xml:"name,attr"`
			Time  float64 `xml:"time,attr"`
			Cases []struct {
				Name string   `xml:"name,attr"`
				Time *float64 `xml:"time,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &s); err != nil {
		t.Fatalf("JUnit XML: %v", err)
	}
	if len(s.Suites) != 1 || len(s.Suites[0].Cases) < 40 {
		t.Fatalf("suites %+v", s.Suites)
	}
	// Every case carries its rule's time (session.RuleTimes), and the
	// times add up to the suite's, to the rounding of each to 1 ms.
	var sum float64
	for _, c := range s.Suites[0].Cases {
		if c.Time == nil {
			t.Errorf("test case %s has no time", c.Name)
			continue
		}
		sum += *c.Time
	}
	if st := s.Suites[0].Time; st <= 0 || sum < st-0.001*float64(len(s.Suites[0].Cases)) || sum > st+0.001*float64(len(s.Suites[0].Cases)) {
		t.Errorf("the cases' times add up to %.3f s, the suite took %.3f s", sum, st)
	}
}

// TestUsageErrors exit 2 with one line on stderr.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"a.so", "b.so"},
		{"-sequences", "-1"},
		{"-bogus"},
		{"-preload", "x.so"},
		{"-acl", "libascendcl.so", "sim:tmr"},
		{"-replay", "/nonexistent/repro.ops"},
		{"-json", "-q"},
		{"sim:nope"},
		{"-case-timeout", "0s"},
		{"mutants", "extra"},
		{"mutants", "-run", "("},
		{"/nonexistent/libhost_runtime.so"},
		{""},
		{"-junit", "/proc/nonexistent/r.xml", "sim:tmr"},
		{"-repro-dir", "/proc/nonexistent/dir", "sim:tmr"},
		{"-write-baseline", "/proc/nonexistent/b", "sim:tmr"},
		{"-callable", "/etc/hostname", "sim:tmr"},
		{"-log-level", "7"},
		{"-load-timeout", "0s"},
	} {
		r := runCLI(t, nil, args...)
		if r.code != exitUsage {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r.stderr)
			continue
		}
		msg := strings.TrimSpace(r.stderr)
		if !strings.HasPrefix(msg, "abicheck: ") || strings.Contains(msg, "\n") {
			t.Errorf("%v: stderr %q, want one abicheck: line", args, msg)
		}
	}
	if r := runCLI(t, nil, "-h"); r.code != exitOK || !strings.Contains(r.stdout, "usage: abicheck") {
		t.Errorf("-h: exit %d\n%s", r.code, r.stdout)
	}
}

// TestMutantsCommand: every mutant of F-4 is killed by a rule of its own
// group, the table and the score are printed, exit 0.
func TestMutantsCommand(t *testing.T) {
	t.Parallel()
	build(t, emit.Config{Profile: emit.ProfileTMR}) // skips without a compiler
	r := runCLI(t, nil, "mutants")
	if r.code != exitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	n := len(emit.Mutants())
	cs := catalogue.Clauses()
	undriven, driven := 0, 0
	for _, c := range cs {
		if c.Undriven != "" {
			undriven++
		} else {
			driven++
		}
	}
	for _, want := range []string{"MUTANT", "KILLED", fmt.Sprintf("mutation score: %d/%d", n, n), "prep-keeps-out", "async-poisons",
		// The clause coverage: every clause a call can drive has a check,
		// and all its mutants were killed.
		fmt.Sprintf("clauses of docs/contract.md: %d; %d cannot be driven through the ABI; %d checked by a directed check; mutant killed: %d of the %d whose mutants ran\n",
			len(cs), undriven, driven, driven, driven)} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	t.Logf("mutants: %v", r.elapsed)
}

// TestMutantsCommandPrintsMasking: after the kill table, abicheck mutants
// says which refused calls of the catalogue share their refusal between
// two clauses (issue #32): none, since each was changed to break one
// clause alone or says why it breaks two (TestMasking_...); -json carries
// the same list, empty.
func TestMutantsCommandPrintsMasking(t *testing.T) {
	t.Parallel()
	build(t, emit.Config{Profile: emit.ProfileTMR}) // skips without a compiler
	r := runCLI(t, nil, "mutants", "-run", "^cfg-swimlane-4-refused$", "-sequences", "0", "-no-color")
	if r.code != exitOK {
		t.Fatalf("exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	table, masking, score := strings.Index(r.stdout, "cfg-swimlane-4-refused"), strings.Index(r.stdout, "\nmasking: none\n"), strings.Index(r.stdout, "mutation score:")
	if table < 0 || masking < table || score < masking {
		t.Errorf("want the kill table, then the line \"masking: none\", then the score:\n%s", r.stdout)
	}
	r = runCLI(t, nil, "mutants", "-run", "^cfg-swimlane-4-refused$", "-sequences", "0", "-json")
	var j struct {
		Schema   string              `json:"schema"`
		Command  string              `json:"command"`
		Targets  []session.MutantRow `json:"targets"`
		ElapsedS float64             `json:"elapsed_s"`
		Masking  *[]json.RawMessage  `json:"masking"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || j.Masking == nil || len(*j.Masking) != 0 {
		t.Errorf("-json: want \"masking\": [] (err %v):\n%s", err, r.stdout)
	}
	// The envelope of every JSON report (issue #37), a target per mutant.
	if j.Schema != session.JSONSchema || j.Command != "mutants" || len(j.Targets) != 1 || j.Targets[0].Name != "cfg-swimlane-4-refused" ||
		!j.Targets[0].Killed || j.ElapsedS <= 0 {
		t.Errorf("-json: schema %q, command %q, targets %+v, elapsed_s %v", j.Schema, j.Command, j.Targets, j.ElapsedS)
	}
}

// A trace whose last line is torn (issue #37): -check-trace judges the
// calls before it and fails with a TRACE finding naming the file and line,
// exit 1, beside a clean trace it still judges; -replay replays the calls
// before it, names the line and exits 1 (it exited 2 on the line it could
// not parse), in text and in -json.
func TestCheckTraceAndReplayOfATornTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := "# simabi trace v2\n# target: /x/libhost_runtime.so\n# revision: kernel\n# pid: 7\n" +
		"@1-2 t0 dev=0 create -> c0\n@3-4 t0 dev=0 supported c0 -> 1\n"
	torn, clean := filepath.Join(dir, "torn.ops"), filepath.Join(dir, "clean.ops")
	for path, body := range map[string]string{torn: good + "@5-6 t0 dev=0 destroy c0 -> do", clean: good} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	line := torn + `:7: the last line is torn (no newline: its write did not finish), so the call it records is not %s: "@5-6 t0 dev=0 destroy c0 -> do"`
	r := runCLI(t, nil, "-check-trace", "-repro-dir", filepath.Join(dir, "repro"), clean, torn)
	if r.code != exitFindings {
		t.Errorf("-check-trace: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"TRACE", fmt.Sprintf(line, "judged"), "clean.ops"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("-check-trace does not say %q:\n%s", want, r.stdout)
		}
	}
	r = runCLI(t, nil, "-replay", torn)
	if want := "  " + fmt.Sprintf(line, "replayed") + "\nreplay: 2 of 2 calls replayed, 0 answered differently from the recording, line 7 torn\n"; r.code != exitFindings || !strings.HasSuffix(r.stdout, want) {
		t.Errorf("-replay: exit %d, want 1, ending with %q:\n%s\n%s", r.code, want, r.stdout, r.stderr)
	}
	r = runCLI(t, nil, "-json", "-replay", torn)
	var j struct {
		Replayed int    `json:"replayed"`
		Torn     string `json:"torn"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || r.code != exitFindings || j.Replayed != 2 || j.Torn != fmt.Sprintf(line, "replayed") {
		t.Errorf("-replay -json: exit %d (%v), replayed %d, torn %q:\n%s", r.code, err, j.Replayed, j.Torn, r.stdout)
	}
}

// -check-trace over several traces: one that cannot be read is reported
// with its file and line and exit 2, and every other trace is still judged
// and reported (one unreadable trace stopped the whole check).
func TestCheckTraceUnreadableFileDoesNotStopTheOthers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := "# simabi trace v2\n# target: /x/libhost_runtime.so\n# revision: kernel\n# pid: 7\n" +
		"@1-2 t0 dev=0 create -> c0\n@3-4 t0 dev=0 supported c0 -> 1\n@5-6 t0 dev=0 destroy c0 -> done\n"
	bad := "# simabi trace v2\n# pid: 8\n@1-2 t0 dev=0 create -> c0\n@3-4 t0 dev=0 supported c0 -> yes\n"
	flagged := strings.Replace(good, "supported c0 -> 1", "supported c0 -> 7", 1)
	for name, body := range map[string]string{"a-good.ops": good, "b-bad.ops": bad, "c-flagged.ops": flagged} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := runCLI(t, nil, "-check-trace", filepath.Join(dir, "a-good.ops"), filepath.Join(dir, "b-bad.ops"), filepath.Join(dir, "c-flagged.ops"))
	if r.code != 2 {
		t.Errorf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if want := filepath.Join(dir, "b-bad.ops") + ":4: "; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not name the file and line %q:\n%s", want, r.stderr)
	}
	for _, want := range []string{"a-good.ops", "c-flagged.ops", "E-SUP"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout has no %q: the other traces were not all judged:\n%s", want, r.stdout)
		}
	}
}
