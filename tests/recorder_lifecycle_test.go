package tests

import (
	"github.com/simabi/simabi/conformance/model"

	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/simabi/simabi/sim/emit"
)

// The lifecycle suite recorded (docs/trace.md, issue "Record a real
// session"): lifecycle's fake catalogue runs with the recording runtime in
// front of every case's fake (lifecycle/emit_test.go, recordThrough), and
// every trace is judged offline by the trace checker. Over the fake, each
// "plain" trace (a fake that answers as the model does, faults armed through
// simabi_inject) must check clean; over an emitted mutant, some plain trace
// must be flagged under the mutant's rule.

// recordedMutants are the mutants the catalogue's consumer reaches: the
// others break rules on calls a well-behaved consumer never makes (bad
// arguments, a second context on a claimed device, ...), which a recording
// of that consumer cannot contain.
var recordedMutants = []struct{ name, rule string }{
	{"ids-from-one", "M-1"},
	{"dedup", "M-2"},
	{"close-failure-swallowed", "K-5"},
	{"program-teardown-swallowed", "E-FIN"},
}

func TestRecorder_lifecycleCatalogueTracesCheck(t *testing.T) {
	privateRecorder(t, emit.RecorderConfig{}) // skips without a C compiler
	bin := filepath.Join(t.TempDir(), "lifecycle.test")
	if out, err := exec.Command("go", "test", "-c", "-o", bin, module+"/lifecycle").CombinedOutput(); err != nil {
		t.Fatalf("go test -c lifecycle: %v\n%s", err, out)
	}
	record := func(t *testing.T, mutant string) (dir string) {
		dir = t.TempDir()
		cmd := exec.Command(bin, "-test.run=^TestFakeCatalogue$", "-test.count=1")
		cmd.Dir = "../lifecycle"
		// TMPDIR: over a mutant the child may die before its own cleanup.
		cmd.Env = append(os.Environ(), "SIMABI_LIFECYCLE_RECORD="+dir, "SIMABI_LIFECYCLE_MUTANT="+mutant, "TMPDIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if mutant == "" && err != nil { // over a mutant the consumer's own checks fail, as they should
			t.Fatalf("the catalogue failed through the recorder: %v\n%s", err, out)
		}
		return dir
	}
	// judge checks every plain trace of dir and returns the rules each
	// fails, by trace.
	judge := func(t *testing.T, dir string) (plain int, failed map[string][]string) {
		files, err := filepath.Glob(filepath.Join(dir, "*.plain-*.ops"))
		if err != nil {
			t.Fatal(err)
		}
		failed = map[string][]string{}
		for _, f := range files {
			_, tc := judgeTraceFile(t, f)
			for _, rr := range tc.Report().Rules {
				if rr.Verdict == model.Fail {
					failed[filepath.Base(f)] = append(failed[filepath.Base(f)], rr.Rule+": "+rr.Detail)
				}
			}
		}
		return len(files), failed
	}

	t.Run("fake", func(t *testing.T) {
		dir := record(t, "")
		plain, failed := judge(t, dir)
		// Fourteen cases of the catalogue are plain today; fewer means the
		// recording lost some.
		if plain < 14 {
			t.Errorf("%d plain traces, want at least 14", plain)
		}
		for f, rules := range failed {
			t.Errorf("%s: flagged over the fake:\n  %s", f, strings.Join(rules, "\n  "))
		}
	})
	for _, m := range recordedMutants {
		t.Run(m.name, func(t *testing.T) {
			_, failed := judge(t, record(t, m.name))
			var under []string
			for f, rules := range failed {
				if slices.ContainsFunc(rules, func(r string) bool { return strings.HasPrefix(r, m.rule+": ") }) {
					under = append(under, f)
				}
			}
			if len(under) == 0 {
				t.Errorf("no trace flagged under %s; flagged: %v", m.rule, failed)
			}
		})
	}
}
