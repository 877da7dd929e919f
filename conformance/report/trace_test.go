package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/conformance/model"
)

// A fault of a trace itself (a torn last line) is a failure of its own,
// TRACE, listed after the contract's rules, and no baseline accepts it:
// WriteBaseline leaves it out (ParseBaseline would refuse the line), and a
// baseline does not make it known.
func TestAddTraceFault_TRACE(t *testing.T) {
	const detail = `s.ops:7: the last line is torn (no newline: its write did not finish), so the call it records is not judged: "@5-6 t0"`
	newReport := func() *Report {
		r := NewReport("s.ops")
		r.AddTraceFault("trace/s.ops", detail)
		r.Finish()
		return r
	}
	r := newReport()
	want := RuleReport{Rule: TraceRule, Verdict: model.Fail, Detail: detail, Fails: 1}
	if d := cmp.Diff(want, r.Rules[len(r.Rules)-1]); d != "" {
		t.Errorf("the last rule (-want +got):\n%s", d)
	}
	if len(r.Rules) != len(model.RuntimeRules()) { // the runtime rules but HOOKS, then TRACE
		t.Errorf("%d rules, want %d", len(r.Rules), len(model.RuntimeRules()))
	}
	if v := r.Verdict(); v != model.Fail {
		t.Errorf("verdict %v, want fail", v)
	}
	var b strings.Builder
	if err := WriteBaseline(&b, []*Report{r}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), TraceRule) {
		t.Errorf("the baseline lists the trace's fault:\n%s", b.String())
	}
	base, err := ParseBaseline(strings.NewReader(b.String() + model.RM1.String() + " " + r.Findings[0].Fingerprint + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	r = newReport()
	if n := r.ApplyBaseline(base); n != 0 || r.Rules[len(r.Rules)-1].Verdict != model.Fail {
		t.Errorf("a baseline marked %d findings; TRACE %v, want fail", n, r.Rules[len(r.Rules)-1].Verdict)
	}
}
