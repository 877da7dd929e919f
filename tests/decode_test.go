package tests

import (
	"pgregory.net/rapid"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/tests/conformance"
)

// This file turns choices into op sequences. One decoder serves the rapid
// state machines (every choice is a rapid draw, so rapid shrinks a failure
// by deleting steps and lowering draws) and FuzzOps (every choice is read
// from the fuzzer's bytes). The decoder covers the whole op space of
// conformance (tests/conformance/doc.go: every kind, every image, config,
// span, args and prog recipe family, fault sites 0..10 with valid and
// invalid arguments, the two-thread ops), bounded so that a sequence stays
// cheap: repetitions of at most 4 (and at most one fill to the resident
// limit per sequence, M-4), small images, and hold ops only when enabled.
//
// The decoder keeps a conformance.Model of the sequence so far, stepped along
// its primary expectation (Model.Expect, Model.Advance), and uses what it
// predicts — live slots, minted ids, the calling thread's device — to bias
// choices toward deep states: init, then prepares, then launches, finalize
// retries, device switches. Choice 0 is always the simplest option, so a
// shrunk draw is a simple op.

// holdMs is the hold time of the X-2 ops in random sequences: the second
// call starts 5 ms into the hold, and a launch that takes more than half of
// it counts as waiting (conformance/doc.go "Concurrency ops").
const holdMs = 20

// chooser makes one choice in [0, n).
type chooser interface {
	intn(n int, label string) int
}

// rapidChooser draws every choice from rapid.
type rapidChooser struct{ t *rapid.T }

func (c rapidChooser) intn(n int, label string) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(c.t, label)
}

// byteChooser reads choices from a byte string: one byte for n <= 256, two
// (little-endian) for larger n, reduced mod n; past the end every choice is
// 0. Any input decodes.
type byteChooser struct {
	b []byte
	i int
}

func (c *byteChooser) next() byte {
	if c.i >= len(c.b) {
		c.i++
		return 0
	}
	v := c.b[c.i]
	c.i++
	return v
}

func (c *byteChooser) intn(n int, _ string) int {
	if n <= 1 {
		return 0
	}
	v := uint32(c.next())
	if n > 256 {
		v |= uint32(c.next()) << 8
	}
	return int(v % uint32(n))
}

func (c *byteChooser) exhausted() bool { return c.i >= len(c.b) }

// decodeConfig bounds what the decoder produces.
type decodeConfig struct {
	Profile conformance.Profile
	Slots   int   // contexts c0..c(Slots-1)
	Devices int   // devices 0..Devices-1
	HoldMs  int32 // hold time of the X-2 ops; 0 leaves them out
	// MaxHolds caps the hold ops of one sequence (each costs HoldMs of wall
	// time); 0 means 3.
	MaxHolds int
	MaxOps   int
	NoFill   bool // leave out the fill to 8192 residents (M-4)
	// ACLOnly: the target has no simulation hooks, only an ACL (as on
	// silicon): no fault injection, no hold ops, no clearing or reading the
	// device, stream completion not driven; the runner starts on device 0.
	ACLOnly bool
}

// slotView is what the decoder believes about one slot, from the model's
// primary expectations.
type slotView struct {
	created    bool
	touched    bool // a kinit, pinit or acl was issued on it (latched or may be)
	kernel     bool // a kernel init was predicted to succeed
	closed     bool // a kernel finalize was predicted to succeed
	ids        int  // ids predicted minted
	lastStream int8
}

type decoder struct {
	cfg    decodeConfig
	m      *conformance.Model
	slots  [conformance.MaxSlots]slotView
	dev    int32 // the calling thread's device, -1 none
	devOK  bool  // dev is known
	imgs   []conformance.ImageRecipe
	filled bool
	holds  int
	ops    []conformance.Op
}

