package model

import (
	"slices"
	"strconv"

	"github.com/simabi/simabi/abi"
)

// Kernel mode: init, prepare, launch (E-KINIT, E-CLAIM, E-PREP, E-LAUNCH, K, M-1..M-6, D-2).

// kinitCfgRefused expects V-CFG of a kernel init's config; it reports
// whether that refuses the call (unchecked ring sizing goes on).
func (m *Model) kinitCfgRefused(op Op, c *mctx) bool {
	switch v := checkCfg(op.Cfg, true); {
	case v.st == abi.OK:
		return false
	case m.opt.Profile == ProfileRefusing:
		m.expect(RVCfg, one(v.st), v.what)
		m.tolerate(REKInit, one(abi.Unsupported), "a refusing build answering UNSUPPORTED before V-CFG (tolerated)")
	case !m.cfgRefused(v, RVCfg, v.what, 0):
		return false
	}
	m.refusedBeforeLatch(c)
	return true
}

// cfgRefused expects config verdict v's refusal under r on path (0 kernel
// init, 1 prewarm); false when the call goes on past unchecked ring sizing
// (V-CFG tolerated).
func (m *Model) cfgRefused(v cfgVerdict, r Rule, note string, path int) bool {
	st, seen := m.observed()
	m.expect(r, one(v.st), note)
	if v.ringOnly && seen {
		m.ringObserved(path, st != abi.InvalidArgument, r)
	}
	if v.ringOnly && seen && st != abi.InvalidArgument {
		m.branchTolerated(RVCfg, "ring sizing not checked (V-CFG tolerated: 0)")
		return false
	}
	if v.tolINT {
		m.tolerate(RVCfg, one(abi.Internal), "INTERNAL for the thread count (V-CFG tolerated)")
	}
	return true
}

func (m *Model) kinit(op Op, c *mctx) {
	m.e.D1Rule = RD1
	if anyArg(vInit(op, c)) {
		m.expect(RVInit, one(abi.InvalidArgument), "NULL ctx or config, device < 0 or generation 0")
		if v := checkCfg(op.Cfg, true); !op.Cfg.Null && v.st != abi.OK && v.st != abi.InvalidArgument {
			m.blame(REKInit, one(v.st)) // V-INIT comes before V-CFG (E-KINIT.1)
		}
		m.refusedBeforeLatch(c)
		return
	}
	if !kernelSpansConsistent(op) {
		m.expect(RVSpan, one(abi.InvalidArgument), "an inconsistent aicpu/aicore/dispatcher span")
		m.refusedBeforeLatch(c)
		return
	}
	if m.kinitCfgRefused(op, c) {
		return
	}
	if m.opt.Profile == ProfileRefusing {
		m.expect(REKInit, one(abi.Unsupported), "a refusing build refuses kernel init, unlatched")
		m.refusedBeforeLatch(c)
		return
	}
	if m.unknownState(c) {
		if m.pinned() {
			m.pinKernel(c, op.Dev)
		}
		return
	}
	if c.latch != Unlatched {
		l := kinitLatched(c)
		m.expect(l.r, one(abi.InvalidState), l.why)
		return
	}
	// L-5: an init refused before the latch left it unlatched.
	l5 := c.refusedPre
	c.latch, c.dev, c.phase = LatchKernel, op.Dev, phNew
	m.mem(MemAny)
	if m.claimHeld(op, c, l5) {
		return
	}
	if !m.d2(c, REKInit) {
		c.initFailed = true
		m.suspectLatch(c, l5)
		return
	}
	if code, ok := m.fire(1); ok {
		c.initFailed = true
		if _, ok9 := m.fire(9); ok9 {
			c.phase = phClosing
		}
		m.expect(RK7, one(code), "resource creation fails (site 1)")
		if l5 {
			m.also(RL5)
		}
		return
	}
	c.phase, c.claim = phCollecting, true
	m.claims[op.Dev] = c
	m.expect(REKInit, one(abi.OK), "")
	switch {
	case l5:
		m.also(RL5)
	case c.fresh:
		m.blame(RL1, one(abi.InvalidState)) // a new context is unlatched: kernel init takes it
	}
	m.blame(RVSpan, one(abi.InvalidArgument))                 // its spans are consistent and accepted (V-SPAN.1, V-SPAN.2)
	m.blame(RVCfg, two(abi.InvalidArgument, abi.Unsupported)) // its config passes V-CFG
	c.fresh = false
	m.mem(MemZeroTolUp, RM7)
}

