package validation

import (
	"fmt"

	"github.com/simabi/simabi/abi"
)

// ContractError says why a PipelineContract is inadmissible.
type ContractError struct{ Reason string }

func (e *ContractError) Error() string { return "V-CONTRACT: " + e.Reason }

// Contract is V-CONTRACT: INVALID_ARGUMENT when the program contract a runtime
// exports is inadmissible, OK otherwise.
func Contract(c abi.PipelineContract) abi.Status {
	if CheckContract(c) != nil {
		return abi.InvalidArgument
	}
	return abi.OK
}

// CheckContract explains the first reason c is inadmissible, or returns nil.
// Admissible: abi_version 1; resource_count <= 8; pipeline_depth in [1, 2];
// every declared resource of kind 1..6, class 0..2 and bytes_per_copy 0; each
// of kinds 1..3 at most once and all declared ones sharing one copy count (1
// for DEVICE_SCRATCH, else pipeline_depth); exactly one AICPU_STREAM and one
// AICORE_STREAM, both EXEC_HANDLE.
func CheckContract(c abi.PipelineContract) error {
	bad := func(f string, a ...any) error { return &ContractError{fmt.Sprintf(f, a...)} }
	if c.ABIVersion != abi.PipelineContractABIVersion {
		return bad("abi_version %d, want %d", c.ABIVersion, abi.PipelineContractABIVersion)
	}
	if c.ResourceCount > abi.PipelineMaxResources {
		return bad("resource_count %d exceeds %d", c.ResourceCount, abi.PipelineMaxResources)
	}
	if c.PipelineDepth < 1 || c.PipelineDepth > abi.PipelineMaxDepth {
		return bad("pipeline_depth %d outside [1, %d]", c.PipelineDepth, abi.PipelineMaxDepth)
	}
	var arenaSeen [4]bool
	arenaCopies := uint32(0)
	aicpu, aicore := 0, 0
	for i := 0; i < int(c.ResourceCount); i++ {
		r := c.Resources[i]
		if r.Kind < abi.ResourceGMHeap || r.Kind > abi.ResourceAicoreStream {
			return bad("resource %d has kind %d", i, r.Kind)
		}
		if r.Class > abi.ClassExecHandle {
			return bad("resource %d has class %d", i, r.Class)
		}
		if r.BytesPerCopy != 0 {
			return bad("resource %d declares %d bytes per copy in a program contract", i, r.BytesPerCopy)
		}
		switch r.Kind {
		case abi.ResourceGMHeap, abi.ResourceGMSM, abi.ResourceRuntimeImage:
			if arenaSeen[r.Kind] {
				return bad("arena kind %d declared twice", r.Kind)
			}
			arenaSeen[r.Kind] = true
			copies := c.PipelineDepth
			if r.Class == abi.ClassDeviceScratch {
				copies = 1
			}
			if arenaCopies != 0 && copies != arenaCopies {
				return bad("arena resources disagree on the copy count (%d vs %d)", arenaCopies, copies)
			}
			arenaCopies = copies
		case abi.ResourceAicpuStream, abi.ResourceAicoreStream:
			if r.Class != abi.ClassExecHandle {
				return bad("stream resource %d has class %d, want EXEC_HANDLE", i, r.Class)
			}
			if r.Kind == abi.ResourceAicpuStream {
				aicpu++
			} else {
				aicore++
			}
		}
	}
	if aicpu != 1 || aicore != 1 {
		return bad("%d AICPU_STREAM and %d AICORE_STREAM resources, want exactly one each", aicpu, aicore)
	}
	return nil
}
