package sim

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/simabi/simabi/internal/osthread"
)

// ThreadIdentity selects how the simulator identifies the calling OS thread,
// the key of the per-thread current device (D-2).
type ThreadIdentity uint8

// Thread identities. The kernel thread id and the cheap one come from
// internal/osthread, as lifecycle's C-THREAD check does.
const (
	// ThreadIdentityAuto is the default: the kernel thread id (osthread.TID:
	// gettid on Linux, one system call per device check, about 100-150 ns;
	// pthread_threadid_np on darwin). Thread ids are unique among live
	// threads, so a thread never sees the device of another live thread; see
	// ThreadIdentityGettid for the one residual case.
	ThreadIdentityAuto ThreadIdentity = iota
	// ThreadIdentityGettid is the kernel thread id, as ThreadIdentityAuto.
	// An entry whose thread exited is dropped by the next sweep (the table
	// asks osthread.Alive, tgkill(pid, tid, 0) on Linux, whenever its size
	// doubles); only a new thread of this process that is given the dead
	// thread's id (on Linux after the kernel's pid counter wraps at pid_max;
	// on darwin never) before that sweep would see the dead thread's device.
	ThreadIdentityGettid
	// ThreadIdentityFSBase is an opt-in for benchmarks: the thread's FS base
	// read with RDFSBASE on linux/amd64 when the kernel enables FSGSBASE
	// (about 1 ns; the kernel thread id elsewhere, see FSBaseThreadKey). It
	// is NOT correct when threads die: a goroutine that exits while locked to
	// its thread ends that thread, and a later thread often gets the same FS
	// base (Go reuses the memory of the thread's runtime structure; with cgo
	// or the race detector glibc reuses the thread's TCB at once), so the new
	// thread inherits the dead thread's current device and passes D-2 checks
	// it must fail. Use it only when no thread that set a device ever exits.
	ThreadIdentityFSBase
)

func (t ThreadIdentity) String() string {
	switch t {
	case ThreadIdentityGettid:
		return "gettid"
	case ThreadIdentityFSBase:
		return "fsbase"
	default:
		return "auto"
	}
}

// FSBaseThreadKey reports whether ThreadIdentityFSBase resolves to the FS
// base on this machine (osthread's fast path: linux/amd64 with FSGSBASE);
// else it uses the kernel thread id.
func FSBaseThreadKey() bool { return osthread.FastPath() }

// threadKey identifies the calling OS thread. SetDevice, the hooks and every
// device check go through it, so they always agree.
func (r *Runtime) threadKey() uintptr {
	if r.fsbase {
		return uintptr(osthread.ID())
	}
	return uintptr(osthread.TID())
}

// threadAlive is the device table's sweep test for kernel-thread-id keys.
func threadAlive(key uintptr) bool { return osthread.Alive(int(key)) }

// Device table layout. Keys below directKeys (every Linux thread id: 2^22 is
// PID_MAX_LIMIT on 64-bit) index a two-level array of atomic slots, allocated
// a chunk at a time on first use; other keys (FS bases, darwin's 64-bit
// thread ids once they pass 2^22) go to an open-addressing table of atomic
// slots. Both are read without locks.
const (
	directKeys   = 1 << 22
	devChunkBits = 12
	devChunkSize = 1 << devChunkBits
	devChunks    = directKeys / devChunkSize
	minWideSlots = 16
	minSweepAt   = 64
)

// devChunk holds device+1 per key; 0 is "none".
type devChunk [devChunkSize]atomic.Int32

type devDir [devChunks]atomic.Pointer[devChunk]

// wideTable is a linear-probing table of (key, device+1) slots; a key, once
// in a slot, stays there until the table is rebuilt (a cleared key keeps its
// slot with device 0 and is dropped by the next rebuild). Writers hold the
// device table's mu; readers load the current table and probe with atomics.
type wideTable struct {
	slots []wideSlot // len is a power of two
	used  int        // slots holding a key (mu)
}

type wideSlot struct {
	key atomic.Uintptr // 0: empty
	dev atomic.Int32   // device+1; 0 is "none"
}

func wideHash(k uintptr) uint64 { return uint64(k) * 0x9E3779B97F4A7C15 }

// find returns the slot of k, or the empty slot where k would go.
func (w *wideTable) find(k uintptr) *wideSlot {
	mask := uint64(len(w.slots) - 1)
	for i := wideHash(k) >> 32 & mask; ; i = (i + 1) & mask {
		s := &w.slots[i]
		if key := s.key.Load(); key == k || key == 0 {
			return s
		}
	}
}

// deviceTable is the per-OS-thread current device of one runtime instance.
// The device check (on every launch) is lock-free for thread ids: two atomic
// loads of the directory and the chunk, and one of the slot. An update is
// O(1) amortized: it takes mu, writes the slot and the set of keys with an
// entry (a thread that sets device none has no entry). Only the calling
// thread writes its own slot, except the sweep, which clears the slots of
// threads that exited.
type deviceTable struct {
	dir  atomic.Pointer[devDir]
	wide atomic.Pointer[wideTable]

	mu      sync.Mutex
	keys    map[uintptr]struct{} // keys with an entry
	sweepAt int
	// prune, when set, enables the sweep: it reports whether the thread of
	// key is still alive (gettid keys); nil for FS-base keys, whose thread
	// cannot be asked.
	prune func(key uintptr) bool
}