// dispatchFront walks what prepare and launch check first: their argument
// rule (args bad), a refusing build, an unknown or quarantined context (any
// status: sites armed lose the model), the phase; true when the walk goes on.
func (m *Model) dispatchFront(c *mctx, bad bool, args, entry Rule, argsNote, what string, sites ...int32) bool {
	switch {
	case bad:
		m.expect(args, one(abi.InvalidArgument), argsNote)
		return false
	case c.latch == LatchKernel:
		m.e.D1Rule = RD1
	}
	switch {
	case m.opt.Profile == ProfileRefusing:
		m.expect(entry, one(abi.InvalidState), "a refusing build validates, then refuses")
	case m.unknownState(c):
	case c.latch == LatchKernel && c.dispatchAny:
		m.anything(what+" on a quarantined context", sites...)
	default:
		return !m.refusesDispatch(c, entry)
	}
	return false
}

// kernelSpansConsistent reports whether op's aicpu, aicore and dispatcher
// spans are consistent (V-SPAN).
func kernelSpansConsistent(o Op) bool {
	return o.Spans[SpanAicpu].Consistent() && o.Spans[SpanAicore].Consistent() && o.Spans[SpanDispatcher].Consistent()
}

// refusesDispatch sets the IS expectation of prepare/launch on a context
// that does not accept dispatch; false when it does.
func (m *Model) refusesDispatch(c *mctx, entry Rule) bool {
	if c.latch != LatchKernel {
		r := entry
		if c.latch == LatchProgram {
			r = RL4
		}
		m.expect(r, one(abi.InvalidState), "not a kernel context")
		return true
	}
	if c.phase.dispatch() {
		return false
	}
	m.expect(phaseRule[c.phase], one(abi.InvalidState), noDispatch[c.phase])
	return true
}

// phaseRule is the rule that refuses dispatch in each phase without it.
var phaseRule = [...]Rule{phNew: RK1, phPoisoned: RK4, phClosing: RK5, phClosed: RK6}

// noDispatch is refusesDispatch's detail per phase, built once (a fill
// steps the model 8,193 times).
var noDispatch = func() (d [len(phaseNames)]string) {
	for ph, name := range phaseNames {
		d[ph] = "phase " + name + " does not accept dispatch"
	}
	return d
}()

// takesGate reports whether a prepare would reach the submission gate.
func (m *Model) takesGate(op Op, c *mctx, img ImageRecipe) bool {
	f := factsOf(img)
	return !anyArg(vPrep2(op, c, f)) && m.opt.Profile == ProfileTMR && c.latch == LatchKernel && !c.dispatchAny && c.phase.dispatch()
}

func (m *Model) prepare(op Op, c *mctx, img ImageRecipe, waited bool) {
	f := factsOf(img)
	m.e.CheckOut = !op.OutNull
	bad := anyArg(vPrep2(op, c, f))
	if !m.dispatchFront(c, bad, RVPrep2, REPrep, "NULL ctx, callable or out, size < 9376, or a misaligned image", "prepare", 2, 3, 7) {
		if bad && c != nil {
			m.blame(REPrep, one(abi.InvalidState)) // V-PREP-2 comes before the state check (E-PREP.2)
		}
		return
	}
	m.fire(7)
	if !m.d2(c, RD2) {
		// The device check comes before the size and the image (E-PREP.4).
		m.blame(REPrep, StatusSet{N: 3, V: [3]abi.Status{abi.InvalidArgument, abi.CallableBytesExceeded, abi.CallableCountExceeded}})
		return
	}
	if f.huge {
		// E-PREP's first budget step, before V-IMG: a fact of the M-5 budget.
		m.expect(RM5, one(abi.CallableBytesExceeded), "size exceeds the 2 GiB budget (checked before V-IMG)")
		m.also(REPrep)
		return
	}
	if !f.valid {
		st, seen := m.observed()
		m.expect(RVImg, one(abi.InvalidArgument), f.defect)
		if !(f.lenient && seen && st != abi.InvalidArgument) {
			return
		}
		m.branchTolerated(RVImg, "stored scalar_count ignored (V-IMG tolerated)")
	}
	if len(c.ids) >= MaxIDs {
		c.failedSince = true
		m.expect(RM4, one(abi.CallableCountExceeded), "8192 residents")
		return
	}
	blk, fits := c.fit(f.charge)
	if !fits {
		c.failedSince = true
		m.expect(RM5, one(abi.CallableBytesExceeded), "the charge would pass 2 GiB of blocks")
		m.also(REPrep)
		return
	}
	if code, ok := m.fire(2); ok {
		c.failedSince = true
		m.expect(REPrep, one(code), "allocate-and-copy fails (site 2): nothing charged, nothing published")
		m.mem(MemSame, REPrep)
		return
	}
	grew := c.charge(blk, f.charge) || !c.region
	c.region = true
	if code, ok := m.fire(3); ok {
		c.phase = phPoisoned
		m.expect(RK4, one(code), "device registration fails (site 3), at prepare: poisoned")
		m.blame(REPrep, one(abi.OK)) // the registration is prepare's (E-PREP.8)
		m.mem(MemUpOrSame, RK4)      // poison keeps what was committed (K-4.4)
		return
	}
	m.publish(c, img, f, grew, waited)
}

