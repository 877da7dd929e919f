package abi_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/validation"
)

// V-CONTRACT: the three pipelines as upstream's a2a3 simulator builds
// declare them at 6ebaf77 (tensormap_and_ringbuffer and host_build_graph
// runtime_maker.cpp) and measured on the built libraries
// (get_runtime_size), and the single slot; each is admissible.
func TestPipelineSpecs_VContract(t *testing.T) {
	type res = abi.PipelineResource
	want := map[abi.Pipeline]struct {
		depth uint32
		res   []res
		size  uint64
	}{
		abi.PipelineTMR:    {2, []res{{Kind: 4, Class: 0}, {Kind: 1, Class: 1}, {Kind: 2, Class: 1}, {Kind: 3, Class: 1}, {Kind: 5, Class: 2}, {Kind: 6, Class: 2}}, 48512},
		abi.PipelineHBG:    {2, []res{{Kind: 1, Class: 0}, {Kind: 3, Class: 0}, {Kind: 5, Class: 2}, {Kind: 6, Class: 2}}, 48576},
		abi.PipelineSingle: {1, []res{{Kind: 5, Class: 2}, {Kind: 6, Class: 2}}, 64},
	}
	specs := abi.PipelineSpecs()
	if len(specs) != len(want) {
		t.Fatalf("%d pipelines, want %d", len(specs), len(want))
	}
	for _, s := range specs {
		w := want[s.Name]
		c := abi.PipelineContract{ABIVersion: 1, ResourceCount: uint32(len(w.res)), PipelineDepth: w.depth}
		copy(c.Resources[:], w.res)
		if d := cmp.Diff(c, s.Contract); d != "" {
			t.Errorf("%s (-want +got):\n%s", s.Name, d)
		}
		if s.RuntimeSize != w.size || s.RuntimeAlignment != 64 || s.Slots() != int(w.depth) {
			t.Errorf("%s: run storage %d at %d, %d slots; want %d at 64, %d", s.Name, s.RuntimeSize, s.RuntimeAlignment, s.Slots(), w.size, w.depth)
		}
		if st := validation.Contract(s.Contract); st != abi.OK {
			t.Errorf("%s: V-CONTRACT refuses it: %v", s.Name, st)
		}
		if p, err := abi.ParsePipeline(string(s.Name)); err != nil || p != s.Name || p.Spec() != s {
			t.Errorf("ParsePipeline(%q) = %q, %v", s.Name, p, err)
		}
	}
	if _, err := abi.ParsePipeline("tmr"); err == nil || err.Error() != `unknown pipeline "tmr" (tensormap_and_ringbuffer|host_build_graph|single)` {
		t.Errorf("ParsePipeline(tmr) error = %v", err)
	}
	for p, w := range map[abi.Profile]abi.Pipeline{abi.ProfileLegacy: abi.PipelineTMR, abi.ProfileTMR: abi.PipelineSingle, abi.ProfileRefusing: abi.PipelineSingle} {
		if got := p.DefaultPipeline(); got != w {
			t.Errorf("%s.DefaultPipeline() = %s, want %s", p, got, w)
		}
	}
}
