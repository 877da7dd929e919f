//go:build linux && amd64

package sim

import (
	"encoding/binary"
	"os"
)

// rdfsbase returns the calling OS thread's FS base. Every OS thread has its
// own (Go's runtime, or the C library under cgo and the race detector, points
// FS at per-thread storage), so it identifies the thread in about a
// nanosecond. It faults (SIGILL) unless the kernel enabled FSGSBASE, so it is
// used only after fsbaseUsable.
//
//go:noescape
func rdfsbase() uintptr

// auxvHWCAP2 is AT_HWCAP2; hwcap2FSGSBASE is its FSGSBASE bit.
const (
	auxvHWCAP2     = 26
	hwcap2FSGSBASE = 1 << 1
)

// fsbaseUsable reports whether the kernel allows RDFSBASE in user mode, read
// from AT_HWCAP2 of /proc/self/auxv. Any failure to read it answers false.
func fsbaseUsable() bool {
	b, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		return false
	}
	return hwcap2HasFSGSBASE(b)
}

// hwcap2HasFSGSBASE scans an auxiliary vector (pairs of little-endian uint64
// key and value, ending at AT_NULL) for AT_HWCAP2 and tests bit 1.
func hwcap2HasFSGSBASE(auxv []byte) bool {
	for i := 0; i+16 <= len(auxv); i += 16 {
		key := binary.LittleEndian.Uint64(auxv[i:])
		if key == 0 {
			break
		}
		if key == auxvHWCAP2 {
			return binary.LittleEndian.Uint64(auxv[i+8:])&hwcap2FSGSBASE != 0
		}
	}
	return false
}
