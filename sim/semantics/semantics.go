// Package semantics holds the values docs/semantics.md pins for the two
// simulated runtimes (sim and the runtime sim/emit writes in C), where the
// contract leaves the choice to the implementation: both take them from
// here, so they cannot drift, and the emitter does not depend on the Go
// runtime to know them.
package semantics

const (
	// PersistentLaunchRegionBytes is the region the first launch commits
	// (§7).
	PersistentLaunchRegionBytes = 65536
	// DeviceMemoryTotal is the simulated HBM (§10).
	DeviceMemoryTotal = 32 << 30
	// MaxDerivedImage bounds the size simpler_register_callable derives
	// from an image header (§10).
	MaxDerivedImage = 1 << 40
)

// The simulated kernels, chosen at prepare by func_name (§7).
const (
	KernelAddScalarF32 = "simabi.add_scalar_f32"
	KernelCopyBytes    = "simabi.copy_bytes"
)

// The simulated comm backend (docs/semantics.md §14): upstream's
// comm_sim.cpp at 6ebaf77, whose shared-memory segments the Go runtime and
// the emitted C runtime name and lay out alike, so that ranks of either
// kind join one communicator.
const (
	// CommHeaderBytes is the session header before the windows of a
	// segment (upstream's HEADER_SIZE).
	CommHeaderBytes = 4096
	// CommTimeoutMs is how long a wait for peers lasts by default
	// (upstream's SIM_COMM_TIMEOUT_SECONDS).
	CommTimeoutMs = 120000
	// CommAttachPollMicros and CommBarrierPollMicros are the pauses
	// between two looks at a segment while waiting: for its size, its
	// creator's publication and the destroy and release barriers; for the
	// ready barrier and comm_barrier.
	CommAttachPollMicros  = 1000
	CommBarrierPollMicros = 50
	// CommShmPrefix begins every segment name; the name is the prefix and
	// two 8-digit lower-case hex fields joined by '_' (26 bytes).
	CommShmPrefix = "/simpler_"
	// CommShmNameLen is the length of every segment name.
	CommShmNameLen = len(CommShmPrefix) + 8 + 1 + 8
)

// The session header's fields (int32 each, then a 64-bit window size), as
// upstream lays them out.
const (
	CommHdrNRanks       = 0
	CommHdrAllocDone    = 4
	CommHdrReadyCount   = 8
	CommHdrBarrierCount = 12
	CommHdrBarrierPhase = 16
	CommHdrDestroyCount = 20
	CommHdrWinSize      = 24
)

// The parameters of libstdc++'s std::hash<std::string> where size_t is 64
// bits: std::_Hash_bytes (libsupc++/hash_bytes.cc, a MurmurHash2-style
// function) over the string's bytes with seed CommStdHashSeed.
const (
	CommStdHashSeed = 0xc70f6907
	CommStdHashMul  = 0xc6a4a7935bd1e995
)

// StdHash is libstdc++'s std::hash<std::string>{}(s) on a 64-bit target:
// 8-byte words loaded unaligned and little-endian (as an x86-64 or aarch64
// build loads them), then the 1 to 7 tail bytes as one little-endian
// number, each mixed in; then a final mix.
func StdHash(s string) uint64 {
	const mul = CommStdHashMul
	shiftMix := func(v uint64) uint64 { return v ^ v>>47 }
	n := len(s)
	h := uint64(CommStdHashSeed) ^ uint64(n)*mul
	i := 0
	for ; i+8 <= n; i += 8 {
		var w uint64
		for j := 7; j >= 0; j-- {
			w = w<<8 | uint64(s[i+j])
		}
		h ^= shiftMix(w*mul) * mul
		h *= mul
	}
	if i < n {
		var w uint64
		for j := n - 1; j >= i; j-- {
			w = w<<8 | uint64(s[j])
		}
		h ^= w
		h *= mul
	}
	return shiftMix(shiftMix(h) * mul)
}

// CommNameHash is the 32-bit hash that names segments, upstream's hash_id:
// std::hash<std::string> of s folded to 32 bits (h ^ h>>32), so that a
// simulated rank and a rank of upstream's build name a segment alike.
func CommNameHash(s string) uint32 {
	h := StdHash(s)
	return uint32(h ^ h>>32)
}

// CommShmName is the segment name of a process tree (a pid) and a session
// hash: "/simpler_%08x_%08x".
func CommShmName(tree, session uint32) string {
	const hexdigits = "0123456789abcdef"
	b := make([]byte, 0, CommShmNameLen)
	b = append(b, CommShmPrefix...)
	for _, v := range [2]uint32{tree, session} {
		for shift := 28; shift >= 0; shift -= 4 {
			b = append(b, hexdigits[v>>uint(shift)&0xF])
		}
		b = append(b, '_')
	}
	return string(b[:len(b)-1])
}

// CommSessionName is the segment of a communicator: every rank a parent
// launched with one rootinfo path agrees on it (upstream mixes in
// getppid()).
func CommSessionName(ppid uint32, rootinfoPath string) string {
	return CommShmName(ppid, CommNameHash(rootinfoPath))
}

// CommAllocName is the segment of domain allocation id of the session
// named base.
func CommAllocName(ppid uint32, base string, allocationID uint64) string {
	return CommShmName(ppid, CommNameHash(base+":alloc:"+utoa(allocationID)))
}

// CommGlobalName is the window of rank domainRank of global domain
// domainID prepared by process pid.
func CommGlobalName(pid uint32, domainID uint64, domainRank uint32) string {
	return CommShmName(pid, CommNameHash(utoa(domainID)+":"+utoa(uint64(domainRank))))
}

// utoa is the decimal of v (this package imports nothing).
func utoa(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}
