package model

import (
	"strconv"

	"github.com/simabi/simabi/abi"
)

// The run family with valid arguments (program mode). A run is
// outstanding from its prepare_run until finalize_run of its storage
// returns, whatever that returns (E-FIN "Outstanding native run"); while
// one is, finalize_device returns INTERNAL, destroy and unregister are
// refused. Otherwise the model follows upstream's native-run code
// (common/platform/sim/host/c_api_shared.cpp at 6ebaf77), accepting either
// answer where upstream and the simulated runtimes differ.

// RunState is what the model knows of one run storage.
type RunState uint8

// Run storage states.
const (
	StorageFree RunState = iota
	StoragePrepared
	StorageLaunched
	StorageCompleted
)

var runStateNames = [...]string{"free", "prepared", "launched", "completed"}

// runSlot is one run storage of the runner.
type runSlot struct {
	state RunState
	ctx   *mctx // the context whose run it holds
}

// progCallable is a registered callable's counts (-1: the user's, -2: unknown).
type progCallable struct{ t, s int32 }

// liveProgram reports whether c has a live program init. Otherwise the
// call leaves committed memory as c's state says and makes no ACL device
// call (E-PROG.3), and target sets the target revision's expectation (a
// legacy build has no init gate: a skip).
func (m *Model) liveProgram(c *mctx, target func()) bool {
	if c.latch == LatchProgram && c.attached {
		return true
	}
	m.mem(m.memState(c))
	if c.latch == LatchKernel {
		m.e.D1Rule = REProg
	}
	if m.opt.Profile == ProfileLegacy && c.latch != LatchKernel {
		m.skipClause(REProg, "E-PROG's clauses for a context without a live program init are target-revision decisions: "+gNoInitGate)
		m.expect(RuleNone, anyStatus, "")
	} else {
		target()
	}
	return false
}

// runEntry is every run op's front: NULL (S-3), unknown, no live init
// (E-PROG); it returns c when the op's own walk goes on.
func (m *Model) runEntry(op Op, c *mctx) *mctx {
	if c == nil {
		m.expect(RS3, one(abi.InvalidArgument), "NULL ctx")
		m.tolerate(RS3, one(abi.Internal), "INTERNAL for NULL ctx (S-3 tolerated)")
		return nil
	}
	if m.unknownState(c) {
		return nil
	}
	if !m.liveProgram(c, func() { m.expect(REProg, one(abi.InvalidState), "no live program init: IS before any other check") }) {
		return nil
	}
	m.mem(MemAny) // program-mode committed memory is the runtime's
	return c
}

// userCallableFacts stand for the user's callable (abicheck -callable).
var userCallableFacts = &imageFacts{user: true, valid: true, aligned: true, t: -1, s: -1}

// refusedAs is a refusal the rules do not code: s on the target revision
// (S-2), a legacy build's -1 (read as INT).
func (m *Model) refusedAs(s abi.Status) StatusSet {
	if m.opt.Profile == ProfileLegacy {
		return one(abi.Internal)
	}
	return one(s)
}

// nullRunConfig: a NULL CallConfig is refused with IA first (E-PROG.8).
const nullRunConfig = "a NULL CallConfig is refused (upstream: common/platform/sim/host/c_api_shared.cpp:617, onboard :675)"

