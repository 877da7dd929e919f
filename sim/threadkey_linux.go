//go:build linux

package sim

import "syscall"

// gettid is the portable per-OS-thread key: the kernel thread id (about
// 100 ns per call, a system call).
func gettid() uintptr { return uintptr(syscall.Gettid()) }
