package sim

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"
)

// ThreadIdentity selects how the simulator identifies the calling OS thread,
// the key of the per-thread current device (D-2).
type ThreadIdentity uint8

// Thread identities.
const (
	// ThreadIdentityAuto reads the thread's FS base with RDFSBASE on
	// linux/amd64 when AT_HWCAP2 has the FSGSBASE bit (about 1 ns), and
	// otherwise uses gettid (a system call, about 100 ns).
	ThreadIdentityAuto ThreadIdentity = iota
	// ThreadIdentityGettid always uses gettid.
	ThreadIdentityGettid
)

func (t ThreadIdentity) String() string {
	if t == ThreadIdentityGettid {
		return "gettid"
	}
	return "auto"
}

// fsbaseOK is decided once per process, on first use.
var fsbaseOK = sync.OnceValue(fsbaseUsable)

// FSBaseThreadKey reports whether ThreadIdentityAuto resolves to the FS base
// on this machine.
func FSBaseThreadKey() bool { return fsbaseOK() }

// threadKey identifies the calling OS thread. SetDevice, the hooks and every
// device check go through it, so they always agree.
func (r *Runtime) threadKey() uintptr {
	if r.fsbase {
		return rdfsbase()
	}
	return gettid()
}

// deviceTable is the per-OS-thread current device of one runtime instance: a
// copy-on-write map behind an atomic pointer, so the device check on the
// launch path is one atomic load and one map lookup, and writers (rare) copy.
type deviceTable struct {
	mu sync.Mutex
	m  atomic.Pointer[map[uintptr]int32]
}

// get is the device current on the thread with key k, -1 when none.
func (t *deviceTable) get(k uintptr) int32 {
	m := t.m.Load()
	if m == nil {
		return -1
	}
	if d, ok := (*m)[k]; ok {
		return d
	}
	return -1
}

// set makes dev current on the thread with key k; dev < 0 clears it.
func (t *deviceTable) set(k uintptr, dev int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.m.Load()
	n := 1
	if old != nil {
		n += len(*old)
	}
	m := make(map[uintptr]int32, n)
	if old != nil {
		for key, d := range *old {
			m[key] = d
		}
	}
	if dev < 0 {
		delete(m, k)
	} else {
		m[k] = dev
	}
	t.m.Store(&m)
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
	if !goroutineLocked() {
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
