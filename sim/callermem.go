package sim

import (
	"math"
	"unsafe"
)

// callerBytes views n bytes of the caller's memory at p. It is false, instead
// of panicking as unsafe.Slice would, when p is NULL, n does not fit a
// slice, or p+n wraps: no C caller can pass such a span without crashing a
// C runtime, and the simulator refuses it with the entry's argument code.
// Every view of caller memory whose size comes from a caller goes through it
// after the entry's own checks have bounded the size.
func callerBytes(p unsafe.Pointer, n uint64) ([]byte, bool) {
	if !callerSpanOK(p, n) {
		return nil, false
	}
	return unsafe.Slice((*byte)(p), n), true
}

// callerSpanOK reports whether [p, p+n) is a span unsafe.Slice accepts: p
// non-NULL, n <= MaxInt and p+n not past the top of the address space.
func callerSpanOK(p unsafe.Pointer, n uint64) bool {
	return p != nil && n <= math.MaxInt && n <= uint64(-uintptr(p))
}