func (m *Model) register(op Op, c *mctx) {
	if c = m.runEntry(op, c); c == nil {
		return
	}
	if factsOf(op.Img).null {
		// A NULL callable is refused before the outstanding-run check, as
		// the prog op's register is (upstream: c_api_shared.cpp:417).
		m.refuseArgument("simpler_register_callable with a NULL callable, refused before anything else (upstream: common/platform/sim/host/c_api_shared.cpp:417)", gLegacyRegisterNull)
		return
	}
	if c.runs > 0 {
		m.expect(REProg, m.refusedAs(abi.InvalidState), "a native run is outstanding: the callable registry is not changed (upstream: common/platform/sim/host/c_api_shared.cpp:419-422)")
		return
	}
	// E-PROG.21/22: the registry's id bound comes before the image.
	if m.opt.Profile == ProfileLegacy && (op.ID < 0 || op.ID >= legacyCallableIDs) {
		m.legacyExpect(REProg, one(abi.Internal), "callable id "+strconv.Itoa(int(op.ID))+" is outside the legacy registry [0, 64)", gCallableIDs)
		return
	}
	if op.ID < 0 || op.ID >= abi.MaxRegisteredCallableIDs {
		m.expect(REProg, one(abi.InvalidArgument), "callable id "+strconv.Itoa(int(op.ID))+" is outside the program registry [0, 8192)")
		m.tolerate(REProg, one(abi.Internal), "INTERNAL for a callable id outside the registry (E-PROG tolerated)")
		return
	}
	f := factsOf(op.Img)
	if op.Img.Base == ImgProgram && m.opt.UserCallable {
		f = userCallableFacts
	}
	if !f.valid || f.null {
		m.expect(RuleNone, anyStatus, "a malformed image: what register does with it is not a rule")
		m.forgetRegistry(c, op.ID)
		return
	}
	if _, dup := c.prog[op.ID]; dup {
		// Upstream refuses an id it holds (common/platform/sim/host/
		// device_runner_base.cpp:532-535, :574-577), keeping the first
		// registration (E-PROG.27).
		m.expect(REProg, m.refusedAs(abi.InvalidState), "the id is registered already: refused, the first registration kept")
		if m.opt.Profile == ProfileLegacy {
			m.e.Grounds = "common/platform/sim/host/device_runner_base.cpp:532-535 and :574-577 refuse a callable_id already registered (-1)"
		}
		return
	}
	sure := false // the registration succeeds (else only an OK answer pins it)
	switch {
	case f.user && !m.opt.Simulated && !c.bins:
		m.expect(RuleNone, anyStatus, "the init gave no executor binaries: a real build may refuse to register a device orchestration ("+gRegisterNeedsBins+")")
	case !f.user && !m.opt.Simulated:
		m.expect(RuleNone, anyStatus, "a synthetic image on a real build")
	default:
		m.expect(REProg, one(abi.OK), "")
		sure = true
	}
	if sure || m.pinned() {
		m.addRegistered(c, op.ID, f)
	}
}

func (m *Model) addRegistered(c *mctx, id int32, f *imageFacts) {
	if c.prog == nil {
		c.prog = map[int32]progCallable{}
	}
	c.prog[id] = progCallable{t: f.t, s: f.s}
	if f.user {
		c.prog[id] = progCallable{t: -1, s: -1} // the user's callable: counts from its image
	}
	switch {
	case c.dlopens < 0:
	case !m.opt.Simulated:
		// A real build's callable may be a host orchestration, counted
		// under host dlopens (upstream device_runner_base.cpp:574-589).
		c.dlopens = -1
	default:
		c.dlopens++
	}
}

// forgetRegistry: after an unjudged register success, id's counts are unknown.
func (m *Model) forgetRegistry(c *mctx, id int32) {
	if st, seen := m.observed(); seen && st == abi.OK {
		c.dlopens = -1
		if c.prog == nil {
			c.prog = map[int32]progCallable{}
		}
		c.prog[id] = progCallable{t: -2, s: -2}
	}
}

func (m *Model) unregister(op Op, c *mctx) {
	if c = m.runEntry(op, c); c == nil {
		return
	}
	if c.runs > 0 {
		m.expect(REFin, m.refusedAs(abi.InvalidState), "a native run is outstanding: unregister consults it (E-FIN, Outstanding native run)")
		m.e.RunClause = true
		return
	}
	if _, ok := c.prog[op.ID]; !ok {
		// Upstream documents 0 for an id never registered
		// (common/worker/pto_runtime_c_api.h:430); the rules say nothing.
		m.expect(RuleNone, anyStatus, "an id never registered")
		return
	}
	m.expect(REProg, one(abi.OK), "")
	delete(c.prog, op.ID)
}

