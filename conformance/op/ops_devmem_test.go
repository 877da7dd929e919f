package op

import (
	"bytes"
	"testing"
)

// E-DESTROY, E-PROG: a dev_read tells what an allocation holds from its
// bytes alone. DevContent names the seed of a slot's own pattern, at every
// size; two seeds, or two slots, never leave the same bytes; and bytes
// that are no write's pattern of the slot (zeros, another slot's pattern,
// one byte changed) name nothing.
func TestDevPatternNamesItsSeed(t *testing.T) {
	for _, size := range []int{1, 2, 3, 8, 64, 100, 4096} {
		for a := int8(0); a < MaxAllocs; a++ {
			seen := map[string]uint8{}
			for s := 0; s < 256; s++ {
				b := make([]byte, size)
				DevPattern(b, a, uint8(s))
				if got := DevContent(b, a); got != DevHolds(uint8(s)) {
					t.Fatalf("size %d a%d seed %d: DevContent = %d, want %d", size, a, s, got, DevHolds(uint8(s)))
				}
				if prev, dup := seen[string(b)]; dup {
					t.Fatalf("size %d a%d: seeds %d and %d write the same bytes", size, a, prev, s)
				}
				seen[string(b)] = uint8(s)
				if size < 2 {
					continue
				}
				if other := DevContent(b, (a+1)%MaxAllocs); other != 0 {
					t.Errorf("size %d: a%d's pattern of seed %d reads as %s in a%d", size, a, s, DevHoldsText(other), (a+1)%MaxAllocs)
				}
				if size > 2 {
					c := bytes.Clone(b)
					c[size-1] ^= 1
					if got := DevContent(c, a); got != 0 {
						t.Errorf("size %d a%d seed %d: a changed last byte reads as %s", size, a, s, DevHoldsText(got))
					}
				}
			}
		}
		if got := DevContent(make([]byte, size), 0); got != 0 && size > 1 {
			t.Errorf("size %d: zeros read as %s", size, DevHoldsText(got))
		}
	}
	if DevHoldsText(0) != "no pattern of this slot" || DevHoldsText(DevHolds(7)) != "the pattern of seed 7" {
		t.Errorf("DevHoldsText: %q, %q", DevHoldsText(0), DevHoldsText(DevHolds(7)))
	}
}
