package sim

import (
	"sync"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/semantics"
)

// DeviceMemoryTotal is the simulated HBM of one runtime instance (32 GiB):
// the total of device_memory_info_ctx and the ceiling of every allocation.
const DeviceMemoryTotal = semantics.DeviceMemoryTotal

// deviceBase is the first simulated device address; allocations are 64-byte
// aligned and separated by a 64-byte gap, so no range lies in two of them.
const (
	deviceBase  uint64 = 0x10_0000_0000
	deviceAlign uint64 = 64
)

// allocation is one live block of simulated device memory. owner is the
// program context that made it with device_malloc_ctx, or nil for the
// caller's ACL allocations.
type allocation struct {
	base  uint64
	data  []byte
	owner *context
}

// deviceMemory is the device address space of one instance, shared by the
// caller's ACL allocations and program-mode allocations (semantics §7). mu
// also serialises kernels and copies, which read and write data.
type deviceMemory struct {
	mu      sync.Mutex
	allocs  []allocation // sorted by base (addresses only grow)
	next    uint64
	live    uint64
	backing *deviceBacking // set by New
}

// malloc allocates size bytes for owner; 0 when the 32 GiB are exhausted
// (or, rarely, the host cannot back them). An allocation of 0 bytes has an
// address of its own like any other (device_malloc_ctx, E-PROG.33; ACL's
// Malloc refuses size 0 before it gets here).
func (m *deviceMemory) malloc(size uint64, owner *context) abi.DevicePtr {
	m.mu.Lock()
	defer m.mu.Unlock()
	if size > DeviceMemoryTotal-m.live {
		return 0
	}
	if m.next == 0 {
		m.next = deviceBase
	}
	data, ok := m.backing.alloc(size)
	if !ok {
		return 0
	}
	base := m.next
	m.next = abi.AlignUp(base+size, deviceAlign) + deviceAlign
	m.allocs = append(m.allocs, allocation{base: base, data: data, owner: owner})
	m.live += size
	return abi.DevicePtr(base)
}

// indexOf returns the index of the allocation starting at p, or -1.
func (m *deviceMemory) indexOf(p uint64) int {
	i := m.upperBound(p) - 1
	if i >= 0 && m.allocs[i].base == p {
		return i
	}
	return -1
}

// upperBound is the index of the first allocation whose base is above addr.
func (m *deviceMemory) upperBound(addr uint64) int {
	lo, hi := 0, len(m.allocs)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if m.allocs[mid].base > addr {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// free releases the allocation starting at p if owner made it (nil: an ACL
// allocation); it returns the bytes freed and whether it freed anything.
func (m *deviceMemory) free(p abi.DevicePtr, owner *context) (uint64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := m.indexOf(uint64(p))
	if i < 0 || m.allocs[i].owner != owner {
		return 0, false
	}
	n := uint64(len(m.allocs[i].data))
	m.backing.free(m.allocs[i].data)
	m.allocs = append(m.allocs[:i], m.allocs[i+1:]...)
	m.live -= n
	return n, true
}

// freeOwned releases every allocation of owner and returns the bytes freed.
func (m *deviceMemory) freeOwned(owner *context) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n uint64
	kept := m.allocs[:0]
	for _, a := range m.allocs {
		if a.owner == owner {
			n += uint64(len(a.data))
			m.backing.free(a.data)
			continue
		}
		kept = append(kept, a)
	}
	clear(m.allocs[len(kept):])
	m.allocs = kept
	m.live -= n
	return n
}

// countOwned is the number of live allocations of owner.
func (m *deviceMemory) countOwned(owner *context) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, a := range m.allocs {
		if a.owner == owner {
			n++
		}
	}
	return n
}

// rangeLocked returns the bytes [addr, addr+size) when they lie inside one
// live allocation (of owner, unless anyOwner), else nil. m.mu is held.
func (m *deviceMemory) rangeLocked(addr, size uint64, owner *context, anyOwner bool) []byte {
	if addr == 0 || addr+size < addr {
		return nil
	}
	i := m.upperBound(addr) - 1
	if i < 0 {
		return nil
	}
	a := &m.allocs[i]
	if !anyOwner && a.owner != owner {
		return nil
	}
	off := addr - a.base
	if off > uint64(len(a.data)) || size > uint64(len(a.data))-off {
		return nil
	}
	return a.data[off : off+size : off+size]
}

// copyTo copies src to device address dst, inside one allocation of owner
// (anyOwner: of anyone). It reports whether the range was valid.
func (m *deviceMemory) copyTo(dst uint64, src []byte, owner *context, anyOwner bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.rangeLocked(dst, uint64(len(src)), owner, anyOwner)
	if d == nil {
		return false
	}
	copy(d, src)
	return true
}

// copyFrom copies len(dst) bytes from device address src.
func (m *deviceMemory) copyFrom(dst []byte, src uint64, owner *context, anyOwner bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.rangeLocked(src, uint64(len(dst)), owner, anyOwner)
	if s == nil {
		return false
	}
	copy(dst, s)
	return true
}

// copyIn copies n bytes of the caller's memory at src to device address dst,
// inside one allocation of owner (anyOwner: of anyone). The device range is
// checked first, so the caller's memory is viewed only for a size that fits
// an allocation; false when the range is not valid or src+n wraps.
func (m *deviceMemory) copyIn(dst uint64, src unsafe.Pointer, n uint64, owner *context, anyOwner bool) bool {
	return callerCopy(&m.mu, func() []byte { return m.rangeLocked(dst, n, owner, anyOwner) }, src, n, true)
}

// copyOut copies n bytes from device address src to the caller's memory at
// dst, with the checks of copyIn.
func (m *deviceMemory) copyOut(dst unsafe.Pointer, src, n uint64, owner *context, anyOwner bool) bool {
	return callerCopy(&m.mu, func() []byte { return m.rangeLocked(src, n, owner, anyOwner) }, dst, n, false)
}

// callerCopy copies n bytes between the caller's memory at host and the
// span span() finds under mu: into the span when in, out of it otherwise.
// False when span finds none or host+n wraps.
func callerCopy(mu *sync.Mutex, span func() []byte, host unsafe.Pointer, n uint64, in bool) bool {
	mu.Lock()
	defer mu.Unlock()
	dev := span()
	if dev == nil {
		return false
	}
	h, ok := callerBytes(host, n)
	if !ok {
		return false
	}
	if in {
		copy(dev, h)
	} else {
		copy(h, dev)
	}
	return true
}

// liveBytes is the total of live allocations.
func (m *deviceMemory) liveBytes() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.live
}
