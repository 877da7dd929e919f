package osthread

import (
	"runtime"
	"sync"
	"syscall"
	"unsafe"

	"github.com/ebitengine/purego"
)

// On darwin Go creates every thread with pthread_create and links
// libSystem, so the thread functions of libpthread and libproc are called
// through purego, without cgo:
//
//   - ID is pthread_self(): the thread's pthread_t, distinct among live
//     threads; libpthread may hand a dead thread's pthread_t to a new thread.
//   - TID is pthread_threadid_np(NULL, &tid): the kernel's 64-bit thread id,
//     which is never given to another thread while the system is up.
//   - Alive asks proc_pidinfo(getpid(), PROC_PIDTHREADID64INFO, tid, ...),
//     which finds the thread by that id among the task's threads and fails
//     with ESRCH once the kernel removed it from the task.
//
// Each is a C call through purego (tens of nanoseconds), not a register read.
var libSystem = openLibSystem()

type libSystemFuncs struct {
	pthreadSelf, pthreadThreadID, procPIDInfo uintptr
}

// openLibSystem resolves the three functions. libSystem is loaded in every Go
// process on darwin, so a failure means a broken system: it panics.
func openLibSystem() libSystemFuncs {
	h, err := purego.Dlopen("/usr/lib/libSystem.B.dylib", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		panic("osthread: " + err.Error())
	}
	sym := func(name string) uintptr {
		p, err := purego.Dlsym(h, name)
		if err != nil {
			panic("osthread: " + err.Error())
		}
		return p
	}
	return libSystemFuncs{
		pthreadSelf:     sym("pthread_self"),
		pthreadThreadID: sym("pthread_threadid_np"),
		procPIDInfo:     sym("proc_pidinfo"),
	}
}

func id() uint64 {
	r1, _, _ := purego.SyscallN(libSystem.pthreadSelf)
	return uint64(r1)
}

// FastPath reports whether ID avoids a C call: never on darwin.
func FastPath() bool { return false }

// threadIDCall is the argument block and the out slot of one
// pthread_threadid_np call. Blocks come from a pool, so a TID query allocates
// nothing (a variadic argument list would escape to the heap on every call).
type threadIDCall struct {
	args [2]uintptr
	tid  uint64
}

var threadIDCalls = sync.Pool{New: func() any { return new(threadIDCall) }}

func tid() int {
	c := threadIDCalls.Get().(*threadIDCall)
	// c is heap memory (it came from the pool), which does not move; it stays
	// reachable through c until the call returned.
	c.args = [2]uintptr{0, uintptr(unsafe.Pointer(&c.tid))}
	purego.SyscallN(libSystem.pthreadThreadID, c.args[:]...)
	t := c.tid
	runtime.KeepAlive(c)
	threadIDCalls.Put(c)
	return int(t)
}

// PROC_PIDTHREADID64INFO of <sys/proc_info.h>: the struct proc_threadinfo
// (112 bytes) of the thread whose 64-bit id is the argument.
const procPIDThreadID64Info = 15

func alive(tid int) bool {
	info := new([256]byte) // more than sizeof(struct proc_threadinfo); the kernel copies what it has
	n, _, errno := purego.SyscallN(libSystem.procPIDInfo, uintptr(syscall.Getpid()), procPIDThreadID64Info,
		uintptr(tid), uintptr(unsafe.Pointer(info)), uintptr(len(info)))
	if int32(n) > 0 {
		return true
	}
	// Any other failure (a sandbox that denies proc_info) is no evidence that
	// the thread exited: report it alive, so WaitGone times out rather than
	// lie.
	return syscall.Errno(int32(errno)) != syscall.ESRCH
}
