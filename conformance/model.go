package conformance

import (
	"strconv"

	"github.com/simabi/simabi/abi"
)

// Profile is a runtime build profile (docs/contract.md "Build profiles").
type Profile uint8

// Profiles.
const (
	ProfileTMR      Profile = iota // supported = 1
	ProfileRefusing                // supported = 0
	ProfileLegacy                  // no kernel entries: program rules only
)

func (p Profile) String() string {
	switch p {
	case ProfileTMR:
		return "tmr"
	case ProfileRefusing:
		return "refusing"
	case ProfileLegacy:
		return "legacy"
	}
	return "profile?"
}

type latchMode uint8

const (
	unlatched latchMode = iota
	latchProgram
	latchKernel
)

type phase uint8

const (
	phNew phase = iota
	phCollecting
	phReady
	phPoisoned
	phClosing
	phClosed
)

var phaseNames = [...]string{"New", "Collecting", "ReadyEnqueued", "Poisoned", "Closing", "Closed"}

func (p phase) dispatch() bool { return p == phCollecting || p == phReady }

// idInfo is what the model keeps of a published id: the counts launch must
// match, and the clobber epoch at prepare (M-6 attribution).
type idInfo struct {
	t, s int32
	clob uint32
}

// mctx is the model of one context.
type mctx struct {
	live        bool
	latch       latchMode
	attached    bool // program: a live program init
	bins        bool // program: the attaching init gave both executor binaries
	phase       phase
	initFailed  bool
	quarantined bool
	dispatchAny bool // quarantined: docs/contract.md does not say what dispatch does
	finalizedOK bool // a kernel finalize returned 0 (destroy allowed)
	refusedPre  bool // a kernel init was refused before the latch (L-5 attribution)
	refusedAt   int  // the op of the first such refusal
	// latchSuspect: after refusedPre, a kernel init answered the
	// INVALID_STATE the model expected after the latch (claim or D-2),
	// which a runtime that had latched at the refusal answers too; a later
	// failure on the context is then also reported under L-5.
	latchSuspect bool
	suspectAt    int
	dev          int32
	claim        bool
	ids          []idInfo
	region       bool     // the persistent launch region is committed
	blocks       []uint32 // used bytes of each 2 MiB block
	allocated    uint64
	lastStream   int8
	lastSerial   uint64
	failedSince  bool // a prepare failed after V-IMG since the last success (M-3)
	lastImg      ImageRecipe
	hasLast      bool
	asyncHit     bool // an asynchronous failure was delivered for its stream
	// unknown: a call on this context answered what the model did not
	// predict, so its state is not known; calls on it are still made and
	// judged on what does not depend on that state (the structural V
	// rules, S-2), until an answer pins the state again (a successful
	// init). divergedAt is the op of the divergence.
	unknown    bool
	divergedAt int
	// mayLeak: destroyed while unknown; whether the runtime freed it is not
	// known, so it is never called again and may still hold its device.
	mayLeak bool
	// destroyRefused: a destroy the model took as refused (E-DESTROY). It
	// returns nothing, so only the calls after it tell; after any
	// divergence the context is retired, since calling a handle the runtime
	// did free would abort an emitted runtime (F-3).
	destroyRefused bool
	// legacyDev is the device a legacy build's runner is bound to (its
	// device_id_: set by the attach step of simpler_init even when a later
	// step fails, cleared by finalize_device), -1 for none.
	legacyDev int32
	// bindSoft: a legacy prewarm refusal left it unknown whether legacyDev
	// still binds the runner (upstream's legacy code keeps it bound, the
	// target revision does not).
	bindSoft bool
	// Program runs: the callables registered (id -> counts), and how many
	// native runs are outstanding (E-FIN).
	prog map[int32]progCallable
	runs int
}

func newMctx() *mctx { return &mctx{live: true, lastStream: NullRef, legacyDev: -1} }

type siteState struct{ count, code int32 }

type streamState struct {
	enq, done uint64
	unsure    bool // whether work is pending is not known (a poisoned enqueue)
}

// CallObs is what one call returned.
type CallObs struct {
	Status abi.Status
	Out    int32  // prepare: the value left in out_callable_id
	Value  uint64 // queries: the value returned (pointers as 0 / 1)
	// Launch: the counts and the host flag the args actually carried.
	ArgT, ArgS int32
	ArgHost    bool
}

// Observation is what the runner saw for one op (one repetition of a
// repeated op).
type Observation struct {
	Call   CallObs
	Second CallObs // hold and race ops: the call on the second thread
	// Hold ops: the second call started while the first prepare held the
	// gate; SecondLate: it returned only after the prepare returned.
	Overlap, SecondLate bool
	// Committed memory of the op's context after the op, and before it.
	MemProbed     bool
	Mem, MemPrev  uint64
	ACLProbed     bool
	ACLForbidden  string // D-1: the forbidden ACL calls the op made, "" when none
	Contract      []byte // contract: the 144 bytes, nil when the pointer was NULL
	HandleCreated bool   // create: a non-NULL handle came back
	ImageWritten  bool   // prepare wrote into the caller's image (M-6)
	// Accepted is the word at the storage's accepted_state after a
	// launch_run (the runner sets it to -1 before the call).
	Accepted int32
}

// ModelOptions configure a model for one sequence on one runtime instance.
type ModelOptions struct {
	Profile Profile
	// DrivenCompletion: enqueued work completes only when the checker
	// synchronizes its stream (a target with simulation hooks: docs/contract.md lets
	// the checker drive stream completion). Without it (ACL on a device) work
	// may complete at any time, so the stream-switch gate may or may not
	// refuse an unsynchronized switch.
	DrivenCompletion bool
	// DeviceKnown and Device: the calling thread's current device at the
	// start (-1 = none).
	DeviceKnown bool
	Device      int32
	// Claimed lists devices whose claim contexts outside the sequence hold
	// (left quarantined by earlier runs on the same runtime instance).
	Claimed []int32
	// Simulated: a simulated build (it exports the simulation hooks), which
	// ignores the bytes of binaries and images: a synthetic program callable
	// registers and runs there, not on a real build.
	Simulated bool
	// UserCallable: register img=prog passes a program callable the user
	// gave for this build (Options.Callable), which registers and runs.
	UserCallable bool
}

// Tally counts verdicts per rule.
type Tally [numRules][numVerdicts]uint32

// Add merges o into t.
func (t *Tally) Add(o *Tally) {
	for r := range t {
		for v := range t[r] {
			t[r][v] += o[r][v]
		}
	}
}

