package onboard

import (
	"sync"

	"github.com/ebitengine/purego"

	"github.com/simabi/simabi/abi"
)

// purego.SyscallN is go:uintptrescapes and variadic: the compiler moves the
// backing array of every `...` argument list to the heap, one allocation per
// call. The callN helpers below keep the same guarantee for their callers
// (they are go:uintptrescapes themselves: a pointer converted to uintptr in
// the call expression is kept alive, and off the stack, until the helper
// returns) but hand SyscallN an argument block taken from a pool, so a call
// allocates nothing.

type argBlock [12]uintptr

var argPool = sync.Pool{New: func() any { return new(argBlock) }}

func syscallBlock(fn uintptr, a *argBlock, n int) uintptr {
	r1, _, _ := purego.SyscallN(fn, a[:n]...)
	argPool.Put(a)
	return r1
}

func getBlock() *argBlock { return argPool.Get().(*argBlock) }

//go:uintptrescapes
func call0(fn uintptr) uintptr {
	r1, _, _ := purego.SyscallN(fn)
	return r1
}

//go:uintptrescapes
func call1(fn, a1 uintptr) uintptr {
	a := getBlock()
	a[0] = a1
	return syscallBlock(fn, a, 1)
}

//go:uintptrescapes
func call2(fn, a1, a2 uintptr) uintptr {
	a := getBlock()
	a[0], a[1] = a1, a2
	return syscallBlock(fn, a, 2)
}

//go:uintptrescapes
func call3(fn, a1, a2, a3 uintptr) uintptr {
	a := getBlock()
	a[0], a[1], a[2] = a1, a2, a3
	return syscallBlock(fn, a, 3)
}

//go:uintptrescapes
func call4(fn, a1, a2, a3, a4 uintptr) uintptr {
	a := getBlock()
	a[0], a[1], a[2], a[3] = a1, a2, a3, a4
	return syscallBlock(fn, a, 4)
}

//go:uintptrescapes
func call5(fn, a1, a2, a3, a4, a5 uintptr) uintptr {
	a := getBlock()
	a[0], a[1], a[2], a[3], a[4] = a1, a2, a3, a4, a5
	return syscallBlock(fn, a, 5)
}

//go:uintptrescapes
func call6(fn, a1, a2, a3, a4, a5, a6 uintptr) uintptr {
	a := getBlock()
	a[0], a[1], a[2], a[3], a[4], a[5] = a1, a2, a3, a4, a5, a6
	return syscallBlock(fn, a, 6)
}

//go:uintptrescapes
func call7(fn, a1, a2, a3, a4, a5, a6, a7 uintptr) uintptr {
	a := getBlock()
	a[0], a[1], a[2], a[3], a[4], a[5], a[6] = a1, a2, a3, a4, a5, a6, a7
	return syscallBlock(fn, a, 7)
}

//go:uintptrescapes
func call8(fn, a1, a2, a3, a4, a5, a6, a7, a8 uintptr) uintptr {
	a := getBlock()
	a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7] = a1, a2, a3, a4, a5, a6, a7, a8
	return syscallBlock(fn, a, 8)
}

//go:uintptrescapes
func call9(fn, a1, a2, a3, a4, a5, a6, a7, a8, a9 uintptr) uintptr {
	a := getBlock()
	a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8] = a1, a2, a3, a4, a5, a6, a7, a8, a9
	return syscallBlock(fn, a, 9)
}

//go:uintptrescapes
func call10(fn, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10 uintptr) uintptr {
	a := getBlock()
	a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9] = a1, a2, a3, a4, a5, a6, a7, a8, a9, a10
	return syscallBlock(fn, a, 10)
}

//go:uintptrescapes
func call12(fn, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12 uintptr) uintptr {
	a := getBlock()
	a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11] = a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12
	return syscallBlock(fn, a, 12)
}

// An entry that is not bound is not called: the statusN helpers answer
// UNSUPPORTED for it and the queryN helpers 0. Both are go:uintptrescapes
// for the reason the callN helpers are.

//go:uintptrescapes
func status1(fn, a1 uintptr) abi.Status {
	if fn == 0 {
		return abi.Unsupported
	}
	return status(call1(fn, a1))
}

//go:uintptrescapes
func status2(fn, a1, a2 uintptr) abi.Status {
	if fn == 0 {
		return abi.Unsupported
	}
	return status(call2(fn, a1, a2))
}

//go:uintptrescapes
func status3(fn, a1, a2, a3 uintptr) abi.Status {
	if fn == 0 {
		return abi.Unsupported
	}
	return status(call3(fn, a1, a2, a3))
}

//go:uintptrescapes
func status4(fn, a1, a2, a3, a4 uintptr) abi.Status {
	if fn == 0 {
		return abi.Unsupported
	}
	return status(call4(fn, a1, a2, a3, a4))
}

func query0(fn uintptr) uintptr {
	if fn == 0 {
		return 0
	}
	return call0(fn)
}

//go:uintptrescapes
func query1(fn, a1 uintptr) uintptr {
	if fn == 0 {
		return 0
	}
	return call1(fn, a1)
}

//go:uintptrescapes
func query2(fn, a1, a2 uintptr) uintptr {
	if fn == 0 {
		return 0
	}
	return call2(fn, a1, a2)
}
