package op

import (
	"bytes"
	"strings"
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

// E-PROG.30-34's op forms: every one parses back to itself, and a
// malformed one is refused with a reason naming its argument.
func TestDevOpsRoundTrip(t *testing.T) {
	for _, line := range []string{
		"dev_alloc c0 a=0 size=0", "dev_alloc c0 a=3 size=1048576", "dev_alloc c1 a=2 size=huge",
		"dev_write c0 a=0 seed=1", "dev_write c0 a=0 seed=1 host=null",
		"dev_write c0 a=1 seed=255 off=56 len=72", "dev_write c0 a=0 seed=2 off=0 len=huge",
		"dev_write c0 a=0 seed=2 off=64 len=0", "dev_write c0 a=0 seed=5 cross=1 host=null",
		"dev_read c0 a=0", "dev_read c0 a=1 off=1048576 len=18446744073709551615", "dev_read c0 a=3 cross=0",
		"dev_free c0 a=0", "dev_free c0 a=0 at=1", "dev_free c0 a=1 ptr=unknown", "dev_free c0 a=1 ptr=freed", "dev_free c1 a=2 ptr=foreign",
	} {
		o, err := Parse(line)
		if err != nil {
			t.Errorf("Parse(%q): %v", line, err)
			continue
		}
		if got := o.String(); got != line {
			t.Errorf("Parse(%q).String() = %q", line, got)
		}
		if back, err := Parse(o.String()); err != nil || back != o {
			t.Errorf("%q does not parse back: %v", line, err)
		}
	}
	if o := MustParse("dev_read c0 a=0 off=0 len=4611686018427387904"); o.String() != "dev_read c0 a=0 off=0 len=huge" || o.Mem.Len != DevHugeSize {
		t.Errorf("len=2^62 reads back as %q (len %d)", o, o.Mem.Len)
	}
	for _, tc := range []struct{ line, want string }{
		{"dev_alloc c0 a=0 size=1048577", "size=1048577: want 0..1048576 bytes, or huge"},
		{"dev_write c0 a=0 seed=1 off=8", "a span takes both off= and len="},
		{"dev_read c0 a=0 len=8", "a span takes both off= and len="},
		{"dev_read c0 a=0 off=1048577 len=1", "off=1048577: want 0..1048576"},
		{"dev_read c0 a=0 off=0 len=x", `bad len "x"`},
		{"dev_read c0 a=0 cross=0", `bad cross="0" (another allocation slot 0..3)`},
		{"dev_read c0 a=0 cross=1 off=0 len=8", "cross=1 takes no off= or len="},
		{"dev_free c0 a=0 at=0", "at=0: want 1..1048576 bytes into the allocation"},
		{"dev_free c0 a=0 ptr=stale", `bad ptr="stale" (unknown, freed or foreign)`},
		{"dev_free c0 a=0 at=8 ptr=unknown", "at= and ptr= name two pointers"},
	} {
		_, err := Parse(tc.line)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.line, err, tc.want)
		}
	}
}

// E-PROG: the pattern is the same byte stream as before it was streamed
// (bytes and an FNV-1a of a MiB computed by the loop it replaced), and a
// span read back at an offset is checked against that stretch of it.
func TestDevPatternStream(t *testing.T) {
	b := make([]byte, 12)
	DevPattern(b, 3, 200)
	if want := []byte{0x6d, 0x59, 0xdc, 0x96, 0xaf, 0xa8, 0x7d, 0xc3, 0x86, 0x89, 0xe3, 0xf1}; !bytes.Equal(b, want) {
		t.Fatalf("DevPattern(a3, seed 200) = %#v, want %#v", b, want)
	}
	c := make([]byte, 1<<20)
	DevPattern(c, 7, 9)
	h := uint64(14695981039346656037)
	for _, v := range c {
		h ^= uint64(v)
		h *= 1099511628211
	}
	if h != 0x13217f19ef1784dd {
		t.Fatalf("DevPattern(a7, seed 9), 1 MiB: FNV-1a %#x, want 0x13217f19ef1784dd", h)
	}
	for _, off := range []uint32{0, 1, 2, 3, 4095} {
		span := c[off : off+64]
		if got := DevSpanContent(span, 7, off, DevHolds(9)); got != DevHolds(9) {
			t.Errorf("offset %d: the pattern's own span reads as %d, want %d", off, got, DevHolds(9))
		}
		if got := DevSpanContent(span, 7, off+1, DevHolds(9)); got != 0 {
			t.Errorf("offset %d read as %d: a span one byte off names the pattern (%s)", off, off+1, DevHoldsText(got))
		}
	}
}
