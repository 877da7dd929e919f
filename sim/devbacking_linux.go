//go:build linux

package sim

import (
	"math"
	"syscall"
)

const mmapAvailable = true

// mapAnon maps size bytes of zeroed, lazily committed memory.
func mapAnon(size uint64) ([]byte, bool) {
	if size == 0 || size > math.MaxInt {
		return nil, false
	}
	b, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil, false
	}
	return b, true
}

func unmapAnon(b []byte) { _ = syscall.Munmap(b) }
