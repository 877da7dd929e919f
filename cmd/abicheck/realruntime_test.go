package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simabi/simabi/sim/emit"
)

type jFinding struct {
	Rule        string `json:"rule"`
	Verdict     string `json:"verdict"`
	Check       string `json:"check"`
	Fingerprint string `json:"fingerprint"`
	Known       bool   `json:"known"`
}

func findingsJSON(t *testing.T, out string) []jFinding {
	t.Helper()
	var r struct {
		Findings []jFinding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	return r.Findings
}

// U-1, deterministic: a library whose init leaves a thread-exit destructor
// behind (mutant thread-key-leak) crashes at the unload op of the U-1 check
// in every run, and the plain fake passes U-1.
func TestU1ReportedEveryRun(t *testing.T) {
	lib := build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: "thread-key-leak"})
	for i := 0; i < 3; i++ {
		r := runCLI(t, nil, "-json", "-sequences", "0", lib)
		if r.code != exitFindings {
			t.Fatalf("run %d: exit %d, want 1\n%s", i, r.code, r.stderr)
		}
		res := resultOf(parseOne(t, r.stdout), "U-1")
		if res.Verdict == nil || *res.Verdict != "crash" || !strings.Contains(*res.Detail, "crash at #4 unload") ||
			!strings.Contains(*res.Detail, "SIGSEGV") {
			t.Fatalf("run %d: U-1 %+v, want a SIGSEGV at the unload", i, res)
		}
	}
	plain := build(t, emit.Config{Profile: emit.ProfileTMR})
	r := runCLI(t, nil, "-json", "-sequences", "0", plain)
	if res := resultOf(parseOne(t, r.stdout), "U-1"); r.code != exitOK || res.Verdict == nil || *res.Verdict != "pass" {
		t.Fatalf("plain fake: exit %d, U-1 %+v", r.code, res)
	}
}

// -write-baseline records a run's findings; -baseline accepts exactly those:
// the same library exits 0 with them listed as known, another breakage of
// the same library still exits 1.
func TestBaselineFlags(t *testing.T) {
	stubbed := build(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Status: map[string]int32{"ensure_acl_ready_ctx": 0}}})
	dir := t.TempDir()
	base := filepath.Join(dir, "known.baseline")
	r := runCLI(t, nil, "-sequences", "5", "-write-baseline", base, stubbed)
	if r.code != exitFindings {
		t.Fatalf("first run: exit %d, want 1\n%s", r.code, r.stderr)
	}
	text, err := os.ReadFile(base)
	if err != nil || !strings.Contains(string(text), "S-3 ") {
		t.Fatalf("baseline %v:\n%s", err, text)
	}
	r = runCLI(t, nil, "-json", "-sequences", "5", "-baseline", base, stubbed)
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
	if r := runCLI(t, nil, "-sequences", "5", "-baseline", base, both); r.code != exitFindings || !strings.Contains(r.stdout, "KNOWN") {
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
	for _, tc := range []struct{ knob, rule, text string }{
		{"get_pipeline_contract", "V-CONTRACT", "at bind time: get_pipeline_contract returned NULL"},
		{"create_device_context", "L-1", "at bind time: create_device_context returned NULL"},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			lib := build(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Null: []string{tc.knob}}})
			junit := filepath.Join(t.TempDir(), "r.xml")
			r := runCLI(t, nil, "-json", "-junit", junit, "-sequences", "2", lib)
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
	text := filepath.Join(t.TempDir(), "libnot.so")
	if err := os.WriteFile(text, []byte(strings.Repeat("not an ELF file\n", 16)), 0o644); err != nil {
		t.Fatal(err)
	}
	libc := "/lib/x86_64-linux-gnu/libc.so.6"
	for _, tc := range []struct{ lib, want string }{
		{"/nonexistent/libhost_runtime.so", "no such file or directory"},
		{text, "invalid ELF header"},
		{libc, "not a host runtime (it exports none of the entries of abi.md)"},
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

// -log-level sets the threshold bound into the library (a level of abi.md:
// anything else is a usage error); every valid level loads the fake.
func TestLogLevelFlag(t *testing.T) {
	lib := build(t, emit.Config{Profile: emit.ProfileTMR})
	for _, l := range []string{"debug", "warn", "60"} {
		if r := runCLI(t, nil, "-q", "-sequences", "1", "-log-level", l, lib); r.code != exitOK {
			t.Errorf("-log-level %s: exit %d\n%s", l, r.code, r.stderr)
		}
	}
	r := runCLI(t, nil, "-log-level", "0", lib)
	if r.code != exitUsage || !strings.Contains(r.stderr, "unknown log level") {
		t.Errorf("-log-level 0: exit %d, %s", r.code, r.stderr)
	}
}
