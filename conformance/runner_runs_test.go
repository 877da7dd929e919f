package conformance

import (
	"testing"

	"github.com/simabi/simabi/abi"
)

// E-PROG.29: the runner makes run storage of every pipeline a simulated
// runtime presents (48576 bytes at most, at 64), so a depth-2 build's runs
// are driven, not refused as storage the runner cannot make.
func TestMaxRunStorageHoldsEveryPipeline(t *testing.T) {
	for _, s := range abi.PipelineSpecs() {
		if s.RuntimeSize > maxRunStorage || s.RuntimeAlignment < 8 || s.RuntimeAlignment > 4096 {
			t.Errorf("%s: %d bytes at %d; the runner makes at most %d at 8..4096", s.Name, s.RuntimeSize, s.RuntimeAlignment, maxRunStorage)
		}
	}
	if abi.PipelineTMR.Spec().RuntimeSize != 48512 || maxRunStorage < 48512 {
		t.Errorf("maxRunStorage %d does not hold tensormap_and_ringbuffer's 48512", maxRunStorage)
	}
}