func newDecoder(cfg decodeConfig) *decoder {
	if cfg.Slots <= 0 {
		cfg.Slots = 3
	}
	cfg.Slots = min(cfg.Slots, conformance.MaxSlots)
	if cfg.Devices <= 0 {
		cfg.Devices = 2
	}
	if cfg.MaxOps <= 0 {
		cfg.MaxOps = 200
	}
	if cfg.MaxHolds <= 0 {
		cfg.MaxHolds = 3
	}
	// The runner starts a run with hooks by clearing the thread's device,
	// with an ACL only by setting device 0.
	dev := int32(-1)
	if cfg.ACLOnly {
		dev = 0
	}
	return &decoder{cfg: cfg, dev: dev, devOK: true,
		m: conformance.NewModel(conformance.ModelOptions{Profile: cfg.Profile, DrivenCompletion: !cfg.ACLOnly, DeviceKnown: true, Device: dev})}
}

// decodeBytes is the deterministic decoder of FuzzOps: the first byte picks
// the profile, the rest are choices until they run out. At most one hold op
// per input: each costs holdMs of wall time, and fuzzing wants executions.
func decodeBytes(data []byte, maxOps int, holdMs int32) (conformance.Profile, []conformance.Op) {
	c := &byteChooser{b: data}
	p := conformance.ProfileTMR
	if c.intn(4, "profile") == 3 {
		p = conformance.ProfileRefusing
	}
	d := newDecoder(decodeConfig{Profile: p, Slots: 4, Devices: 3, HoldMs: holdMs, MaxHolds: 1, MaxOps: maxOps})
	for !c.exhausted() && len(d.ops) < d.cfg.MaxOps {
		d.step(c)
	}
	return p, d.ops
}

// drawOps is the rapid state machine's op log: each Repeat action draws one
// op from the decoder (rapid's -rapid.steps sets the mean length; the log is
// capped at cfg.MaxOps).
func drawOps(t *rapid.T, cfg decodeConfig) []conformance.Op {
	d := newDecoder(cfg)
	t.Repeat(map[string]func(*rapid.T){
		"op": func(t *rapid.T) {
			if len(d.ops) < d.cfg.MaxOps {
				d.step(rapidChooser{t})
			}
		},
	})
	return d.ops
}

// opsGen is drawOps as a generator (for Example-driven hunts).
func opsGen(cfg decodeConfig) *rapid.Generator[[]conformance.Op] {
	return rapid.Custom(func(t *rapid.T) []conformance.Op { return drawOps(t, cfg) })
}

// step decodes one op, appends it and steps the decoder's model.
func (d *decoder) step(c chooser) {
	op := d.next(c)
	e := d.m.Expect(op)
	d.m.Advance(op)
	d.ops = append(d.ops, op)
	d.observe(op, e)
}

func predictedOK(e conformance.Expectation) bool {
	return !e.Unchecked && !e.Status.Any && !e.Status.NonZero && e.Status.N == 1 && e.Status.V[0] == abi.OK
}

// observe updates the decoder's view after op with the model's expectation
// e for it.
func (d *decoder) observe(op conformance.Op, e conformance.Expectation) {
	if lost, _ := d.m.Lost(); lost {
		return
	}
	s := func(c int8) *slotView {
		if c < 0 || int(c) >= d.cfg.Slots {
			return nil
		}
		return &d.slots[c]
	}
	switch op.Kind {
	case conformance.KindCreate:
		*s(op.C) = slotView{created: true, lastStream: -1}
	case conformance.KindKInit, conformance.KindPInit, conformance.KindACL:
		if v := s(op.C); v != nil {
			v.touched = true
			if op.Kind == conformance.KindKInit && predictedOK(e) {
				v.kernel, v.closed, v.ids = true, false, 0
			}
		}
	case conformance.KindRaceKInit:
		for _, c := range [2]int8{op.C, op.C2} {
			if v := s(c); v != nil {
				v.touched = true
				v.kernel = true // one of them won; the other's prepares are refused
			}
		}
	case conformance.KindPrepare:
		if v := s(op.C); v != nil && predictedOK(e) && e.OutKnown {
			v.ids = int(e.OutOK) + op.Reps()
		}
	case conformance.KindHoldPrepare:
		if v := s(op.C); v != nil && v.kernel && !v.closed {
			v.ids += 2
		}
	case conformance.KindFinalize:
		if v := s(op.C); v != nil && v.kernel && predictedOK(e) {
			v.closed = true
		}
	case conformance.KindLaunch, conformance.KindHoldLaunch:
		if v := s(op.C); v != nil && op.Stream >= 0 {
			v.lastStream = op.Stream
		}
	}
	for i := 0; i < d.cfg.Slots; i++ {
		if d.slots[i].created && !d.m.SlotLive(int8(i)) {
			d.slots[i] = slotView{lastStream: -1}
		}
	}
	// The calling thread's device as the model knows it (a program path may
	// have reset it).
	g := d.m.Expect(conformance.Op{Kind: conformance.KindGetDev})
	d.devOK = g.CheckValue
	if g.CheckValue {
		d.dev = int32(int64(g.Value))
	}
}

