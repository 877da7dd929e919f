package suite

import (
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/conformance/target/targettest"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// stubbedFake is the emitted tmr fake with ensure_acl_ready_ctx and
// destroy_comm_stream_ctx answering 0 for anything, NULL included: the shape
// of upstream's simulator stubs (docs/contract.md Revisions, S-3).
func stubbedFake(t *testing.T) *emit.Artifacts {
	return emittest.Build(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Status: map[string]int32{
		"ensure_acl_ready_ctx": 0, "destroy_comm_stream_ctx": 0}}})
}

func checkNamed(t *testing.T, names ...string) []catalogue.Check {
	var out []catalogue.Check
	for _, c := range catalogue.Checks() {
		for _, n := range names {
			if c.Name == n {
				out = append(out, c)
			}
		}
	}
	if len(out) != len(names) {
		t.Fatalf("checks %v: found %d", names, len(out))
	}
	return out
}

func badFindings(rep *report.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if f.Verdict.Bad() {
			out = append(out, f.Rule+" "+f.Check+" "+f.Op)
		}
	}
	return out
}

// S-3: a directed check with two independent divergences reports both, each
// once, with a stable fingerprint; the same run again gives the same
// fingerprints.
func TestReportListsEveryDivergence(t *testing.T) {
	a := stubbedFake(t)
	run := func() *report.Report {
		rep, err := Conform(targettest.EmittedFactory(t, a), Options{Run: Run{Name: "stubbed", Cases: Cases{Checks: checkNamed(t, "s-3/null-context"), NoShrink: true}}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := run()
	want := []string{
		"E-ACL s-3/null-context acl null dev=0", "S-3 s-3/null-context acl null dev=0",
		"S-3 s-3/null-context prog null fn=comm_destroy",
	}
	if d := cmp.Diff(want, badFindings(rep)); d != "" {
		t.Fatalf("findings (-want +got):\n%s", d)
	}
	again := run()
	for i := range rep.Findings {
		if rep.Findings[i].Fingerprint != again.Findings[i].Fingerprint || !report.IsFingerprint(rep.Findings[i].Fingerprint) {
			t.Errorf("finding %d: fingerprint %q then %q", i, rep.Findings[i].Fingerprint, again.Findings[i].Fingerprint)
		}
	}
}

// A baseline accepts exactly the findings it lists: written from one run it
// turns every failure of that run into known; a new finding still fails.
func TestBaselineAcceptsOnlyKnownFindings(t *testing.T) {
	a := stubbedFake(t)
	run := func(checks ...string) *report.Report {
		rep, err := Conform(targettest.EmittedFactory(t, a), Options{Run: Run{Name: "stubbed", Cases: Cases{Checks: checkNamed(t, checks...), NoShrink: true}}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	first := run("s-3/null-context")
	var buf bytes.Buffer
	if err := report.WriteBaseline(&buf, []*report.Report{first}); err != nil {
		t.Fatal(err)
	}
	b, err := report.ParseBaseline(strings.NewReader(buf.String()))
	if err != nil || b.Len() != 3 {
		t.Fatalf("baseline of %d findings (%v):\n%s", b.Len(), err, buf.String())
	}
	if n := first.ApplyBaseline(b); n != 3 || first.Verdict() != model.Known {
		t.Fatalf("marked %d, report verdict %v, want 3 known and nothing failing: %q", n, first.Verdict(), badFindings(first))
	}
	for _, rr := range first.Rules {
		if (rr.Rule == "S-3" || rr.Rule == "E-ACL") && rr.Verdict != model.Known {
			t.Errorf("%s: %v, want known", rr.Rule, rr.Verdict)
		}
	}
	// A second check with the same stubs meets a finding the baseline does
	// not list (its own check and op): it fails.
	second := run("s-3/null-context", "e-pinit/arguments")
	second.ApplyBaseline(b)
	if second.Verdict() != model.Fail {
		t.Fatalf("verdict %v with a new finding, want fail: %q", second.Verdict(), badFindings(second))
	}
}

// A death found after a case had finished (the executor's process died
// between cases, after the case's instance was unloaded) is U-1's alone,
// named after that case; bind-time rule breaks are failures of the report
// (V-CONTRACT, L-1).
func TestLateDeathAndBindFindings(t *testing.T) {
	x := &scriptedExecutor{outcomes: []conformance.Outcome{
		{Verdict: model.Pass, Result: &conformance.Result{}},
		{Verdict: model.Pass, Result: &conformance.Result{}, Prior: &conformance.Outcome{Verdict: model.Crash, Detail: "killed by signal SIGSEGV"}},
	}}
	res := ConformWith(x, Run{Name: "t", Cases: Cases{Profile: model.ProfileTMR, Checks: checkNamed(t, "v-contract/admissible", "e-sup/constant")},
		BindFindings: []onboard.BindFinding{{Rule: "V-CONTRACT", Detail: "get_pipeline_contract returned NULL"}}})
	got := map[string]report.FindingReport{}
	for _, f := range res.Report.Findings {
		got[f.Rule+" "+f.Check] = f
	}
	first := res.Cases[0].Name
	if f, ok := got["U-1 late/"+first]; !ok || f.Verdict != model.Crash || !strings.Contains(f.Detail, "after the case finished") {
		t.Errorf("late death: %+v, want a U-1 crash named after the first case, %s", got, first)
	}
	for _, f := range res.Report.Findings {
		if f.Verdict == model.Crash && f.Rule != "U-1" {
			t.Errorf("the late death was given to %s too: %+v", f.Rule, f)
		}
	}
	if f, ok := got["V-CONTRACT bind"]; !ok || f.Verdict != model.Fail {
		t.Errorf("bind finding: %+v", got)
	}
	if res.Report.Verdict() != model.Crash {
		t.Errorf("verdict %v, want crash", res.Report.Verdict())
	}
}

// A residue (a case that died only in a process that had run earlier
// cases) is one U-1 finding however many cases it hit, and the case itself
// is judged on its run in the fresh process.
func TestResidueIsOneU1Finding(t *testing.T) {
	residue := &conformance.Outcome{Verdict: model.Crash, At: 0, Detail: "killed by signal SIGSEGV"}
	x := &scriptedExecutor{outcomes: []conformance.Outcome{
		{Verdict: model.Pass, Result: &conformance.Result{}, Residue: residue},
		{Verdict: model.Pass, Result: &conformance.Result{}, Residue: residue},
	}}
	res := ConformWith(x, Run{Name: "t", Cases: Cases{Profile: model.ProfileTMR, Checks: checkNamed(t, "v-contract/admissible", "e-sup/constant")}})
	var prints []string
	for _, f := range res.Report.Findings {
		if f.Rule != "U-1" || f.Verdict != model.Crash || !strings.HasPrefix(f.Check, "residue/") {
			t.Errorf("finding %+v, want only U-1 residue crashes", f)
		}
		prints = append(prints, f.Fingerprint)
	}
	if len(prints) != 1 || res.Report.Findings[0].Count != 2 {
		t.Errorf("findings %+v, want one U-1 residue finding met twice", res.Report.Findings)
	}
	for _, c := range res.Cases {
		if c.Verdict != model.Pass {
			t.Errorf("case %s: %v, want pass (its fresh run passed)", c.Name, c.Verdict)
		}
	}
}

// scriptedExecutor returns its outcomes in order (then passes).
type scriptedExecutor struct {
	outcomes []conformance.Outcome
	n        int
}

func (x *scriptedExecutor) Execute([]op.Op, bool) conformance.Outcome {
	if x.n < len(x.outcomes) {
		x.n++
		return x.outcomes[x.n-1]
	}
	return conformance.Outcome{Verdict: model.Pass, Result: &conformance.Result{}}
}

// U-1 on the emitted fake: the library is unloaded after its contexts are
// destroyed and the calling thread exits afterwards; the process lives and
// U-1 passes.
func TestU1EmittedFakeUnloads(t *testing.T) {
	a := emittest.Build(t, emit.Config{Profile: emit.ProfileTMR})
	rep, err := Conform(targettest.EmittedFactory(t, a), Options{Run: Run{Name: "u-1", Cases: Cases{Checks: checkNamed(t, "u-1/program-thread-exits-after-unload", "u-1/kernel-thread-exits-after-unload"), NoShrink: true}}})
	if err != nil {
		t.Fatal(err)
	}
	reportFailures(t, rep)
	for _, rr := range rep.Rules {
		// Each check: the unload op judged, and the check's own pass.
		if rr.Rule == "U-1" && (rr.Verdict != model.Pass || rr.Passes != 4) {
			t.Fatalf("U-1: %+v, want 4 passes", rr)
		}
	}
}
