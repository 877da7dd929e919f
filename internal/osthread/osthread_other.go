//go:build linux && !amd64

package osthread

import "syscall"

func id() uint64 { return uint64(syscall.Gettid()) }

// FastPath reports whether ID avoids a system call.
func FastPath() bool { return false }