// publish is a prepare that succeeds: it mints the next id of c.
func (m *Model) publish(c *mctx, img ImageRecipe, f *imageFacts, grew, waited bool) {
	id := int32(len(c.ids))
	c.ids = append(c.ids, idInfo{t: f.t, s: f.s, clob: m.clobbers})
	c.phase = phReady
	r, outRule := REPrep, RM1
	if c.d2Refused {
		c.d2Refused = false
		m.blame(RD2, one(abi.InvalidState)) // the device check refused a call on it before: it changed nothing (D-2.3)
	}
	switch {
	case c.asyncHit:
		r = RELaunchAsync
	case waited:
		r = RX2
		outRule = RX1 // overlapping prepares still mint dense, distinct ids
	case id == MaxIDs-1:
		r = RM4 // the 8192nd resident still fits
	case grew && c.allocated == budgetBytes:
		r = RM5 // exactly filling the budget succeeds
	case c.allocated == budgetBytes:
		r = RM5 // a small image that fits a block's tail succeeds with the budget full
	}
	switch {
	case c.failedSince:
		outRule = RM3
	case c.hasLast && c.lastImg == img:
		outRule = RM2
	}
	m.expect(r, one(abi.OK), "")
	m.blame(RVImg, one(abi.InvalidArgument)) // the image passes V-IMG
	m.e.OutOK, m.e.OutRule, m.e.OutKnown = id, outRule, true
	c.failedSince, c.lastImg, c.hasLast = false, img, true
	x := MemSame
	if grew {
		x = MemUp
	}
	m.mem(x, RM7)
}

// fit finds where a charge goes (M-5): a 2 MiB block whose tail takes it
// (-1: a new block), and whether the budget allows it.
func (c *mctx) fit(charge uint64) (int, bool) {
	if charge <= blockBytes {
		for i, used := range c.blocks {
			if used != ^uint32(0) && blockBytes-uint64(used) >= charge {
				return i, true
			}
		}
		return -1, c.allocated+blockBytes <= budgetBytes
	}
	return -1, c.allocated+charge <= budgetBytes
}

// charge books a prepare; it reports whether allocated bytes grew.
func (c *mctx) charge(blk int, charge uint64) bool {
	if blk >= 0 {
		c.blocks[blk] += uint32(charge)
		return false
	}
	if charge <= blockBytes {
		c.blocks = append(c.blocks, uint32(charge))
		c.allocated += blockBytes
	} else {
		c.blocks = append(c.blocks, ^uint32(0)) // a block of its own, no tail
		c.allocated += charge
	}
	return true
}

// launchCounts are the counts op's args carry for c's id (observed, when so).
func (m *Model) launchCounts(op Op, c *mctx) (int32, int32, bool) {
	if m.co != nil {
		return m.co.ArgT, m.co.ArgS, m.co.ArgHost
	}
	return launchArgs(op, c)
}

