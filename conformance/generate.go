package conformance

import (
	"math/rand/v2"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// The one generator of op sequences. A Chooser makes every choice: seeded
// random (NewRandChooser), rapid draws (rapid shrinks by lowering them) or
// a fuzzer's bytes (ByteChooser). Choice 0 is always the simplest option, so
// a lowered draw simplifies. The generator steers by a Model of the
// sequence so far; each op kind offers its own candidates (opClass.gen),
// weighted in tenths.

// Chooser makes one choice in [0, n); label names it (rapid shows labels).
type Chooser interface {
	IntN(n int, label string) int
}

type randChooser struct{ r *rand.Rand }

func (c randChooser) IntN(n int, _ string) int {
	if n <= 1 {
		return 0
	}
	return c.r.IntN(n)
}

// NewRandChooser is a seeded pseudo-random Chooser.
func NewRandChooser(seed uint64) Chooser {
	return randChooser{rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))}
}

// ByteChooser reads choices from bytes: one for n <= 256, two (LE) above,
// mod n; past the end every choice is 0.
type ByteChooser struct {
	b []byte
	i int
}

// NewByteChooser chooses from b.
func NewByteChooser(b []byte) *ByteChooser { return &ByteChooser{b: b} }

func (c *ByteChooser) next() byte {
	if c.i++; c.i > len(c.b) {
		return 0
	}
	return c.b[c.i-1]
}

// IntN implements Chooser.
func (c *ByteChooser) IntN(n int, _ string) int {
	if n <= 1 {
		return 0
	}
	v := uint32(c.next())
	if n > 256 {
		v |= uint32(c.next()) << 8
	}
	return int(v % uint32(n))
}

// Exhausted reports whether every byte has been read.
func (c *ByteChooser) Exhausted() bool { return c.i >= len(c.b) }

// GenOptions configure a Generator.
type GenOptions struct {
	Seed    uint64         // Generate's seed
	Ops     int            // Generate's ops per sequence
	Slots   int            // contexts c0..c(Slots-1) (default 3)
	Devices int            // devices 0..Devices-1 (default 2)
	Caps    catalogue.Caps // what the target can drive: nothing needing more is generated
	Profile model.Profile  // the build profile the sequence is biased for
	// HoldMs enables the X-2 hold ops with this hold time (0: none), at most
	// MaxHolds of them (0: no limit).
	HoldMs   int32
	MaxHolds int
	// NoFill leaves out the rare prepare that fills a context past 8192
	// residents (M-4); FillOneIn is its odds on a kernel context (0: 1/300).
	NoFill    bool
	FillOneIn int
	// Comm offers the comm family's ops (off, a seed's sequence is what it
	// was before they existed); CommOnly offers nothing else.
	Comm, CommOnly bool
}

// Generator draws one op at a time.
type Generator struct {
	o      GenOptions
	st     model.State
	ops    []op.Op
	imgs   []op.ImageRecipe // recipes used so far (for clobber)
	filled bool
	holds  int
	cs     []candidate // scratch of next: a draw allocates no slices
	gs     genState
	due    []op.Op // the other ranks' calls a collective owes (genCommCollective)
}

// NewGenerator starts an empty sequence.
func NewGenerator(o GenOptions) *Generator {
	if o.Profile == "" {
		o.Profile = model.ProfileTMR
	}
	if o.Slots <= 0 {
		o.Slots = 3
	}
	o.Slots = min(o.Slots, op.MaxSlots)
	if o.Devices <= 0 {
		o.Devices = 2
	}
	o.Comm = o.Comm || o.CommOnly
	mo := checkModelOptions(o.Profile, o.Caps)
	mo.Resumes = true
	return &Generator{o: o, st: model.NewState(mo)}
}

// MixesComm reports whether the random sequence of seed mixes in the comm
// family's ops: every second one, so the others keep their draws.
func MixesComm(seed uint64) bool { return seed%2 == 1 }

// Generate is a seeded random sequence of o.Ops ops.
func Generate(o GenOptions) []op.Op {
	g := NewGenerator(o)
	c := NewRandChooser(o.Seed)
	for len(g.ops) < o.Ops {
		g.Next(c)
	}
	return g.ops
}