// Model is the independent model of docs/contract.md: it predicts every call's
// outcome, checks what the runner observed, and advances. Where the rules
// allow several outcomes it accepts each and follows the observed one; where
// an observation contradicts it, it records the finding and stops predicting
// (Lost) for the rest of the sequence.
type Model struct {
	opt      ModelOptions
	ctxs     [MaxSlots]*mctx
	claims   map[int32]*mctx
	external *mctx
	devKnown bool
	curDev   int32
	sites    [abi.LastSite + 1]siteState
	streams  [MaxStreams]streamState
	storages [MaxStorages]runSlot
	clobbers uint32
	injected [8]abi.Status
	nInj     int

	lost    bool
	lostWhy string
	// diverged is set by judge when the call answered a status the model
	// did not predict; Step then re-synchronises the model from the answer
	// (resync) instead of giving up, so one divergence hides no other.
	diverged    bool
	divergences int
	// generic counts, per rule, the passes a legacy build earned with its
	// generic -1 (where the target revision tells IS, IA, NR and INTERNAL
	// apart, a legacy build answers -1 for all of them).
	generic [numRules]uint32
	// runClauses counts, per rule, the passes of outstanding-run clauses
	// (E-FIN, E-DESTROY: a native run was outstanding).
	runClauses [numRules]uint32

	tally    Tally
	findings []Finding
	checked  int
	skipped  int

	// the step in progress
	e         Expectation
	co        *CallObs
	tolBranch bool
	curOp     Op
	curIdx    int
	curRep    int
}

// NewModel returns the model of a fresh runtime instance.
func NewModel(o ModelOptions) *Model {
	m := &Model{opt: o, claims: map[int32]*mctx{}, external: &mctx{latch: latchKernel, claim: true},
		devKnown: o.DeviceKnown, curDev: o.Device}
	for _, d := range o.Claimed {
		m.claims[d] = m.external
	}
	return m
}

// Profile is the build profile the model assumes.
func (m *Model) Profile() Profile { return m.opt.Profile }

// Lost reports whether the model stopped predicting, and why.
func (m *Model) Lost() (bool, string) { return m.lost, m.lostWhy }

// Findings are the non-passing checks so far.
func (m *Model) Findings() []Finding { return m.findings }

// Tally is the per-rule verdict count so far.
func (m *Model) Tally() *Tally { return &m.tally }

// Checked is the number of calls the model checked.
func (m *Model) Checked() int { return m.checked }

// SlotLive reports whether slot holds a context the runner may call.
func (m *Model) SlotLive(slot int8) bool {
	return slot >= 0 && int(slot) < MaxSlots && m.ctxs[slot] != nil && m.ctxs[slot].live
}

// Clone returns an independent copy (for Expect).
func (m *Model) Clone() *Model {
	n := *m
	n.claims = make(map[int32]*mctx, len(m.claims))
	remap := map[*mctx]*mctx{m.external: m.external}
	cp := func(c *mctx) *mctx {
		if c == nil {
			return nil
		}
		if d, ok := remap[c]; ok {
			return d
		}
		d := *c
		d.ids = append([]idInfo(nil), c.ids...)
		d.blocks = append([]uint32(nil), c.blocks...)
		if c.prog != nil {
			d.prog = make(map[int32]progCallable, len(c.prog))
			for k, v := range c.prog {
				d.prog[k] = v
			}
		}
		remap[c] = &d
		return &d
	}
	for i, c := range m.ctxs {
		n.ctxs[i] = cp(c)
	}
	for d, c := range m.claims {
		n.claims[d] = cp(c)
	}
	for i := range m.storages {
		n.storages[i].ctx = cp(m.storages[i].ctx)
	}
	n.findings = append([]Finding(nil), m.findings...)
	return &n
}

// Expect returns the model's primary expectation for op without advancing.
func (m *Model) Expect(op Op) Expectation {
	c := m.Clone()
	c.Advance(op)
	return c.e
}

// Advance steps the model as if op had the primary expected outcome (the
// generator's view).
func (m *Model) Advance(op Op) { m.Step(0, 0, op, nil) }

// Skip records that op was not executed.
func (m *Model) Skip(idx int, op Op, rule Rule, reason string) {
	m.skipped++
	m.tally[rule][Skip]++
	m.findings = append(m.findings, Finding{Index: idx, Op: op, Rule: rule, Verdict: Skip, Detail: reason})
}

func (m *Model) lose(why string) {
	if !m.lost {
		m.lost, m.lostWhy = true, why
	}
}

func (m *Model) ctx(slot int8) *mctx {
	if slot < 0 {
		return nil
	}
	return m.ctxs[slot]
}

// Step checks one call (one repetition, rep, of op at index idx) against obs
// and advances the model. obs nil advances along the primary expectation
// without checking.
func (m *Model) Step(idx, rep int, op Op, obs *Observation) {
	m.curOp, m.curIdx, m.curRep = op, idx, rep
	if m.lost {
		m.trackLiveness(op)
		return
	}
	var call, second *CallObs
	if obs != nil {
		call, second = &obs.Call, &obs.Second
	}
	cls := classOf(op.Kind)
	if cls.twoThread {
		a, b := op.slots()
		for _, sl := range [2]int8{a, b} {
			if c := m.ctx(sl); c != nil && c.unknown {
				m.begin(call)
				m.anything("a two-thread op on a context whose state is unknown")
				m.lose("#" + strconv.Itoa(idx) + " " + op.String() + ": a two-thread op on c" + strconv.Itoa(int(sl)) + ", whose state is unknown since #" + strconv.Itoa(c.divergedAt))
				return
			}
		}
		cls.step2(m, op, obs, call, second)
		if m.diverged {
			// Two threads' answers against one serial order: which order
			// the runtime took is not known after a surprise.
			m.diverged = false
			m.lose("#" + strconv.Itoa(idx) + " " + op.String() + ": a two-thread op answered what the model did not predict")
		}
		return
	}
	slot, _ := op.slots()
	c := m.ctx(slot)
	m.begin(call)
	if !cls.makesContext && slot >= 0 && (c == nil || !c.live) {
		// The runner never calls a slot without a live context.
		m.e.Unchecked = true
		return
	}
	if after := cls.step(m, op, c, obs); after != nil {
		defer after()
	}
	if cls.makesContext {
		c = m.ctxs[op.C]
	}
	m.end(c)
	if obs != nil {
		m.judge(call, obs, true)
		if m.diverged {
			m.diverged = false
			m.resync(op, c, call.Status)
		}
	}
}

func (m *Model) trackLiveness(op Op) {
	if c := classOf(op.Kind); c != nil && c.liveness != nil {
		c.liveness(m, op)
	}
}

func (m *Model) begin(co *CallObs) {
	m.e = Expectation{}
	m.co = co
	m.tolBranch = false
}

// end fills in the committed-memory expectation a walk left open: what the
// context's state after the call implies.
func (m *Model) end(c *mctx) {
	if m.e.memSet || c == nil {
		return
	}
	m.e.Mem = m.memState(c)
}

func (m *Model) memState(c *mctx) MemExpect {
	switch {
	case !c.live:
		return MemUnchecked
	case c.unknown:
		return MemAny
	case c.latch == unlatched:
		return MemZero
	case c.latch == latchProgram, c.dispatchAny:
		return MemAny
	case c.phase == phClosed && c.finalizedOK:
		return MemZero
	}
	return MemSame
}

