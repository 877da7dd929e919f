package abi

import "unsafe"

// AlignedBytes returns a zeroed slice of n bytes whose first byte sits at an
// address that is a multiple of align (a power of two). The memory is on the
// Go heap, which does not move, so its address can be handed to a C entry for
// as long as the slice is kept alive.
func AlignedBytes(n, align int) []byte {
	if align <= 1 {
		return make([]byte, n, max(n, 1))
	}
	raw := make([]byte, n+align)
	off := AlignmentOffset(raw, align)
	return raw[off : off+n : off+n]
}

// AlignmentOffset is how many bytes past &b[0] the next multiple of align lies.
func AlignmentOffset(b []byte, align int) int {
	if cap(b) == 0 {
		return 0
	}
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return int((uintptr(align) - addr%uintptr(align)) % uintptr(align))
}

// Ptr is the address of b's first element, or nil for an empty slice: the
// (pointer, size) pair of a binary span in C terms.
func Ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

// Span returns the (pointer, size) pair of b.
func Span(b []byte) (unsafe.Pointer, uintptr) { return Ptr(b), uintptr(len(b)) }
