package session

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/conformance/trace"
)

// truncated is what -check-trace must make of a trace cut short: the calls
// whose lines are complete, the torn line's number (0 when the cut falls at
// a line's end), and the exit status.
type truncated struct {
	calls, torn, code int
}

// truncatedAt derives the expectation from the bytes alone: a call's line
// starts with '@', a line is complete when its newline is there, and blanks
// after the last newline are no line. An empty file is no trace (exit
// status 2).
func truncatedAt(b []byte) truncated {
	if len(b) == 0 {
		return truncated{code: ExitUsage}
	}
	lines := bytes.Split(b, []byte("\n"))
	var w truncated
	for _, l := range lines[:len(lines)-1] {
		if bytes.HasPrefix(l, []byte("@")) {
			w.calls++
		}
	}
	if len(bytes.TrimSpace(lines[len(lines)-1])) > 0 { // after the last newline: a torn line
		w.torn, w.code = len(lines), ExitFindings
	}
	return w
}

// Every recorded call counts: a trace cut at any byte is judged on the calls
// whose lines are complete, and a cut inside a line is a TRACE failure that
// names the file and the line, exit status 1; a cut at a line's end is a
// clean trace of the calls before it, exit status 0. Never a panic. Every
// cut is read and judged as -check-trace does (traceRun), in memory; a cut
// at every line's end and at the first, a middle and the last byte of every
// line runs through MainTraces on a file (and is all the in-memory part
// takes with -short or the race detector).
func TestMainTraces_truncatedAtEveryByte(t *testing.T) {
	full, err := os.ReadFile(recordedSession)
	if err != nil {
		t.Fatal(err)
	}
	if w := truncatedAt(full); w.torn != 0 || w.calls != 14 {
		t.Fatalf("%s: %+v, want 14 complete calls", recordedSession, w)
	}
	const name = "session.ops"
	// The cuts make some 3 GB of short-lived garbage (each reads and judges
	// up to 22 KB anew): a larger heap target halves the time the loop takes.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	cuts := make([]int, len(full))
	for i := range cuts {
		cuts[i] = i + 1
	}
	if testing.Short() || raceEnabled {
		cuts = linesCuts(full)[1:] // (every byte takes a minute under the race detector)
	}
	for _, cut := range cuts {
		if err := judgeTruncated(full[:cut], name, truncatedAt(full[:cut])); err != nil {
			t.Fatalf("cut after %d of %d bytes: %v", cut, len(full), err)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, name)
	o := &Options{Quiet: true, ReproDir: filepath.Join(dir, "repro")}
	for _, cut := range linesCuts(full) {
		if err := os.WriteFile(path, full[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if err := mainTruncated(o, path, truncatedAt(full[:cut])); err != nil {
			t.Fatalf("-check-trace of the cut after %d of %d bytes: %v", cut, len(full), err)
		}
	}
}

// judgeTruncated reads and judges the cut trace b as -check-trace does, and
// holds the run to w.
func judgeTruncated(b []byte, name string, w truncated) error {
	tr, err := op.ParseTrace(bytes.NewReader(b), name)
	if err != nil {
		return err
	}
	if len(tr.Calls) != w.calls {
		return fmt.Errorf("%d calls read, want %d", len(tr.Calls), w.calls)
	}
	run := traceRun(tr, trace.Options{})
	var bad []string
	for _, rr := range Results(run) {
		if rr.Verdict.Bad() {
			bad = append(bad, rr.Rule+" "+rr.Verdict.String()+": "+rr.Detail)
		}
	}
	var want []string
	if w.torn > 0 {
		want = []string{fmt.Sprintf("%s %s: %s:%d: the last line is torn (no newline: its write did not finish)", report.TraceRule, model.Fail, name, w.torn)}
	}
	if len(bad) != len(want) || len(want) > 0 && !strings.HasPrefix(bad[0], want[0]) {
		return fmt.Errorf("findings %q, want %q", bad, want)
	}
	if code := exitOf(run); code != w.code {
		return fmt.Errorf("exit status %d, want %d", code, w.code)
	}
	return nil
}

// mainTruncated runs -check-trace on the cut trace at path.
func mainTruncated(o *Options, path string, w truncated) error {
	var stdout, stderr bytes.Buffer
	code := MainTraces(o, []string{path}, &stdout, &stderr)
	if code != w.code {
		return fmt.Errorf("exit status %d, want %d (stderr %q)", code, w.code, stderr.String())
	}
	switch want := fmt.Sprintf("%s:%d: the last line is torn", path, w.torn); {
	case w.code == ExitUsage:
		if want = path + ": not a simabi trace (empty"; !strings.Contains(stderr.String(), want) {
			return fmt.Errorf("stderr %q, want %q", stderr.String(), want)
		}
	case w.torn > 0 && !strings.Contains(stdout.String(), want):
		return fmt.Errorf("the report does not say %q:\n%s", want, stdout.String())
	case w.torn == 0 && strings.Contains(stdout.String(), "torn"):
		return fmt.Errorf("the report of a trace cut at a line's end says torn:\n%s", stdout.String())
	}
	return nil
}
