package abi

import "strconv"

// The names of the simulated comm backend's POSIX shared-memory segments
// (E-COMM, docs/semantics.md §14), upstream's (comm_sim.cpp:85-137,
// :775-776): "/simpler_%08x_%08x" of a pid and a 32-bit hash of the
// segment's identity. sim and the runner compute them here; the emitted C
// runtime has its own copy, held equal by sim/emit's tests.
const (
	// CommShmPrefix begins every segment name; the name is the prefix and
	// two 8-digit lower-case hex fields joined by '_' (26 bytes).
	CommShmPrefix = "/simpler_"
	// CommShmNameLen is the length of every segment name.
	CommShmNameLen = len(CommShmPrefix) + 8 + 1 + 8
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
	return CommShmName(ppid, CommNameHash(base+":alloc:"+strconv.FormatUint(allocationID, 10)))
}

// CommGlobalName is the window of rank domainRank of global domain
// domainID prepared by process pid.
func CommGlobalName(pid uint32, domainID uint64, domainRank uint32) string {
	return CommShmName(pid, CommNameHash(strconv.FormatUint(domainID, 10)+":"+strconv.FormatUint(uint64(domainRank), 10)))
}

// CommSegmentPrefix begins the file in /dev/shm (the name without
// shm_open's leading slash) of every segment named after process pid (a
// session's and a domain allocation's after the parent of the rank that
// made them, a global domain's after the rank's own process): a checker
// removes by it what dead processes left.
func CommSegmentPrefix(pid uint32) string {
	return CommShmName(pid, 0)[1 : CommShmNameLen-8]
}

// CommDeriveRangeRefused says whether comm_derive_context refuses the range
// [offset, offset+size) of a base window of winSize bytes (E-COMM.15): an end
// past the window, or one that wraps past 2^64. Upstream's size_t sum lets a
// wrapping end through (comm_sim.cpp:449); the rule (ruled 2026-12-05) holds
// the family to its backend, not to that defect.
func CommDeriveRangeRefused(offset, size, winSize uint64) bool {
	end := offset + size
	return end < offset || end > winSize
}
