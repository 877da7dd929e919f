package conformance

import (
	"math/rand/v2"
)

// GenOptions configure Generate.
type GenOptions struct {
	Seed    uint64
	Ops     int     // ops per sequence
	Slots   int     // contexts c0..c(Slots-1) (default 3)
	Devices int     // devices 0..Devices-1 (default 2)
	Caps    Caps    // what the target can drive (ops needing more are not generated)
	Profile Profile // the build profile the sequence is biased for
	// HoldMs enables the X-2 hold ops with this hold time (0: none; they
	// cost HoldMs of wall time each).
	HoldMs int32
	// NoFill leaves out the rare prepare that fills a context to 8192
	// residents and one past (M-4; thousands of calls in one op).
	NoFill bool
}

type gen struct {
	o    GenOptions
	r    *rand.Rand
	m    *Model
	ops  []Op
	imgs []ImageRecipe // recipes used so far (for clobber)
}

// Generate returns a random sequence, biased toward interesting states: a
// model of the sequence so far steers it (init, then prepares, then
// launches; fault injection before the step it hits; finalize retries;
// device switches; malformed variants of every entry).
func Generate(o GenOptions) []Op {
	if o.Slots <= 0 {
		o.Slots = 3
	}
	o.Slots = min(o.Slots, MaxSlots)
	if o.Devices <= 0 {
		o.Devices = 2
	}
	g := &gen{o: o, r: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9E3779B97F4A7C15)),
		m: NewModel(ModelOptions{Profile: o.Profile, DrivenCompletion: o.Caps.Has(CapDriven), DeviceKnown: o.Caps.Has(CapClearDevice), Device: -1,
			Simulated: o.Caps.Has(CapDriven)})}
	if !o.Caps.Has(CapClearDevice) && o.Caps.Has(CapSetDevice) {
		g.m.devKnown, g.m.curDev = true, 0
	}
	for len(g.ops) < o.Ops {
		op := g.next()
		if op.Kind == KindInvalid {
			continue
		}
		if need, _, _ := needs(op); !o.Caps.Has(need) {
			continue
		}
		if o.Profile == ProfileLegacy && (kernelOp(op) || (op.Kind == KindProg && op.Fn == FnMemInfo)) {
			continue
		}
		g.ops = append(g.ops, op)
		g.m.Advance(op)
		if g.m.lost {
			// The primary path went where the model cannot follow (an
			// unknown device); restart its view from what is certain.
			g.m.lost = false
			g.m.devKnown = false
		}
	}
	return g.ops
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) pick(n int) int { return g.r.IntN(n) }

func (g *gen) dev() int32 { return int32(g.pick(g.o.Devices)) }

// slotsWhere lists live slots satisfying f.
func (g *gen) slotsWhere(f func(c *mctx) bool) []int8 {
	var out []int8
	for i := 0; i < g.o.Slots; i++ {
		if c := g.m.ctxs[i]; c != nil && c.live && f(c) {
			out = append(out, int8(i))
		}
	}
	return out
}

func (g *gen) anyOf(s []int8) int8 { return s[g.pick(len(s))] }

type choice struct {
	w float64
	f func() Op
}

