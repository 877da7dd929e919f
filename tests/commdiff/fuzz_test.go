package commdiff

import (
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// FuzzCommOps (E-COMM, F-1): bytes → a comm op sequence (Decode) → every
// call judged by the model on sim and on the emitted runtime of the
// profile the first byte picks, whose histories must be identical. Runs
// over its seed corpus (testdata/fuzz/FuzzCommOps) in every `go test`, and
// under `go test -fuzz=FuzzCommOps ./tests/commdiff` (make fuzz).
func FuzzCommOps(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, ops := Decode(data)
		w, err := theWorker()
		if err != nil {
			t.Fatal(err)
		}
		rs, err := fresh(w.sim, ops)
		if err != nil {
			t.Fatal(err)
		}
		if rs.Failed() {
			t.Fatalf("%s", failureText("sim", ops, rs))
		}
		if w.emitted == nil {
			return // no C compiler: sim only
		}
		re, err := fresh(w.emitted[p], ops)
		if err != nil {
			t.Fatal(err)
		}
		if re.Failed() {
			t.Fatalf("%s", failureText("emitted:"+string(Profiles[p].Emit), ops, re))
		}
		if d := conformance.Diff(rs.History, re.History); d != "" {
			t.Fatalf("sim and the emitted %s runtime differ (- sim, + emitted):\n%sop log (%d ops):\n%s", Profiles[p].Emit, d, len(ops), op.FormatOps(ops))
		}
	})
}

// failureText is a failed run's findings, op log and history.
func failureText(target string, ops []op.Op, res *conformance.Result) string {
	s := target + ":\n"
	for _, f := range res.Findings {
		if f.Verdict == model.Fail {
			s += "  " + f.String() + "\n"
		}
	}
	return s + "op log:\n" + op.FormatOps(ops) + "history:\n" + res.History.String()
}
