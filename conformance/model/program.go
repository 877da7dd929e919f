package model

import (
	"github.com/simabi/simabi/abi"
)

// Program mode: simpler_init, ensure_acl_ready_ctx and the program-side entries (E-PINIT, E-ACL, E-PROG, L-4).

func (m *Model) pinit(op Op, c *mctx) {
	if c == nil {
		m.expect(REPInit, one(abi.Internal), "simpler_init(NULL) (S-3)")
		return
	}
	for i := 0; i < 4; i++ {
		if !op.Spans[i].Consistent() {
			m.expect(REPInit, one(abi.InvalidArgument), "an inconsistent "+SpanKey(i)+" span")
			m.also(RVSpan) // E-PINIT's span checks are V-SPAN's
			return
		}
	}
	if op.Dev < 0 {
		m.expect(REPInit, one(abi.InvalidArgument), "device < 0")
		return
	}
	if v := checkCfg(op.Cfg, false); op.Prewarm && v.st != abi.OK && m.cfgRefused(v, REPInit, "prewarm config: "+v.what, 1) {
		return // prewarm_config is V-CFG without the kernel-only step: every refusal is IA
	}
	if m.unknownState(c) {
		if m.pinned() {
			m.pinProgram(c, op.Dev)
		}
		return
	}
	if c.latch == LatchKernel {
		l := pinitLatched(c)
		m.expect(l.r, one(abi.InvalidState), l.why)
		return
	}
	c.latch = LatchProgram
	if c.attached {
		m.expect(REPInit, one(abi.InvalidState), "a device is already attached")
		return
	}
	c.attached, c.dev, c.bins, c.progDone = true, op.Dev, execBins(op), false
	m.curDev, m.devKnown, m.devRule = op.Dev, true, REPInit
	r := REPInit
	if c.refusedPre {
		r = RL5
	}
	m.expect(r, one(abi.OK), "")
	if c.fresh && r == REPInit {
		m.blame(RL1, one(abi.InvalidState)) // a new context is unlatched: simpler_init takes it
	}
	c.fresh = false
}

// execBins: a program init gave both executor binaries, which a real
// build needs to register a device orchestration.
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
	if c.latch == LatchKernel {
		r := RL2
		if c.initFailed {
			r = RL3
		}
		m.expect(r, one(abi.InvalidState), "the context is kernel-latched")
		if m.devKnown {
			m.devRule = RL2 // a refusal that changes nothing leaves the thread's device
		}
		return
	}
	r := REACL
	switch {
	case c.refusedPre:
		r = RL5
	case c.latch == LatchProgram && RL2.Applies(m.opt.Profile):
		r = RL2 // latching the held mode again succeeds
	}
	c.latch = LatchProgram
	c.fresh = false
	m.curDev, m.devKnown, m.devRule = op.Dev, true, REACL
	m.expect(r, one(abi.OK), "")
}

