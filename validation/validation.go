// Package validation holds the structural rules of docs/contract.md
// (V-SPAN, V-INIT, V-PREP-1/2, V-LAUNCH, V-IMG, V-CFG, V-ARENA, V-CONTRACT) as
// pure functions returning abi.Status. They have no side effects (V-PREP-1's
// helper writes only the caller's out value), take pointers as integers so a
// checker can express any address, and allocate nothing.
package validation

import (
	"github.com/simabi/simabi/abi"
)

// Span is a binary span (pointer, size) of a C entry.
type Span struct {
	Ptr  uintptr
	Size uint64
}

// Consistent is V-SPAN: both zero or both nonzero.
func (s Span) Consistent() bool { return (s.Ptr == 0) == (s.Size == 0) }

// KernelInitArgs are the arguments of simpler_kernel_mode_init that V-INIT
// checks.
type KernelInitArgs struct {
	Ctx        abi.Ctx
	DeviceID   int32
	Aicpu      Span
	Aicore     Span
	Dispatcher Span
	Config     uintptr // the CallConfig pointer; only NULL-ness is checked here
	Generation uint64
}

// KernelInit is V-INIT: INVALID_ARGUMENT when ctx or config is NULL,
// device_id < 0, context_generation == 0, or any of the three spans is
// inconsistent. Empty spans (NULL, 0) are accepted.
func KernelInit(a KernelInitArgs) abi.Status {
	if a.Ctx == 0 || a.Config == 0 || a.DeviceID < 0 || a.Generation == 0 {
		return abi.InvalidArgument
	}
	if !a.Aicpu.Consistent() || !a.Aicore.Consistent() || !a.Dispatcher.Consistent() {
		return abi.InvalidArgument
	}
	return abi.OK
}

// ResetOutID is V-PREP-1's first step: prepare writes -1 through a non-NULL
// out pointer before any check, so every failing return leaves -1 there.
func ResetOutID(out *int32) {
	if out != nil {
		*out = -1
	}
}

// PrepareArgs is V-PREP-2: INVALID_ARGUMENT when ctx, callable or
// out_callable_id is NULL, when size < sizeof(ChipCallable) (9376), or when
// callable is not 16-byte aligned. No id is range-checked (the runtime mints it).
func PrepareArgs(ctx abi.Ctx, callable uintptr, size uint64, outNonNull bool) abi.Status {
	if ctx == 0 || callable == 0 || !outNonNull {
		return abi.InvalidArgument
	}
	if size < abi.ChipCallableSize || callable%abi.ChipCallableAlign != 0 {
		return abi.InvalidArgument
	}
	return abi.OK
}

// LaunchArgs is V-LAUNCH: INVALID_ARGUMENT when ctx, args or caller_stream is
// NULL, or callable_id is outside [0, 8192).
func LaunchArgs(ctx abi.Ctx, callableID int32, args uintptr, stream abi.Stream) abi.Status {
	if ctx == 0 || args == 0 || stream == 0 {
		return abi.InvalidArgument
	}
	if callableID < 0 || callableID >= abi.MaxRegisteredCallableIDs {
		return abi.InvalidArgument
	}
	return abi.OK
}

// ProgramInitArgs are the arguments of simpler_init that E-PINIT checks before
// latching.
type ProgramInitArgs struct {
	DeviceID   int32
	Aicpu      Span
	Aicore     Span
	Dispatcher Span
	SDMAWarmup Span
	// Prewarm is the prewarm CallConfig's 1148 bytes, nil when the pointer is
	// NULL (no prewarm).
	Prewarm []byte
}

// ProgramInit is E-PINIT's argument step (NULL ctx is the caller's INTERNAL):
// INVALID_ARGUMENT for device_id < 0, an inconsistent binary or SDMA warm-up
// span, or a prewarm config failing ProgramCallConfig.
func ProgramInit(a ProgramInitArgs) abi.Status {
	if a.DeviceID < 0 {
		return abi.InvalidArgument
	}
	if !a.Aicpu.Consistent() || !a.Aicore.Consistent() || !a.Dispatcher.Consistent() || !a.SDMAWarmup.Consistent() {
		return abi.InvalidArgument
	}
	if a.Prewarm != nil {
		return ProgramCallConfig(a.Prewarm)
	}
	return abi.OK
}
