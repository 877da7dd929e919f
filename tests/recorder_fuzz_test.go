package tests

import (
	"os"
	"strings"
	"testing"
)

// FuzzRecordedTraceAgreesWithLive: bytes → an op sequence of the one
// generator (the full op space but the fill to 8192 residents: invalid
// arguments, fault sites with valid and invalid arguments, the two-thread
// ops, the run family) → run live through the recording runtime over the
// emitted fake, the model judging every call → the trace must parse; the
// trace checker must give the live verdict (clean: the fake keeps the
// contract); the trace's consumer side replayed on sim must answer as
// recorded. Runs over its seed corpus (testdata/fuzz/
// FuzzRecordedTraceAgreesWithLive) in every `go test`; `go test ./tests
// -run '^$' -fuzz '^FuzzRecordedTraceAgreesWithLive$'` fuzzes it
// (docs/fuzzing.md). Every rule the op space reaches, judged twice: live
// and from the trace. As FuzzOps' body, it passes t to nothing but its own
// methods (a libFuzzer build's shim T is not a *testing.T), and its helpers
// (recorded_test.go) import no testing package.
func FuzzRecordedTraceAgreesWithLive(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := recordedFakes()
		if isNoCompiler(err) {
			return // nothing to record over without a C compiler
		}
		if err != nil {
			t.Fatal(err)
		}
		p, ops := decodeRecorded(data)
		dir, err := os.MkdirTemp("", "simabi-recorded-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		rr, err := runRecorded(es[p], ops, dir)
		if err != nil {
			if rr != nil {
				t.Fatalf("the trace does not parse: %v\n%s", err, rr.report())
			}
			t.Fatal(err)
		}
		if err := rr.agreeOnFake(); err != nil {
			t.Fatalf("%v\n%s", err, rr.report())
		}
		diffs, err := rr.replayOnSim()
		if err != nil {
			t.Fatalf("%v\n%s", err, rr.report())
		}
		if len(diffs) > 0 {
			t.Fatalf("the replay on sim answered differently from the recording:\n  %s\n%s", strings.Join(diffs, "\n  "), rr.report())
		}
	})
}
