package model

import (
	"strconv"

	"github.com/simabi/simabi/abi"
)

// The legacy walks (docs/contract.md "Revisions"): a build from before the
// kernel ABI has no latch, answers every failure with its generic -1 (read
// as INTERNAL), and is held only to what upstream's legacy code does: each
// expectation names its grounds (commit 6ebaf77, paths under src/;
// PLATFORM is a2a3 or a5). A target-revision clause legacy code lacks is a
// skip with the reason; where onboard and simulator differ, either answer
// is accepted.

// legacyCallableIDs bounds legacy callable ids (E-PROG.22; target: 8192).
const legacyCallableIDs = abi.LegacyRegisteredCallableIDs

// Grounds cited by the legacy walks (upstream hw-native-sys/simpler 6ebaf77).
const (
	gSimFinalize         = "common/platform/sim/host/c_api_shared.cpp:335-352 and onboard/host/c_api_shared.cpp:352-364 (finalize_device)"
	gFinalizeOutstanding = "common/platform/sim/host/c_api_shared.cpp:339-342 and onboard/host/c_api_shared.cpp:356-359: finalize_device refuses while native_run_active()"
	gSimFinalizeNull     = "common/platform/sim/host/c_api_shared.cpp:336 and onboard/host/c_api_shared.cpp:353: finalize_device(NULL) returns -1"
	gSimInitNull         = "common/platform/sim/host/c_api_shared.cpp:366 and onboard/host/c_api_shared.cpp:372: simpler_init(NULL) returns -1"
	gAttachNegative      = "common/platform/sim/host/device_runner_base.cpp:273-277 (attach_current_thread refuses device_id < 0)"
	gAttachOther         = "common/platform/sim/host/device_runner_base.cpp:278-284 (a runner initialized on one device refuses another until finalize_device)"
	gAttachSame          = "common/platform/sim/host/device_runner_base.cpp:278-291 (attaching the runner's own device again succeeds)"
	gInit                = "common/platform/sim/host/c_api_shared.cpp:354-410 (simpler_init: attach, take the binaries, optional prewarm)"
	gSpans               = "common/platform/sim/host/c_api_shared.cpp:381-386 take a binary span only when pointer and size are both nonzero, and :363-364 ignore the dispatcher span"
	gPrewarmRing         = "common/platform/sim/host/c_api_shared.cpp:397-408 pass only runtime_env's ring sizing to prewarm_config_impl, which refuses bad sizes (PLATFORM/runtime/tensormap_and_ringbuffer/host/runtime_maker.cpp, resolve_arena_sizing; the weak default of common/platform/sim/host/device_runner_base.cpp:657 accepts any)"
	gACLNull             = "onboard PLATFORM/platform/onboard/host/pto_runtime_c_api.cpp:36 returns -1; the simulator's stub PLATFORM/platform/sim/host/pto_runtime_c_api.cpp:41-45 returns 0 for any argument"
	gACLNegative         = "the simulator's stub (PLATFORM/platform/sim/host/pto_runtime_c_api.cpp:41-45) returns 0; the onboard build asks ACL for the device (PLATFORM/platform/onboard/host/pto_runtime_c_api.cpp:35-42), which refuses it: either is accepted"
	gACL                 = "PLATFORM/platform/sim/host/pto_runtime_c_api.cpp:41-45 (simulator stub) and PLATFORM/platform/onboard/host/pto_runtime_c_api.cpp:35-42"
	gNoInitGate          = "simpler_unregister_callable of an id never registered returns 0 (common/worker/pto_runtime_c_api.h:430) and device_malloc_ctx allocates without an init (common/platform/sim/host/c_api_shared.cpp:301-308)"
	gNoSDMASpan          = "a legacy simpler_init has no SDMA warm-up span (9 parameters, common/platform/sim/host/c_api_shared.cpp:354-358); simpler_provision_dma_workspace takes the warm-up, and the call a checker makes for it is the consumer adapter's, not the runtime's"
	gCallableIDs         = "common/task_interface/callable_protocol.h:31 (MAX_REGISTERED_CALLABLE_IDS = 64) and common/platform/sim/host/device_runner_base.cpp:518-523, 560-565 (record_device_orch_callable and record_host_orch_callable refuse an id outside [0, 64))"
	gRegisterNeedsBins   = "upstream: PLATFORM/platform/sim/host/device_runner.cpp:278-281 refuses the AICPU registration when no executor binary was loaded"
	gPrewarmOtherKeys    = "common/platform/sim/host/c_api_shared.cpp:394-408 read only runtime_env of a prewarm config"
)

