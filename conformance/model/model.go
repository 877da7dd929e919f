package model

import (
	"strconv"

	"github.com/simabi/simabi/abi"
)

// Profile is a runtime build profile (abi.Profile).
type Profile = abi.Profile

// Profiles.
const (
	ProfileTMR      = abi.ProfileTMR      // supported = 1
	ProfileRefusing = abi.ProfileRefusing // supported = 0
	ProfileLegacy   = abi.ProfileLegacy   // no kernel entries: program rules only
)

// Latch is a context's execution-mode latch (L-*).
type Latch uint8

// Latches.
const (
	Unlatched    Latch = iota // nothing latched it since create
	LatchProgram              // a program init latched it
	LatchKernel               // a kernel init latched it
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
	latch       Latch
	attached    bool // program: a live program init
	bins        bool // program: the attaching init gave both executor binaries
	phase       phase
	initFailed  bool
	quarantined bool
	dispatchAny bool // quarantined: docs/contract.md does not say what dispatch does
	finalizedOK bool // a kernel finalize returned 0 (destroy allowed)
	refusedPre  bool // a kernel init was refused before the latch (L-5 attribution)
	refusedAt   int  // the op of the first such refusal
	// latchSuspect: after refusedPre, a kernel init answered the IS expected
	// after the latch, as a runtime latched at the refusal would: later
	// failures also name L-5 (suspectAt: that op).
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
	// unknown: a call answered what the model did not predict; calls are
	// judged only on what does not depend on the state (structural V
	// rules, S-2) until an answer pins it (divergedAt: that op).
	unknown    bool
	divergedAt int
	mayLeak    bool // destroyed while unknown: never called again, may hold its device
	// destroyRefused: a destroy taken as refused (E-DESTROY); after any
	// divergence it is retired, since calling a freed handle would abort
	// an emitted runtime (F-3).
	destroyRefused bool
	// legacyDev: the device a legacy runner is bound to (set by
	// simpler_init's attach even when a later step fails, cleared by
	// finalize_device), -1 for none; bindSoft: a legacy prewarm refusal
	// left that binding unknown (legacy keeps it, the target does not).
	legacyDev int32
	bindSoft  bool
	prog      map[int32]progCallable // the callables registered
	runs      int                    // native runs outstanding (E-FIN)
	// dlopens is get_aicpu_dlopen_count since the attaching init
	// (E-PROG.26); -1 when an unjudged registration may have counted.
	dlopens   int
	fresh     bool // nothing has latched it since create (L-1)
	progDone  bool // a program finalize detached it: committed is 0 (M-7.6)
	d2Refused bool // D-2 refused a call on it; the next success shows nothing changed (D-2.3)
	// destroyMem: a destroy of this program context was refused since its
	// committed memory was last read: it must read the same (E-DESTROY.3).
	destroyMem bool
}

func newMctx() *mctx { return &mctx{live: true, lastStream: NullRef, legacyDev: -1, fresh: true} }

type siteState struct {
	count, code int32
	// unsure: a call the model could not follow may have passed the armed
	// site: it is taken to fire where the answer is its code.
	unsure bool
}

type streamState struct {
	enq, done uint64
	unsure    bool // whether work is pending is not known (a poisoned enqueue)
}

// ModelOptions configure a model for one sequence on one runtime instance.
type ModelOptions struct {
	Profile Profile
	// DrivenCompletion: work completes only when the checker synchronizes
	// its stream (hooks); without it (ACL on a device) any time, so an
	// unsynchronized stream switch may or may not be refused.
	DrivenCompletion bool
	DeviceKnown      bool    // the calling thread's current device at the start
	Device           int32   // is known, and is Device (-1 = none)
	Claimed          []int32 // devices claimed outside the sequence (quarantined by earlier runs)
	// Simulated: a simulated build, which ignores the bytes of binaries
	// and images: a synthetic program callable registers and runs there.
	Simulated bool
	// UserCallable: register img=prog passes the user's program callable
	// for this build (Options.Callable), which registers and runs.
	UserCallable bool
	// Resumes: a model that lost track predicts again from what is certain,
	// with the thread's device unknown (the generator's view).
	Resumes bool
}

// Tally counts verdicts per rule.
type Tally [NumRules][NumVerdicts]uint32

// Add merges o into t.
func (t *Tally) Add(o *Tally) {
	for r := range t {
		for v := range t[r] {
			t[r][v] += o[r][v]
		}
	}
}

