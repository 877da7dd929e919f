package catalogue

import (
	"math/bits"
	"testing"
)

// A skip names what the target lacks in a report's words, in one order;
// the hooks by their entries' names (abi's rows).
func TestCapsText(t *testing.T) {
	for _, tc := range []struct {
		c    Caps
		want string
	}{
		{0, ""},
		{CapUnload, "unloading a private copy"},
		{CapCommTimeout | CapInject | CapSetDevice, "set-device, simabi_inject, simabi_comm_timeout_ms"},
		{CapGate | CapReset | CapPeek, "simabi_hold_gate, simabi_reset, reading a CommContext (hooks)"},
	} {
		if got := tc.c.Text(); got != tc.want {
			t.Errorf("Caps(%#x).Text() = %q, want %q", uint16(tc.c), got, tc.want)
		}
	}
}

// Every capability has its names, and a "needs:" header's name is the bit's.
func TestCapNamesOnePerBit(t *testing.T) {
	if got, want := len(capNames), bits.Len16(uint16(CapCommTimeout)); got != want {
		t.Fatalf("%d capability names, want %d (one per bit up to CapCommTimeout)", got, want)
	}
	for _, tc := range []struct {
		name string
		want Caps
	}{{"setdev", CapSetDevice}, {"unload", CapUnload}, {"commtimeout", CapCommTimeout}} {
		if got, ok := capNamed(tc.name); !ok || got != tc.want {
			t.Errorf("capNamed(%q) = %#x, %v; want %#x", tc.name, uint16(got), ok, uint16(tc.want))
		}
	}
	if _, ok := capNamed("set-device"); ok {
		t.Error(`capNamed("set-device") found a report word, want only header names`)
	}
}