// slotsWhere lists the slots satisfying f.
func (d *decoder) slotsWhere(f func(v *slotView) bool) []int8 {
	var out []int8
	for i := 0; i < d.cfg.Slots; i++ {
		if v := &d.slots[i]; v.created && f(v) {
			out = append(out, int8(i))
		}
	}
	return out
}

func pickOf[T any](c chooser, label string, xs []T) T { return xs[c.intn(len(xs), label)] }

type candidate struct {
	w int // weight in tenths
	f func(c chooser) conformance.Op
}

// next decodes one op. The first candidate is the simplest (create, or the
// device switch the model needs), so a lowered kind draw simplifies.
func (d *decoder) next(c chooser) conformance.Op {
	if !d.devOK {
		// A program path left the thread's device unknown: restore it, as a
		// caller must before the next borrowed-device check (D-2).
		return conformance.Op{Kind: conformance.KindSetDev, Dev: d.devPick(c)}
	}
	live := d.slotsWhere(func(*slotView) bool { return true })
	var free []int8
	for i := 0; i < d.cfg.Slots; i++ {
		if !d.slots[i].created {
			free = append(free, int8(i))
		}
	}
	fresh := d.slotsWhere(func(v *slotView) bool { return !v.touched })
	kernel := d.slotsWhere(func(v *slotView) bool { return v.kernel })
	dispatch := d.slotsWhere(func(v *slotView) bool { return v.kernel && !v.closed })
	ready := d.slotsWhere(func(v *slotView) bool { return v.kernel && !v.closed && v.ids > 0 })

	var cs []candidate
	add := func(w int, f func(c chooser) conformance.Op) {
		if w > 0 {
			cs = append(cs, candidate{w, f})
		}
	}
	if len(free) > 0 {
		w := 20
		if len(live) == 0 {
			w = 400
		}
		add(w, func(c chooser) conformance.Op {
			return conformance.Op{Kind: conformance.KindCreate, C: pickOf(c, "slot", free)}
		})
	}
	add(20, func(c chooser) conformance.Op { return conformance.Op{Kind: conformance.KindSetDev, Dev: d.devPick(c)} })
	hooks := !d.cfg.ACLOnly
	if hooks {
		add(3, func(chooser) conformance.Op { return conformance.Op{Kind: conformance.KindSetDev, Dev: -1} })
	}
	if len(fresh) > 0 {
		add(80, func(c chooser) conformance.Op { return d.kinit(c, pickOf(c, "slot", fresh)) })
	}
	if len(live) > 0 {
		add(8, func(c chooser) conformance.Op { return d.kinit(c, pickOf(c, "slot", live)) })
		add(6, func(c chooser) conformance.Op { return d.pinit(c, pickOf(c, "slot", live)) })
		add(6, func(c chooser) conformance.Op {
			return conformance.Op{Kind: conformance.KindACL, C: pickOf(c, "slot", live), Dev: d.devAny(c)}
		})
		add(10, func(c chooser) conformance.Op {
			return conformance.Op{Kind: conformance.KindProg, C: pickOf(c, "slot", live), Fn: d.fn(c)}
		})
		add(10, func(c chooser) conformance.Op {
			return conformance.Op{Kind: conformance.KindSupported, C: pickOf(c, "slot", live)}
		})
		add(5, func(c chooser) conformance.Op {
			return conformance.Op{Kind: conformance.KindCommitted, C: pickOf(c, "slot", live)}
		})
		add(10, func(c chooser) conformance.Op {
			return conformance.Op{Kind: conformance.KindDestroy, C: pickOf(c, "slot", live)}
		})
		add(5, func(c chooser) conformance.Op { return d.prepare(c, pickOf(c, "slot", live)) })
		add(5, func(c chooser) conformance.Op { return d.launch(c, pickOf(c, "slot", live)) })
	}
	if len(kernel) > 0 {
		add(25, func(c chooser) conformance.Op {
			return conformance.Op{Kind: conformance.KindFinalize, C: pickOf(c, "slot", kernel)}
		})
	}
	if len(dispatch) > 0 {
		add(120, func(c chooser) conformance.Op { return d.prepare(c, pickOf(c, "slot", dispatch)) })
	}
	if len(ready) > 0 {
		add(140, func(c chooser) conformance.Op { return d.launch(c, pickOf(c, "slot", ready)) })
		add(30, func(c chooser) conformance.Op {
			return conformance.Op{Kind: conformance.KindSync, Stream: int8(c.intn(3, "stream"))}
		})
		if hooks && d.cfg.HoldMs > 0 && d.holds < d.cfg.MaxHolds {
			add(8, func(c chooser) conformance.Op { return d.hold(c, pickOf(c, "slot", ready)) })
		}
	}
	if len(fresh) >= 2 && d.dev >= 0 {
		add(5, func(c chooser) conformance.Op {
			a := c.intn(len(fresh), "racer")
			b := (a + 1 + c.intn(len(fresh)-1, "racer")) % len(fresh)
			return conformance.Op{Kind: conformance.KindRaceKInit, C: fresh[a], C2: fresh[b], Dev: d.dev, Gen: 1 + uint64(c.intn(3, "gen"))}
		})
	}
	if hooks {
		add(12, d.inject)
		add(3, func(chooser) conformance.Op { return conformance.Op{Kind: conformance.KindGetDev} })
	}
	add(6, d.nullCtx)
	add(2, func(chooser) conformance.Op {
		return conformance.Op{Kind: conformance.KindSupported, C: conformance.NullRef}
	})
	add(1, func(chooser) conformance.Op { return conformance.Op{Kind: conformance.KindContract} })
	if len(d.imgs) > 0 {
		add(3, func(c chooser) conformance.Op {
			return conformance.Op{Kind: conformance.KindClobber, Img: pickOf(c, "img", d.imgs)}
		})
	}
	total := 0
	for _, x := range cs {
		total += x.w
	}
	k := c.intn(total, "kind")
	for _, x := range cs {
		if k < x.w {
			return x.f(c)
		}
		k -= x.w
	}
	return cs[len(cs)-1].f(c)
}