// get is the device current on the thread with key k, -1 when none.
func (t *deviceTable) get(k uintptr) int32 {
	if k < directKeys {
		d := t.dir.Load()
		if d == nil {
			return -1
		}
		c := d[k>>devChunkBits].Load()
		if c == nil {
			return -1
		}
		return c[k&(devChunkSize-1)].Load() - 1
	}
	w := t.wide.Load()
	if w == nil || k == 0 {
		return -1
	}
	return w.find(k).dev.Load() - 1
}

// set makes dev current on the thread with key k; dev < 0 removes its entry.
func (t *deviceTable) set(k uintptr, dev int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if dev < 0 {
		t.storeLocked(k, -1)
		delete(t.keys, k)
		return
	}
	if _, ok := t.keys[k]; !ok {
		if t.keys == nil {
			t.keys = make(map[uintptr]struct{})
		}
		if t.prune != nil && len(t.keys) >= max(t.sweepAt, minSweepAt) {
			t.sweepLocked()
		}
		t.keys[k] = struct{}{}
	}
	t.storeLocked(k, dev)
}

// sweepLocked drops the entries of threads that exited; the next sweep comes
// when the table has doubled again, so sweeping is O(1) amortized per entry.
func (t *deviceTable) sweepLocked() {
	for k := range t.keys {
		if !t.prune(k) {
			t.storeLocked(k, -1)
			delete(t.keys, k)
		}
	}
	t.sweepAt = 2 * len(t.keys)
}

// storeLocked writes k's slot (dev < 0: none). mu is held.
func (t *deviceTable) storeLocked(k uintptr, dev int32) {
	if k < directKeys {
		d := t.dir.Load()
		if d == nil {
			if dev < 0 {
				return
			}
			d = new(devDir)
			t.dir.Store(d)
		}
		c := d[k>>devChunkBits].Load()
		if c == nil {
			if dev < 0 {
				return
			}
			c = new(devChunk)
			d[k>>devChunkBits].Store(c)
		}
		c[k&(devChunkSize-1)].Store(dev + 1)
		return
	}
	w := t.wide.Load()
	if w == nil {
		if dev < 0 {
			return
		}
		w = &wideTable{slots: make([]wideSlot, minWideSlots)}
		t.wide.Store(w)
	}
	s := w.find(k)
	if s.key.Load() == 0 {
		if dev < 0 {
			return
		}
		if 2*(w.used+1) > len(w.slots) {
			w = t.rebuildWideLocked(w)
			s = w.find(k)
		}
		s.key.Store(k)
		w.used++
	}
	s.dev.Store(dev + 1)
}

// rebuildWideLocked replaces the wide table with one sized for its live keys
// (cleared keys are dropped), at most half full after the next insert: each
// rebuild is paid for by the inserts since the last one (O(1) amortized).
func (t *deviceTable) rebuildWideLocked(old *wideTable) *wideTable {
	live := 0
	for i := range old.slots {
		if old.slots[i].key.Load() != 0 && old.slots[i].dev.Load() != 0 {
			live++
		}
	}
	n := minWideSlots
	for n < 4*(live+1) {
		n *= 2
	}
	w := &wideTable{slots: make([]wideSlot, n)}
	for i := range old.slots {
		o := &old.slots[i]
		if k, d := o.key.Load(), o.dev.Load(); k != 0 && d != 0 {
			s := w.find(k)
			s.key.Store(k)
			s.dev.Store(d)
			w.used++
		}
	}
	t.wide.Store(w)
	return w
}

// entries is the number of keys with an entry (for tests).
func (t *deviceTable) entries() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.keys)
}

// currentDevice is the calling thread's current device, -1 when none. It is
// the runtime's internal, uncounted query (semantics §3).
func (r *Runtime) currentDevice() int32 { return r.devs.get(r.threadKey()) }

// setThreadDevice makes dev current on the calling OS thread (dev < 0
// clears), but only when the calling goroutine is locked to its thread
// (runtime.LockOSThread). A goroutine that is not locked owns no thread: its
// setting would land on whichever thread it happens to run on and later calls
// would see it or not depending on the scheduler. The simulator ignores such
// a setting instead, so a goroutine that forgot to lock fails its device
// checks with INVALID_STATE every time (D-2). It reports whether it applied.
func (r *Runtime) setThreadDevice(dev int32) bool {
	if !r.trustLocked && !goroutineLocked() {
		return false
	}
	r.devs.set(r.threadKey(), dev)
	return true
}

var lockedMarker = []byte("locked to thread")

// goroutineLocked reports whether the calling goroutine is locked to its OS
// thread. Go has no API for it; the header line of the goroutine's own stack
// trace says ", locked to thread" when it is (about 400 ns; used only when a
// device is set). An unrecognised header answers true, the permissive choice.
func goroutineLocked() bool {
	var buf [128]byte
	n := runtime.Stack(buf[:], false)
	hdr := buf[:n]
	if !bytes.HasPrefix(hdr, []byte("goroutine ")) {
		return true
	}
	end := bytes.IndexByte(hdr, ']')
	if end < 0 {
		return true
	}
	return bytes.Contains(hdr[:end], lockedMarker)
}
