package sim

import (
	"sync"
	"unsafe"
)

// The comm windows a copy may reach (docs/contract.md E-PROG.28):
// copy_to_device_ctx and copy_from_device_ctx take a span inside a live
// device allocation or inside one window the instance's comm backend has
// mapped and not yet unmapped. Upstream's copies are a memcpy to any
// pointer (src/common/platform/sim/host/device_runner_base.cpp:346-354 at
// 6ebaf77), and its Worker copies into a global domain's window; the
// simulator refuses any other span instead of writing into whatever lies
// there.

// windowRun is nwin windows of win bytes each, the first at off of one
// mapping: a session's or a domain allocation's windows (every rank's),
// a global domain's own window or a peer's it imported.
type windowRun struct {
	data      []byte // the mapping
	off, win  uint64
	nwin      uint64
	mappedEnd uint64 // off + win*nwin
}

// commWindows are the instance's mapped windows. mu is held for the whole
// of a copy into one, and by unmap before the mapping goes, so a copy never
// reaches memory that was unmapped under it.
type commWindows struct {
	mu   sync.Mutex
	runs []windowRun
}

// add records nwin windows of win bytes at off of data (nothing for an
// empty window: no span of a copy fits one).
func (w *commWindows) add(data []byte, off, win, nwin uint64) {
	if win == 0 || nwin == 0 || len(data) == 0 {
		return
	}
	w.mu.Lock()
	w.runs = append(w.runs, windowRun{data: data, off: off, win: win, nwin: nwin, mappedEnd: off + win*nwin})
	w.mu.Unlock()
}

// unmap forgets every window of data, then unmaps it.
func (w *commWindows) unmap(data []byte) {
	if len(data) == 0 {
		return
	}
	w.mu.Lock()
	kept := w.runs[:0]
	for _, r := range w.runs {
		if unsafe.SliceData(r.data) != unsafe.SliceData(data) {
			kept = append(kept, r)
		}
	}
	clear(w.runs[len(kept):])
	w.runs = kept
	shmUnmap(data)
	w.mu.Unlock()
}

// spanLocked returns the bytes [addr, addr+n) when they lie inside one
// window, else nil. w.mu is held.
func (w *commWindows) spanLocked(addr, n uint64) []byte {
	if addr+n < addr {
		return nil
	}
	for _, r := range w.runs {
		base := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(r.data))))
		if addr < base+r.off || addr >= base+r.mappedEnd {
			continue
		}
		at := addr - base
		end := r.off + ((at-r.off)/r.win+1)*r.win // the end of the window addr is in
		if n > end-at {
			return nil // past the window's end, into the next or out of the mapping
		}
		return r.data[at : at+n : at+n]
	}
	return nil
}

// copyIn copies n bytes of the caller's memory at src into the window span
// at dst; false when dst..dst+n is inside no window or src+n wraps.
func (w *commWindows) copyIn(dst uint64, src unsafe.Pointer, n uint64) bool {
	return callerCopy(&w.mu, func() []byte { return w.spanLocked(dst, n) }, src, n, true)
}

// copyOut copies n bytes of the window span at src to the caller's memory
// at dst, with the checks of copyIn.
func (w *commWindows) copyOut(dst unsafe.Pointer, src, n uint64) bool {
	return callerCopy(&w.mu, func() []byte { return w.spanLocked(src, n) }, dst, n, false)
}
