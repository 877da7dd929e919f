package op

import "strconv"

// Device memory of a program context with valid arguments (E-PROG,
// E-DESTROY): device_malloc_ctx into an allocation slot the runner owns
// (a0..a3, like run storage), copy_to_device_ctx of a deterministic pattern
// into it, copy_from_device_ctx of it compared with what the model says it
// holds, and device_free_ctx of it. The prog op calls the same entries with
// deliberately bad arguments; these keep an allocation alive across the
// calls that must leave it alone.

// MaxDevSize bounds dev_alloc's size: the runner keeps host buffers of it.
const MaxDevSize = 1 << 20

func init() {
	define(KindDevAlloc, devDef(kindDef{
		name: "dev_alloc",
		parse: func(p *opParser) {
			parseDevSlot(p)
			v, _ := p.take("size", true)
			n := p.uintv("size", v, 32)
			if n == 0 || n > MaxDevSize {
				p.fail("size=%s: want 1..%d bytes", v, MaxDevSize)
			}
			p.op.Size = uint32(n)
		},
		format: func(t *opText, op Op) {
			t.w(ctxText(op.C), "a="+strconv.Itoa(int(op.A)), "size="+strconv.FormatUint(uint64(op.Size), 10))
		},
	}))
	define(KindDevWrite, devDef(kindDef{
		name: "dev_write", status: true,
		parse: func(p *opParser) {
			parseDevSlot(p)
			v, _ := p.take("seed", true)
			p.op.Seed = uint8(p.uintv("seed", v, 8))
			p.op.OutNull = p.nullFlag("host")
		},
		format: func(t *opText, op Op) {
			t.w(ctxText(op.C), "a="+strconv.Itoa(int(op.A)), "seed="+strconv.Itoa(int(op.Seed)))
			hostText(t, op)
		},
	}))
	define(KindDevRead, devDef(kindDef{name: "dev_read", status: true,
		parse: func(p *opParser) {
			parseDevSlot(p)
			p.op.OutNull = p.nullFlag("host")
		},
		format: func(t *opText, op Op) {
			formatDevSlot(t, op)
			hostText(t, op)
		},
	}))
	define(KindDevFree, devDef(kindDef{name: "dev_free", parse: parseDevSlot, format: formatDevSlot}))
}

// devDef completes the definition of a device memory op: an entry on a
// context slot (never NULL: the prog op holds the NULL context to S-3).
func devDef(d kindDef) kindDef {
	d.args, d.entry = ctxOne, true
	return d
}

func parseDevSlot(p *opParser) {
	p.op.C = p.slot(p.positional(1)[0])
	v, _ := p.take("a", true)
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n >= MaxAllocs {
		p.fail("bad a=%q (allocation slot 0..%d)", v, MaxAllocs-1)
		return
	}
	p.op.A = int8(n)
}

func formatDevSlot(t *opText, op Op) { t.w(ctxText(op.C), "a="+strconv.Itoa(int(op.A))) }

// hostText is a copy's host=null: the copy passes a NULL host pointer
// with the allocation's device pointer and size (E-PROG.24).
func hostText(t *opText, op Op) {
	if op.OutNull {
		t.w("host=null")
	}
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
