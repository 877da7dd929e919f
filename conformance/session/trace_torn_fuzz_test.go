package session

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/conformance/trace"
)

// (A libFuzzer build compiles this file alone as test code: what the fuzz
// target needs is here, and TestMainTraces_truncatedAtEveryByte shares it.)

// recordedSession is a real trace: what the recorder wrote for docs/trace.md's
// example session (tests/recorder_truncation_test.go holds it to that).
const recordedSession = "testdata/recorded-session.ops"

// linesCuts are the cuts after no byte, after every line's newline, and
// after the first, a middle and the last byte of every line.
func linesCuts(b []byte) []int {
	cuts := []int{0}
	start := 0
	for i, c := range b {
		if c == '\n' {
			cuts = append(cuts, start+1, (start+i)/2+1, i, i+1)
			start = i + 1
		}
	}
	return cuts
}

// exitOf is the exit status MainTraces gives a run.
func exitOf(r *Run) int {
	if Totals([]*Run{r}).Bad() {
		return ExitFindings
	}
	return ExitOK
}

// FuzzTraceTruncation: whatever the text, a last line without a newline is
// torn. When what comes before it reads as a trace, the text reads as the
// same calls with the torn line named (its number), its run has the TRACE
// failure (exit status 1), and every other verdict is the one of the text
// cut at the torn line's start: the calls before a torn line are judged as
// they would be without it. Blanks after the last newline are no line.
// Never a panic. Seeded with the recorded session cut at every line's end
// and inside every line (with testdata/fuzz's, they run in every go test;
// -fuzz fuzzes it, docs/fuzzing.md).
func FuzzTraceTruncation(f *testing.F) {
	// (A libFuzzer build runs elsewhere, with testdata/fuzz's seeds only.)
	if full, err := os.ReadFile(recordedSession); err == nil {
		for _, cut := range linesCuts(full) {
			f.Add(full[:cut])
		}
	}
	const name = "t.ops"
	o := trace.Options{Timeout: 200 * time.Millisecond}
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := op.ParseTrace(bytes.NewReader(b), name)
		start := bytes.LastIndexByte(b, '\n') + 1 // the last line's start
		before, errBefore := op.ParseTrace(bytes.NewReader(b[:start]), name)
		if len(bytes.TrimSpace(b[start:])) == 0 {
			// No torn line: b reads as b[:start] does.
			if (err == nil) != (errBefore == nil) || err == nil && (tr.Torn != nil || len(tr.Calls) != len(before.Calls)) {
				t.Fatalf("blanks after the last newline: %v (%+v), without them: %v", err, tr, errBefore)
			}
			return
		}
		if start > 0 && (err == nil) != (errBefore == nil) {
			t.Fatalf("with the torn line: %v; without it: %v", err, errBefore)
		}
		if err != nil {
			return
		}
		want := bytes.Count(b, []byte("\n")) + 1
		if tr.Torn == nil || tr.Torn.Line != want {
			t.Fatalf("torn %+v, want line %d", tr.Torn, want)
		}
		got := traceRun(tr, o)
		if exitOf(got) != ExitFindings {
			t.Fatalf("exit status %d, want 1 (line %d is torn)", exitOf(got), want)
		}
		if start == 0 {
			return // the torn line is the trace's first
		}
		if len(tr.Calls) != len(before.Calls) {
			t.Fatalf("%d calls read, %d without the torn line", len(tr.Calls), len(before.Calls))
		}
		if d := cmp.Diff(rulesBut(Results(traceRun(before, o)), report.TraceRule), rulesBut(Results(got), report.TraceRule)); d != "" {
			t.Fatalf("the verdicts differ from those without the torn line (-without +with):\n%s", d)
		}
	})
}

// rulesBut are rs without rule.
func rulesBut(rs []report.RuleReport, rule string) []report.RuleReport {
	var out []report.RuleReport
	for _, rr := range rs {
		if rr.Rule != rule {
			out = append(out, rr)
		}
	}
	return out
}