// devPick is a device, 0..Devices-1.
func (d *decoder) devPick(c chooser) int32 { return int32(c.intn(d.cfg.Devices, "dev")) }

// devAny is mostly a device, sometimes a negative one (IA).
func (d *decoder) devAny(c chooser) int32 {
	if c.intn(12, "baddev") == 11 {
		return -1
	}
	return d.devPick(c)
}

// cfgRecipe is a CallConfig: mostly valid, otherwise one V-CFG family.
func (d *decoder) cfgRecipe(c chooser) conformance.CfgRecipe {
	switch c.intn(16, "cfg") {
	case 0, 1, 2, 3, 4, 5, 6, 7, 8:
		return conformance.CfgRecipe{}
	case 9:
		return conformance.CfgRecipe{Null: true}
	case 10:
		// One kernel-unsupported diagnostic (each is its own UNSUPPORTED
		// case of V-CFG), or any mix of them.
		switch c.intn(5, "diag") {
		case 0:
			return conformance.CfgRecipe{PMU: true}
		case 1:
			return conformance.CfgRecipe{Dump: true}
		case 2:
			return conformance.CfgRecipe{Scope: true}
		case 3:
			return conformance.CfgRecipe{Anchors: true}
		}
		return conformance.CfgRecipe{PMU: c.intn(2, "pmu") == 0, Dump: c.intn(2, "dump") == 0,
			Scope: c.intn(2, "scope") == 0, Anchors: c.intn(2, "anchors") == 0, Threads: int8(c.intn(6, "threads"))}
	case 11:
		return conformance.CfgRecipe{Threads: int8(c.intn(7, "threads"))}
	case 12:
		return conformance.CfgRecipe{Swim: int8(c.intn(7, "swim")), Prefix: c.intn(2, "prefix") == 0}
	case 13:
		// prefix and unterm exclude each other (the grammar refuses both).
		k := c.intn(3, "prefix")
		return conformance.CfgRecipe{DepGen: true, Prefix: k == 1, Unterm: k == 2}
	case 14:
		return conformance.CfgRecipe{Ring: conformance.RingRecipe(c.intn(5, "ring")), Anchors: c.intn(5, "anchors") == 0}
	}
	return conformance.CfgRecipe{Swim: 2, Prefix: true, Threads: int8(2 + c.intn(3, "threads")), Ring: conformance.RingGood}
}