func (g *gen) next() Op {
	m := g.m
	live := g.slotsWhere(func(*mctx) bool { return true })
	free := []int8{}
	for i := 0; i < g.o.Slots; i++ {
		if !m.SlotLive(int8(i)) {
			free = append(free, int8(i))
		}
	}
	unlatchedS := g.slotsWhere(func(c *mctx) bool { return c.latch == unlatched })
	kernel := g.slotsWhere(func(c *mctx) bool { return c.latch == latchKernel })
	dispatch := g.slotsWhere(func(c *mctx) bool { return c.latch == latchKernel && c.phase.dispatch() && !c.dispatchAny })
	ready := g.slotsWhere(func(c *mctx) bool {
		return c.latch == latchKernel && len(c.ids) > 0 && c.phase.dispatch() && !c.dispatchAny
	})
	// Dispatch on a quarantined context is outside the rules; keep it away
	// from armed fault sites, which it might consume.
	armed := false
	for _, s := range m.sites {
		armed = armed || s.count > 0
	}
	callable := g.slotsWhere(func(c *mctx) bool { return !c.dispatchAny || !armed })
	var cs []choice
	add := func(w float64, f func() Op) {
		if w > 0 {
			cs = append(cs, choice{w, f})
		}
	}
	if !m.devKnown && g.o.Caps.Has(CapSetDevice) {
		return Op{Kind: KindSetDev, Dev: g.dev()}
	}
	if len(free) > 0 {
		w := 2.0
		if len(live) == 0 {
			w = 40
		}
		add(w, func() Op { return Op{Kind: KindCreate, C: g.anyOf(free)} })
	}
	add(2, func() Op { return Op{Kind: KindSetDev, Dev: g.dev()} })
	if g.o.Caps.Has(CapClearDevice) {
		add(0.3, func() Op { return Op{Kind: KindSetDev, Dev: -1} })
	}
	if len(unlatchedS) > 0 {
		add(8, func() Op { return g.kinit(g.anyOf(unlatchedS)) })
	}
	if len(live) > 0 {
		add(0.8, func() Op { return g.kinit(g.anyOf(live)) })
		add(0.6, func() Op { return Op{Kind: KindPInit, C: g.anyOf(live), Dev: g.dev()} })
		add(0.6, func() Op { return Op{Kind: KindACL, C: g.anyOf(live), Dev: g.dev()} })
		add(1, func() Op { return Op{Kind: KindProg, C: g.anyOf(live), Fn: ProgFn(g.pick(int(numFns)))} })
		add(1, func() Op { return Op{Kind: KindSupported, C: g.anyOf(live)} })
		add(0.5, func() Op { return Op{Kind: KindCommitted, C: g.anyOf(live)} })
		add(1, func() Op { return Op{Kind: KindDestroy, C: g.anyOf(live)} })
		if len(callable) > 0 {
			add(0.5, func() Op { return g.prepare(g.anyOf(callable)) })
			add(0.5, func() Op { return g.launch(g.anyOf(callable)) })
		}
	}
	if len(kernel) > 0 {
		add(2.5, func() Op { return Op{Kind: KindFinalize, C: g.anyOf(kernel)} })
	}
	program := g.slotsWhere(func(c *mctx) bool { return c.latch == latchProgram && c.attached && !c.unknown })
	if len(program) > 0 {
		add(1, func() Op { return Op{Kind: KindFinalize, C: g.anyOf(program)} })
		add(6, func() Op { return g.runOp(g.anyOf(program)) })
	}
	if len(dispatch) > 0 {
		add(12, func() Op { return g.prepare(g.anyOf(dispatch)) })
	}
	if len(ready) > 0 {
		add(14, func() Op { return g.launch(g.anyOf(ready)) })
		add(3, func() Op { return Op{Kind: KindSync, Stream: int8(g.pick(3))} })
		if g.o.HoldMs > 0 {
			add(0.3, func() Op { return g.hold(g.anyOf(ready)) })
		}
	}
	if len(unlatchedS) >= 2 && g.o.Caps.Has(CapSetDevice) && m.devKnown && m.curDev >= 0 && m.sites[1].count == 0 && m.sites[9].count == 0 {
		add(0.5, func() Op {
			a := g.pick(len(unlatchedS))
			b := (a + 1 + g.pick(len(unlatchedS)-1)) % len(unlatchedS)
			return Op{Kind: KindRaceKInit, C: unlatchedS[a], C2: unlatchedS[b], Dev: m.curDev, Gen: 1 + uint64(g.pick(3))}
		})
	}
	add(1.2, g.inject)
	add(0.6, g.nullCtx)
	add(0.2, func() Op { return Op{Kind: KindSupported, C: NullRef} })
	add(0.3, func() Op { return Op{Kind: KindGetDev} })
	add(0.05, func() Op { return Op{Kind: KindContract} })
	if len(g.imgs) > 0 {
		add(0.3, func() Op { return Op{Kind: KindClobber, Img: g.imgs[g.pick(len(g.imgs))]} })
	}
	total := 0.0
	for _, c := range cs {
		total += c.w
	}
	x := g.r.Float64() * total
	for _, c := range cs {
		if x < c.w {
			return c.f()
		}
		x -= c.w
	}
	return cs[len(cs)-1].f()
}