// skipClause reports a target-revision clause this build lacks as a skip
// (not when the generator walks).
func (m *Model) skipClause(r Rule, why string) {
	if m.co != nil {
		m.skip(m.curIdx, m.curOp, r, why)
	}
}

// legacyExpect is expect with the upstream grounds of the expectation.
func (m *Model) legacyExpect(r Rule, ss StatusSet, note, grounds string) {
	m.expect(r, ss, note)
	m.e.Grounds = grounds
}

// pinitLegacySDMA is a legacy simpler_init with an SDMA warm-up span,
// which the consumer adapter provisions itself (onboard.Library.SimplerInit).
func (m *Model) pinitLegacySDMA(op Op, c *mctx) {
	m.skipClause(REPInit, "the SDMA warm-up span of E-PINIT does not apply: "+gNoSDMASpan)
	if !op.Spans[SpanSDMA].Consistent() {
		// The adapter refuses it before any call: nothing changes.
		m.anything("a legacy simpler_init with an inconsistent SDMA warm-up span")
		if m.pinned() {
			m.pinProgram(c, op.Dev)
		}
		return
	}
	// The adapter makes the 9-parameter init, then provisions the
	// warm-up, and on failure finalizes and answers it (upstream's
	// simulator takes any warm-up, :925-935; onboard may refuse it).
	plain := op
	plain.Spans[SpanSDMA] = SpanNone
	m.pinitLegacy(plain, c)
	if m.e.Status.Has(abi.OK) && !m.e.Status.Has(abi.Internal) {
		m.e.Status.add(abi.Internal)
		if st, seen := m.observed(); seen && st == abi.Internal {
			if c.attached || c.legacyDev >= 0 {
				m.devKnown = false
			}
			c.attached, c.legacyDev, c.prog, c.dlopens = false, -1, nil, -1
		}
	}
}

func (m *Model) pinitLegacy(op Op, c *mctx) {
	if c == nil {
		m.legacyExpect(REPInit, one(abi.Internal), "simpler_init(NULL) (S-3)", gSimInitNull)
		return
	}
	if op.Spans[SpanSDMA] != SpanNone {
		m.pinitLegacySDMA(op, c)
		return
	}
	if m.unknownState(c) {
		if m.pinned() {
			m.pinProgram(c, op.Dev)
		}
		return
	}
	// either: the grounds of a clause the target refuses and legacy code
	// takes; the answer says which (a refusal changed nothing).
	either := ""
	if !kernelSpansConsistent(op) {
		m.skipClause(RVSpan, "V-SPAN's consistency check is a target-revision decision: "+gSpans)
		either = gSpans
	}
	if op.Dev < 0 {
		m.legacyExpect(REPInit, one(abi.Internal), "device < 0", gAttachNegative)
		return
	}
	prev, prevDev, prevKnown := *c, m.curDev, m.devKnown
	if c.legacyDev >= 0 && c.legacyDev != op.Dev {
		if !c.bindSoft {
			m.legacyExpect(REPInit, one(abi.Internal), "the runner is bound to device "+strconv.Itoa(int(c.legacyDev))+" until finalize_device", gAttachOther)
			return
		}
		// A refused prewarm left the runner bound (legacy) or not (target).
		either = gAttachOther
	}
	again := c.attached && c.legacyDev == op.Dev
	// Attached first, before anything else can fail.
	c.legacyDev, c.dev, c.latch, c.bindSoft = op.Dev, op.Dev, LatchProgram, false
	m.curDev, m.devKnown = op.Dev, true
	if op.Prewarm {
		if v := checkCfg(CfgRecipe{Ring: op.Cfg.Ring}, false); v.st != abi.OK {
			m.legacyExpect(REPInit, one(abi.Internal), "prewarm config: "+v.what, gPrewarmRing)
			m.tolerate(RVCfg, one(abi.OK), "ring sizing not checked (V-CFG tolerated: 0; a runtime whose prewarm is the no-op default)")
			if st, seen := m.observed(); seen && st == abi.OK {
				c.attached, c.bins = true, execBins(op)
				return
			}
			if again { // re-attached (legacy) or refused (target): attached
				c.attached = true
				return
			}
			// Legacy code keeps the runner and thread bound, the target
			// leaves both as they were: either may follow.
			c.attached, c.bindSoft = false, true
			if !prevKnown || prevDev != op.Dev {
				m.devKnown = false
			}
			return
		}
		if v := checkCfg(CfgRecipe{Threads: op.Cfg.Threads, Swim: op.Cfg.Swim, DepGen: op.Cfg.DepGen, Prefix: op.Cfg.Prefix,
			Unterm: op.Cfg.Unterm}, false); v.st != abi.OK {
			m.skipClause(REPInit, "E-PINIT's prewarm check ("+v.what+") is a target-revision decision: "+gPrewarmOtherKeys)
			either = gPrewarmOtherKeys
		}
	}
	if again {
		m.skipClause(REPInit, "E-PINIT's IS for a context with a device attached is a target-revision decision: legacy re-init on that device returns 0 ("+gAttachSame+")")
		either = gAttachSame
	}
	c.attached, c.bins = true, execBins(op)
	if either != "" {
		m.legacyExpect(REPInit, two(abi.OK, abi.Internal), "the target revision refuses, upstream's legacy code goes on: either is accepted", either)
		if st, seen := m.observed(); seen && st != abi.OK { // refused: nothing changed
			*c, m.curDev, m.devKnown = prev, prevDev, prevKnown
		}
		return
	}
	r := REPInit
	if c.refusedPre {
		r = RL5
	}
	m.legacyExpect(r, one(abi.OK), "", gInit)
}

