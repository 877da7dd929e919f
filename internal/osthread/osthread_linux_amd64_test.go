package osthread

import (
	"encoding/binary"
	"testing"
)

// The auxv scan that gates RDFSBASE: AT_HWCAP2 (26) bit 1 (FSGSBASE),
// stopping at AT_NULL and at a truncated pair.
func TestHWCAP2Parsing(t *testing.T) {
	auxv := func(pairs ...uint64) []byte {
		b := make([]byte, 8*len(pairs))
		for i, v := range pairs {
			binary.LittleEndian.PutUint64(b[8*i:], v)
		}
		return b
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"bit set", auxv(16, 0xff, 26, 2, 0, 0), true},
		{"bit set, no AT_NULL", auxv(26, 3), true},
		{"bit clear", auxv(26, 1, 0, 0), false},
		{"absent", auxv(16, 2, 0, 0), false},
		{"after AT_NULL", auxv(0, 0, 26, 2), false},
		{"truncated", auxv(26, 2)[:12], false},
		{"empty", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := hwcap2HasFSGSBase(tc.b); got != tc.want {
				t.Fatalf("hwcap2HasFSGSBase = %v, want %v", got, tc.want)
			}
		})
	}
	if got := hwcap2HasFSGSBase(readAuxv()); got != FastPath() {
		t.Fatalf("FastPath() = %v, but this process's auxv says %v", FastPath(), got)
	}
}
