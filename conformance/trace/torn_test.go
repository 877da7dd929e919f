package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi/tracevocab"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/report"
)

// Every recorded call counts (issue #37): a trace whose last line is torn
// (no newline: a process killed while it wrote a long line, a full disk, a
// copy cut short) is read up to that line, the calls before it judged, and
// the line itself reported: a TRACE failure naming the file and the line.
// When the process died in the call the line records, the call's in-flight
// record stands for it (a hang of that call under its entry's rule, E-PREP
// here), and the TRACE failure says so.
func TestReadTraceFile_tornLastLineIsReported(t *testing.T) {
	const torn = "@3-9 t1 dev=0 prepare c0 img=raw(9440,0,0100000001"
	body := "# simabi trace v2\n# target: /x/libhost_runtime.so\n# revision: kernel\n# pid: 7\n# image-limit: 1048576\n" +
		"@1-2 t0 dev=0 create -> c0\n" + torn
	for _, c := range []struct {
		name     string
		inflight bool
		hang     string // the rule hung, "" for none
	}{{"no in-flight record", false, ""}, {"the in-flight record of the call", true, "E-PREP"}} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "session-7.ops")
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			record := ""
			if c.inflight {
				record = tracevocab.InflightName(path, 7)
				// (The slot holds 4 KiB of the op text: the image's hex is cut.)
				in := tracevocab.InflightCall{B: 3, Thread: 1, Dev: 0, Op: "prepare c0 img=raw(9440,0," + strings.Repeat("01", 9440) + ")"}
				if err := os.WriteFile(record, inflightFile(7, 0, 0, in), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tr, err := ReadTraceFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(&op.TornLine{Line: 7, Text: torn, Record: record}, tr.Torn); d != "" {
				t.Errorf("torn line (-want +got):\n%s", d)
			}
			if tr.Calls[0].Op.Kind != KindCreate || len(tr.Calls) != 1+btoi(c.inflight) {
				t.Fatalf("calls %v, want the create (and the in-flight prepare)", tr.Calls)
			}
			want := map[string]string{report.TraceRule: "fail " + path + `:7: the last line is torn (no newline: its write did not finish), ` +
				`so the call it records is not judged: "@3-9 t1 dev=0 prepare c0 img=raw(9440,0,0100000001"`}
			if c.hang != "" {
				want[report.TraceRule] += "; its in-flight record in " + record + " stands for it"
				want[c.hang] = "hang #1 prepare c0 img=raw(0,0,trunc): hang: the trace ends inside this call (it never returned; its in-flight record holds no img=); " +
					"in-flight record: " + record
			}
			rep := Check(tr, Options{}).Report()
			got := map[string]string{}
			for _, rr := range rep.Rules {
				if rr.Verdict.Bad() {
					got[rr.Rule] = rr.Verdict.String() + " " + rr.Detail
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("failing rules (-want +got):\n%s", d)
			}
			if len(rep.Checks) != 1 || !rep.Checks[0].Verdict.Bad() || !strings.HasSuffix(rep.Checks[0].Detail, "; line 7 is torn") {
				t.Errorf("the trace's check: %+v, want a failure that says line 7 is torn", rep.Checks)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// What is a torn line and what is not: bytes after the last newline, but
// blanks; a torn first line is a trace of no call when it is what the header
// begins with, and no trace otherwise; a line cut short is not read even
// when what is left of it parses ("-> 1" of "-> 10").
func TestParseTrace_tornLines(t *testing.T) {
	const head = "# simabi trace v2\n@1-2 t0 dev=0 create -> c0\n"
	for _, c := range []struct {
		name, text string
		calls      int
		torn       *op.TornLine
		err        string
	}{
		{"complete", head, 1, nil, ""},
		{"blanks after the last newline", head + " \t", 1, nil, ""},
		{"a line that parses cut short", head + "@3-4 t0 dev=0 supported c0 -> 1", 1, &op.TornLine{Line: 3, Text: "@3-4 t0 dev=0 supported c0 -> 1"}, ""},
		{"a CRLF line", "# simabi trace v2\r\n@1-2 t0 dev=0 create -> c0\r\n@3-4 t0 dev=0 sup\r", 1, &op.TornLine{Line: 3, Text: "@3-4 t0 dev=0 sup"}, ""},
		{"a comment", head + "# died: sig", 1, &op.TornLine{Line: 3, Text: "# died: sig"}, ""},
		{"the first line", "# simabi tr", 0, &op.TornLine{Line: 1, Text: "# simabi tr"}, ""},
		{"the whole first line", "# simabi trace v2", 0, &op.TornLine{Line: 1, Text: "# simabi trace v2"}, ""},
		{"no trace", "hello", 0, nil, `t.ops: not a simabi trace (empty, or no "# simabi trace v2" line)`},
		{"no header before", "\n\n# simabi tr", 0, nil, `t.ops: not a simabi trace (empty, or no "# simabi trace v2" line)`},
		{"empty", "", 0, nil, `t.ops: not a simabi trace (empty, or no "# simabi trace v2" line)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, err := ParseTrace(strings.NewReader(c.text), "t.ops")
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Calls) != c.calls {
				t.Errorf("%d calls, want %d", len(tr.Calls), c.calls)
			}
			if d := cmp.Diff(c.torn, tr.Torn); d != "" {
				t.Errorf("torn line (-want +got):\n%s", d)
			}
		})
	}
}