// Ops is the sequence so far.
func (g *Generator) Ops() []op.Op { return g.ops }

// Model is the generator's model of the sequence so far.
func (g *Generator) Model() *model.Model { return g.st.Model() }

// Next draws one op the target can run, appends it and steps the model.
func (g *Generator) Next(c Chooser) op.Op {
	op := g.next(c)
	g.ops = append(g.ops, op)
	if op.Kind.CommCodes() && g.st.Model().CommWaits(op) != "" { // the runner parks it
		g.st = model.Park(g.st, len(g.ops)-1, op, nil)
	} else {
		g.st, _ = model.Step(g.st, 0, 0, op, nil)
	}
	for _, i := range g.st.Model().Released() {
		g.st = model.JoinParked(g.st, i, len(g.ops)-1)
	}
	return op
}

// runnable reports whether the target can run op.
func (g *Generator) runnable(op op.Op) bool {
	if need, _, _ := needs(op); !g.o.Caps.Has(need) {
		return false
	}
	return g.o.Profile != model.ProfileLegacy || legacyUnavailable(op) == ""
}

// genState is the slots by what the model says they hold.
type genState struct {
	live, free, fresh, kernel, dispatch, ready, program, callable []int8
	commLive, commFree                                            []int8 // comm handle slots
}

// draw makes one candidate op; it captures nothing, so offering one
// allocates nothing.
type draw func(g *Generator, ch Chooser) op.Op

// add offers a candidate op with weight w (tenths) for the current draw.
func (g *Generator) add(w int, f draw) {
	if w > 0 {
		g.cs = append(g.cs, candidate{w: w, f: f})
	}
}

// onSlot offers on's op (nil: kind k alone) on a slot of set, weight w.
func (g *Generator) onSlot(w int, set []int8, k op.Kind, on func(g *Generator, ch Chooser, slot int8) op.Op) {
	if w > 0 && len(set) > 0 {
		g.cs = append(g.cs, candidate{w: w, k: k, set: set, on: on})
	}
}

// onNull offers kind k on a NULL context with weight w (S-3).
func (g *Generator) onNull(w int, k op.Kind) { g.cs = append(g.cs, candidate{w: w, k: k}) }

type candidate struct {
	w   int
	f   draw
	k   op.Kind
	set []int8
	on  func(g *Generator, ch Chooser, slot int8) op.Op
}

func (c *candidate) draw(g *Generator, ch Chooser) op.Op {
	switch {
	case c.f != nil:
		return c.f(g, ch)
	case c.set == nil:
		return op.Op{Kind: c.k, C: op.NullRef}
	case c.on != nil:
		return c.on(g, ch, g.pick(ch, "slot", c.set))
	}
	return op.Op{Kind: c.k, C: g.pick(ch, "slot", c.set)}
}

// classify sorts the live slots into the lists the op classes draw from.
func (s *genState) classify(g *Generator, armed bool) {
	s.live, s.fresh, s.callable, s.kernel = s.live[:0], s.fresh[:0], s.callable[:0], s.kernel[:0]
	s.dispatch, s.ready, s.program, s.free = s.dispatch[:0], s.ready[:0], s.program[:0], s.free[:0]
	for i := 0; i < g.o.Slots; i++ {
		sl := int8(i)
		c, ok := g.st.Model().Context(sl)
		if !ok || !c.Live {
			s.free = append(s.free, sl)
			continue
		}
		s.live = append(s.live, sl)
		if c.Latch == model.Unlatched {
			s.fresh = append(s.fresh, sl)
		}
		// Dispatch on a quarantined context must not consume armed sites.
		if !c.DispatchAny || !armed {
			s.callable = append(s.callable, sl)
		}
		if c.Latch == model.LatchKernel {
			s.kernel = append(s.kernel, sl)
			if c.Dispatch && !c.DispatchAny {
				s.dispatch = append(s.dispatch, sl)
				if c.IDs > 0 {
					s.ready = append(s.ready, sl)
				}
			}
		}
		if c.Latch == model.LatchProgram && c.Attached && !c.Unknown {
			s.program = append(s.program, sl)
		}
	}
}