func (d *decoder) spans(c chooser, n int) [4]conformance.SpanRecipe {
	var s [4]conformance.SpanRecipe
	if c.intn(5, "spans") != 4 {
		return s
	}
	for i := 0; i < n; i++ {
		s[i] = conformance.SpanRecipe(c.intn(4, "span"))
	}
	return s
}

func (d *decoder) kinit(c chooser, slot int8) conformance.Op {
	op := conformance.Op{Kind: conformance.KindKInit, C: slot, Dev: d.dev, Gen: 1 + uint64(c.intn(4, "gen"))}
	if op.Dev < 0 || c.intn(8, "otherdev") == 7 {
		op.Dev = d.devPick(c)
	}
	switch c.intn(14, "kinit") {
	case 8:
		op.C = conformance.NullRef
	case 9:
		op.Gen = 0
	case 10:
		op.Dev = -1 - int32(c.intn(2, "dev"))
	case 11:
		op.Spans = d.spans(c, 3)
	case 12, 13:
		op.Cfg = d.cfgRecipe(c)
		if c.intn(4, "spans") == 3 {
			op.Spans = d.spans(c, 3)
		}
	}
	return op
}

func (d *decoder) pinit(c chooser, slot int8) conformance.Op {
	op := conformance.Op{Kind: conformance.KindPInit, C: slot, Dev: d.devAny(c)}
	if c.intn(4, "pinit") == 3 {
		op.Spans = d.spans(c, 4)
		if c.intn(2, "prewarm") == 0 {
			// prewarm=null is the absent prewarm config (the grammar folds it).
			if cfg := d.cfgRecipe(c); !cfg.Null {
				op.Prewarm, op.Cfg = true, cfg
			}
		}
	}
	return op
}

func (d *decoder) fn(c chooser) conformance.ProgFn {
	return conformance.ProgFn(c.intn(int(conformance.FnCommDestroy)+1, "fn"))
}

// Image recipes: plain images vary every size field; a deformed image is one
// of a few bases with one modifier (this bounds the process-wide cache of
// built images that conformance keeps per recipe).
var (
	binSizes  = []uint32{0, 16, 100, 1000}
	imgBases  = []conformance.ImageRecipe{{}, {T: 1, S: 1}, {T: 2, S: 1, C: 2, B: 100}, {C: 1}}
	shorts    = []uint32{1, 4, 8, 16, 63, 64}
	longs     = []uint32{1, 8, 64, 128}
	pokeBytes = []uint32{0, 1, 4, 1024, 1028, 1032, 1033, 1096, 1100, 5196, 9292, 9296, 9360, 9364, 9375}
	pokeU32s  = []uint32{1024, 1028, 1096, 1100, 5196, 9292, 9360, 9364}
	pokeVals  = []uint32{0, 1, 2, 3, 7, 64, 128, 255, 257, 1025, 2000, 0xFFFFFFFF}
)