// slotOf is the storage of a run op (a free, unowned one for NULL storage).
func (m *Model) slotOf(op Op) *runSlot {
	if op.St < 0 {
		return &runSlot{}
	}
	return &m.storages[op.St]
}

// runStart walks what prepare_run and run refuse before a run starts
// (each refusal changes nothing, E-PROG.10); it returns the storage and
// callable when none applies (nil storage: refused).
func (m *Model) runStart(op Op, c *mctx) (*runSlot, progCallable) {
	pc, registered := progCallable{}, false
	if c = m.runEntry(op, c); c != nil {
		pc, registered = c.prog[op.ID]
	}
	sl := m.slotOf(op)
	switch {
	case c == nil:
	case op.St < 0:
		m.expect(REProg, one(abi.InvalidArgument), "NULL run storage is refused (upstream: common/platform/sim/host/c_api_shared.cpp:617)")
	case op.Cfg.Null:
		m.expect(REProg, one(abi.InvalidArgument), nullRunConfig)
	case op.OutNull:
		m.expect(REProg, one(abi.InvalidArgument), "a NULL descriptor is refused (upstream: common/platform/sim/host/c_api_shared.cpp:617)")
	case !registered: // upstream asks the registry (:630) before the storage (:640)
		// NOT_RESIDENT or IA: both are abi.md's codes for it.
		m.expect(REProg, m.refusedAs(abi.CallableNotResident), "callable id "+strconv.Itoa(int(op.ID))+" is not registered")
		if m.opt.Profile != ProfileLegacy {
			m.e.Status.add(abi.InvalidArgument)
		}
	case sl.state != StorageFree:
		m.expect(REProg, m.refusedAs(abi.InvalidState), "run storage st"+strconv.Itoa(int(op.St))+" holds a "+runStateNames[sl.state]+" run: a second run on it is refused")
	case op.Args.Mode == ArgsNull:
		m.expect(REProg, one(abi.InvalidArgument), "NULL args are refused (upstream: runtime_maker.cpp:867-870, before the failed prepare releases its reservation)")
	default:
		return sl, pc
	}
	return nil, pc
}

func (m *Model) prepareRun(op Op, c *mctx) {
	sl, pc := m.runStart(op, c)
	if sl == nil {
		return
	}
	judged := false // else only a success opens the run
	switch t, s := m.runCounts(op, pc); {
	case pc.t >= 0 && (t != pc.t || s != pc.s):
		m.expect(RuleNone, anyStatus, "args counts differ from the callable's: refusing is the runtime's check")
	case m.secondRunUnjudged(c, pc):
	case c.runs > 0:
		m.expect(REProg, one(abi.OK), secondRunTaken)
		judged = true
	default:
		m.expect(REProg, one(abi.OK), "")
		judged = true
	}
	if judged || m.pinned() {
		sl.state, sl.ctx = StoragePrepared, c
		c.runs++
	}
}

const secondRunTaken = "another run of this context is outstanding on other storage: a simulated build takes this one too (E-PROG.29)"

// secondRunUnjudged sets the expectation of a run start the model cannot
// judge (an unjudged registration; a second run on a real build, where
// upstream takes one per context, E-PROG.29) and reports whether it did.
func (m *Model) secondRunUnjudged(c *mctx, pc progCallable) bool {
	switch {
	case pc.t == -2:
		m.expect(RuleNone, anyStatus, "an id whose registration the model could not judge")
	case c.runs > 0 && !m.opt.Simulated:
		m.expect(RuleNone, anyStatus, "another run of this context is outstanding (upstream: one at a time, E-PROG.29)")
	default:
		return false
	}
	return true
}

// runCounts are the counts of op's args for callable pc.
func (m *Model) runCounts(op Op, pc progCallable) (int32, int32) {
	if m.co != nil && (op.Args.Mode != ArgsMatch || pc.t >= 0) {
		return m.co.ArgT, m.co.ArgS
	}
	switch op.Args.Mode {
	case ArgsExact:
		return int32(op.Args.T), int32(op.Args.S)
	case ArgsMatch:
		return pc.t + int32(op.Args.T), pc.s + int32(op.Args.S)
	}
	return 0, 0
}

