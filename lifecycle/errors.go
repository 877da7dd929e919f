package lifecycle

import (
	"errors"
	"strings"

	"github.com/simabi/simabi/abi"
)

// StatusError is every failure of a Worker (C-ERR). Code is either the status
// a C entry returned, forwarded unchanged (Op is then the entry's C name, for
// example "simpler_kernel_mode_launch"), or a host-side refusal of the worker
// itself (Op is then the method, for example "Worker.Launch"): INVALID_STATE
// for not initialized, already initialized, teardown owed, wrong mode, wrong
// OS thread, closed, a busy gate or an exhausted Close budget;
// INVALID_ARGUMENT for a bad argument; INTERNAL for "prepare returned 0
// without an id" and for failures that have no status of their own (a load
// error, a NULL context); UNSUPPORTED for a kernel operation on a runtime
// whose simpler_kernel_mode_supported is 0.
//
// A StatusError whose Op is empty is a class: errors.Is(err, class) holds for
// every StatusError carrying the class's Code. ErrUnsupported, ErrInvalidState,
// ErrInvalidArgument and ErrInternal are such classes.
type StatusError struct {
	// Op is the C entry that returned Code, or the Worker method that refused.
	Op string
	// Code is the status.
	Code abi.Status
	// Msg adds what the code alone does not say (may be empty).
	Msg string

	err error // wrapped cause (a load error, ErrCloseTimeout), or nil
}

// Error names the entry (or method) and the code, for example
// "simpler_kernel_mode_prepare_callable failed with INVALID_ARGUMENT(-1004)".
func (e *StatusError) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(" failed with ")
	}
	b.WriteString(e.Code.String())
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	return b.String()
}

// Is reports whether target is a class (a *StatusError with an empty Op) of
// e's code, so errors.Is(err, ErrUnsupported) holds for every UNSUPPORTED
// StatusError.
func (e *StatusError) Is(target error) bool {
	t, ok := target.(*StatusError)
	return ok && t != nil && t.Op == "" && t.Code == e.Code
}

// Unwrap returns the cause a StatusError wraps (a loader's error, or
// ErrCloseTimeout), if any.
func (e *StatusError) Unwrap() error { return e.err }

// Classes of StatusError: errors.Is(err, ErrX) holds for every StatusError
// with that code, whatever its Op.
var (
	// ErrUnsupported is the error value of UNSUPPORTED (C-ERR): a kernel
	// operation on a runtime whose simpler_kernel_mode_supported is 0, or an
	// entry that returned UNSUPPORTED. It is itself a *StatusError, so
	// errors.As(err, &se) also finds the code.
	ErrUnsupported = &StatusError{Code: abi.Unsupported, Msg: "this host runtime does not support kernel mode"}
	// ErrInvalidState matches every INVALID_STATE StatusError.
	ErrInvalidState = &StatusError{Code: abi.InvalidState, Msg: "invalid state"}
	// ErrInvalidArgument matches every INVALID_ARGUMENT StatusError.
	ErrInvalidArgument = &StatusError{Code: abi.InvalidArgument, Msg: "invalid argument"}
	// ErrInternal matches every INTERNAL StatusError.
	ErrInternal = &StatusError{Code: abi.Internal, Msg: "internal error"}
)

// ErrCloseTimeout is wrapped by the error Close returns when it cannot take
// the gate within its budget (C-GATE). That error is a *StatusError with Op
// "Worker.Close" and Code INVALID_STATE (a valid call that conflicts with an
// operation in flight), so both errors.Is(err, ErrCloseTimeout) and
// errors.Is(err, ErrInvalidState) hold. The worker stays CLOSED, keeps its
// context, images and runtime, and Close may be called again.
var ErrCloseTimeout = errors.New("lifecycle: Close could not take the gate within its budget")

// Names of the C entries, used as StatusError.Op for forwarded codes.
var (
	opCreate      = abi.EntryCreateDeviceContext.Name()
	opSupported   = abi.EntryKernelSupported.Name()
	opKernelInit  = abi.EntryKernelInit.Name()
	opPrepare     = abi.EntryKernelPrepare.Name()
	opLaunch      = abi.EntryKernelLaunch.Name()
	opFinalize    = abi.EntryFinalizeDevice.Name()
	opSimplerInit = abi.EntrySimplerInit.Name()
	opRegister    = abi.EntryRegisterCallable.Name()
	opUnregister  = abi.EntryUnregisterCallable.Name()
	opMalloc      = abi.EntryDeviceMalloc.Name()
	opCopyTo      = abi.EntryCopyToDevice.Name()
	opCopyFrom    = abi.EntryCopyFromDevice.Name()
	opMemInfo     = abi.EntryDeviceMemoryInfo.Name()
)

func entryError(op string, code abi.Status) error {
	return &StatusError{Op: op, Code: code}
}

func refusal(op string, code abi.Status, msg string) *StatusError {
	return &StatusError{Op: op, Code: code, Msg: msg}
}

// Launch refusals are values made once, so that even a refused launch
// allocates nothing (a caller may retry a busy gate in a loop).
var (
	errLaunchMode     = refusal("Worker.Launch", abi.InvalidState, "requires a kernel-mode worker (C-MODE)")
	errLaunchStream   = refusal("Worker.Launch", abi.InvalidArgument, "caller stream must not be 0")
	errLaunchArgs     = refusal("Worker.Launch", abi.InvalidArgument, "args must not be nil")
	errLaunchBusy     = refusal("Worker.Launch", abi.InvalidState, "a prepare, launch or close holds the gate; the caller serializes them (C-GATE)")
	errLaunchNotReady = refusal("Worker.Launch", abi.InvalidState, "the worker is not initialized or is closed")
	errLaunchUnknown  = refusal("Worker.Launch", abi.InvalidArgument, "callable id was not returned by this worker's PrepareCallable")
	errLaunchThread   = refusal("Worker.Launch", abi.InvalidState, "called from an OS thread other than the one that ran Init (C-THREAD)")
)
