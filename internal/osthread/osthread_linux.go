package osthread

import "syscall"

func tid() int { return syscall.Gettid() }

// alive asks the kernel with tgkill(pid, tid, 0), which sends nothing: ESRCH
// once the thread exited and was released (a system call, no allocation, no
// dependence on /proc being mounted).
func alive(tid int) bool {
	return syscall.Tgkill(syscall.Getpid(), tid, 0) != syscall.ESRCH
}
