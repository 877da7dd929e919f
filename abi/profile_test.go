package abi

import "testing"

func TestProfiles_parseAndRevision(t *testing.T) {
	want := map[Profile]Revision{ProfileTMR: RevKernel, ProfileRefusing: RevKernel, ProfileLegacy: RevLegacy}
	for _, p := range Profiles() {
		got, ok := ParseProfile(p.String())
		if !ok || got != p {
			t.Errorf("ParseProfile(%q) = %q, %v", p, got, ok)
		}
		if r := p.Revision(); r != want[p] {
			t.Errorf("%s.Revision() = %v, want %v", p, r, want[p])
		}
	}
	if _, ok := ParseProfile("kernel"); ok {
		t.Error(`ParseProfile("kernel") accepted a revision name as a profile`)
	}
}

func TestRevisionString(t *testing.T) {
	for r, want := range map[Revision]string{
		RevKernel:             "kernel",
		RevLegacy:             "legacy",
		RevKernel | RevLegacy: "kernel+legacy",
		0:                     "revision(0x0)",
		1 << 5:                "revision(0x20)",
	} {
		if got := r.String(); got != want {
			t.Errorf("Revision(%d).String() = %q, want %q", uint8(r), got, want)
		}
	}
}