func (g *Generator) next(ch Chooser) op.Op {
	if o, ok := g.owed(ch); ok {
		return o
	}
	m := g.st.Model()
	if _, known := m.Device(); !known && g.o.Caps.Has(catalogue.CapSetDevice) { // restore it (D-2)
		return op.Op{Kind: op.KindSetDev, Dev: g.dev(ch)}
	}
	armed := false
	for s := int32(0); s <= abi.LastSite; s++ {
		armed = armed || m.SiteArmed(s)
	}
	s := &g.gs
	s.classify(g, armed)
	g.cs = g.cs[:0]
	for k, cls := range opClasses {
		if g.o.CommOnly && !op.Kind(k).CommCodes() {
			continue
		}
		if cls != nil && cls.gen != nil {
			cls.gen(g, s)
		}
	}
	cs := g.cs
	for {
		at := pickWeighted(ch, "kind", len(cs), func(i int) int { return cs[i].w })
		if at < 0 {
			return op.Op{Kind: op.KindContract} // runs on every target
		}
		if op := cs[at].draw(g, ch); g.runnable(op) {
			return op
		}
		cs = append(cs[:at], cs[at+1:]...)
	}
}

// pickWeighted draws one of n choices, i with weight w(i); -1 (no draw)
// when the weights sum to 0.
func pickWeighted(ch Chooser, label string, n int, w func(int) int) int {
	total := 0
	for i := range n {
		total += w(i)
	}
	if total == 0 {
		return -1
	}
	k := ch.IntN(total, label)
	for i := range n - 1 {
		if k < w(i) {
			return i
		}
		k -= w(i)
	}
	return n - 1
}

func (g *Generator) pick(ch Chooser, label string, xs []int8) int8 {
	return xs[ch.IntN(len(xs), label)]
}

// dev is a device, 0..Devices-1.
func (g *Generator) dev(ch Chooser) int32 { return int32(ch.IntN(g.o.Devices, "dev")) }

// devAny is mostly a device, sometimes a negative one (IA).
func (g *Generator) devAny(ch Chooser) int32 {
	if ch.IntN(12, "baddev") == 11 {
		return -1
	}
	return g.dev(ch)
}

// cfg is a CallConfig recipe: mostly valid, otherwise one V-CFG family.
func (g *Generator) cfg(ch Chooser) op.CfgRecipe {
	switch ch.IntN(16, "cfg") {
	case 0, 1, 2, 3, 4, 5, 6, 7, 8:
		return op.CfgRecipe{}
	case 9:
		return op.CfgRecipe{Null: true}
	case 10: // kernel-unsupported diagnostics, one or a mix (V-CFG)
		if d := ch.IntN(5, "diag"); d < 4 {
			return [4]op.CfgRecipe{{PMU: true}, {Dump: true}, {Scope: true}, {Anchors: true}}[d]
		}
		return op.CfgRecipe{PMU: ch.IntN(2, "pmu") == 0, Dump: ch.IntN(2, "dump") == 0,
			Scope: ch.IntN(2, "scope") == 0, Anchors: ch.IntN(2, "anchors") == 0, Threads: int8(ch.IntN(6, "threads"))}
	case 11:
		return op.CfgRecipe{Threads: int8(ch.IntN(8, "threads") - 1)} // -1..6: both sides of [2, 4]
	case 12:
		return op.CfgRecipe{Swim: int8(ch.IntN(8, "swim") - 1), Prefix: ch.IntN(2, "prefix") == 0} // -1..6
	case 13: // prefix and unterm exclude each other
		k := ch.IntN(3, "prefix")
		return op.CfgRecipe{DepGen: true, Prefix: k == 1, Unterm: k == 2}
	case 14:
		return op.CfgRecipe{Ring: op.RingRecipe(ch.IntN(int(op.NumGenRings), "ring")), Anchors: ch.IntN(5, "anchors") == 0}
	}
	return op.CfgRecipe{Swim: 2, Prefix: true, Threads: int8(2 + ch.IntN(3, "threads")), Ring: op.RingGood}
}

