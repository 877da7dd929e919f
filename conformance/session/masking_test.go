package session

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
)

// TestPrintMasking: abicheck mutants' masking lines (issue #32): "none",
// or the count and one line per masked call with its conditions and
// their codes.
func TestPrintMasking(t *testing.T) {
	ia := model.StatusSet{N: 1, V: [3]abi.Status{abi.InvalidArgument}}
	call := conformance.RefusedCall{Check: "v-cfg/values", Profile: model.ProfileTMR, Index: 5, Op: "kinit c0 dev=0 gen=1 cfg=swim=-1",
		Refusers: []model.Refusal{{Clause: "V-CFG.3", Cond: "enable_chip_swimlane outside 0..4", Status: ia},
			{Clause: "V-CFG.4", Cond: "diagnostic enabled with an empty output_prefix", Status: ia}}}
	line := "  v-cfg/values#5 (tmr) kinit c0 dev=0 gen=1 cfg=swim=-1: V-CFG.3 enable_chip_swimlane outside 0..4 (INVALID_ARGUMENT); " +
		"V-CFG.4 diagnostic enabled with an empty output_prefix (INVALID_ARGUMENT)"
	for _, c := range []struct {
		masked []conformance.RefusedCall
		want   []string
	}{
		{nil, []string{"masking: none"}},
		{[]conformance.RefusedCall{call}, []string{"masking: 1 refused call shares its refusal between two clauses", line}},
		{[]conformance.RefusedCall{call, call}, []string{"masking: 2 refused calls share their refusal between two clauses", line, line}},
	} {
		var b strings.Builder
		PrintMasking(&b, c.masked)
		if d := cmp.Diff(c.want, strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")); d != "" {
			t.Errorf("PrintMasking (-want +got):\n%s", d)
		}
	}
	if got := MaskingJSON([]conformance.RefusedCall{call}); len(got) != 1 || len(got[0].Conditions) != 2 || got[0].Index != 5 {
		t.Errorf("MaskingJSON: %+v", got)
	}
}