// Model is the independent model of docs/contract.md: it predicts every
// call's outcome, checks what the runner observed, and advances (doc.go).
type Model struct {
	opt ModelOptions
	// argsUnrecorded: the call stepped is a recorded program entry whose
	// other arguments the trace does not hold (stepTraceCall).
	argsUnrecorded bool
	ctxs           [MaxSlots]*mctx
	claims         map[int32]*mctx
	external       *mctx
	devKnown       bool
	curDev         int32
	sites          [abi.LastSite + 1]siteState
	streams        [MaxStreams]streamState
	storages       [MaxStorages]runSlot
	allocs         [MaxAllocs]allocSlot
	clobbers       uint32
	injected       [8]abi.Status
	nInj           int
	// devRule: the rule a wrong current device (getdev) is reported under,
	// the last op's that set it or had to leave it (RuleNone: D-1).
	devRule Rule
	// ringSeen: per path (kernel init, prewarm), a ring defect refused (bit
	// 1) and one accepted (bit 2): the ring rules are checked or not at all.
	ringSeen [2]uint8
	cm       *commModel // the comm family's state (comm.go), nil until a comm op

	lost    bool
	lostWhy string
	// diverged: judge saw a status the model did not predict; Step then
	// re-synchronises (resync), so one divergence hides no other.
	diverged    bool
	divergences int
	// generic counts, per rule, the passes a legacy build earned with its
	// generic -1; runClauses those of outstanding-run clauses (E-FIN,
	// E-DESTROY).
	generic    [NumRules]uint32
	runClauses [NumRules]uint32

	tally    Tally
	findings []Finding
	checked  int
	skipped  int

	// shared: a shared State's model, which Step copies; gen counts an
	// owned State's steps (state.go).
	shared bool
	gen    uint64

	// the step in progress; upto: the index of the releaser of the parked
	// call judged (Finding.Upto), else 0.
	e         Expectation
	co        *CallObs
	tolBranch bool
	curOp     Op
	curIdx    int
	curRep    int
	upto      int
}

