// Package tests is simabi's own cross-package suite: rapid state machines
// and differential properties over sim and the emitted runtime, replay
// scripts, the fuzz targets over the C image decoder and the recorder, a
// linearizability check of the consumer's gate, and a mutation sample (the
// op-sequence fuzz targets are in tests/opfuzz and tests/opdiff). See README.md in testdata/ for the
// replay format and docs/fuzzing.md for the fuzz targets.
//
// Knobs (all off by default; the default run stays well under two minutes
// with -race):
//
//	-rapid.checks N   rapid properties: N random sequences each (default here: 250)
//	-rapid.steps N    mean ops per rapid sequence (default here: 100; cap 200)
//	-long             longer runs: more and longer porcupine histories, a larger mutant budget
//	SIMABI_LONG=1     the same as -long
package tests

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit/emittest"
)

var long = flag.Bool("long", os.Getenv("SIMABI_LONG") != "", "run the long variants (more seeds, larger budgets)")

// Defaults of rapid's flags for this package, unless -rapid.checks /
// -rapid.steps or RAPID_CHECKS / RAPID_STEPS say otherwise: rapid's own
// defaults (100 checks, a mean of 30 steps) are short for a lifecycle that
// needs create, init, prepares and launches before it gets interesting, and
// a sequence here costs about a millisecond.
var rapidDefaults = []struct{ flag, env, value string }{
	{"rapid.checks", "RAPID_CHECKS", "250"},
	{"rapid.steps", "RAPID_STEPS", "100"},
}

func TestMain(m *testing.M) {
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, d := range rapidDefaults {
		if set[d.flag] || os.Getenv(d.env) != "" {
			continue
		}
		if err := flag.Set(d.flag, d.value); err != nil {
			fmt.Fprintln(os.Stderr, "tests: setting -"+d.flag+":", err)
			os.Exit(2)
		}
	}
	code := m.Run()
	// goleak: no test may leave a goroutine behind (the runners' locked
	// threads, the porcupine workers, the concurrency drivers), but a
	// mutant's child process (recordedMutantRun): a mutant that hangs a
	// rank's comm call leaves that rank's thread in the runtime.
	var ignore []goleak.Option
	if os.Getenv(recordedMutantChild) != "" {
		ignore = append(ignore, goleak.IgnoreAnyFunction("github.com/simabi/simabi/conformance.(*Runner).commExec.func1"))
	}
	if err := goleak.Find(ignore...); err != nil && code == 0 {
		fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
		code = 1
	}
	if root, err := instanceRoot(); err == nil {
		os.RemoveAll(root)
	}
	os.Exit(emittest.Released("tests", code, onboard.Preloaded))
}
