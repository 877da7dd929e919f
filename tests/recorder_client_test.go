package tests

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The recorder's C client (sim/emit/testdata/recorder_client.c: forks, five
// threads, NULLs, malformed images) through the recorder over the emitted
// fake: sim/emit's TestRecorderClient checks each trace is there and
// complete; here every one of them is judged by the trace checker and must
// check clean, overlapping calls linearized.
func TestRecorder_clientTracesCheckClean(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("go", "test", "-run=^TestRecorderClient$", "-count=1", module+"/sim/emit")
	cmd.Env = append(os.Environ(), "SIMABI_KEEP_TRACES="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("TestRecorderClient: %v\n%s", err, out)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.ops"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("TestRecorderClient kept no trace (no C compiler?)")
	}
	if len(files) != 5 {
		t.Errorf("%d traces, want 5 (main, three children, a grandchild)", len(files))
	}
	concurrent := 0
	for _, f := range files {
		_, tc := judgeTraceFile(t, f)
		if tc.Concurrent {
			concurrent++
			if !tc.Linearizable {
				t.Errorf("%s: no order of its overlapping calls satisfies the model (%s)", filepath.Base(f), tc.Note)
			}
		}
		for _, rr := range tc.Report().Rules {
			if rr.Verdict == model.Fail {
				t.Errorf("%s: %s fail: %s", filepath.Base(f), rr.Rule, op.Abbreviate(rr.Detail))
			}
		}
	}
	// The client's threads start without a barrier, so whether their calls
	// overlapped is up to the scheduler; conformance's trace tests hold the
	// overlapping case.
	t.Logf("%d of %d traces had overlapping calls", concurrent, len(files))
}
