package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The expectation files name exactly the steps driver.cpp takes, in its
// order, and parse as the driver parses them: a step added to the driver
// without an expectation (or a line left for a step it no longer takes)
// fails here, without upstream's source.
func TestExpectationFilesNameTheDriversSteps(t *testing.T) {
	src, err := os.ReadFile("../driver.cpp")
	if err != nil {
		t.Fatal(err)
	}
	steps := DriverSteps(string(src))
	if len(steps) < 40 {
		t.Fatalf("found %d steps in driver.cpp, want the lane's ~50: %q", len(steps), steps)
	}
	seen := map[string]bool{}
	for _, s := range steps {
		if seen[s] {
			t.Errorf("driver.cpp takes step %q twice", s)
		}
		seen[s] = true
	}
	files, err := filepath.Glob("../expect/*.expect")
	if err != nil || len(files) < 4 {
		t.Fatalf("expectation files %v (%v), want fake, fake-fail-init and the two upstream runtimes", files, err)
	}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		exp, err := ParseExpectations(f, path)
		f.Close()
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if msg := CompareSteps(steps, exp); msg != "" {
			t.Errorf("%s: %s", path, msg)
		}
	}
}

func TestParseExpectations(t *testing.T) {
	good := "# comment\n\ninit | ok | -\nregister_callable(64) | threw | register_callable failed with code -1\n" +
		"comm_init(rank 0 of 1) | ok | handle nonzero | known: stubs\nrun(5).unregistered | threw | prepare_native_run failed ...\n"
	exp, err := ParseExpectations(strings.NewReader(good), "g.expect")
	if err != nil {
		t.Fatal(err)
	}
	if len(exp) != 4 || exp[2].Known != "stubs" || exp[3].Detail != "prepare_native_run failed ..." || exp[1].Line != 4 {
		t.Fatalf("parsed %+v", exp)
	}
	for _, tc := range []struct{ text, want string }{
		{"init | ok\n", "b.expect:1: want NAME | OUTCOME | DETAIL [| known: REASON], got 2 fields"},
		{"init | fine | -\n", `b.expect:1: outcome "fine" is not ok, threw or skipped`},
		{"init | ok |\n", "b.expect:1: empty detail (write - for none, * for any)"},
		{" | ok | -\n", "b.expect:1: empty step name"},
		{"init | ok | - | because\n", `b.expect:1: the fourth field must be "known: REASON"`},
		{"init | ok | - | known:\n", `b.expect:1: the fourth field must be "known: REASON"`},
		{"init | ok | -\n#\ninit | ok | -\n", "b.expect:3: step init is listed twice (first at line 1)"},
	} {
		_, err := ParseExpectations(strings.NewReader(tc.text), "b.expect")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestCompareSteps(t *testing.T) {
	exp := func(names ...string) []Expectation {
		var out []Expectation
		for _, n := range names {
			out = append(out, Expectation{Name: n})
		}
		return out
	}
	steps := []string{"init", "run", "finalize"}
	if msg := CompareSteps(steps, exp("init", "run", "finalize")); msg != "" {
		t.Errorf("equal lists: %s", msg)
	}
	if msg := CompareSteps(steps, exp("init", "finalize", "free")); !strings.Contains(msg, `["run"]`) || !strings.Contains(msg, `["free"]`) {
		t.Errorf("missing and extra: %s", msg)
	}
	if msg := CompareSteps(steps, exp("run", "init", "finalize")); !strings.Contains(msg, "another order") {
		t.Errorf("reordered: %s", msg)
	}
}

func TestTraceVerdict(t *testing.T) {
	report := func(findings string) []byte {
		return []byte(`{"schema":"abicheck/v2","command":"check-trace","targets":[{"summary":{"pass":6,"fail":1,"warn":0,"skip":44,"crash":0,"hang":0},` +
			`"ops":70,"findings":[` + findings + `]}],"summary":{"pass":6,"fail":1,"warn":0,"skip":44,"crash":0,"hang":0},"elapsed_s":0.01}`)
	}
	s3 := `{"rule":"S-3","verdict":"fail","op":"acl null dev=-1","detail":"want IA, got OK"}`
	skip := `{"rule":"K-1","verdict":"skip","op":"","detail":"does not apply"}`
	line, ok, err := TraceVerdict(report(skip), nil)
	if err != nil || !ok || line != "clean: 6 pass, 1 fail, 0 warn, 44 skip, 0 crash, 0 hang; 70 calls judged" {
		t.Errorf("clean: %q %v %v", line, ok, err)
	}
	line, ok, _ = TraceVerdict(report(s3+","+skip), []string{"S-3", "U-1"})
	if !ok || !strings.HasPrefix(line, "explained: ") || !strings.Contains(line, "only findings of S-3, U-1: S-3 fail at acl null dev=-1: want IA, got OK") {
		t.Errorf("explained: %q %v", line, ok)
	}
	line, ok, _ = TraceVerdict(report(s3), nil)
	if ok || !strings.HasPrefix(line, "FINDINGS: ") || !strings.Contains(line, "not explained: S-3 fail") {
		t.Errorf("findings: %q %v", line, ok)
	}
	if _, _, err := TraceVerdict([]byte("{"), nil); err == nil {
		t.Error("a malformed report was accepted")
	}
	// A report of abicheck before the envelope (one object per trace, no
	// schema) is refused with what it is.
	_, _, err = TraceVerdict([]byte(`{"summary":{"pass":6},"ops":70,"findings":[]}`), nil)
	if err == nil || err.Error() != `report of schema "", want abicheck/v2` {
		t.Errorf("a report without the schema: %v", err)
	}
}

// Runs whose steps all read alike share a column; a step a run never
// reached, a mismatch and a known difference are marked.
func TestTable(t *testing.T) {
	parse := func(label, rc, out string) Run {
		r, err := ParseDriverOutput(strings.NewReader(out), Run{Label: label, RC: rc})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := "STEP init | ok | -\nCHECK init | match\nSTEP run(5) | threw | prepare_native_run failed with code -1 (run_id=0 slot=0 generation=2 dispatch_id=0 run_epoch=5)\nCHECK run(5) | match\nRESULT 2 steps: 2 match\n"
	b := strings.Replace(a, "run_epoch=5", "run_epoch=9", 1)
	c := "STEP init | ok | -\nCHECK init | MISMATCH | want threw | x\nSTEP run(5) | skipped | comm_init returned NULL (ChipWorker: comm_init failed): no backend\nCHECK run(5) | known | want ok | - | stubs\nRESULT 2 steps: 0 match, 1 known difference, 1 mismatch\n"
	d := "STEP init | ok | -\nCHECK init | match\n"
	md := Table([]Run{parse("A", "0", a), parse("B", "0", b), parse("C", "1", c), parse("D", "134", d)})
	for _, want := range []string{
		"| step | A; B | C | D |",
		"| init | ok | **ok (MISMATCH)** | ok |",
		"| run(5) | threw: prepare_native_run failed with code -1 | skipped: comm_init returned NULL (known difference) | (not reached) |",
		"| **driver** | exit 0: 2 steps: 2 match | **exit 1: 2 steps: 0 match, 1 known difference, 1 mismatch** | **died (exit 134) before its verdict** |",
		"| **-check-trace** | (not recorded) | (not recorded) | (not recorded) |",
	} {
		if !strings.Contains(md, want+"\n") {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}