func (m *Model) launch(op Op, c *mctx, gateHeld bool) {
	if !m.dispatchFront(c, anyArg(vLaunch(op, c)), RVLaunch, RELaunch, "NULL ctx, args or stream, or id outside [0, 8192)", "launch", 4) {
		return
	}
	if gateHeld {
		m.expect(RX2, one(abi.InvalidState), "a prepare holds the gate: IS at once")
		return
	}
	if c.phase == phCollecting {
		m.expect(RELaunch, one(abi.InvalidState), "no successful prepare yet")
		m.also(RK2) // a successful init lands in Collecting (K-2.1)
		return
	}
	if !m.d2(c, RD2) {
		// The device check comes before the id lookup (E-LAUNCH.3).
		m.blame(RELaunch, StatusSet{N: 3, V: [3]abi.Status{abi.CallableNotResident, abi.InvalidArgument, abi.PreparedIncompatible}})
		return
	}
	if int(op.ID) >= len(c.ids) {
		r := RELaunch
		if m.mintedElsewhere(c, op.ID) {
			r = RM1 // an id is valid only on the context that minted it
		}
		m.expect(r, one(abi.CallableNotResident), "id "+strconv.Itoa(int(op.ID))+" never published on this context")
		return
	}
	info := c.ids[op.ID]
	t, s, host := m.launchCounts(op, c)
	if t != info.t || s != info.s || (host && t >= 1) {
		r := RELaunch
		if info.clob != m.clobbers {
			r = RM6
		}
		m.expect(r, one(abi.InvalidArgument), "args counts ("+strconv.Itoa(int(t))+","+strconv.Itoa(int(s))+
			") vs the callable's ("+strconv.Itoa(int(info.t))+","+strconv.Itoa(int(info.s))+") or a HOST tensor")
		m.tolerate(RELaunch, one(abi.Internal), "INTERNAL for an args mismatch (E-LAUNCH tolerated)")
		return
	}
	if c.lastStream >= 0 && c.lastStream != op.Stream {
		st := &m.streams[c.lastStream]
		if m.opt.DrivenCompletion && !st.unsure {
			if st.done < c.lastSerial {
				m.expect(RELaunch, one(abi.PreparedIncompatible), "stream switch while s"+strconv.Itoa(int(c.lastStream))+" has pending work")
				return
			}
		} else if got, seen := m.observed(); seen && got == abi.PreparedIncompatible {
			// The earlier stream's work may not have completed yet.
			m.expect(RELaunch, one(abi.PreparedIncompatible), "stream switch; the earlier stream's completion is not driven")
			return
		}
	}
	if code, ok := m.fire(4); ok {
		c.phase = phPoisoned
		m.streams[op.Stream].unsure = true
		m.expect(RK4, one(code), "the enqueue fails after it started (site 4): poisoned")
		return
	}
	st := &m.streams[op.Stream]
	st.enq++
	c.lastStream, c.lastSerial = op.Stream, st.enq
	r := RELaunch
	switch {
	case c.asyncHit:
		r = RELaunchAsync
	case info.clob != m.clobbers:
		r = RM6
	case len(c.ids) >= MaxIDs:
		r = RM4 // every earlier id still launches
	}
	m.expect(r, one(abi.OK), "")
	if c.d2Refused {
		c.d2Refused = false
		m.blame(RD2, one(abi.InvalidState)) // the device check refused a call on it before: it changed nothing (D-2.3)
	}
	m.blame(RK3, one(abi.InvalidState)) // its prepares left it in ReadyEnqueued (K-3)
	m.mem(MemSame, RM7)
}

// mintedElsewhere reports whether another live kernel context minted id.
func (m *Model) mintedElsewhere(c *mctx, id int32) bool {
	return slices.ContainsFunc(m.ctxs[:], func(o *mctx) bool {
		return o != nil && o != c && o.live && o.latch == LatchKernel && int(id) < len(o.ids)
	})
}

// d2 is the read-only borrowed-device check (D-2); false when it refuses.
func (m *Model) d2(c *mctx, r Rule) bool {
	if !m.devKnown {
		// The device is unknown: IS or a lower layer's code is D-2's
		// refusal; anything else got past it (the device was the context's).
		st, seen := m.observed()
		if seen && (st == abi.InvalidState || (st != abi.OK && !st.IsDefinedHost() && !m.wasInjected(st))) {
			m.expect(RuleNone, anyStatus, "the calling thread's current device is unknown: taken as D-2's refusal")
			m.mem(MemSame)
			return false
		}
		m.curDev, m.devKnown = c.dev, true
	}
	if m.curDev != c.dev {
		c.d2Refused = true
		m.expect(r, one(abi.InvalidState), "the calling thread's current device "+devText(m.curDev)+" is not the context's device "+strconv.Itoa(int(c.dev)))
		// Tolerated: the device query's own code in place of IS (a host or
		// injected code comes from a later step).
		m.tolerate(RD2, foreign, "the device query's own code (D-2 tolerated)")
		return false
	}
	return true
}

func devText(d int32) string {
	if d < 0 {
		return "none"
	}
	return strconv.Itoa(int(d))
}

// claimHeld is kernel init's claim step (E-CLAIM): true when another
// context holds (or may hold) op's device, and the walk ends there.
func (m *Model) claimHeld(op Op, c *mctx, l5 bool) bool {
	h := m.claims[op.Dev]
	if h == nil || h == c {
		return false
	}
	if h.unknown {
		// The holder diverged: whether it still holds the claim is unknown.
		if m.pinned() {
			m.expect(RuleNone, anyStatus, "device "+strconv.Itoa(int(op.Dev))+"'s holder is unknown")
			m.pinKernel(c, op.Dev)
			return true
		}
		c.initFailed = true
		m.expect(RuleNone, anyStatus, "device "+strconv.Itoa(int(op.Dev))+"'s holder is unknown: taken as the claim refusal")
		return true
	}
	c.initFailed = true
	r := REClaim
	if h.quarantined {
		r = RD4 // a quarantined context keeps its claim (D-4.4)
	}
	m.expect(r, one(abi.InvalidState), "another context holds device "+strconv.Itoa(int(op.Dev)))
	m.suspectLatch(c, l5)
	return true
}