func (m *Model) aclLegacy(op Op, c *mctx) {
	if c == nil {
		m.legacyExpect(RS3, one(abi.Internal), "ensure_acl_ready_ctx(NULL)", gACLNull)
		return
	}
	if m.unknownState(c) {
		// A legacy ensure_acl_ready_ctx that succeeds set the device (gACL).
		if m.devKnown = m.pinned() && op.Dev >= 0; m.devKnown {
			m.curDev = op.Dev
		}
		return
	}
	if op.Dev < 0 {
		m.legacyExpect(REACL, two(abi.Internal, abi.OK), "device < 0", gACLNegative)
		return
	}
	m.legacyExpect(REACL, one(abi.OK), "", gACL)
	c.latch = LatchProgram
	m.curDev, m.devKnown = op.Dev, true
}

func (m *Model) finalizeLegacy(c *mctx) {
	if c == nil {
		m.legacyExpect(REFin, one(abi.Internal), "finalize_device(NULL)", gSimFinalizeNull)
		return
	}
	if m.unknownState(c) {
		return
	}
	if c.runs > 0 {
		m.legacyExpect(REFin, one(abi.Internal), "a native run is outstanding: nothing torn down", gFinalizeOutstanding)
		m.e.RunClause = true
		return
	}
	m.legacyExpect(REFin, one(abi.OK), "", gSimFinalize)
	if c.attached || c.legacyDev >= 0 {
		m.devKnown = false // the simulator releases the thread's bound device
	}
	c.attached, c.legacyDev, c.prog, c.dlopens = false, -1, nil, 0
	m.dropAllocs(c) // upstream: a2a3/platform/sim/host/device_runner.cpp:834 (mem_alloc_.finalize)
}

func (m *Model) progLegacy(op Op, c *mctx) {
	if c == nil || c.unknown || c.attached {
		m.prog(op, c)
		return
	}
	m.mem(m.memState(c))
	m.expect(RuleNone, anyStatus, "")
	if op.Fn.ProgOnly() || op.Fn == FnMalloc {
		m.skipClause(REProg, "E-PROG's clauses for a context without a live program init are target-revision decisions: "+gNoInitGate)
	}
}

// unload is U-1: the library was unloaded, the thread that called into it
// exited, and the process survived (a crash is the run's, under U-1).
func (m *Model) unload() {
	m.expect(RU1, one(abi.OK), "the thread that called into the library exited after the unload")
	for i, c := range m.ctxs {
		if c != nil && c.live {
			m.skip(m.curIdx, m.curOp, RU1, "c"+strconv.Itoa(i)+" is still live at the unload: U-1 speaks of a library whose contexts have all been destroyed")
			m.e = Expectation{Unchecked: true}
			return
		}
	}
}
