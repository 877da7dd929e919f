package tests

import (
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
// and from the trace.
func FuzzRecordedTraceAgreesWithLive(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := fuzzEmitted() // the fake of each profile, built once per process
		if isNoCompiler(err) {
			t.Skip("no C compiler")
		}
		if err != nil {
			t.Fatal(err)
		}
		p, ops := decodeRecorded(data)
		rr, err := runRecorded(es[p], ops, t.TempDir())
		if err != nil {
			if rr != nil {
				t.Fatalf("the trace does not parse: %v\n%s", err, rr.report())
			}
			t.Fatal(err)
		}
		t.Logf("%d ops, %d recorded calls, %d judged", len(ops), len(rr.trace.Calls), rr.check.Result.Checked)
		if err := rr.agreeOnFake(); err != nil {
			t.Fatalf("%v\n%s", err, rr.report())
		}
		diffs, err := rr.replayOnSim()
		if err != nil {
			t.Fatalf("%v\n%s", err, rr.report())
		}
		if len(diffs) > 0 {
			t.Fatalf("the replay on sim answered differently from the recording:\n  %s\n%s", joinLines(diffs), rr.report())
		}
	})
}
