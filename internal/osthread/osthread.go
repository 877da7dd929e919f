// Package osthread identifies the calling OS thread. The current device of
// ACL is per OS thread (rules D-2, C-THREAD), and Go goroutines migrate
// between threads unless locked with runtime.LockOSThread, so the simulated
// runtime and the lifecycle worker need to know which thread calls them on
// every hot-path call, and whether a thread they recorded is still alive.
//
// Two identities, per platform:
//
//	              ID (cheap, reusable after exit)      TID (kernel thread id)
//	linux/amd64   FS base (RDFSBASE) when the kernel   gettid(2)
//	              enables FSGSBASE, else gettid
//	linux/arm64   gettid                               gettid(2)
//	darwin        pthread_self                         pthread_threadid_np
//
// On Linux a kernel thread id is unique among the live threads of the
// system; the kernel gives a dead thread's id to a new thread only after its
// pid counter wrapped around pid_max. On darwin the thread id of
// pthread_threadid_np is a 64-bit counter the kernel never hands out twice
// while the system is up, so a dead thread's id is never inherited at all.
// Other platforms have no implementation (see osthread_other.go).
package osthread

import "time"

// ID returns a value that identifies the calling OS thread for as long as the
// thread lives: two threads alive at the same time never share an ID. It is
// not a kernel thread id; it is cheap enough for a per-call check.
//
// An ID can be reused once its thread has exited: a goroutine that exits while
// locked with runtime.LockOSThread ends its thread, and a later thread may get
// the same thread-local block (Go reuses the memory of the thread's runtime
// structure; with cgo, glibc reuses the thread's TCB; on darwin libpthread
// reuses the thread's pthread_t). Use Thread.IsExact when a dead thread must
// not be mistaken for a live one.
func ID() uint64 { return id() }

// TID returns the kernel thread id of the calling thread (gettid on Linux,
// pthread_threadid_np on darwin): unique among live threads, and not given to
// a new thread after its thread exits (on Linux not until the pid counter
// wraps; on darwin never).
func TID() int { return tid() }

// Alive reports whether the thread with kernel thread id tid (a TID of this
// process) still exists. A thread stops being alive once the kernel has
// removed it, after everything it runs at exit (thread-local destructors of
// the C library and of loaded libraries) has run. A tid that is not positive
// names no thread.
func Alive(tid int) bool { return tid > 0 && alive(tid) }

// Thread identifies one OS thread: its cheap ID and its kernel thread id.
type Thread struct {
	ID  uint64
	TID int
}

// Current returns the calling thread (one gettid system call on Linux).
func Current() Thread { return Thread{ID: id(), TID: tid()} }

// Is reports, cheaply, whether the caller runs on t or on a thread that reused
// t's ID after t exited.
func (t Thread) Is() bool { return id() == t.ID }

// IsExact reports whether the caller runs on t itself (a TID query on top of
// Is; kernel thread ids are unique among live threads).
func (t Thread) IsExact() bool { return id() == t.ID && tid() == t.TID }

// WaitGone waits until the thread with kernel thread id tid of this process
// has exited, or timeout passed; it reports whether the thread is gone. A
// locked goroutine that returns ends its thread asynchronously: a caller that
// must know the thread's exit work has run (thread-exit destructors of a
// library) waits here.
func WaitGone(tid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if !Alive(tid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(200 * time.Microsecond)
	}
}