// newModel returns the model of a fresh runtime instance.
func newModel(o ModelOptions) *Model {
	if o.Profile == "" {
		o.Profile = ProfileTMR // the zero value names the full kernel lifecycle
	}
	m := &Model{opt: o, claims: map[int32]*mctx{}, external: &mctx{latch: LatchKernel, claim: true},
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
func (m *Model) Tally() Tally { return m.tally }

// Checked is the number of calls the model checked.
func (m *Model) Checked() int { return m.checked }

// SlotLive reports whether slot holds a context the runner may call.
func (m *Model) SlotLive(slot int8) bool {
	return slot >= 0 && int(slot) < MaxSlots && m.ctxs[slot] != nil && m.ctxs[slot].live
}

// Expect returns the model's primary expectation for op, on a copy.
func (m *Model) Expect(op Op) Expectation {
	c := m.copy()
	c.advance(op)
	return c.e
}

// advance steps the model along op's primary expectation.
func (m *Model) advance(op Op) { m.step(0, 0, op, nil) }

// skip records that op was not executed.
func (m *Model) skip(idx int, op Op, rule Rule, reason string) {
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

// step checks one call (repetition rep of op at index idx) against obs
// and advances the model (obs nil: along the primary expectation).
func (m *Model) step(idx, rep int, op Op, obs *Observation) {
	m.curOp, m.curIdx, m.curRep = op, idx, rep
	if m.lost {
		m.trackLiveness(op)
		return
	}
	var call, second *CallObs
	if obs != nil {
		call, second = &obs.Call, &obs.Second
	}
	cls := stepOf(op.Kind)
	if op.Kind.TwoThread() {
		a, b := op.Slots()
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
			// Which serial order the runtime took is not known now.
			m.diverged = false
			m.lose("#" + strconv.Itoa(idx) + " " + op.String() + ": a two-thread op answered what the model did not predict")
		}
		return
	}
	slot, _ := op.Slots()
	c := m.ctx(slot)
	m.begin(call)
	if !op.Kind.MakesContext() && slot >= 0 && (c == nil || !c.live) {
		// The runner never calls a slot without a live context.
		m.e.Unchecked = true
		return
	}
	if after := cls.step(m, op, c, obs); after != nil {
		defer after()
	}
	if op.Kind.MakesContext() {
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
	if c := stepOf(op.Kind); c != nil && c.liveness != nil {
		c.liveness(m, op)
	}
}

func (m *Model) begin(co *CallObs) {
	m.e = Expectation{}
	m.co = co
	m.tolBranch = false
}

// end fills in the committed-memory expectation a walk left open.
func (m *Model) end(c *mctx) {
	if c != nil && m.curOp.Kind != KindDestroy {
		// Committed memory is read after this op: a refused destroy is judged.
		c.destroyMem = false
	}
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
	case c.latch == Unlatched:
		return MemZero
	case c.latch == LatchProgram && !c.attached && c.progDone:
		return MemZero // a successful program finalize leaves nothing committed (M-7.6)
	case c.latch == LatchProgram, c.dispatchAny:
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

// expect records the allowed statuses (on a tolerated branch: tolerated).
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

// also names a second rule the status decision speaks for (not on a
// tolerated branch, which is not the primary expectation).
func (m *Model) also(r Rule) {
	if !m.tolBranch {
		m.e.Also.add(r)
	}
}

// blame names r for a failure answering a status of when (Expectation.Blame).
func (m *Model) blame(r Rule, when StatusSet) {
	if !m.tolBranch {
		m.e.Blame = append(m.e.Blame, Blame{r, when})
	}
}

// refusedBeforeLatch records that a kernel init of c was refused before the
// latch (V-INIT, V-SPAN, V-CFG, capability): c must still be unlatched (L-5).
func (m *Model) refusedBeforeLatch(c *mctx) {
	if c != nil && c.latch == Unlatched && !c.refusedPre {
		c.refusedPre, c.refusedAt = true, m.curIdx
	}
}

// suspectLatch: a kernel init refused before the latch earlier (l5) that
// fails with the IS expected after it (claim, D-2) may be "already
// latched" by that refusal: a later failure on c also names L-5.
func (m *Model) suspectLatch(c *mctx, l5 bool) {
	if st, seen := m.observed(); l5 && seen && st == abi.InvalidState && !c.latchSuspect {
		c.latchSuspect, c.suspectAt = true, m.curIdx
	}
}

// branchTolerated walks on as the tolerated alternative that continues
// past a check; the primary expectation stays as set.
func (m *Model) branchTolerated(r Rule, note string) {
	m.tolBranch = true
	m.e.TolRule, m.e.TolNote = r, note
}

// mem sets the committed-memory expectation, and the rule it is judged
// under when r names one.
func (m *Model) mem(x MemExpect, r ...Rule) {
	m.e.Mem, m.e.memSet = x, true
	if len(r) > 0 {
		m.e.MemRule = r[0]
	}
}

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

// ringObserved records a ring defect refused or accepted on path (0 kernel
// init, 1 prewarm): refusing one and accepting another is a finding of r.
func (m *Model) ringObserved(path int, accepted bool, r Rule) {
	bit := uint8(1)
	if accepted {
		bit = 2
	}
	m.ringSeen[path] |= bit
	if m.ringSeen[path]&3 == 3 && m.ringSeen[path]&4 == 0 {
		m.ringSeen[path] |= 4
		what := "kernel init's CallConfig"
		if path == 1 {
			what = "simpler_init's prewarm_config"
		}
		m.finding(r, Fail, what+": this build refused one ring defect and accepted another; the ring rules are checked (the decision) or not at all (the tolerance), never in part")
	}
}

// fire passes through a fault site: true and the code when it fails.
func (m *Model) fire(site int32) (abi.Status, bool) {
	s := &m.sites[site]
	if s.count > 0 && s.unsure {
		if site == abi.SiteFinalizeFatal || site == abi.SiteInitRollbackFails {
			// Their effect does not show in the answer.
			m.lose("fault site " + strconv.Itoa(int(site)) + " was armed when a call the model did not follow may have passed it")
			return 0, false
		}
		if st, seen := m.observed(); !seen || s.code == 0 || st != abi.Status(s.code) {
			return 0, false
		}
	}
	if s.count > 0 {
		s.count--
		return abi.Status(s.code), true
	}
	return 0, false
}

// unsureSites marks every armed fault site unsure (siteState.unsure).
func (m *Model) unsureSites() {
	for i := range m.sites {
		if m.sites[i].count > 0 {
			m.sites[i].unsure = true
		}
	}
}

// resetRuntime is simabi_reset (F-1): the runtime starts again as loaded;
// the caller's side (its device, its images) stays.
func (m *Model) resetRuntime() {
	m.ctxs = [MaxSlots]*mctx{}
	m.claims = map[int32]*mctx{}
	m.sites = [abi.LastSite + 1]siteState{}
	m.streams = [MaxStreams]streamState{}
	m.storages = [MaxStorages]runSlot{}
	m.allocs = [MaxAllocs]allocSlot{}
	if m.cm != nil {
		m.cm.reset()
	}
}

// siteRules names the rule each fault site drives
// (TestSiteRulesCoverEverySite).
var siteRules = map[int32]Rule{
	abi.SiteInitCreate:        RK7,
	abi.SitePrepareCopy:       RM3,
	abi.SitePrepareRegister:   RK4,
	abi.SiteLaunchEnqueue:     RK4,
	abi.SiteFinalizeRelease:   RK5,
	abi.SiteFinalizeFatal:     RD4,
	abi.SitePrepareHoldGate:   RX2,
	abi.SiteAsyncDeviceFail:   RELaunchAsync,
	abi.SiteInitRollbackFails: RK7,
	abi.SiteProgramTeardown:   REFin,
}
