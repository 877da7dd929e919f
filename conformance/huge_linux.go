package conformance

import (
	"sync"
	"syscall"
	"unsafe"

	"github.com/simabi/simabi/conformance/op"
)

var hugeOnce struct {
	sync.Once
	p unsafe.Pointer
}

// hugeSpan is hugeSize bytes of zero, read-only, never-committed memory
// (an anonymous private mapping), for E-PREP's size-before-budget check: a
// runtime that reads it reads zeros and commits nothing.
func hugeSpan() unsafe.Pointer {
	hugeOnce.Do(func() {
		b, err := syscall.Mmap(-1, 0, op.HugeSize+4096, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
		if err == nil {
			hugeOnce.p = unsafe.Pointer(unsafe.SliceData(b))
		}
	})
	return hugeOnce.p
}