func (g *gen) kinit(c int8) Op {
	op := Op{Kind: KindKInit, C: c, Dev: g.m.curDev, Gen: 1 + uint64(g.pick(4))}
	if op.Dev < 0 || g.chance(0.15) {
		op.Dev = g.dev()
	}
	if g.chance(0.25) {
		switch g.pick(12) {
		case 0:
			op.C = NullRef
		case 1:
			op.Gen = 0
		case 2:
			op.Dev = -1 - int32(g.pick(2))
		case 3:
			op.Spans[g.pick(3)] = SpanHalfPtr
		case 4:
			op.Spans[g.pick(3)] = SpanHalfSize
		case 5:
			op.Cfg = CfgRecipe{Null: true}
		case 6:
			op.Cfg = CfgRecipe{PMU: true}
		case 7:
			op.Cfg = CfgRecipe{Threads: int8(1 + 4*g.pick(2))}
		case 8:
			op.Cfg = CfgRecipe{Swim: int8(1 + g.pick(6))}
		case 9:
			op.Cfg = CfgRecipe{DepGen: true, Unterm: g.chance(0.5)}
		case 10:
			op.Cfg = CfgRecipe{Ring: RingRecipe(1 + g.pick(int(numRings)-1)), Anchors: g.chance(0.2)}
		case 11:
			op.Spans[g.pick(3)] = SpanBytes
			op.Cfg = CfgRecipe{Swim: 2, Prefix: true, Threads: int8(2 + g.pick(3))}
		}
	}
	return op
}

func (g *gen) image() ImageRecipe {
	r := ImageRecipe{T: uint16(g.pick(4)), S: uint16(g.pick(3)), X: uint16(g.pick(3))}
	if g.chance(0.3) {
		r.C = uint16(1 + g.pick(2))
	}
	if g.chance(0.3) {
		r.B = uint32(g.pick(200))
	}
	if g.chance(0.1) {
		r.NoSC = true
	}
	if g.chance(0.2) {
		switch g.pick(9) {
		case 0:
			r.Mis = uint8(1 + g.pick(15))
		case 1:
			r.Short = uint32(1 + g.pick(64))
		case 2:
			r.Long = uint32(1 + g.pick(128))
		case 3, 4, 8:
			r.Defect = ImgDefect(1 + g.pick(int(numDefects)-1))
		case 5:
			r.Poke, r.PokeOff, r.PokeVal = PokeByte, uint32(g.pick(headerSize)), uint32(g.pick(256))
		case 6:
			offs := []uint32{offSigCount, offBinarySize, offFuncLen, offChildCount, offCfgLen, offScalarCnt, offChildOffs}
			r.Poke, r.PokeOff, r.PokeVal = PokeU32, offs[g.pick(len(offs))], uint32(g.pick(2000))
		case 7:
			r.Short = headerSize // below sizeof(ChipCallable)
		}
	}
	return r
}

func (g *gen) prepare(c int8) Op {
	op := Op{Kind: KindPrepare, C: c, Img: g.image()}
	switch {
	case g.chance(0.02):
		op.Img = ImageRecipe{Base: ImgNull}
	case g.chance(0.02):
		op.OutNull = true
	case g.chance(0.01):
		op.C = NullRef
	case g.chance(0.01):
		op.Img = ImageRecipe{Base: ImgHuge}
	}
	if g.chance(0.05) {
		op.Rep = uint32(2 + g.pick(3))
	}
	if mc := g.m.ctx(c); !g.o.NoFill && mc != nil && len(mc.ids) < maxIDs && g.chance(0.003) {
		// Now and then fill the context to the resident limit and past it (M-4).
		op.Img, op.Rep = ImageRecipe{X: uint16(g.pick(2))}, uint32(maxIDs-len(mc.ids)+1)
	}
	g.imgs = append(g.imgs, op.Img)
	if len(g.imgs) > 16 {
		g.imgs = g.imgs[1:]
	}
	return op
}

func (g *gen) launch(c int8) Op {
	mc := g.m.ctxs[c]
	op := Op{Kind: KindLaunch, C: c, Stream: mc.lastStream}
	if op.Stream < 0 || g.chance(0.2) {
		op.Stream = int8(g.pick(3))
	}
	if n := len(mc.ids); n > 0 {
		op.ID = int32(g.pick(n))
	}
	switch x := g.r.Float64(); {
	case x < 0.04:
		op.ID = maxIDs + int32(g.pick(2))
	case x < 0.06:
		op.ID = -1
	case x < 0.12:
		op.ID = int32(len(mc.ids) + g.pick(3))
	case x < 0.14:
		op.Args = ArgsRecipe{Mode: ArgsNull}
	case x < 0.16:
		op.Stream = NullRef
	case x < 0.19:
		op.Args = ArgsRecipe{T: int16(1 - 2*g.pick(2))}
	case x < 0.22:
		op.Args = ArgsRecipe{S: int16(1 - 2*g.pick(2))}
	case x < 0.25:
		op.Args = ArgsRecipe{Host: true}
	case x < 0.27:
		op.Args = ArgsRecipe{Mode: ArgsExact, T: int16(g.pick(3)), S: int16(g.pick(3))}
	case x < 0.28:
		op.C = NullRef
	case x < 0.31:
		op.Args = ArgsRecipe{Junk: true, Host: g.chance(0.2)}
	}
	if g.chance(0.05) {
		op.Rep = uint32(2 + g.pick(3))
	}
	return op
}

