package abi

// Profile is a runtime build's profile (docs/contract.md "Revisions and
// profiles"), fixed for the build's lifetime: the one name of a build's
// flavour for every package (the simulator's and the emitter's profiles,
// what onboard detects, what the checker holds a build to).
type Profile string

// Profiles.
const (
	// ProfileTMR: tensormap_and_ringbuffer on silicon, the full kernel
	// lifecycle; simpler_kernel_mode_supported is 1.
	ProfileTMR Profile = "tmr"
	// ProfileRefusing: host_build_graph, the simulator and stub builds: the
	// kernel entries validate, then refuse; supported is 0.
	ProfileRefusing Profile = "refusing"
	// ProfileLegacy: a build from before the kernel ABI: no kernel entries,
	// the 9-parameter simpler_init, legacy codes.
	ProfileLegacy Profile = "legacy"
)

// Profiles lists every profile.
func Profiles() []Profile { return []Profile{ProfileTMR, ProfileRefusing, ProfileLegacy} }

// ParseProfile reads a profile's name.
func ParseProfile(s string) (Profile, bool) {
	for _, p := range Profiles() {
		if string(p) == s {
			return p, true
		}
	}
	return ProfileTMR, false
}

func (p Profile) String() string { return string(p) }

// Revision is the ABI revision of a build of profile p.
func (p Profile) Revision() Revision {
	if p == ProfileLegacy {
		return RevLegacy
	}
	return RevKernel
}
