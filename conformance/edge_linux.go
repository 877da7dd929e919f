package conformance

import (
	"os"
	"runtime"
	"sync"
	"syscall"
	"unsafe"

	"github.com/simabi/simabi/conformance/op"
)

// Edge spans (ImageRecipe.Edge): bytes whose end abuts a page mapped with
// no access, so that a runtime reading past a span it was given faults at
// once (V-IMG: nothing outside the span is read). Mappings are pooled by
// length: a check that places an image at an edge runs many times.
var edgePool = struct {
	sync.Mutex
	free map[int][][]byte
}{free: map[int][][]byte{}}

// edgeSpan returns n bytes (n rounded up to 16, so the first byte is
// 16-aligned) whose last byte is followed by an inaccessible page, or nil
// when none can be mapped. Its memory returns to the pool once owner is
// unreachable.
func edgeSpan(n int, owner any) []byte {
	n = (n + 15) &^ 15
	edgePool.Lock()
	var b []byte
	if l := edgePool.free[n]; len(l) > 0 {
		b, edgePool.free[n] = l[len(l)-1], l[:len(l)-1]
	}
	edgePool.Unlock()
	if b == nil {
		page := os.Getpagesize()
		data := (n + page - 1) / page * page
		m, err := syscall.Mmap(-1, 0, data+page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			return nil
		}
		if err := syscall.Mprotect(m[data:], syscall.PROT_NONE); err != nil {
			_ = syscall.Munmap(m)
			return nil
		}
		b = m[data-n : data : data]
	}
	runtime.SetFinalizer(owner, func(any) {
		clear(b)
		edgePool.Lock()
		edgePool.free[n] = append(edgePool.free[n], b)
		edgePool.Unlock()
	})
	return b
}

// hugeSpan is hugeSize bytes of zero, read-only, never-committed memory
// (an anonymous private mapping), for E-PREP's size-before-budget check: a
// runtime that reads it reads zeros and commits nothing.
var hugeSpan = sync.OnceValue(func() unsafe.Pointer {
	b, err := syscall.Mmap(-1, 0, op.HugeSize+4096, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
})
