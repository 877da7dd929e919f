package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The expectation files name exactly the steps driver.cpp takes, in its
// order, each line well formed as the driver reads it ("NAME | OUTCOME |
// DETAIL [| known: REASON]"): a step added to the driver without an
// expectation (or a line left for a step it no longer takes) fails here,
// without upstream's source. At lane time the driver holds its steps
// against its expectation file itself; the report never reads driver.cpp.
func TestExpectationFilesNameTheDriversSteps(t *testing.T) {
	src, err := os.ReadFile("../driver.cpp")
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, m := range regexp.MustCompile(`\bs\.step\(\s*"([^"]+)"`).FindAllStringSubmatch(string(src), -1) {
		steps = append(steps, m[1])
	}
	if len(steps) != 62 {
		t.Errorf("found %d steps in driver.cpp, want the lane's 62", len(steps))
	}
	files, err := filepath.Glob("../expect/*.expect")
	if err != nil || len(files) != 6 {
		t.Fatalf("expectation files %v (%v), want fake, fake-single, fake-poll-pending, fake-fail-init and the two upstream runtimes", files, err)
	}
	for _, path := range files {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for n, line := range strings.Split(string(text), "\n") {
			if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			f := strings.Split(line, " | ")
			known := len(f) == 4 && strings.HasPrefix(f[3], "known: ")
			if (len(f) != 3 && !known) || !slices.Contains([]string{"ok", "threw", "skipped"}, f[1]) || f[2] == "" {
				t.Errorf("%s:%d: want NAME | ok|threw|skipped | DETAIL [| known: REASON], got %q", path, n+1, line)
			}
			names = append(names, f[0])
		}
		if diff := cmp.Diff(steps, names); diff != "" {
			t.Errorf("%s: steps (-driver.cpp +expectation file):\n%s", path, diff)
		}
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
