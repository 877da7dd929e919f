package lifecycle

import (
	"errors"
	"fmt"
	"testing"

	"github.com/simabi/simabi/abi"
)

// C-ERR: every failure is a *StatusError carrying its code; UNSUPPORTED has
// its own error value that also matches the generic type; messages name the
// entry and the code. (§6.1 test_error_types_and_status_codes_are_public,
// test_unsupported_kernel_init_is_typed_with_its_code.)
func TestStatusErrors(t *testing.T) {
	e := &StatusError{Op: "simpler_kernel_mode_prepare_callable", Code: abi.InvalidArgument}
	if got, want := e.Error(), "simpler_kernel_mode_prepare_callable failed with INVALID_ARGUMENT(-1004)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e2 := &StatusError{Op: "simpler_kernel_mode_init", Code: -91, Msg: "extra"}
	if got, want := e2.Error(), "simpler_kernel_mode_init failed with STATUS(-91): extra"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}

	unsup := fmt.Errorf("wrapped: %w", &StatusError{Op: "simpler_kernel_mode_init", Code: abi.Unsupported})
	if !errors.Is(unsup, ErrUnsupported) {
		t.Error("an UNSUPPORTED StatusError does not match ErrUnsupported")
	}
	var se *StatusError
	if !errors.As(unsup, &se) || se.Code != abi.Unsupported {
		t.Error("errors.As does not find the code")
	}
	if !errors.As(error(ErrUnsupported), &se) || se.Code != abi.Unsupported {
		t.Error("ErrUnsupported is not itself a *StatusError")
	}
	if errors.Is(e2, ErrUnsupported) || errors.Is(e, ErrUnsupported) {
		t.Error("a non-UNSUPPORTED error matches ErrUnsupported")
	}
	for _, c := range []struct {
		class *StatusError
		code  abi.Status
	}{{ErrInvalidState, abi.InvalidState}, {ErrInvalidArgument, abi.InvalidArgument}, {ErrInternal, abi.Internal}, {ErrUnsupported, abi.Unsupported}} {
		if !errors.Is(&StatusError{Op: "x", Code: c.code}, c.class) {
			t.Errorf("class %v does not match its code", c.code)
		}
		if errors.Is(&StatusError{Op: "x", Code: -77}, c.class) {
			t.Errorf("class %v matches -77", c.code)
		}
	}
	// A StatusError with an Op is not a class.
	if errors.Is(&StatusError{Op: "a", Code: -1}, &StatusError{Op: "b", Code: -1}) {
		t.Error("two distinct errors with an Op match")
	}
	// ErrUnsupported's message says what it is.
	wantContains(t, ErrUnsupported, "UNSUPPORTED(-1001)", "does not support kernel mode")
	// The close timeout (C-GATE) is IS and ErrCloseTimeout.
	to := &StatusError{Op: "Worker.Close", Code: abi.InvalidState, err: ErrCloseTimeout}
	if !errors.Is(to, ErrCloseTimeout) || !errors.Is(to, ErrInvalidState) || errors.Is(to, ErrUnsupported) {
		t.Error("close timeout classes")
	}
	// Codes are the ABI's numbers.
	for code, want := range map[abi.Status]int32{abi.Internal: -1000, abi.Unsupported: -1001, abi.PreparedIncompatible: -1002,
		abi.InvalidState: -1003, abi.InvalidArgument: -1004} {
		if int32(code) != want {
			t.Errorf("%v = %d, want %d", code, int32(code), want)
		}
	}
}
