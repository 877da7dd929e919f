package catalogue

import "testing"

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