func (m *Model) prog(op Op, c *mctx) {
	fn := op.Fn
	if c == nil {
		switch {
		case fn.StatusEntry():
			m.expect(RS3, one(abi.InvalidArgument), "NULL ctx")
			m.tolerate(RS3, one(abi.Internal), "INTERNAL for NULL ctx (S-3 tolerated)")
		case fn == FnFree, fn == FnConcurrentPrepare:
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
	if m.liveProgram(c, func() {
		switch {
		case fn.ProgOnly():
			m.expect(REProg, one(abi.InvalidState), "no live program init: IS before any other check")
		case fn == FnMalloc:
			m.expect(REProg, anyStatus, "")
			m.value(REProg, 0, "device_malloc_ctx without a live program init returns NULL")
		default:
			m.expect(RuleNone, anyStatus, "")
		}
	}) {
		m.progLive(op, c)
	}
}

// Grounds of progLive on a legacy build (upstream 6ebaf77).
const (
	gLegacyRegisterNull   = "common/platform/sim/host/c_api_shared.cpp:417: simpler_register_callable with a NULL callable returns -1"
	gLegacyUnregister     = "common/platform/sim/host/c_api_shared.cpp:876-890 refuses while native_run_active() (-1) and otherwise returns unregister_callable's answer, 0 for an id it does not hold (device_runner_base.cpp:591-595)"
	gLegacyRunNull        = "common/platform/sim/host/c_api_shared.cpp:617: simpler_prepare_run (and simpler_run, :848-853) with NULL run storage returns -1"
	gLegacyRunStorageNull = "common/platform/sim/host/c_api_shared.cpp:559-560: NULL run storage has no native-run context, so launch (:695), poll (:730, POLL_ERROR = -1), wait (:740) and finalize_run (:771) return -1"
	gLegacyCopyNull       = "common/platform/sim/host/c_api_shared.cpp:318 and :327: a copy with a NULL device or host pointer returns -1"
	gLegacyMalloc         = "common/platform/sim/host/c_api_shared.cpp:301-308: device_malloc_ctx allocates from the runner's allocator, whose committed bytes device_free_ctx gives back (device_runner_base.h:190)"
	gLegacyDlopen         = "common/platform/sim/host/device_runner_base.cpp:455-469 counts each callable id committed to the AICPU, and the attached runner's finalize restarts the count (a2a3/platform/sim/host/device_runner.cpp:802, device_runner_base.cpp:897)"
)

// refuseArgument expects the refusal of an argument no entry may act on:
// IA (tolerated: INT), or a legacy build's -1 on upstream's grounds.
func (m *Model) refuseArgument(why, grounds string) {
	if m.opt.Profile == ProfileLegacy {
		m.legacyExpect(REProg, one(abi.Internal), why, grounds)
		return
	}
	m.expect(REProg, one(abi.InvalidArgument), why)
	m.tolerate(REProg, one(abi.Internal), "INTERNAL for an argument no entry may act on (E-PROG tolerated)")
}

// progLive is a prog op with a live program init: each entry is called
// with arguments no entry may act on (a NULL pointer, NULL run storage, id
// -1), refused with IA and changing nothing, except device_malloc_ctx (64
// bytes, freed at once) and the queries (E-PROG.21, .23-.26).
func (m *Model) progLive(op Op, c *mctx) {
	if m.argsUnrecorded && op.Fn != FnAicpuDlopen {
		// A recorded call whose arguments the trace does not hold.
		m.anything("a recorded program entry with a live program init: its other arguments are not recorded")
		return
	}
	legacy := m.opt.Profile == ProfileLegacy
	m.mem(MemSame)
	refuse := m.refuseArgument
	switch fn := op.Fn; fn {
	case FnRegister:
		refuse("simpler_register_callable(id -1, NULL callable) (E-PROG.21)", gLegacyRegisterNull)
	case FnUnregister:
		switch {
		case legacy && c.runs > 0:
			m.legacyExpect(REFin, one(abi.Internal), "a native run is outstanding: unregister consults it", gLegacyUnregister)
			m.e.RunClause = true
		case legacy:
			m.legacyExpect(REProg, one(abi.OK), "an id the registry does not hold", gLegacyUnregister)
		default:
			refuse("simpler_unregister_callable(id -1): outside the registry [0, 8192) (E-PROG.23)", "")
		}
	case FnRun, FnPrepareRun:
		refuse("NULL run storage, args, CallConfig and descriptor (E-PROG.6)", gLegacyRunNull)
	case FnLaunchRun, FnPollRun, FnWaitRun, FnFinalizeRun:
		refuse("NULL run storage (E-PROG.23)", gLegacyRunStorageNull)
	case FnMemInfo:
		refuse("device_memory_info_ctx(NULL info) (E-PROG.24)", "")
	case FnCopyTo, FnCopyFrom:
		refuse("a 64-byte copy with device address 0 (E-PROG.24)", gLegacyCopyNull)
	case FnMalloc:
		m.expect(REProg, anyStatus, "")
		m.value(REProg, 1, "device_malloc_ctx(64) with a live program init returns an allocation, and freeing it gives its bytes back (E-PROG.25)")
		m.e.Grounds = gLegacyMalloc
		m.e.MemRule = REProg
	case FnFree:
		m.expect(REProg, anyStatus, "device_free_ctx(NULL) does nothing (E-PROG.25)")
		m.e.MemRule = REProg
	case FnAicpuDlopen:
		m.expect(REProg, anyStatus, "")
		if c.dlopens >= 0 {
			m.value(REProg, uint64(c.dlopens), "get_aicpu_dlopen_count: the registrations since the program init attached the context (E-PROG.26)")
			m.e.Grounds = gLegacyDlopen
		}
	default:
		// The other queries and the comm stream are the build's.
		m.expect(RuleNone, anyStatus, "")
		m.mem(MemAny)
	}
}
