// Package osthread identifies the calling OS thread cheaply. The current
// device of ACL is per OS thread (rules D-2, C-THREAD), and Go goroutines
// migrate between threads unless locked with runtime.LockOSThread, so the
// simulated runtime and the lifecycle worker need to know which thread calls
// them on every hot-path call.
package osthread

// ID returns a value that identifies the calling OS thread for as long as the
// thread lives: two threads alive at the same time never share an ID. It is
// not a kernel thread id (use Gettid for that); it is cheap enough for a
// per-call check.
func ID() uint64 { return id() }
