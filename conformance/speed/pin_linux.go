//go:build linux

package speed

import (
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"
)

// cpuMask is a Linux cpu_set_t of 1024 CPUs.
type cpuMask [16]uint64

// pinnedCPU is the CPU the children run on: the last one this thread may
// run on, or -1 when it may run on one only (nothing to choose) or the
// mask cannot be read.
func pinnedCPU() int {
	var m cpuMask
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m))); e != 0 {
		return -1
	}
	last, n := -1, 0
	for i := range len(m) * 64 {
		if m[i/64]&(1<<(i%64)) != 0 {
			last, n = i, n+1
		}
	}
	if n < 2 {
		return -1
	}
	return last
}

// startOn starts cmd with cpu as its only CPU (cpu < 0: as it is). The
// process is forked from a thread of its own whose affinity it inherits;
// the thread is never unlocked, so it ends with its goroutine and its mask
// reaches nothing else of this process.
func startOn(cmd *exec.Cmd, cpu int) error {
	if cpu < 0 {
		return cmd.Start()
	}
	done := make(chan error)
	go func() {
		runtime.LockOSThread()
		var m cpuMask
		m[cpu/64] = 1 << (cpu % 64)
		// Should the mask not take, the child runs where it may: the
		// comparison is still fair, only noisier.
		syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m)))
		done <- cmd.Start()
	}()
	return <-done
}