// runOfCtx is the storage's run when it is c's, else nil with the refusal set.
func (m *Model) runOfCtx(op Op, c *mctx, what string) *runSlot {
	if c = m.runEntry(op, c); c == nil {
		return nil
	}
	if op.St < 0 {
		m.expect(REProg, m.refusedAs(abi.InvalidArgument), "NULL run storage: "+what+" is refused")
		return nil
	}
	sl := m.slotOf(op)
	if sl.state == StorageFree || sl.ctx != c {
		m.expect(REProg, m.refusedAs(abi.InvalidState), "run storage st"+strconv.Itoa(int(op.St))+" holds no run of this context: "+what+" is refused")
		return nil
	}
	return sl
}

func (m *Model) launchRun(op Op, c *mctx) {
	sl := m.runOfCtx(op, c, "launch_run")
	if sl == nil {
		return
	}
	if sl.state != StoragePrepared {
		m.expect(REProg, m.refusedAs(abi.InvalidState), "the run on st"+strconv.Itoa(int(op.St))+" is "+runStateNames[sl.state]+": only a prepared run launches")
		return
	}
	m.expect(REProg, one(abi.OK), "")
	m.e.CheckAccepted = true
	sl.state = StorageLaunched
}

func (m *Model) pollRun(op Op, c *mctx) {
	sl := m.runOfCtx(op, c, "poll_run")
	if sl == nil {
		return
	}
	switch sl.state {
	case StoragePrepared:
		// The simulated runtimes say 0 (not ready), upstream an error.
		m.expect(REProg, anyFailure, "a prepared, never-launched run: not ready (0) or an error")
		m.e.Status.add(abi.PollNotReady)
	case StorageLaunched:
		m.expect(REProg, two(abi.PollNotReady, abi.PollComplete), "a launched run: 0 while in flight, 1 once complete")
		if st, seen := m.observed(); seen && st == abi.PollComplete {
			sl.state = StorageCompleted
		}
	default:
		m.expect(REProg, one(abi.PollComplete), "a completed run polls 1")
	}
}

func (m *Model) waitRun(op Op, c *mctx) {
	sl := m.runOfCtx(op, c, "wait_run")
	if sl == nil {
		return
	}
	if sl.state == StoragePrepared {
		m.expect(REProg, m.refusedAs(abi.InvalidState), "a prepared, never-launched run cannot be waited for")
		return
	}
	m.expect(REProg, one(abi.OK), "the run completes (its kernel succeeds)")
	sl.state = StorageCompleted
}

func (m *Model) finalizeRun(op Op, c *mctx) {
	sl := m.runOfCtx(op, c, "finalize_run")
	if sl == nil {
		return
	}
	if sl.state == StoragePrepared {
		m.expect(REFin, anyStatus, "finalize_run of a never-launched run ends it, whatever it returns")
	} else {
		m.expect(REProg, one(abi.OK), "the run completed (or completes now) and is finalized")
	}
	sl.state, sl.ctx = StorageFree, nil
	c.runs--
}

func (m *Model) runWhole(op Op, c *mctx) {
	sl, pc := m.runStart(op, c)
	if sl == nil {
		return
	}
	if t, s := m.runCounts(op, pc); pc.t >= 0 && (t != pc.t || s != pc.s) {
		m.expect(RuleNone, anyStatus, "")
		return
	}
	if m.secondRunUnjudged(c, pc) {
		return
	}
	// simpler_run holds a run only while it runs (E-FIN).
	note := "prepare, launch, wait and finalize in one call"
	if c.runs > 0 {
		note += "; " + secondRunTaken
	}
	m.expect(REProg, one(abi.OK), note)
}

// freeRuns drops c's runs (its storages become free) when c goes away.
func (m *Model) freeRuns(c *mctx) {
	for i := range m.storages {
		if m.storages[i].ctx == c {
			m.storages[i] = runSlot{}
		}
	}
	c.runs = 0
}