func (d *decoder) image(c chooser) conformance.ImageRecipe {
	if c.intn(5, "deformed") != 4 {
		r := conformance.ImageRecipe{T: uint16(c.intn(4, "t")), S: uint16(c.intn(3, "s")), X: uint16(c.intn(3, "x"))}
		if c.intn(3, "children") == 2 {
			r.C = uint16(1 + c.intn(2, "c"))
		}
		r.B = pickOf(c, "b", binSizes)
		r.NoSC = c.intn(10, "nosc") == 9
		return r
	}
	r := pickOf(c, "base", imgBases)
	switch c.intn(7, "modifier") {
	case 0:
		r.Mis = uint8(1 + c.intn(15, "mis"))
	case 1:
		r.Short = pickOf(c, "short", shorts)
	case 2:
		r.Long = pickOf(c, "long", longs)
	case 3:
		r.Defect = conformance.ImgDefect(1 + c.intn(int(conformance.DefChildBinary), "defect"))
	case 4:
		r.Poke, r.PokeOff, r.PokeVal = conformance.PokeByte, pickOf(c, "off", pokeBytes), pickOf(c, "val", pokeVals)&0xFF
	case 5:
		r.Poke, r.PokeOff, r.PokeVal = conformance.PokeU32, pickOf(c, "off", pokeU32s), pickOf(c, "val", pokeVals)
	case 6:
		r.Short = 9376 // below sizeof(ChipCallable)
	}
	return r
}

func (d *decoder) rep(c chooser) uint32 {
	if c.intn(16, "rep") == 15 {
		return uint32(2 + c.intn(3, "n"))
	}
	return 0
}

func (d *decoder) prepare(c chooser, slot int8) conformance.Op {
	op := conformance.Op{Kind: conformance.KindPrepare, C: slot, Img: d.image(c)}
	switch c.intn(50, "prepare") {
	case 46:
		op.Img = conformance.ImageRecipe{Base: conformance.ImgNull}
	case 47:
		op.OutNull = true
	case 48:
		op.C = conformance.NullRef
	case 49:
		op.Img = conformance.ImageRecipe{Base: conformance.ImgHuge}
	}
	op.Rep = d.rep(c)
	if v := d.slots[slot]; !d.cfg.NoFill && !d.filled && v.kernel && v.ids < 8192 && c.intn(300, "fill") == 299 {
		// Fill the context to the resident limit and one past (M-4).
		op.Img, op.Rep, d.filled = conformance.ImageRecipe{X: uint16(c.intn(2, "x"))}, uint32(8192-v.ids+1), true
	}
	d.imgs = append(d.imgs, op.Img)
	if len(d.imgs) > 16 {
		d.imgs = d.imgs[1:]
	}
	return op
}

func (d *decoder) stream(c chooser, slot int8) int8 {
	s := d.slots[slot].lastStream
	if s < 0 || c.intn(5, "newstream") == 4 {
		s = int8(c.intn(3, "stream"))
	}
	return s
}

func (d *decoder) launch(c chooser, slot int8) conformance.Op {
	v := d.slots[slot]
	op := conformance.Op{Kind: conformance.KindLaunch, C: slot, Stream: d.stream(c, slot)}
	if v.ids > 0 {
		op.ID = int32(c.intn(v.ids, "id"))
	}
	switch c.intn(100, "launch") {
	case 70, 71, 72, 73:
		op.ID = 8192 + int32(c.intn(2, "id"))
	case 74, 75:
		op.ID = -1
	case 76, 77, 78, 79, 80, 81:
		op.ID = int32(v.ids + c.intn(3, "id"))
	case 82, 83:
		op.Args = conformance.ArgsRecipe{Mode: conformance.ArgsNull}
	case 84, 85:
		op.Stream = conformance.NullRef
	case 86, 87, 88:
		op.Args = conformance.ArgsRecipe{T: int16(1 - 2*c.intn(2, "dt"))}
	case 89, 90, 91:
		op.Args = conformance.ArgsRecipe{S: int16(1 - 2*c.intn(2, "ds"))}
	case 92, 93, 94:
		op.Args = conformance.ArgsRecipe{Host: true}
	case 95, 96:
		op.Args = conformance.ArgsRecipe{Mode: conformance.ArgsExact, T: int16(c.intn(4, "t")), S: int16(c.intn(3, "s")),
			Host: c.intn(4, "host") == 3, Junk: c.intn(2, "junk") == 1}
	case 97:
		op.C = conformance.NullRef
	case 98, 99:
		op.Args = conformance.ArgsRecipe{Junk: true, Host: c.intn(5, "host") == 4}
	}
	op.Rep = d.rep(c)
	return op
}

