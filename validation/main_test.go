package validation_test

import (
	"flag"
	"os"
	"testing"
)

// defaultFuzzMinimizeTime replaces go test's 60s default for
// -fuzzminimizetime when fuzzing this package. The fuzz inputs here are
// kilobytes long (a ChipCallable header alone is 9376 bytes) and the
// minimizer's subset pass is quadratic in the input length, so every new
// coverage input would otherwise be minimized for a full minute, during which
// the fuzzer executes nothing new and reports no progress: a 60s run would
// mostly minimize. An explicit -fuzzminimizetime still wins.
const defaultFuzzMinimizeTime = "3s"

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		explicit := false
		flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.fuzzminimizetime" })
		if !explicit {
			if err := flag.Set("test.fuzzminimizetime", defaultFuzzMinimizeTime); err != nil {
				panic(err)
			}
		}
	}
	os.Exit(m.Run())
}
