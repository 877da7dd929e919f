package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/simabi/simabi/conformance/session"
	"github.com/simabi/simabi/sim/emit"
)

type jFinding struct {
	Rule        string `json:"rule"`
	Verdict     string `json:"verdict"`
	Check       string `json:"check"`
	Fingerprint string `json:"fingerprint"`
	Detail      string `json:"detail"`
	Known       bool   `json:"known"`
}

func findingsJSON(t *testing.T, out string) []jFinding {
	t.Helper()
	var r struct {
		Findings []jFinding `json:"findings"`
	}
	if err := json.Unmarshal(onlyTarget(t, out), &r); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	return r.Findings
}

// U-1, deterministic: a library whose init leaves a thread-exit destructor
// behind (mutant thread-key-leak) crashes at the unload op of the U-1 check
// in every run, and the plain fake passes U-1.
func TestU1ReportedEveryRun(t *testing.T) {
	t.Parallel()
	lib := build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: "thread-key-leak"})
	// Two runs, so that "every run" is more than one; U-1's own directed
	// check finds the crash, so neither needs the probes.
	for i := 0; i < 2; i++ {
		r := runCLI(t, nil, "-json", "-no-probes", "-sequences", "0", lib)
		if r.code != exitFindings {
			t.Fatalf("run %d: exit %d, want 1\n%s", i, r.code, r.stderr)
		}
		res := resultOf(parseOne(t, r.stdout), "U-1")
		if res.Verdict == nil || *res.Verdict != "crash" || !regexp.MustCompile(`crash at #\d unload`).MatchString(*res.Detail) ||
			!strings.Contains(*res.Detail, "SIGSEGV") {
			t.Fatalf("run %d: U-1 %+v, want a SIGSEGV at the unload", i, res)
		}
	}
	plain := build(t, emit.Config{Profile: emit.ProfileTMR})
	r := runCLI(t, nil, "-json", "-no-probes", "-sequences", "0", plain)
	if res := resultOf(parseOne(t, r.stdout), "U-1"); r.code != exitOK || res.Verdict == nil || *res.Verdict != "pass" {
		t.Fatalf("plain fake: exit %d, U-1 %+v", r.code, res)
	}
}

// -write-baseline records a run's findings; -baseline accepts exactly those:
// the same library exits 0 with them listed as known, another breakage of
// the same library still exits 1.
func TestBaselineFlags(t *testing.T) {
	t.Parallel()
	stubbed := build(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Status: map[string]int32{"ensure_acl_ready_ctx": 0}}})
	dir := t.TempDir()
	base := filepath.Join(dir, "known.baseline")
	// S-3 and the new finding of both are directed checks' (s-3/null-context):
	// every run leaves out the probes and the random sequences alike, so that
	// the baseline records what the later runs find.
	run := []string{"-no-probes", "-sequences", "0"}
	r := runCLI(t, nil, append(run, "-write-baseline", base, stubbed)...)
	if r.code != exitFindings {
		t.Fatalf("first run: exit %d, want 1\n%s", r.code, r.stderr)
	}
	text, err := os.ReadFile(base)
	if err != nil || !strings.Contains(string(text), "S-3 ") {
		t.Fatalf("baseline %v:\n%s", err, text)
	}
	r = runCLI(t, nil, append(run, "-json", "-baseline", base, stubbed)...)
	if r.code != exitOK {
		t.Fatalf("with the baseline: exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := parseOne(t, r.stdout)
	if v := resultOf(rep, "S-3"); v.Verdict == nil || *v.Verdict != "known" || *rep.Summary["known"] == 0 {
		t.Fatalf("S-3 %+v, summary %v: want known", v, rep.Summary)
	}
	for _, f := range findingsJSON(t, r.stdout) {
		if !f.Known {
			t.Errorf("finding %+v not known", f)
		}
	}
	both := build(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Status: map[string]int32{"ensure_acl_ready_ctx": 0,
		"destroy_comm_stream_ctx": 0}}})
	if r := runCLI(t, nil, append(run, "-baseline", base, both)...); r.code != exitFindings || !strings.Contains(r.stdout, "KNOWN") {
		t.Fatalf("a new finding: exit %d, want 1 with the known ones listed\n%s", r.code, r.stdout)
	}
	if err := os.WriteFile(base, []byte("S-3 nothex\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, nil, "-baseline", base, stubbed); r.code != exitUsage || !strings.Contains(r.stderr, "line 1") {
		t.Fatalf("a malformed baseline: exit %d, %s", r.code, r.stderr)
	}
}

// A library that loads but breaks a rule at bind time is a finding (exit 1,
// the rule named in the table, JSON and JUnit), not a load error: a NULL
// pipeline contract (V-CONTRACT), a NULL context (L-1).
func TestBindTimeRuleBreaksAreFindings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ knob, rule, text string }{
		{"get_pipeline_contract", "V-CONTRACT", "at bind time: get_pipeline_contract returned NULL"},
		{"create_device_context", "L-1", "at bind time: create_device_context returned NULL"},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			lib := build(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Null: []string{tc.knob}}})
			junit := filepath.Join(t.TempDir(), "r.xml")
			r := runCLI(t, nil, "-json", "-junit", junit, "-no-probes", "-sequences", "0", lib)
			if r.code != exitFindings {
				t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
			}
			if res := resultOf(parseOne(t, r.stdout), tc.rule); res.Verdict == nil || *res.Verdict != "fail" {
				t.Fatalf("%s: %+v, want fail", tc.rule, res)
			}
			found := false
			for _, f := range findingsJSON(t, r.stdout) {
				found = found || (f.Rule == tc.rule && f.Check == "bind")
			}
			x, err := os.ReadFile(junit)
			if !found || err != nil || !strings.Contains(string(x), tc.text) {
				t.Fatalf("bind finding in JSON %v, JUnit %v:\n%s", found, err, x)
			}
		})
	}
}

