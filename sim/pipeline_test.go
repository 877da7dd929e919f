package sim

import (
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/validation"
)

// V-CONTRACT, semantics §10: Options.Pipeline selects the contract and the
// run storage an instance presents; "" is the profile's default, the single
// slot for tmr and refusing.
func TestOptionsPipeline_VContract(t *testing.T) {
	for _, tc := range []struct {
		profile  Profile
		pipeline abi.Pipeline
		depth    uint32
		count    uint32
		size     uintptr
	}{
		{TMR, "", 1, 2, 64},
		{Refusing, "", 1, 2, 64},
		{TMR, abi.PipelineTMR, 2, 6, 48512},
		{Refusing, abi.PipelineHBG, 2, 4, 48576},
		{TMR, abi.PipelineSingle, 1, 2, 64},
	} {
		r := New(tc.profile, Options{Pipeline: tc.pipeline})
		got, err := abi.DecodePipelineContract(unsafeBytes(r.GetPipelineContract(), abi.PipelineContractSize))
		if err != nil {
			t.Fatal(err)
		}
		if got.PipelineDepth != tc.depth || got.ResourceCount != tc.count || validation.Contract(got) != okS || got != r.Contract() {
			t.Errorf("%s/%q: contract %+v, want depth %d with %d resources, admissible, as Contract says", tc.profile, tc.pipeline, got, tc.depth, tc.count)
		}
		if r.GetRuntimeSize() != tc.size || r.GetRuntimeAlignment() != 64 {
			t.Errorf("%s/%q: run storage %d at %d, want %d at 64", tc.profile, tc.pipeline, r.GetRuntimeSize(), r.GetRuntimeAlignment(), tc.size)
		}
	}
}
