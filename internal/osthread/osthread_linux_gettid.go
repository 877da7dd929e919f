//go:build linux && !amd64

package osthread

import "syscall"

// Off amd64 (linux/arm64 and the rest) ID is the kernel thread id. The arm64
// analogue of the FS base, TPIDR_EL0, is no identity here: Go sets it per
// thread only when cgo creates the threads; without cgo the runtime clones
// its threads without CLONE_SETTLS, so every thread carries the value it
// inherited from the main thread.
func id() uint64 { return uint64(syscall.Gettid()) }

// FastPath reports whether ID avoids a system call: never here.
func FastPath() bool { return false }