func (g *gen) hold(c int8) Op {
	mc := g.m.ctxs[c]
	if g.chance(0.5) {
		s := mc.lastStream
		if s < 0 {
			s = 0
		}
		return Op{Kind: KindHoldLaunch, C: c, Ms: g.o.HoldMs, Img: g.image(), ID: int32(g.pick(len(mc.ids))), Stream: s}
	}
	return Op{Kind: KindHoldPrepare, C: c, Ms: g.o.HoldMs, Img: g.image(), Img2: g.image()}
}

func (g *gen) inject() Op {
	codes := []int32{-1234, -1300, -2001}
	site := int32(1 + g.pick(10))
	op := Op{Kind: KindInject, Site: site, Count: int32(1 + g.pick(2)), Code: codes[g.pick(len(codes))]}
	switch site {
	case 6:
		if g.chance(0.7) {
			site = 5
			op.Site = 5
			break
		}
		op.Code, op.Count = 0, 1
	case 7:
		op.Code = int32(g.pick(2)) // hold 0 or 1 ms
	}
	if g.chance(0.1) {
		switch g.pick(4) {
		case 0:
			op.Site = int32(11 * g.pick(2))
		case 1:
			op.Count = -1
		case 2:
			op.Code, op.Site = 0, 2
		case 3:
			op.Count = 0
		}
	}
	return op
}

// runOp is one op of the run family on program context c: register until
// it has a callable, then runs on the four storages, now and then a finalize
// or destroy while a run is outstanding (E-FIN, E-DESTROY).
func (g *gen) runOp(c int8) Op {
	mc := g.m.ctxs[c]
	id := int32(g.pick(3))
	if len(mc.prog) == 0 || g.chance(0.08) {
		img := ImageRecipe{T: uint16(g.pick(2)), S: uint16(g.pick(2)), X: uint16(g.pick(3))}
		return Op{Kind: KindRegister, C: c, ID: id, Img: img}
	}
	for r := range mc.prog {
		if g.chance(0.7) {
			id = r
			break
		}
	}
	// A storage of c's, or a free one.
	st := int8(g.pick(MaxStorages))
	for i := range g.m.storages {
		if g.m.storages[i].ctx == mc && g.chance(0.8) {
			st = int8(i)
			break
		}
	}
	sl := g.m.storages[st]
	switch {
	case g.chance(0.04):
		return Op{Kind: KindUnregister, C: c, ID: id}
	case sl.state == storageFree && g.chance(0.2):
		return Op{Kind: KindRun, C: c, St: st, ID: id}
	case sl.state == storageFree:
		op := Op{Kind: KindPrepareRun, C: c, St: st, ID: id}
		if g.chance(0.05) {
			op.Args = ArgsRecipe{Mode: ArgsMatch, T: 1}
		}
		return op
	}
	kinds := []Kind{KindLaunchRun, KindPollRun, KindWaitRun, KindFinalizeRun, KindPrepareRun, KindDestroy, KindFinalize}
	weights := []float64{3, 2, 2, 2, 0.5, 0.3, 0.4}
	if sl.state == storagePrepared {
		weights[0] = 6
	}
	total := 0.0
	for _, w := range weights {
		total += w
	}
	x := g.r.Float64() * total
	k := kinds[len(kinds)-1]
	for i, w := range weights {
		if x < w {
			k = kinds[i]
			break
		}
		x -= w
	}
	if k == KindDestroy || k == KindFinalize {
		return Op{Kind: k, C: c}
	}
	op := Op{Kind: k, C: c, St: st}
	if k == KindPrepareRun {
		op.ID = id
	}
	return op
}

// nullCtx is an entry called with a NULL context.
func (g *gen) nullCtx() Op {
	switch g.pick(8) {
	case 0:
		return Op{Kind: KindFinalize, C: NullRef}
	case 1:
		return Op{Kind: KindDestroy, C: NullRef}
	case 2:
		return Op{Kind: KindCommitted, C: NullRef}
	case 3:
		return Op{Kind: KindPInit, C: NullRef, Dev: 0}
	case 4:
		return Op{Kind: KindACL, C: NullRef, Dev: 0}
	case 5:
		return Op{Kind: KindProg, C: NullRef, Fn: ProgFn(g.pick(int(numFns)))}
	case 6:
		return Op{Kind: KindPrepare, C: NullRef, Img: ImageRecipe{}}
	}
	return Op{Kind: KindLaunch, C: NullRef, Stream: 0}
}
