package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// TestFindingID_roundTrip: what a repro's "# finding:" header writes reads
// back as the same id, for any rule, verdict, op and difference.
func TestFindingID_roundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		id := FindingID{
			Rule:    rapid.SampledFrom([]string{"E-FIN", "V-LAUNCH", "S-2", "M-7", "E-LAUNCH-ASYNC"}).Draw(t, "rule"),
			Verdict: rapid.SampledFrom([]model.Verdict{model.Fail, model.Crash, model.Hang}).Draw(t, "verdict"),
			Op:      rapid.SampledFrom([]string{"finalize", "launch", "prog fn=copy_to", "cleanup", "setup"}).Draw(t, "op"),
		}
		if id.Verdict == model.Fail {
			id.What = rapid.StringMatching(`[a-zA-Z0-9 ,:()#>-]{1,40}`).Filter(func(s string) bool { return s == oneLine(s) }).Draw(t, "what")
		}
		back, err := ParseFindingID(id.String())
		if err != nil {
			t.Fatalf("%q: %v", id.String(), err)
		}
		if diff := cmp.Diff(id, back); diff != "" {
			t.Fatalf("round trip of %q (-want +got):\n%s", id.String(), diff)
		}
	})
}

// TestFindingID_matches: a shrunk repro reaches its finding at another
// position, on another context and with other numbers; another rule, op
// kind, verdict or difference is another finding. A death matches on its
// verdict and op alone (a replay knows only the entry that died).
func TestFindingID_matches(t *testing.T) {
	fin := model.Finding{Index: 150, Op: op.MustParse("finalize c2"), Rule: model.RM7, Verdict: model.Fail, Detail: "committed went 2162688 -> 2162688, want 0"}
	base := IDOf(fin)
	if got, want := base.String(), "M-7 fail at finalize: committed went 2162688 -> 2162688, want 0"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	same := fin
	same.Index, same.Op, same.Detail = 3, op.MustParse("finalize c0"), "committed went 4196 -> 4196, want 0"
	for _, c := range []struct {
		name string
		got  FindingID
		want bool
	}{
		{"same finding, other numbers and slot", IDOf(same), true},
		{"other rule", FindingID{Rule: "E-FIN", Verdict: model.Fail, Op: "finalize", What: base.What}, false},
		{"other op kind", FindingID{Rule: "M-7", Verdict: model.Fail, Op: "destroy", What: base.What}, false},
		{"other difference", FindingID{Rule: "M-7", Verdict: model.Fail, Op: "finalize", What: "committed went 1 -> 0, want up"}, false},
		{"a crash there", FindingID{Rule: "M-7", Verdict: model.Crash, Op: "finalize"}, false},
	} {
		if got := base.Matches(c.got); got != c.want {
			t.Errorf("%s: Matches(%q) = %v, want %v", c.name, c.got, got, c.want)
		}
	}
	ops := op.MustParseScript("create c0\nlaunch c0 id=0 stream=s0\n")
	death := DeathID(model.RS1, model.Crash, ops, 1)
	if got, want := death.String(), "S-1 crash at launch"; got != want {
		t.Errorf("DeathID = %q, want %q", got, want)
	}
	if !death.Matches(DeathID(model.RuleNone, model.Crash, ops, 1)) || death.Matches(DeathID(model.RuleNone, model.Hang, ops, 1)) ||
		death.Matches(DeathID(model.RuleNone, model.Crash, ops, 2)) {
		t.Errorf("a death must match the same verdict at the same op kind only")
	}
	if got := DeathID(model.RS1, model.Hang, ops, 2).Op; got != "cleanup" {
		t.Errorf("a death after the last op is at %q, want cleanup", got)
	}
}

// TestParseFindingID_refusesWhatItCannotRead: every malformed header says
// what is wrong with it.
func TestParseFindingID_refusesWhatItCannotRead(t *testing.T) {
	for in, want := range map[string]string{
		"":                        `finding "": no verdict (want "RULE VERDICT at OP[: WHAT]")`,
		"E-FIN":                   `finding "E-FIN": no verdict (want "RULE VERDICT at OP[: WHAT]")`,
		"E-FIN fail finalize":     `finding "E-FIN fail finalize": no " at " (want "RULE VERDICT at OP[: WHAT]")`,
		"E-FIN pass at finalize":  `finding "E-FIN pass at finalize": verdict pass is not fail, crash or hang (want "RULE VERDICT at OP[: WHAT]")`,
		"E-FIN fail at : want OK": `finding "E-FIN fail at : want OK": no op (want "RULE VERDICT at OP[: WHAT]")`,
	} {
		_, err := ParseFindingID(in)
		if err == nil || err.Error() != want {
			t.Errorf("ParseFindingID(%q) = %v, want %q", in, err, want)
		}
	}
}
