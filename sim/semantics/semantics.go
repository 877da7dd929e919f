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
// the emitted C runtime lay out alike (and name alike: abi's
// CommSessionName and kin), so that ranks of either kind join one
// communicator.
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