// observed is the status the runner saw, when checking.
func (m *Model) observed() (abi.Status, bool) {
	if m.co == nil {
		return 0, false
	}
	return m.co.Status, true
}

// expect records the allowed statuses; on a tolerated branch it adds them to
// the tolerated set instead.
func (m *Model) expect(r Rule, ss StatusSet, note string) {
	if m.tolBranch {
		m.e.Tol.union(ss)
		return
	}
	m.e.Rule, m.e.Status, m.e.Note = r, ss, note
}

// tolerate adds a tolerated alternative that changes nothing.
func (m *Model) tolerate(r Rule, ss StatusSet, note string) {
	m.e.Tol.union(ss)
	m.e.TolRule, m.e.TolNote = r, note
}

// also names a second rule the status decision speaks for (Expectation.Also).
// On a tolerated branch it does nothing: the primary expectation is not the
// branch's.
func (m *Model) also(r Rule) {
	if !m.tolBranch {
		m.e.Also = r
	}
}

// refusedBeforeLatch records that a kernel init of c was refused before the
// latch (V-INIT, V-SPAN, V-CFG, capability): c must still be unlatched (L-5).
func (m *Model) refusedBeforeLatch(c *mctx) {
	if c != nil && c.latch == unlatched && !c.refusedPre {
		c.refusedPre, c.refusedAt = true, m.curIdx
	}
}

// suspectLatch: a kernel init of a context with an earlier refusal before
// the latch (l5) is expected to fail with IS after the latch (claim, D-2).
// When it does, the IS may as well be "already latched" by that refusal: the
// context is marked, and a later failure on it also names L-5.
func (m *Model) suspectLatch(c *mctx, l5 bool) {
	if st, seen := m.observed(); l5 && seen && st == abi.InvalidState && !c.latchSuspect {
		c.latchSuspect, c.suspectAt = true, m.curIdx
	}
}

// branchTolerated switches the walk onto a tolerated alternative that
// continues past a check (the rest of the walk describes what the tolerated
// build does); the primary expectation stays as set.
func (m *Model) branchTolerated(r Rule, note string) {
	m.tolBranch = true
	m.e.TolRule, m.e.TolNote = r, note
}

func (m *Model) mem(x MemExpect) { m.e.Mem, m.e.memSet = x, true }

func (m *Model) value(r Rule, v uint64, note string) {
	m.e.CheckValue, m.e.Value, m.e.ValueRule, m.e.ValueNote = true, v, r, note
}

func (m *Model) anything(note string, sites ...int32) {
	m.expect(RuleNone, anyStatus, note)
	m.mem(MemAny)
	for _, s := range sites {
		if m.sites[s].count > 0 {
			m.lose("fault site " + strconv.Itoa(int(s)) + " is armed while " + note)
		}
	}
}

// fire passes through a fault site: true and the code when it fails.
func (m *Model) fire(site int32) (abi.Status, bool) {
	s := &m.sites[site]
	if s.count > 0 {
		s.count--
		return abi.Status(s.code), true
	}
	return 0, false
}

