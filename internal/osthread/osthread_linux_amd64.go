package osthread

import (
	"encoding/binary"
	"os"
	"syscall"
)

// On linux/amd64 every OS thread has its own FS base (Go points it at the
// thread's m.tls; under cgo or the race detector glibc points it at the
// thread's TCB), and RDFSBASE reads it in about a nanosecond. The instruction
// faults (SIGILL) unless the kernel enabled FSGSBASE, which it announces with
// bit 1 of AT_HWCAP2; without it we fall back to gettid (~100 ns).
var fastPath = hwcap2HasFSGSBase(readAuxv())

const (
	atHWCAP2       = 26
	hwcap2FSGSBase = 1 << 1
)

// readFSBase executes RDFSBASE; call it only when fastPath is set.
func readFSBase() uint64

func id() uint64 {
	if fastPath {
		return readFSBase()
	}
	return uint64(syscall.Gettid())
}

// FastPath reports whether ID reads the FS base (RDFSBASE) instead of making
// a system call.
func FastPath() bool { return fastPath }

// readAuxv returns this process's auxiliary vector; nil when unreadable,
// which disables the fast path.
func readAuxv() []byte {
	b, _ := os.ReadFile("/proc/self/auxv")
	return b
}

// hwcap2HasFSGSBase scans an auxiliary vector (pairs of little-endian uint64
// key and value, ending at AT_NULL) for AT_HWCAP2 and tests its FSGSBASE bit.
// A truncated vector or one without AT_HWCAP2 answers false.
func hwcap2HasFSGSBase(auxv []byte) bool {
	for ; len(auxv) >= 16; auxv = auxv[16:] {
		key, val := binary.LittleEndian.Uint64(auxv), binary.LittleEndian.Uint64(auxv[8:])
		if key == 0 {
			break
		}
		if key == atHWCAP2 {
			return val&hwcap2FSGSBase != 0
		}
	}
	return false
}
