package tests

import (
	"os"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// truncationTrace is the trace conformance/session's truncation tests cut at
// every byte (TestMainTraces_truncatedAtEveryByte, FuzzTraceTruncation).
const truncationTrace = "../conformance/session/testdata/recorded-session.ops"

// The truncation tests' trace is a real one: what the recorder writes for
// docs/trace.md's example session, but for its target and pid lines (which
// name the machine and the process that recorded it).
// SIMABI_UPDATE_TESTDATA=1 records it again.
func TestRecorder_truncationTraceIsRecorded(t *testing.T) {
	path, _ := recordExampleSession(t)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("SIMABI_UPDATE_TESTDATA") != "" {
		if err := os.WriteFile(truncationTrace, []byte(maskTraceHeader(string(got))), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(truncationTrace)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(maskTraceHeader(string(want)), maskTraceHeader(string(got))); d != "" {
		t.Errorf("%s is not what the recorder writes (-file +recorded; SIMABI_UPDATE_TESTDATA=1 go test ./tests -run TestRecorder_truncationTraceIsRecorded records it again):\n%s",
			truncationTrace, d)
	}
}

var (
	traceTargetLine = regexp.MustCompile(`(?m)^# target: .*$`)
	tracePIDLine    = regexp.MustCompile(`(?m)^# pid: [0-9]+$`)
)

// maskTraceHeader writes the target and pid header lines as docs/trace.md's
// example does.
func maskTraceHeader(s string) string {
	s = traceTargetLine.ReplaceAllString(s, "# target: /tmp/fake/libhost_runtime.so")
	return tracePIDLine.ReplaceAllString(s, "# pid: 4242")
}