// What is not a host runtime at all is a load error (exit 2) in one line.
func TestNotAHostRuntimeIsALoadError(t *testing.T) {
	t.Parallel()
	text := filepath.Join(t.TempDir(), "libnot.so")
	if err := os.WriteFile(text, []byte(strings.Repeat("not an ELF file\n", 16)), 0o644); err != nil {
		t.Fatal(err)
	}
	libc := "/lib/x86_64-linux-gnu/libc.so.6"
	for _, tc := range []struct{ lib, want string }{
		{"/nonexistent/libhost_runtime.so", "no such file or directory"},
		{text, "invalid ELF header"},
		{libc, "not a host runtime (it exports none of the entries of docs/contract.md)"},
	} {
		if _, err := os.Stat(tc.lib); err != nil && tc.lib == libc {
			continue
		}
		r := runCLI(t, nil, tc.lib)
		msg := strings.TrimSpace(r.stderr)
		if r.code != exitUsage || strings.Contains(msg, "\n") || !strings.Contains(msg, tc.want) || len(msg) > 300 {
			t.Errorf("%s: exit %d, stderr %q, want exit 2 and one line naming %q", tc.lib, r.code, msg, tc.want)
		}
	}
}

// -log-level sets the threshold bound into the library (a level of docs/contract.md:
// anything else is a usage error); every valid level loads the fake.
func TestLogLevelFlag(t *testing.T) {
	t.Parallel()
	lib := build(t, emit.Config{Profile: emit.ProfileTMR})
	for _, l := range []string{"debug", "warn", "60"} {
		// Loading is what a level can break: no probes, no random sequence.
		if r := runCLI(t, nil, "-q", "-no-probes", "-sequences", "0", "-log-level", l, lib); r.code != exitOK {
			t.Errorf("-log-level %s: exit %d\n%s", l, r.code, r.stderr)
		}
	}
	r := runCLI(t, nil, "-log-level", "0", lib)
	if r.code != exitUsage || !strings.Contains(r.stderr, "unknown log level") {
		t.Errorf("-log-level 0: exit %d, %s", r.code, r.stderr)
	}
}

// A load error names each path once and says what went wrong where: the
// library's own dlopen failure, and a preload's (dlerror repeats the path).
func TestLoadErrorsNameEachPathOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notELF := filepath.Join(dir, "notelf.so")
	if err := os.WriteFile(notELF, []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	libc := "/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := os.Stat(libc); err != nil {
		t.Skipf("skipping: %v", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{notELF}, "abicheck: cannot load " + notELF + ": file too short\n"},
		{[]string{"-preload", notELF, libc}, "abicheck: cannot load " + libc + ": " + notELF + ": dlopen (preload, RTLD_GLOBAL): file too short\n"},
		{[]string{filepath.Join(dir, "absent.so")}, "abicheck: cannot load " + filepath.Join(dir, "absent.so") + ": no such file or directory\n"},
	} {
		r := runCLI(t, nil, tc.args...)
		if r.code != exitUsage || r.stderr != tc.want {
			t.Errorf("%v: exit %d, stderr %q; want exit 2, %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// U-1, residue: a library whose init starts a detached thread that runs
// library code 50 ms later (mutant late-thread-leak) kills whatever the
// process does after the unload. The child that unloaded lingers, so the
// U-1 check itself dies at its unload op; a case that dies in a process
// that had served earlier cases runs again in a fresh one, and when it
// passes there the death is reported as a U-1 residue (one fingerprint),
// not under the case's rules.
// Not parallel: the mutant's thread wakes 50 ms after the unload.
func TestU1LateThreadIsReportedAsU1(t *testing.T) {
	lib := build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: "late-thread-leak"})
	r := runCLI(t, nil, "-json", "-sequences", "20", "-max-ops", "100", lib)
	if r.code != exitFindings {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	var rep struct {
		Results  []session.JSONResult `json:"results"`
		Findings []jFinding           `json:"findings"`
	}
	if err := json.Unmarshal(onlyTarget(t, r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var u1 *session.JSONResult
	for i := range rep.Results {
		if rep.Results[i].Rule == "U-1" {
			u1 = &rep.Results[i]
		}
	}
	if u1 == nil || u1.Verdict != "crash" {
		t.Fatalf("U-1 %+v, want crash", u1)
	}
	prints := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Verdict != "crash" {
			continue
		}
		if f.Rule != "U-1" {
			t.Errorf("a crash reported under %s, want only U-1: %+v", f.Rule, f)
		}
		if strings.HasPrefix(f.Check, "residue/") {
			prints[f.Fingerprint] = true
			if !strings.Contains(f.Detail, "not when the case ran again in a fresh process") {
				t.Errorf("residue detail %q", f.Detail)
			}
		}
	}
	if len(prints) > 1 {
		t.Errorf("residue findings under %d fingerprints, want one", len(prints))
	}
}
