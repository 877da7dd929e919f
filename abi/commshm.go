package abi

import "strconv"

// CommSegmentPrefix begins the name of every POSIX shared-memory segment
// the simulated comm backend names after process pid (E-COMM: a session's
// and a domain allocation's after the parent of the rank that made them, a
// global domain's after the rank's own process): "simpler_", pid as 8
// lowercase hex digits, "_", without shm_open's leading slash. It is how
// the file shows in /dev/shm; a checker removes what dead processes left.
func CommSegmentPrefix(pid uint32) string {
	h := strconv.FormatUint(uint64(pid), 16)
	for len(h) < 8 {
		h = "0" + h
	}
	return "simpler_" + h + "_"
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