// spans are n binary spans: mostly all (NULL, 0), else each any recipe.
func (g *Generator) spans(ch Chooser, n int) [4]op.SpanRecipe {
	var s [4]op.SpanRecipe
	if ch.IntN(5, "spans") != 4 {
		return s
	}
	for i := 0; i < n; i++ {
		s[i] = op.SpanRecipe(ch.IntN(int(op.NumSpans), "span"))
	}
	return s
}

// Image recipes: plain images vary every size field; a deformed one is a
// base with one modifier (bounding the process-wide image cache).
var (
	genBinSizes  = []uint32{0, 16, 100, 1000}
	genImgBases  = []op.ImageRecipe{{}, {T: 1, S: 1}, {T: 2, S: 1, C: 2, B: 100}, {C: 1}}
	genShorts    = []uint32{1, 4, 8, 16, 63, 64}
	genLongs     = []uint32{1, 8, 64, 128}
	genPokeBytes = []uint32{0, 1, 4, 1024, 1028, 1032, 1033, 1096, 1100, 5196, 9292, 9296, 9360, 9364, 9375}
	genPokeU32s  = []uint32{op.OffSigCount, op.OffBinarySize, op.OffFuncLen, op.OffChildCount, op.OffCfgLen, op.OffScalarCnt, op.OffChildOffs}
	genPokeVals  = []uint32{0, 1, 2, 3, 7, 64, 128, 255, 257, 1025, 2000, 0xFFFFFFFF}
)

func pickU32(ch Chooser, label string, xs []uint32) uint32 { return xs[ch.IntN(len(xs), label)] }

func (g *Generator) image(ch Chooser) op.ImageRecipe {
	if ch.IntN(5, "deformed") != 4 {
		r := op.ImageRecipe{T: uint16(ch.IntN(4, "t")), S: uint16(ch.IntN(3, "s")), X: uint16(ch.IntN(3, "x"))}
		if ch.IntN(3, "children") == 2 {
			r.C = uint16(1 + ch.IntN(2, "c"))
		}
		r.B = pickU32(ch, "b", genBinSizes)
		r.NoSC = ch.IntN(10, "nosc") == 9
		r.IO = ch.IntN(4, "io") == 3     // OUT and INOUT entries too (V-IMG.4)
		r.Edge = ch.IntN(8, "edge") == 7 // nothing past the span is readable (V-IMG.1)
		return r
	}
	r := genImgBases[ch.IntN(len(genImgBases), "base")]
	switch ch.IntN(7, "modifier") {
	case 0:
		r.Mis = uint8(1 + ch.IntN(15, "mis"))
	case 1:
		r.Short = pickU32(ch, "short", genShorts)
	case 2:
		r.Long = pickU32(ch, "long", genLongs)
	case 3:
		r.Defect = op.ImgDefect(1 + ch.IntN(int(op.NumGenDefects)-1, "defect"))
	case 4:
		r.Poke, r.PokeOff, r.PokeVal = op.PokeByte, pickU32(ch, "off", genPokeBytes), pickU32(ch, "val", genPokeVals)&0xFF
	case 5:
		r.Poke, r.PokeOff, r.PokeVal = op.PokeU32, pickU32(ch, "off", genPokeU32s), pickU32(ch, "val", genPokeVals)
	case 6:
		r.Short = op.HeaderSize // below sizeof(ChipCallable)
	}
	return r
}

// rep is a repetition count: mostly none, now and then 2..4.
func (g *Generator) rep(ch Chooser) uint32 {
	if ch.IntN(16, "rep") == 15 {
		return uint32(2 + ch.IntN(3, "n"))
	}
	return 0
}

// remember keeps an image recipe for a later clobber.
func (g *Generator) remember(r op.ImageRecipe) {
	g.imgs = append(g.imgs, r)
	if len(g.imgs) > 16 {
		g.imgs = g.imgs[1:]
	}
}

// stream is a stream for a launch on slot: mostly the context's last one.
func (g *Generator) stream(ch Chooser, slot int8) int8 {
	c, _ := g.st.Model().Context(slot)
	s := c.LastStream
	if s < 0 || ch.IntN(5, "newstream") == 4 {
		s = int8(ch.IntN(3, "stream"))
	}
	return s
}
