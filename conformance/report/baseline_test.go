package report

import (
	"github.com/simabi/simabi/conformance/op"

	"strings"
	"testing"
)

// A baseline line that is not RULE FINGERPRINT is an error naming its line.
func TestParseBaselineErrors(t *testing.T) {
	for _, tc := range []struct{ text, err string }{
		{"S-3", `line 1: want RULE FINGERPRINT, got "S-3"`},
		{"# c\n\nQ-9 0123456789abcdef x", `line 3: unknown rule "Q-9"`},
		{"S-3 0123", `line 1: "0123" is not a fingerprint (16 hex digits)`},
		{"S-3 0123456789ABCDEF", `line 1: "0123456789ABCDEF" is not a fingerprint (16 hex digits)`},
	} {
		if _, err := ParseBaseline(strings.NewReader(tc.text)); err == nil || err.Error() != tc.err {
			t.Errorf("%q: %v, want %s", tc.text, err, tc.err)
		}
	}
	b, err := ParseBaseline(strings.NewReader("# known\nU-1 0177b6fa4124a59a  crash u-1/... whatever\n"))
	if err != nil || !b.Has("U-1", "0177b6fa4124a59a") || b.Has("S-3", "0177b6fa4124a59a") {
		t.Fatalf("parse: %v %v", b, err)
	}
}

// Random sequences find the same bug with other slots and numbers: their
// fingerprint masks them, so one baseline line covers every seed.
func TestRandomFingerprintMasksSlots(t *testing.T) {
	op1, op2 := op.MustParse("acl c3 dev=1"), op.MustParse("acl c7 dev=0")
	f1 := FindingReport{Rule: "E-ACL", Check: "random/seed-4", Index: 9, Detail: "want INVALID_STATE (c3), got OK"}
	f2 := FindingReport{Rule: "E-ACL", Check: "random/seed-90", Index: 177, Detail: "want INVALID_STATE (c7), got OK"}
	if findingPrint(f1, op1, "") != findingPrint(f2, op2, "") {
		t.Error("two random sequences meeting one bug got two fingerprints")
	}
	d1, d2 := f1, f2
	d1.Check, d2.Check = "e-acl/x", "e-acl/x"
	if findingPrint(d1, op1, "") == findingPrint(d2, op2, "") {
		t.Error("a directed check's fingerprint ignores its op")
	}
}
