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
	// RuntimeSize and RuntimeAlignment are what get_runtime_size and
	// get_runtime_alignment answer (§10).
	RuntimeSize      = 64
	RuntimeAlignment = 64
	// MaxDerivedImage bounds the size simpler_register_callable derives
	// from an image header (§10).
	MaxDerivedImage = 1 << 40
)

// The simulated kernels, chosen at prepare by func_name (§7).
const (
	KernelAddScalarF32 = "simabi.add_scalar_f32"
	KernelCopyBytes    = "simabi.copy_bytes"
)