func (d *decoder) hold(c chooser, slot int8) conformance.Op {
	v := d.slots[slot]
	d.holds++
	if c.intn(2, "hold") == 0 {
		s := v.lastStream
		if s < 0 {
			s = 0
		}
		return conformance.Op{Kind: conformance.KindHoldLaunch, C: slot, Ms: d.cfg.HoldMs, Img: d.image(c),
			ID: int32(c.intn(v.ids, "id")), Stream: s}
	}
	return conformance.Op{Kind: conformance.KindHoldPrepare, C: slot, Ms: d.cfg.HoldMs, Img: d.image(c), Img2: d.image(c)}
}

var injectCodes = []int32{-1234, -1300, -2001}

func (d *decoder) inject(c chooser) conformance.Op {
	op := conformance.Op{Kind: conformance.KindInject, Site: int32(1 + c.intn(9, "site")),
		Count: int32(1 + c.intn(2, "count")), Code: pickOf(c, "code", injectCodes)}
	switch op.Site {
	case 6:
		if c.intn(10, "fatal") < 7 {
			op.Site = 5
			break
		}
		op.Code, op.Count = 0, 1
	case 7:
		op.Code = int32(c.intn(2, "ms")) // hold 0 or 1 ms
	}
	switch c.intn(40, "badinject") {
	case 36:
		op.Site = int32(10 * c.intn(2, "site"))
	case 37:
		op.Count = -1
	case 38:
		op.Code, op.Site = 0, 2
	case 39:
		op.Count = 0
	}
	return op
}

// nullCtx is an entry called with a NULL context (S-3).
func (d *decoder) nullCtx(c chooser) conformance.Op {
	const null int8 = conformance.NullRef
	switch c.intn(8, "nullop") {
	case 0:
		return conformance.Op{Kind: conformance.KindFinalize, C: null}
	case 1:
		return conformance.Op{Kind: conformance.KindDestroy, C: null}
	case 2:
		return conformance.Op{Kind: conformance.KindCommitted, C: null}
	case 3:
		return conformance.Op{Kind: conformance.KindPInit, C: null}
	case 4:
		return conformance.Op{Kind: conformance.KindACL, C: null}
	case 5:
		return conformance.Op{Kind: conformance.KindProg, C: null, Fn: d.fn(c)}
	case 6:
		return conformance.Op{Kind: conformance.KindPrepare, C: null}
	}
	return conformance.Op{Kind: conformance.KindLaunch, C: null}
}

// serialized rewrites the two-thread ops of a sequence into one serial order
// for the differential runs: which racer of a racekinit wins the claim, and
// whether the second call of a hold op overlapped the prepare, depend on the
// scheduler, not on the runtime, so two runtimes' histories of them need not
// match line for line. racekinit cA cB becomes kinit cA; kinit cB (the order
// the model's primary expectation follows); holdlaunch / holdprepare become
// inject site=7 count=1 code=0 (the hold, without the sleep), the prepare,
// then the second call. The model-checked runs keep the ops as they are
//
func serialized(ops []conformance.Op) []conformance.Op {
	out := make([]conformance.Op, 0, len(ops))
	for _, op := range ops {
		switch op.Kind {
		case conformance.KindRaceKInit:
			a := conformance.Op{Kind: conformance.KindKInit, C: op.C, Dev: op.Dev, Gen: op.Gen, Cfg: op.Cfg}
			b := a
			b.C = op.C2
			out = append(out, a, b)
		case conformance.KindHoldLaunch, conformance.KindHoldPrepare:
			out = append(out, conformance.Op{Kind: conformance.KindInject, Site: 7, Count: 1},
				conformance.Op{Kind: conformance.KindPrepare, C: op.C, Img: op.Img})
			if op.Kind == conformance.KindHoldLaunch {
				out = append(out, conformance.Op{Kind: conformance.KindLaunch, C: op.C, ID: op.ID, Args: op.Args, Stream: op.Stream})
			} else {
				out = append(out, conformance.Op{Kind: conformance.KindPrepare, C: op.C, Img: op.Img2})
			}
		default:
			out = append(out, op)
		}
	}
	return out
}