// d2 is the read-only borrowed-device check (D-2); false when it refuses.
func (m *Model) d2(c *mctx, r Rule) bool {
	if !m.devKnown {
		// A program path reset the device (or a divergence left it unknown):
		// the answer says which side of the check the call took. INVALID_STATE
		// or a lower layer's code is D-2's refusal; anything else got past it,
		// so the device was the context's.
		st, seen := m.observed()
		if seen && (st == abi.InvalidState || (st != abi.OK && !st.IsDefinedHost() && !m.wasInjected(st))) {
			m.expect(RuleNone, anyStatus, "the calling thread's current device is unknown: taken as D-2's refusal")
			m.mem(MemSame)
			return false
		}
		m.curDev, m.devKnown = c.dev, true
	}
	if m.curDev != c.dev {
		m.expect(r, one(abi.InvalidState), "the calling thread's current device "+devText(m.curDev)+" is not the context's device "+strconv.Itoa(int(c.dev)))
		// Tolerated: the device query's own code in place of IS, at this
		// step. A host code or an injected code comes from a later step: a
		// runtime that skipped the check and failed further on.
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

func (m *Model) create(op Op) {
	m.ctxs[op.C] = newMctx()
	m.value(RL1, 1, "create_device_context returns a non-NULL handle")
	m.expect(RL1, anyStatus, "")
	m.mem(MemZero)
	m.e.MemRule = RM7
}

func (m *Model) destroy(c *mctx) {
	m.expect(REDestroy, anyStatus, "")
	if c == nil {
		return
	}
	if c.unknown {
		// Whether the runtime freed it is not known: never call it again.
		c.live, c.mayLeak = false, true
		m.devKnown = false
		return
	}
	if c.latch == latchKernel {
		m.e.D1Rule = RD1
	}
	if c.runs > 0 {
		m.e.Rule, m.e.RunClause = REDestroy, true // refused: the calls after it tell
	}
	if c.runs > 0 || (c.latch == latchKernel && !c.finalizedOK) {
		// E-DESTROY: refused (a native run outstanding, or a kernel context
		// not finalized); the context behaves as if destroy had not been
		// called, which the ops after it check.
		c.destroyRefused = true
		return
	}
	c.live = false
	m.freeRuns(c)
	if c.attached {
		m.devKnown = false
	}
}

func (m *Model) supported(c *mctx) {
	m.expect(RESup, anyStatus, "")
	m.e.D1Rule = RESup
	switch m.opt.Profile {
	case ProfileTMR:
		m.value(RESup, 1, "a tmr build answers 1 for every ctx in every state")
	case ProfileRefusing:
		m.value(RESup, 0, "a refusing build answers 0 for every ctx in every state")
	}
}

func (m *Model) kinit(op Op, c *mctx) {
	m.e.D1Rule = RD1
	spansOK := op.Spans[SpanAicpu].Consistent() && op.Spans[SpanAicore].Consistent() && op.Spans[SpanDispatcher].Consistent()
	if c == nil || op.Cfg.Null || op.Dev < 0 || op.Gen == 0 {
		m.expect(RVInit, one(abi.InvalidArgument), "NULL ctx or config, device < 0 or generation 0")
		m.refusedBeforeLatch(c)
		return
	}
	if !spansOK {
		m.expect(RVSpan, one(abi.InvalidArgument), "an inconsistent aicpu/aicore/dispatcher span")
		m.refusedBeforeLatch(c)
		return
	}
	v := checkCfg(op.Cfg, true)
	refusing := m.opt.Profile == ProfileRefusing
	if v.st != abi.OK {
		st, seen := m.observed()
		switch {
		case refusing:
			m.expect(RVCfg, one(v.st), v.what)
			m.tolerate(REKInit, one(abi.Unsupported), "a refusing build answering UNSUPPORTED before V-CFG (tolerated)")
			m.refusedBeforeLatch(c)
			return
		case v.ringOnly && seen && st != abi.InvalidArgument:
			m.expect(RVCfg, one(v.st), v.what)
			m.branchTolerated(RVCfg, "ring sizing not checked (V-CFG tolerated: 0)")
		default:
			m.expect(RVCfg, one(v.st), v.what)
			if v.tolINT {
				m.tolerate(RVCfg, one(abi.Internal), "INTERNAL for the thread count (V-CFG tolerated)")
			}
			m.refusedBeforeLatch(c)
			return
		}
	}
	if refusing {
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
	if c.latch != unlatched {
		r, why := RK2, "already latched"
		switch {
		case c.latch == latchProgram:
			r, why = RL2, "the context is program-latched"
		case c.phase == phClosed:
			r, why = RK6, "the context is Closed"
		case c.initFailed:
			r, why = REKInit, "an earlier kernel init failed after the latch"
		}
		m.expect(r, one(abi.InvalidState), why)
		return
	}
	// L-5: an earlier init of this context was refused before the latch,
	// so it must still be unlatched here; a runtime that latched at that
	// refusal answers INVALID_STATE (already latched) from now on.
	l5 := c.refusedPre
	c.latch, c.dev, c.phase = latchKernel, op.Dev, phNew
	m.mem(MemAny)
	if h := m.claims[op.Dev]; h != nil && h != c {
		if h.unknown {
			// The holder's state is unknown since it diverged: whether it
			// still holds the claim is too.
			if m.pinned() {
				m.expect(RuleNone, anyStatus, "device "+strconv.Itoa(int(op.Dev))+"'s holder is unknown")
				m.pinKernel(c, op.Dev)
				return
			}
			c.initFailed = true
			m.expect(RuleNone, anyStatus, "device "+strconv.Itoa(int(op.Dev))+"'s holder is unknown: taken as the claim refusal")
			return
		}
		c.initFailed = true
		m.expect(REClaim, one(abi.InvalidState), "another context holds device "+strconv.Itoa(int(op.Dev)))
		m.suspectLatch(c, l5)
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
	if l5 {
		m.also(RL5)
	}
	m.mem(MemZeroTolUp)
	m.e.MemRule = RM7
}

func (m *Model) pinit(op Op, c *mctx) {
	if c == nil {
		m.expect(REPInit, one(abi.Internal), "simpler_init(NULL) (S-3)")
		return
	}
	for i := 0; i < 4; i++ {
		if !op.Spans[i].Consistent() {
			m.expect(RVSpan, one(abi.InvalidArgument), "an inconsistent "+spanKeys[i]+" span")
			return
		}
	}
	if op.Dev < 0 {
		m.expect(REPInit, one(abi.InvalidArgument), "device < 0")
		return
	}
	if op.Prewarm {
		if v := checkCfg(op.Cfg, false); v.st != abi.OK {
			st, seen := m.observed()
			m.expect(REPInit, one(abi.InvalidArgument), "prewarm config: "+v.what)
			if v.ringOnly && seen && st != abi.InvalidArgument {
				m.branchTolerated(RVCfg, "ring sizing not checked (V-CFG tolerated: 0)")
			} else {
				if v.tolINT {
					m.tolerate(RVCfg, one(abi.Internal), "INTERNAL for the thread count (V-CFG tolerated)")
				}
				return
			}
		}
	}
	if m.unknownState(c) {
		if m.pinned() {
			m.pinProgram(c, op.Dev)
		}
		return
	}
	if c.latch == latchKernel {
		r, why := RL2, "the context is kernel-latched"
		switch {
		case c.phase == phClosed && c.finalizedOK:
			r, why = REFin, "the kernel context was finalized"
		case c.initFailed:
			r, why = RL3, "a failed kernel init latched it (nothing unlatches)"
		}
		m.expect(r, one(abi.InvalidState), why)
		return
	}
	c.latch = latchProgram
	if c.attached {
		m.expect(REPInit, one(abi.InvalidState), "a device is already attached")
		return
	}
	c.attached, c.dev, c.bins = true, op.Dev, execBins(op)
	m.curDev, m.devKnown = op.Dev, true
	r := REPInit
	if c.refusedPre {
		r = RL5
	}
	m.expect(r, one(abi.OK), "")
}

// execBins: a program init gave both executor binaries (aicpu, aicore),
// which a real build needs before it can register a device orchestration.
func execBins(op Op) bool {
	return op.Spans[SpanAicpu] == SpanBytes && op.Spans[SpanAicore] == SpanBytes
}

func (m *Model) acl(op Op, c *mctx) {
	if c == nil {
		m.expect(REACL, one(abi.InvalidArgument), "ensure_acl_ready_ctx(NULL)")
		m.tolerate(RS3, one(abi.Internal), "INTERNAL for NULL ctx (S-3 tolerated)")
		return
	}
	if op.Dev < 0 {
		m.expect(REACL, one(abi.InvalidArgument), "device < 0")
		return
	}
	if m.unknownState(c) {
		if m.pinned() {
			m.curDev, m.devKnown = op.Dev, true
		}
		return
	}
	if c.latch == latchKernel {
		r := REACL
		if c.initFailed {
			r = RL3
		}
		m.expect(r, one(abi.InvalidState), "the context is kernel-latched")
		return
	}
	c.latch = latchProgram
	m.curDev, m.devKnown = op.Dev, true
	r := REACL
	if c.refusedPre {
		r = RL5
	}
	m.expect(r, one(abi.OK), "")
}

// refusesDispatch sets the IS expectation of prepare/launch on a context
// that does not accept dispatch; false when it does.
func (m *Model) refusesDispatch(c *mctx, entry Rule) bool {
	if c.latch != latchKernel {
		r := entry
		if c.latch == latchProgram {
			r = RL4
		}
		m.expect(r, one(abi.InvalidState), "not a kernel context")
		return true
	}
	if c.phase.dispatch() {
		return false
	}
	r := RK1
	switch c.phase {
	case phClosed:
		r = RK6
	case phPoisoned:
		r = RK4
	case phClosing:
		r = RK5
	}
	m.expect(r, one(abi.InvalidState), "phase "+phaseNames[c.phase]+" does not accept dispatch")
	return true
}

// takesGate reports whether a prepare would reach the submission gate.
func (m *Model) takesGate(op Op, c *mctx, img ImageRecipe) bool {
	f := factsOf(img)
	return c != nil && !f.null && !op.OutNull && f.size >= headerSize && f.aligned &&
		m.opt.Profile == ProfileTMR && c.latch == latchKernel && !c.dispatchAny && c.phase.dispatch()
}

func (m *Model) prepare(op Op, c *mctx, img ImageRecipe, waited bool) {
	f := factsOf(img)
	m.e.CheckOut = !op.OutNull
	if c == nil || f.null || op.OutNull || f.size < headerSize || !f.aligned {
		m.expect(RVPrep2, one(abi.InvalidArgument), "NULL ctx, callable or out, size < 9376, or a misaligned image")
		return
	}
	if c.latch == latchKernel {
		m.e.D1Rule = RD1
	}
	if m.opt.Profile == ProfileRefusing {
		m.expect(REPrep, one(abi.InvalidState), "a refusing build validates, then refuses")
		return
	}
	if m.unknownState(c) {
		return
	}
	if c.latch == latchKernel && c.dispatchAny {
		m.anything("prepare on a quarantined context", 2, 3, 7)
		return
	}
	if m.refusesDispatch(c, REPrep) {
		return
	}
	m.fire(7)
	if !m.d2(c, RD2) {
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
	if len(c.ids) >= maxIDs {
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
		return
	}
	grew := c.charge(blk, f.charge) || !c.region
	c.region = true
	if code, ok := m.fire(3); ok {
		c.phase = phPoisoned
		m.expect(RK4, one(code), "device registration fails (site 3): poisoned")
		m.mem(MemUpOrSame)
		return
	}
	id := int32(len(c.ids))
	c.ids = append(c.ids, idInfo{t: f.t, s: f.s, clob: m.clobbers})
	c.phase = phReady
	r, outRule := REPrep, RM1
	switch {
	case c.asyncHit:
		r = RELaunchAsync
	case waited:
		r = RX2
	case id == maxIDs-1:
		r = RM4 // the 8192nd resident still fits
	case grew && c.allocated == budgetBytes:
		r = RM5 // exactly filling the budget succeeds
	}
	switch {
	case c.failedSince:
		outRule = RM3
	case c.hasLast && c.lastImg == img:
		outRule = RM2
	}
	m.expect(r, one(abi.OK), "")
	m.e.OutOK, m.e.OutRule, m.e.OutKnown = id, outRule, true
	c.failedSince, c.lastImg, c.hasLast = false, img, true
	if grew {
		m.mem(MemUp)
	} else {
		m.mem(MemSame)
	}
	m.e.MemRule = RM7
}

// fit finds where a charge goes (M-5): the index of a 2 MiB block whose tail
// takes it (-1: a new block), and whether the budget allows it.
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

// launchCounts are the counts op's args carry for c's id, as the runner forms
// them (the observation says what it actually passed).
func (m *Model) launchCounts(op Op, c *mctx) (int32, int32, bool) {
	if m.co != nil {
		return m.co.ArgT, m.co.ArgS, m.co.ArgHost
	}
	var t, s int32
	if op.Args.Mode == ArgsMatch && op.ID >= 0 && int(op.ID) < len(c.ids) {
		t, s = c.ids[op.ID].t, c.ids[op.ID].s
	}
	return t + int32(op.Args.T), s + int32(op.Args.S), op.Args.Host
}

func (m *Model) launch(op Op, c *mctx, gateHeld bool) {
	if c == nil || op.Args.Mode == ArgsNull || op.Stream < 0 || op.ID < 0 || op.ID >= maxIDs {
		m.expect(RVLaunch, one(abi.InvalidArgument), "NULL ctx, args or stream, or id outside [0, 8192)")
		return
	}
	if c.latch == latchKernel {
		m.e.D1Rule = RD1
	}
	if m.opt.Profile == ProfileRefusing {
		m.expect(RELaunch, one(abi.InvalidState), "a refusing build validates, then refuses")
		return
	}
	if m.unknownState(c) {
		return
	}
	if c.latch == latchKernel && c.dispatchAny {
		m.anything("launch on a quarantined context", 4)
		return
	}
	if m.refusesDispatch(c, RELaunch) {
		return
	}
	if gateHeld {
		m.expect(RX2, one(abi.InvalidState), "a prepare holds the gate: IS at once")
		return
	}
	if c.phase == phCollecting {
		m.expect(RELaunch, one(abi.InvalidState), "no successful prepare yet")
		return
	}
	if !m.d2(c, RD2) {
		return
	}
	if int(op.ID) >= len(c.ids) {
		m.expect(RELaunch, one(abi.CallableNotResident), "id "+strconv.Itoa(int(op.ID))+" never published on this context")
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
	}
	m.expect(r, one(abi.OK), "")
	m.mem(MemSame)
	m.e.MemRule = RM7
}

func (m *Model) finalize(c *mctx) {
	if c == nil {
		m.expect(REFin, one(abi.Internal), "finalize_device(NULL)")
		return
	}
	if m.unknownState(c) {
		return
	}
	if c.runs > 0 {
		m.expect(REFin, one(abi.Internal), "a native run is outstanding: nothing torn down")
		m.e.RunClause = true
		return
	}
	switch c.latch {
	case unlatched:
		m.expect(REFin, one(abi.OK), "an unlatched context: nothing to do")
		if c.refusedPre {
			m.also(RL5) // unlatched although a kernel init was refused on it
		}
		return
	case latchProgram:
		m.expect(REFin, one(abi.OK), "")
		if c.attached {
			if code, ok := m.fire(abi.SiteProgramTeardown); ok {
				m.expect(REFin, one(code), "the program teardown fails (site 10): returned, and the context is detached anyway")
			}
			c.attached, c.prog = false, nil
			m.devKnown = false
		}
		return
	}
	m.e.D1Rule = RD1
	switch {
	case c.phase == phClosed:
		m.expect(RK6, one(abi.OK), "Closed is terminal: finalize returns 0 again")
		return
	case c.quarantined:
		m.expect(RD4, one(abi.InvalidState), "quarantined: IS on every later finalize")
		return
	}
	if !m.d2(c, RD2) {
		return
	}
	if c.phase == phNew {
		c.phase, c.finalizedOK = phClosed, true
		m.expect(RK5, one(abi.OK), "close in New")
		m.mem(MemZero)
		m.e.MemRule = RM7
		return
	}
	m.mem(MemAny)
	if _, ok := m.fire(6); ok {
		c.quarantined, c.dispatchAny = true, true
		m.expect(RD4, one(abi.InvalidState), "fatal device (site 6): quarantined, IS on this and every later finalize")
		return
	}
	c.phase = phClosing
	if code, ok := m.fire(5); ok {
		m.expect(RK5, one(code), "a release step fails (site 5): stays Closing")
		return
	}
	c.phase, c.finalizedOK = phClosed, true
	if c.claim {
		c.claim = false
		if m.claims[c.dev] == c {
			delete(m.claims, c.dev)
		}
	}
	m.expect(REFin, one(abi.OK), "")
	m.mem(MemZero)
	m.e.MemRule = RM7
}

func (m *Model) committed(c *mctx) {
	m.expect(RM7, anyStatus, "")
	m.e.MemRule = RM7
	if c == nil {
		m.value(RM7, 0, "committed_device_memory_ctx(NULL) is 0")
		return
	}
	if c.latch == latchKernel {
		m.e.D1Rule = RD1
	}
}

func (m *Model) prog(op Op, c *mctx) {
	fn := op.Fn
	if c == nil {
		switch {
		case fn.statusEntry():
			m.expect(RS3, one(abi.InvalidArgument), "NULL ctx")
			m.tolerate(RS3, one(abi.Internal), "INTERNAL for NULL ctx (S-3 tolerated)")
		case fn == FnFree:
			m.expect(RS3, anyStatus, "")
		case fn == FnConcurrentPrepare:
			m.expect(RS3, anyStatus, "")
		default:
			m.expect(RS3, anyStatus, "")
			m.value(RS3, 0, "a query on NULL ctx returns 0 / NULL")
		}
		return
	}
	if m.unknownState(c) {
		return
	}
	if c.latch == latchProgram && c.attached {
		m.anything("a program entry with a live program init: program run details are not rules")
		return
	}
	m.mem(m.memState(c))
	switch {
	case fn.progOnly():
		m.expect(REProg, one(abi.InvalidState), "no live program init: IS before any other check")
	case fn == FnMalloc:
		m.expect(REProg, anyStatus, "")
		m.value(REProg, 0, "device_malloc_ctx without a live program init returns NULL")
	default:
		m.expect(RuleNone, anyStatus, "")
	}
}

func (m *Model) contract(obs *Observation) {
	m.expect(RVContract, anyStatus, "")
	if obs == nil {
		return
	}
	m.e.CheckValue, m.e.Value, m.e.ValueRule = true, 1, RVContract
	if why := checkContract(obs.Contract); why != "" {
		m.e.ValueNote = why
		m.e.Value = 2 // never equals the 1 the runner reports; judge prints the note
	}
}

func (m *Model) sync(op Op) {
	if op.Stream < 0 {
		if m.opt.DrivenCompletion {
			m.expect(RHooks, one(abi.InvalidArgument), "simabi_sync_stream(NULL)")
		} else {
			m.expect(RHooks, anyFailure, "aclrtSynchronizeStream(NULL)")
		}
		return
	}
	st := &m.streams[op.Stream]
	defer func() { st.done, st.unsure = st.enq, false }()
	if !m.opt.DrivenCompletion {
		m.expect(RELaunchAsync, one(abi.OK), "")
		return
	}
	pending := st.enq > st.done
	armed := m.sites[8].count > 0
	switch {
	case st.unsure && armed:
		got, seen := m.observed()
		code := abi.Status(m.sites[8].code)
		if seen && got == code {
			m.fire(8)
			m.expect(RELaunchAsync, one(code), "")
		} else {
			m.expect(RELaunchAsync, one(abi.OK), "")
		}
	case pending && armed:
		code, _ := m.fire(8)
		m.expect(RD3, one(code), "the launches are still pending (the runtime never synchronizes the caller's stream): the injected failure (site 8) is delivered here")
		for _, c := range m.ctxs {
			if c != nil && c.lastStream == op.Stream {
				c.asyncHit = true
			}
		}
	case pending:
		m.expect(RELaunchAsync, one(abi.OK), "")
		m.tolerate(RS1, StatusSet{DeviceBand: true}, "a device-band code from the kernel itself (S-1: warned)")
	default:
		m.expect(RELaunchAsync, one(abi.OK), "no pending work: nothing to deliver")
	}
}

// siteRules names the rule each fault site drives.
var siteRules = [abi.LastSite + 1]Rule{RuleNone, RK7, RM3, RK4, RK4, RK5, RD4, RX2, RELaunchAsync, RK7, REFin}

func (m *Model) inject(op Op) {
	if op.Site < abi.FirstSite || op.Site > abi.LastSite || op.Count < 0 || (op.Count > 0 && op.Code == 0 && op.Site != 6 && op.Site != 7) {
		m.expect(RHooks, one(abi.InvalidArgument), "simabi_inject argument rule")
		return
	}
	m.expect(RHooks, two(abi.OK, abi.Unsupported), "")
	if got, seen := m.observed(); seen && got == abi.Unsupported {
		if op.Count > 0 {
			m.Skip(m.curIdx, op, siteRules[op.Site], "the target does not model fault site "+strconv.Itoa(int(op.Site)))
		}
		return
	}
	m.sites[op.Site] = siteState{count: op.Count, code: op.Code}
	if op.Count > 0 && !m.wasInjected(abi.Status(op.Code)) && m.nInj < len(m.injected) {
		m.injected[m.nInj] = abi.Status(op.Code)
		m.nInj++
	}
}

func legacyCanon(s abi.Status) abi.Status {
	switch s {
	case abi.InvalidArgument, abi.InvalidState, abi.CallableNotResident:
		return abi.Internal
	}
	return s
}

// wasInjected reports whether the checker armed a fault site with code s in
// this sequence.
func (m *Model) wasInjected(s abi.Status) bool {
	for i := 0; i < m.nInj; i++ {
		if m.injected[i] == s {
			return true
		}
	}
	return false
}

// documented reports whether a status of op is one S-2 allows: success, a
// host code docs/contract.md names, the device band, a documented positive value
// (simpler_poll_run's COMPLETE), or a code the checker injected.
func (m *Model) documented(op Op, s abi.Status) bool {
	if s == abi.OK || s.IsDefinedHost() || s.IsDeviceLatched() ||
		(s == abi.PollComplete && (op.Kind == KindPollRun || op.Kind == KindProg && op.Fn == FnPollRun)) {
		return true
	}
	return m.wasInjected(s)
}

// tolerated reports whether st is a tolerated alternative of e. A lower
// layer's own code (D-2) never covers a code the checker injected: that one
// comes from a fault site past the tolerated step.
func (m *Model) tolerated(e *Expectation, st abi.Status) bool {
	if !e.Tol.Has(st) {
		return false
	}
	if e.Tol.Foreign && m.wasInjected(st) {
		t := e.Tol
		t.Foreign = false
		return t.Has(st)
	}
	return true
}

// suspectContext is the context of op marked latchSuspect, or nil.
func (m *Model) suspectContext(op Op) (int8, *mctx) {
	a, b := op.slots()
	for _, s := range [2]int8{a, b} {
		if c := m.ctx(s); c != nil && c.latchSuspect {
			return s, c
		}
	}
	return NullRef, nil
}

func (m *Model) finding(r Rule, v Verdict, detail string) { m.findingKey(r, v, "", detail) }

// findingKey records a finding whose identity across runs (its fingerprint)
// is key rather than the whole detail, so that rewording a note changes no
// baseline.
func (m *Model) findingKey(r Rule, v Verdict, key, detail string) {
	m.tally[r][v]++
	m.findings = append(m.findings, Finding{Index: m.curIdx, Rep: m.curRep, Op: m.curOp, Rule: r, Verdict: v, Detail: detail, Key: key})
}

func (m *Model) pass(r Rule) {
	if r != RuleNone {
		m.tally[r][Pass]++
	}
}

// passOn counts a pass; generic marks one a legacy build earned with its
// generic -1.
func (m *Model) passOn(r Rule, generic bool) {
	m.pass(r)
	if generic && r != RuleNone {
		m.generic[r]++
	}
}

// judge compares one call with the expectation the walk left in m.e.
func (m *Model) judge(co *CallObs, obs *Observation, withMem bool) {
	e := &m.e
	if e.Unchecked {
		return
	}
	m.checked++
	st := co.Status
	if m.opt.Profile == ProfileLegacy {
		// A legacy build reports IA, IS, NR and INTERNAL alike as its
		// generic -1 (translated to INTERNAL by the runner).
		st = legacyCanon(st)
		e.Status, e.Tol = e.Status.canon(legacyCanon), e.Tol.canon(legacyCanon)
	}
	op := m.curOp
	entry, null := statusCall(op), nullCtxCall(op)
	// On a legacy build an observed INTERNAL is its generic -1 (the runner
	// translated it): a pass on it tells less than a pass on a kernel build.
	generic := m.opt.Profile == ProfileLegacy && st == abi.Internal
	switch {
	case e.Status.Has(st):
		if e.RunClause {
			m.runClauses[e.Rule]++
		}
		if !e.Status.Any {
			m.passOn(e.Rule, generic)
			if e.Also != e.Rule {
				m.passOn(e.Also, generic)
			}
			if null && e.Rule != RS3 {
				m.passOn(RS3, generic)
			}
		}
		if st != abi.OK && !st.IsDeviceLatched() && m.opt.Profile != ProfileLegacy {
			m.pass(RS1) // legacy builds are exempt from S-1
		}
		if e.Status.Any && entry && !m.documented(op, st) {
			// Where the rules leave the outcome open it must still be a
			// code docs/contract.md documents.
			m.finding(RS2, Fail, "undocumented status value "+strconv.Itoa(int(st))+
				": not 0, not a host code of docs/contract.md, not a device-band code")
		} else {
			m.pass(RS2)
		}
	case m.tolerated(e, st):
		r := e.TolRule
		if r == RuleNone {
			r = e.Rule
		}
		m.finding(r, Warn, "got "+statusName(st)+" where "+e.Rule.String()+" wants "+e.Status.String()+": "+e.TolNote)
	default:
		detail := "want " + e.Status.String()
		if e.Note != "" {
			detail += " (" + e.Note + ")"
		}
		if tol := e.Tol; !tol.Empty() {
			// Name only what the tolerance adds beyond what is wanted.
			if extra := tol.minus(e.Status); !extra.Empty() {
				detail += ", tolerated " + extra.String()
			}
		}
		if e.Grounds != "" {
			detail += " [legacy: " + e.Grounds + "]"
		}
		detail += ", got " + statusName(st)
		key := "want " + e.Status.String() + ", got " + statusName(st)
		m.findingKey(e.Rule, Fail, key, detail)
		if e.Also != RuleNone && e.Also != e.Rule {
			m.findingKey(e.Also, Fail, key, detail)
		}
		if null && e.Rule != RS3 && e.Also != RS3 {
			m.findingKey(RS3, Fail, "NULL ctx: "+key, "NULL ctx: "+detail)
		}
		if entry && m.opt.Profile != ProfileLegacy && st.IsDeviceLatched() && e.Status.hostOnly() {
			// S-1: a host-side refusal in the band of device-latched codes.
			m.finding(RS1, Fail, "returned "+strconv.Itoa(int(st))+", a code of the device-latched band (-1..-999), where the rules want "+
				e.Status.String()+": host-side failures lie at or below -1000")
		}
		if entry && !m.documented(op, st) {
			m.finding(RS2, Fail, "undocumented status value "+strconv.Itoa(int(st))+
				": not 0, not a host code of docs/contract.md, not a device-band code")
		}
		if slot, c := m.suspectContext(op); c != nil && e.Rule != RL5 && e.Also != RL5 {
			m.finding(RL5, Fail, "c"+strconv.Itoa(int(slot))+"'s kernel init was refused before the latch (#"+strconv.Itoa(c.refusedAt)+
				") and a later kernel init answered INVALID_STATE (#"+strconv.Itoa(c.suspectAt)+"), as a runtime that latched at the refusal does; "+detail)
		}
		m.diverged = true
		m.divergences++
	}
	if e.CheckOut {
		switch {
		case st != abi.OK && co.Out != -1:
			m.finding(RVPrep1, Fail, "failed with "+statusName(st)+" and left out="+strconv.Itoa(int(co.Out))+"; V-PREP-1 wants -1")
		case st != abi.OK:
			m.pass(RVPrep1)
		case !e.OutKnown:
		case co.Out != e.OutOK:
			m.finding(e.OutRule, Fail, "succeeded with id "+strconv.Itoa(int(co.Out))+"; want id "+strconv.Itoa(int(e.OutOK))+
				" (the k-th success mints k-1, failures mint nothing, identical bytes get new ids)")
		default:
			m.pass(e.OutRule)
		}
	}
	if e.CheckValue {
		if co.Value != e.Value {
			note := e.ValueNote
			if e.ValueRule == RVContract {
				m.finding(RVContract, Fail, note)
			} else {
				key := "returned " + valueText(co.Value) + ", want " + valueText(e.Value)
				detail := key + ": " + note
				m.findingKey(e.ValueRule, Fail, key, detail)
				if null && e.ValueRule != RS3 {
					m.findingKey(RS3, Fail, "NULL ctx: "+key, "NULL ctx: "+detail)
				}
			}
		} else {
			m.pass(e.ValueRule)
			if null && e.ValueRule != RS3 {
				m.pass(RS3)
			}
		}
	}
	if withMem && obs.MemProbed {
		m.judgeMem(obs)
	}
	if m.curOp.Kind == KindPrepare || m.curOp.Kind == KindHoldPrepare || m.curOp.Kind == KindHoldLaunch {
		if obs.ImageWritten {
			m.finding(RM6, Fail, "prepare wrote into the caller's image (child addresses are patched only in the runtime's copy)")
			obs.ImageWritten = false
		} else if e.CheckOut && st == abi.OK {
			m.pass(RM6)
		}
	}
	if e.CheckAccepted && st == abi.OK {
		if want := AcceptedValue(m.curOp.St); obs.Accepted != want {
			m.finding(REProg, Fail, "launch_run returned 0 and left "+strconv.Itoa(int(obs.Accepted))+" at the descriptor's accepted_state; want its accepted_value "+
				strconv.Itoa(int(want))+" (published at launch)")
		} else {
			m.pass(REProg)
		}
	}
	if e.D1Rule != RuleNone && obs.ACLProbed {
		if obs.ACLForbidden != "" {
			m.finding(e.D1Rule, Fail, "called "+obs.ACLForbidden+" on a kernel path (the caller owns ACL, the device and its streams)")
		} else {
			m.pass(e.D1Rule)
		}
	}
}

func (m *Model) judgeMem(obs *Observation) {
	e := &m.e
	v, p := obs.Mem, obs.MemPrev
	ok := true
	switch e.Mem {
	case MemUnchecked, MemAny:
		return
	case MemZero:
		ok = v == 0
	case MemSame:
		ok = v == p
	case MemUp:
		ok = v > p
	case MemUpOrSame:
		ok = v >= p
	case MemZeroTolUp:
		if v != 0 {
			m.finding(RM7, Warn, "committed "+strconv.FormatUint(v, 10)+" after kernel init: a nonzero C0 (M-7 tolerated)")
			return
		}
	}
	r := e.MemRule
	if r == RuleNone {
		r = RM7
	}
	if ok {
		m.pass(r)
		return
	}
	m.finding(r, Fail, "committed went "+strconv.FormatUint(p, 10)+" -> "+strconv.FormatUint(v, 10)+", want "+e.Mem.String())
}

// holdLaunch: the runner armed site 7 (count 1, code = ms), ran a prepare
// on this thread and, while it held the gate, a launch on a second thread.
func (m *Model) holdLaunch(op Op, obs *Observation, call, second *CallObs) {
	m.sites[7] = siteState{count: 1, code: op.Ms}
	c := m.ctx(op.C)
	held := m.takesGate(op, c, op.Img) && (obs == nil || obs.Overlap)
	runPrepare := func() {
		m.begin(call)
		m.prepare(op, c, op.Img, false)
		m.end(c)
		if obs != nil {
			m.judge(call, obs, false)
		}
	}
	if !held {
		runPrepare()
	}
	if m.lost || m.diverged {
		return
	}
	m.begin(second)
	m.launch(op, c, held)
	m.end(c)
	if obs != nil {
		m.judge(second, obs, false)
		if held && obs.SecondLate {
			m.finding(RX2, Fail, "the launch returned only after the prepare holding the gate returned: it waited instead of failing at once")
		}
	}
	if held && !m.lost && !m.diverged {
		runPrepare()
	}
}

// holdPrepare: a second prepare on a second thread while the first holds
// the gate: it waits and then proceeds.
func (m *Model) holdPrepare(op Op, obs *Observation, call, second *CallObs) {
	m.sites[7] = siteState{count: 1, code: op.Ms}
	c := m.ctx(op.C)
	first, firstObs, secondImg, secondObs := op.Img, call, op.Img2, second
	if obs != nil && c != nil && call.Status == abi.OK && second.Status == abi.OK && second.Out == int32(len(c.ids)) {
		// The second thread reached the gate first.
		first, firstObs, secondImg, secondObs = op.Img2, second, op.Img, call
	}
	m.begin(firstObs)
	m.prepare(op, c, first, false)
	m.end(c)
	if obs != nil {
		m.judge(firstObs, obs, false)
	}
	if m.lost || m.diverged {
		return
	}
	m.begin(secondObs)
	m.prepare(op, c, secondImg, true)
	m.end(c)
	if obs != nil {
		m.judge(secondObs, obs, false)
	}
}

// raceKInit: two contexts initialize for one device at once; the claim
// registry is atomic, so the one that got it is the one that ran first.
func (m *Model) raceKInit(op Op, obs *Observation, call, second *CallObs) {
	if m.sites[1].count > 0 || m.sites[9].count > 0 {
		// One racer may fail creation and release the claim while the
		// other is refused or takes it: not a serial order of whole inits.
		m.begin(call)
		m.anything("racing kernel inits with fault site 1 or 9 armed", 1, 9)
		return
	}
	a, b := op, op
	b.C = op.C2
	ca, cb := m.ctx(op.C), m.ctx(op.C2)
	oa, ob := call, second
	if obs != nil && second.Status == abi.OK && call.Status != abi.OK {
		a, b, ca, cb, oa, ob = b, a, cb, ca, ob, oa
	}
	for _, x := range []struct {
		op Op
		c  *mctx
		co *CallObs
	}{{a, ca, oa}, {b, cb, ob}} {
		if m.lost || m.diverged {
			return
		}
		m.begin(x.co)
		m.kinit(x.op, x.c)
		if m.e.Rule == REClaim {
			m.e.Rule = RX1
		}
		m.end(x.c)
		if obs != nil {
			m.judge(x.co, obs, false)
		}
	}
}

// checkContract is V-CONTRACT over the 144 bytes get_pipeline_contract
// points at; it explains the first defect or returns "".
func checkContract(b []byte) string {
	if len(b) < 144 {
		return "get_pipeline_contract returned NULL"
	}
	u32 := func(off int) uint32 { return le.Uint32(b[off:]) }
	if v := u32(0); v != 1 {
		return "abi_version " + strconv.Itoa(int(v)) + ", want 1"
	}
	n, depth := u32(4), u32(8)
	if n > 8 {
		return "resource_count " + strconv.Itoa(int(n)) + " > 8"
	}
	if depth < 1 || depth > 2 {
		return "pipeline_depth " + strconv.Itoa(int(depth)) + " outside [1, 2]"
	}
	var seen [4]bool
	copies, aicpu, aicore := uint32(0), 0, 0
	for i := 0; i < int(n); i++ {
		r := b[16+16*i:]
		kind, class, bytes := le.Uint32(r), le.Uint32(r[4:]), le.Uint64(r[8:])
		switch {
		case kind < 1 || kind > 6:
			return "resource " + strconv.Itoa(i) + " kind " + strconv.Itoa(int(kind))
		case class > 2:
			return "resource " + strconv.Itoa(i) + " class " + strconv.Itoa(int(class))
		case bytes != 0:
			return "resource " + strconv.Itoa(i) + " declares bytes_per_copy in a program contract"
		}
		switch kind {
		case 1, 2, 3:
			if seen[kind] {
				return "arena kind " + strconv.Itoa(int(kind)) + " declared twice"
			}
			seen[kind] = true
			c := depth
			if class == 1 {
				c = 1
			}
			if copies != 0 && c != copies {
				return "arena resources disagree on their copy count"
			}
			copies = c
		case 5, 6:
			if class != 2 {
				return "stream resource " + strconv.Itoa(i) + " is not EXEC_HANDLE"
			}
			if kind == 5 {
				aicpu++
			} else {
				aicore++
			}
		}
	}
	if aicpu != 1 || aicore != 1 {
		return "want exactly one AICPU_STREAM and one AICORE_STREAM"
	}
	return ""
}

// valueText renders a queried value: a device id or a status of -1 reads as
// -1, not as 2^64-1.
func valueText(v uint64) string {
	if int64(v) < 0 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatUint(v, 10)
}
