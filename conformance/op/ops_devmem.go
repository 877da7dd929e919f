package op

import (
	"bytes"
	"strconv"
)

// Device memory of a program context (E-PROG, E-DESTROY):
// device_malloc_ctx into an allocation slot the runner owns (a0..a3, like
// run storage), copy_to_device_ctx of a deterministic pattern into it,
// copy_from_device_ctx of it compared with what the model says it holds,
// and device_free_ctx of it; DevArgs are the spans, pointers and sizes
// beyond a whole allocation (E-PROG.30-34). The prog op calls the same
// entries with NULL pointers; these keep an allocation alive across the
// calls that must leave it alone.

// MaxDevSize bounds dev_alloc's size: the runner keeps host buffers of it.
const MaxDevSize = 1 << 20

func init() {
	slot := []field{slotArg, nat("a", 0, MaxAllocs-1, func(o *Op) *int8 { return &o.A })}
	host := nullFlag("host", "", func(o *Op) *bool { return &o.OutNull })
	define(KindDevAlloc, devDef("dev_alloc", false, append(slot, devSizeKey)...))
	define(KindDevWrite, devDef("dev_write", true, append(slot, u8("seed", func(o *Op) *uint8 { return &o.Seed }), devSpan, host)...))
	define(KindDevRead, devDef("dev_read", true, append(slot, devSpan, host)...))
	define(KindDevFree, devDef("dev_free", false, append(slot, devPtr)...))
}

// DevArgs are a device memory op's arguments other than a whole live
// allocation of the op's context (the zero value): a copy's span relative
// to the slot's allocation, or one crossing into another slot's; the
// pointer a free passes; a dev_alloc of a huge size.
type DevArgs struct {
	// Span: off=K len=N, the copy's device span is [base+Off, base+Off+Len)
	// of the slot's allocation, whatever its size (past its end too).
	Span bool
	// Off is the span's start, or dev_free at=K's offset into the allocation.
	Off uint32
	Len uint64
	// Cross: cross=B, the span from the last 8 bytes of the lower of the two
	// allocations (slot A's and slot Into's) through the first 8 bytes of the
	// higher, whatever lies between them.
	Cross bool
	Into  int8
	Ptr   DevPtr // dev_free's pointer
	Huge  bool   // dev_alloc size=huge: DevHugeSize bytes
}

// DevPtr is the pointer a dev_free passes.
type DevPtr uint8

// The pointers of dev_free.
const (
	PtrBase     DevPtr = iota // the allocation's base: it frees it
	PtrInterior               // at=K: K bytes into the allocation
	PtrUnknown                // ptr=unknown: one no allocation ever had (a host buffer of the runner's)
	PtrFreed                  // ptr=freed: the one the slot's allocation had before it was freed
	PtrForeign                // ptr=foreign: the slot's allocation, of another context than the op's
)

var devPtrNames = [...]string{PtrUnknown: "unknown", PtrFreed: "freed", PtrForeign: "foreign"}

// DevHugeSize is size=huge, and len=huge: no device has it (32 GiB), no
// host can back it, and base + it wraps no address.
const DevHugeSize = 1 << 62

// DevCrossEdge is how far a cross=B span reaches into each allocation.
const DevCrossEdge = 8

// devSizeKey is dev_alloc's size=B (0..MaxDevSize), or size=huge (Mem.Huge).
var devSizeKey = field{key: "size", need: true, samples: []string{"0", "1048576", "huge"},
	read: func(p *opParser, v string) {
		if v == "huge" {
			p.op.Mem.Huge = true
			return
		}
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n > MaxDevSize {
			p.fail("size=%s: want 0..%d bytes, or huge", v, MaxDevSize)
		}
		p.op.Size = uint32(n)
	},
	text: func(o Op) string {
		if o.Mem.Huge {
			return "huge"
		}
		return strconv.FormatUint(uint64(o.Size), 10)
	},
}

// devSpan is a copy's span: off=K len=N|huge, or cross=B (Mem).
var devSpan = field{samples: []string{"", "off=56 len=72", "off=0 len=huge", "off=1048576 len=0", "cross=1"},
	take: func(p *opParser) {
		off, hasOff := p.take("off", false)
		n, hasLen := p.take("len", false)
		into, cross := p.take("cross", false)
		switch {
		case cross && (hasOff || hasLen):
			p.fail("cross=%s takes no off= or len=: the span is the allocations' edges", into)
		case cross:
			b, err := strconv.Atoi(into)
			if err != nil || b < 0 || b >= MaxAllocs || int8(b) == p.op.A {
				p.fail("bad cross=%q (another allocation slot 0..%d)", into, MaxAllocs-1)
			}
			p.op.Mem.Cross, p.op.Mem.Into = true, int8(b)
		case hasOff != hasLen:
			p.fail("a span takes both off= and len=")
		case hasOff:
			if p.op.Mem.Span, p.op.Mem.Off = true, uint32(p.uintv("off", off, 32)); p.op.Mem.Off > MaxDevSize {
				p.fail("off=%s: want 0..%d", off, MaxDevSize)
			}
			if p.op.Mem.Len = DevHugeSize; n != "huge" {
				p.op.Mem.Len = p.uintv("len", n, 64)
			}
		}
	},
	parts: func(o Op) []string {
		switch {
		case o.Mem.Cross:
			return []string{"cross=" + strconv.Itoa(int(o.Mem.Into))}
		case o.Mem.Span && o.Mem.Len == DevHugeSize:
			return []string{"off=" + strconv.FormatUint(uint64(o.Mem.Off), 10), "len=huge"}
		case o.Mem.Span:
			return []string{"off=" + strconv.FormatUint(uint64(o.Mem.Off), 10), "len=" + strconv.FormatUint(o.Mem.Len, 10)}
		}
		return nil
	},
}

