//go:build linux

package sim

import "syscall"

// gettid is the portable per-OS-thread key: the kernel thread id (about
// 100 ns per call, a system call).
func gettid() uintptr { return uintptr(syscall.Gettid()) }

// threadLiveness reports whether the thread with kernel id tid is still a
// thread of this process (tgkill with signal 0 sends nothing). The device
// table's sweep uses it to drop the entries of threads that exited.
var threadLiveness = threadAlive

func threadAlive(tid uintptr) bool {
	return syscall.Tgkill(syscall.Getpid(), int(tid), 0) != syscall.ESRCH
}
