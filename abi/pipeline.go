package abi

import (
	"fmt"
	"strings"
)

// Pipeline names the program pipeline a simulated runtime presents: the
// PipelineContract get_pipeline_contract returns and the native-run storage
// get_runtime_size and get_runtime_alignment ask for. The emitted fake's
// knob pipeline=<name> and sim.Options.Pipeline select one; a profile's
// default is Profile.DefaultPipeline.
type Pipeline string

// Pipelines.
const (
	// PipelineTMR is upstream's tensormap_and_ringbuffer simulator build
	// (a2a3 at 6ebaf77): depth 2, TASK_ARGS per run, three DEVICE_SCRATCH
	// arenas and the two streams (runtime_maker.cpp:61-81), and
	// sizeof(SimNativeRunContext) of run storage
	// (src/common/platform/sim/host/c_api_shared.cpp:297), measured on the
	// built library.
	PipelineTMR Pipeline = "tensormap_and_ringbuffer"
	// PipelineHBG is upstream's host_build_graph simulator build (a2a3):
	// depth 2, two HOST_PER_RUN arenas and the two streams
	// (runtime_maker.cpp:79-98), and its measured run storage.
	PipelineHBG Pipeline = "host_build_graph"
	// PipelineSingle is the single-slot contract the simulated runtimes
	// presented before issue #38: depth 1, the two streams, 64 bytes.
	PipelineSingle Pipeline = "single"
)

// PipelineSpec is what a runtime presenting a pipeline answers.
type PipelineSpec struct {
	Name     Pipeline
	Contract PipelineContract
	// RuntimeSize and RuntimeAlignment are get_runtime_size and
	// get_runtime_alignment.
	RuntimeSize, RuntimeAlignment uint64
	// UpstreamRuntime: upstream builds a simulator runtime of this name
	// (build/lib/<arch>/sim/<name>/), whose contract this is.
	UpstreamRuntime bool
}

// Slots is the number of run storages a consumer makes for the pipeline
// (one per pipeline slot, as upstream's ChipWorker does).
func (s PipelineSpec) Slots() int { return int(s.Contract.PipelineDepth) }

func pipelineContract(depth uint32, res ...PipelineResource) PipelineContract {
	c := PipelineContract{ABIVersion: PipelineContractABIVersion, ResourceCount: uint32(len(res)), PipelineDepth: depth}
	copy(c.Resources[:], res)
	return c
}

var pipelineSpecs = []PipelineSpec{
	{Name: PipelineTMR, RuntimeSize: 48512, RuntimeAlignment: 64, UpstreamRuntime: true, Contract: pipelineContract(2,
		PipelineResource{Kind: ResourceTaskArgs, Class: ClassHostPerRun},
		PipelineResource{Kind: ResourceGMHeap, Class: ClassDeviceScratch},
		PipelineResource{Kind: ResourceGMSM, Class: ClassDeviceScratch},
		PipelineResource{Kind: ResourceRuntimeImage, Class: ClassDeviceScratch},
		PipelineResource{Kind: ResourceAicpuStream, Class: ClassExecHandle},
		PipelineResource{Kind: ResourceAicoreStream, Class: ClassExecHandle})},
	{Name: PipelineHBG, RuntimeSize: 48576, RuntimeAlignment: 64, UpstreamRuntime: true, Contract: pipelineContract(2,
		PipelineResource{Kind: ResourceGMHeap, Class: ClassHostPerRun},
		PipelineResource{Kind: ResourceRuntimeImage, Class: ClassHostPerRun},
		PipelineResource{Kind: ResourceAicpuStream, Class: ClassExecHandle},
		PipelineResource{Kind: ResourceAicoreStream, Class: ClassExecHandle})},
	{Name: PipelineSingle, RuntimeSize: 64, RuntimeAlignment: 64, Contract: pipelineContract(1,
		PipelineResource{Kind: ResourceAicpuStream, Class: ClassExecHandle},
		PipelineResource{Kind: ResourceAicoreStream, Class: ClassExecHandle})},
}

// PipelineSpecs lists every pipeline, the default of the legacy profile
// first.
func PipelineSpecs() []PipelineSpec { return append([]PipelineSpec(nil), pipelineSpecs...) }

// PipelineNames lists the pipelines' names, joined by "|" (for messages).
func PipelineNames() string {
	names := make([]string, len(pipelineSpecs))
	for i, s := range pipelineSpecs {
		names[i] = string(s.Name)
	}
	return strings.Join(names, "|")
}

// ParsePipeline reads a pipeline's name.
func ParsePipeline(s string) (Pipeline, error) {
	for _, p := range pipelineSpecs {
		if string(p.Name) == s {
			return p.Name, nil
		}
	}
	return "", fmt.Errorf("unknown pipeline %q (%s)", s, PipelineNames())
}

// Spec is the pipeline's spec; an unknown name is PipelineSingle's.
func (p Pipeline) Spec() PipelineSpec {
	for _, s := range pipelineSpecs {
		if s.Name == p {
			return s
		}
	}
	return pipelineSpecs[len(pipelineSpecs)-1]
}

// DefaultPipeline is the pipeline a simulated runtime of profile p presents
// unless one is selected: a legacy build is upstream's simulator build of
// tensormap_and_ringbuffer; tmr and refusing keep the single slot (their
// revision's own builds are silicon's, whose contract the simulators do not
// model).
func (p Profile) DefaultPipeline() Pipeline {
	if p == ProfileLegacy {
		return PipelineTMR
	}
	return PipelineSingle
}

// SimulatedProgramContract is the program contract the simulated tmr and
// refusing runtimes export by default: PipelineSingle's (it passes
// V-CONTRACT).
func SimulatedProgramContract() PipelineContract { return PipelineSingle.Spec().Contract }