// devPtr is dev_free's pointer: the base (none), at=K into the
// allocation, or ptr=unknown|freed|foreign (Mem).
var devPtr = field{samples: []string{"", "at=1", "at=1048576", "ptr=unknown", "ptr=freed", "ptr=foreign"},
	take: func(p *opParser) {
		at, hasAt := p.take("at", false)
		ptr, hasPtr := p.take("ptr", false)
		switch {
		case hasAt && hasPtr:
			p.fail("at= and ptr= name two pointers")
		case hasAt:
			k := p.uintv("at", at, 32)
			if k == 0 || k > MaxDevSize {
				p.fail("at=%s: want 1..%d bytes into the allocation", at, MaxDevSize)
			}
			p.op.Mem.Ptr, p.op.Mem.Off = PtrInterior, uint32(k)
		case hasPtr:
			for i, name := range devPtrNames {
				if name != "" && name == ptr {
					p.op.Mem.Ptr = DevPtr(i)
					return
				}
			}
			p.fail("bad ptr=%q (unknown, freed or foreign)", ptr)
		}
	},
	parts: func(o Op) []string {
		switch o.Mem.Ptr {
		case PtrBase:
			return nil
		case PtrInterior:
			return []string{"at=" + strconv.FormatUint(uint64(o.Mem.Off), 10)}
		}
		return []string{"ptr=" + devPtrNames[o.Mem.Ptr]}
	},
}

// devDef is the definition of a device memory op: an entry on a context
// slot (never NULL: the prog op holds the NULL context to S-3).
func devDef(name string, status bool, fields ...field) kindDef {
	return kindDef{name: name, args: ctxOne, entry: true, status: status, fields: fields}
}

// The pattern a dev_write leaves: byte 0 names the seed, byte 1 the slot,
// and the rest is an xorshift stream of both, so that two writes with
// different seeds, or into different slots, leave different bytes.
const (
	devSeedMark = 0xA5
	devSlotMark = 0x5A
)

// devStream is the xorshift state the pattern of slot a and seed starts
// from (never 0).
func devStream(a int8, seed uint8) uint64 {
	return 0x9E3779B97F4A7C15 ^ uint64(seed)<<8 ^ uint64(uint8(a))<<16
}

func devNext(x uint64) uint64 {
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	return x
}

// DevPattern fills b with the bytes dev_write seed=seed writes into the
// allocation of slot a.
func DevPattern(b []byte, a int8, seed uint8) {
	x := devStream(a, seed)
	for i := range b {
		switch i {
		case 0:
			b[i] = seed ^ devSeedMark
		case 1:
			b[i] = uint8(a) ^ devSlotMark
		default:
			x = devNext(x)
			b[i] = byte(x >> 56)
		}
	}
}

// DevContent names what b, read back from the allocation of slot a, holds:
// DevHolds(seed) when b is exactly DevPattern(a, seed), 0 when it is the
// pattern of no write into slot a.
func DevContent(b []byte, a int8) uint64 {
	if len(b) == 0 || (len(b) > 1 && b[1] != uint8(a)^devSlotMark) {
		return 0
	}
	seed := b[0] ^ devSeedMark
	x := devStream(a, seed)
	for i := 2; i < len(b); i++ {
		x = devNext(x)
		if b[i] != byte(x>>56) {
			return 0
		}
	}
	return DevHolds(seed)
}

// DevSpanContent names what b, read back from the span at off of slot a's
// allocation, holds: holds (DevHolds of a seed) when b is exactly that
// seed's pattern at off, else 0.
func DevSpanContent(b []byte, a int8, off uint32, holds uint64) uint64 {
	if holds == 0 || holds > 256 {
		return 0
	}
	want := make([]byte, int(off)+len(b))
	DevPattern(want, a, uint8(holds-1))
	if !bytes.Equal(b, want[off:]) {
		return 0
	}
	return holds
}

// DevHolds is the content code of an allocation that holds the pattern of
// seed (what DevContent answers for it); 0 is no pattern, or not known.
func DevHolds(seed uint8) uint64 { return 1 + uint64(seed) }

// DevHoldsText renders a content code for findings: "the pattern of seed
// N", or "no pattern of this slot".
func DevHoldsText(h uint64) string {
	if h == 0 || h > 256 {
		return "no pattern of this slot"
	}
	return "the pattern of seed " + strconv.FormatUint(h-1, 10)
}
