// Package osthread identifies the calling OS thread cheaply. The current
// device of ACL is per OS thread (rules D-2, C-THREAD), and Go goroutines
// migrate between threads unless locked with runtime.LockOSThread, so the
// simulated runtime and the lifecycle worker need to know which thread calls
// them on every hot-path call.
package osthread

import (
	"syscall"
	"time"
)

// ID returns a value that identifies the calling OS thread for as long as the
// thread lives: two threads alive at the same time never share an ID. It is
// not a kernel thread id; it is cheap enough for a per-call check.
//
// An ID can be reused once its thread has exited: a goroutine that exits while
// locked with runtime.LockOSThread ends its thread, and a later thread may get
// the same thread-local block (Go reuses the memory of the thread's runtime
// structure; with cgo, glibc reuses the thread's TCB). Use Thread.IsExact when
// a dead thread must not be mistaken for a live one.
func ID() uint64 { return id() }

// Thread identifies one OS thread: its cheap ID and its kernel thread id.
type Thread struct {
	ID  uint64
	TID int
}

// Current returns the calling thread (one gettid system call).
func Current() Thread { return Thread{ID: id(), TID: syscall.Gettid()} }

// Is reports, cheaply, whether the caller runs on t or on a thread that reused
// t's ID after t exited.
func (t Thread) Is() bool { return id() == t.ID }

// IsExact reports whether the caller runs on t itself (one gettid system call
// on top of Is; kernel thread ids are unique among live threads).
func (t Thread) IsExact() bool { return id() == t.ID && syscall.Gettid() == t.TID }

// WaitGone waits until the thread with kernel thread id tid of this process
// has exited, or timeout passed; it reports whether the thread is gone. A
// locked goroutine that returns ends its thread asynchronously: a caller that
// must know the thread's exit work has run (thread-exit destructors of a
// library) waits here.
func WaitGone(tid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if !alive(tid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(200 * time.Microsecond)
	}
}
