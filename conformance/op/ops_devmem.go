package op

import (
	"slices"
	"strconv"
)

// Device memory of a program context (E-PROG, E-DESTROY) in allocation
// slots the runner owns (a0..a3): unlike the prog op's NULL pointers, these
// keep an allocation alive across the calls that must leave it alone.

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
// allocation of the op's context (the zero value), E-PROG.30-34.
type DevArgs struct {
	// Span: off=K len=N, the span [base+Off, base+Off+Len) of the slot's
	// allocation, whatever its size.
	Span bool
	Off  uint32 // the span's start, or dev_free at=K's offset
	Len  uint64
	// Cross: cross=B, the span from the last 8 bytes of the lower of slot
	// A's and slot Into's allocations through the first 8 of the higher.
	Cross bool
	Into  int8
	Ptr   DevPtr // dev_free's pointer
	Huge  bool   // dev_alloc size=huge: DevHugeSize bytes
}

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

const (
	// DevHugeSize is size=huge and len=huge: no device or host has it, and
	// base + it wraps no address.
	DevHugeSize  = 1 << 62
	DevCrossEdge = 8 // how far a cross=B span reaches into each allocation
)

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
			if i := slices.Index(devPtrNames[:], ptr); ptr != "" && i >= 0 {
				p.op.Mem.Ptr = DevPtr(i)
				return
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

// devDef: an entry on a context slot (never NULL: the prog op holds that to
// S-3).
func devDef(name string, status bool, fields ...field) kindDef {
	return kindDef{name: name, args: ctxOne, entry: true, status: status, fields: fields}
}

// The pattern a dev_write leaves: byte 0 names the seed, byte 1 the slot,
// the rest an xorshift stream of both.
const (
	devSeedMark = 0xA5
	devSlotMark = 0x5A
)

// DevPattern fills b with the bytes dev_write seed=seed writes into the
// allocation of slot a.
func DevPattern(b []byte, a int8, seed uint8) {
	s := newDevStream(a, seed)
	for i := range b {
		b[i] = s.next()
	}
}

// devStream yields a pattern's bytes in order, so a read back is checked
// without building the pattern (a copy may pass megabytes).
type devStream struct {
	x    uint64
	head [2]byte
	i    int
}

func newDevStream(a int8, seed uint8) devStream {
	return devStream{x: 0x9E3779B97F4A7C15 ^ uint64(seed)<<8 ^ uint64(uint8(a))<<16, // never 0
		head: [2]byte{seed ^ devSeedMark, uint8(a) ^ devSlotMark}}
}

func (s *devStream) next() byte {
	if s.i < len(s.head) {
		s.i++
		return s.head[s.i-1]
	}
	s.x ^= s.x << 13
	s.x ^= s.x >> 7
	s.x ^= s.x << 17
	return byte(s.x >> 56)
}

// DevContent is DevHolds(seed) when b, read back from slot a, is exactly
// DevPattern(a, seed), else 0.
func DevContent(b []byte, a int8) uint64 {
	if len(b) == 0 {
		return 0
	}
	return DevSpanContent(b, a, 0, DevHolds(b[0]^devSeedMark))
}

// DevSpanContent is holds when b, read back from off in slot a, is exactly
// that seed's pattern there, else 0.
func DevSpanContent(b []byte, a int8, off uint32, holds uint64) uint64 {
	if holds == 0 || holds > 256 {
		return 0
	}
	s := newDevStream(a, uint8(holds-1))
	for range off {
		s.next()
	}
	for _, c := range b {
		if c != s.next() {
			return 0
		}
	}
	return holds
}

// DevHolds is the content code of the pattern of seed; 0 is no pattern, or
// not known.
func DevHolds(seed uint8) uint64 { return 1 + uint64(seed) }

// DevHoldsText renders a content code for findings.
func DevHoldsText(h uint64) string {
	if h == 0 || h > 256 {
		return "no pattern of this slot"
	}
	return "the pattern of seed " + strconv.FormatUint(h-1, 10)
}
