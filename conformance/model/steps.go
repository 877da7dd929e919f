package model

import (
	"strconv"

	"github.com/simabi/simabi/abi"
)

// The model's table of op kinds: how it judges a call of each kind
// (conformance/op says what a kind is, conformance's opClass how the
// runner makes it). Nothing in the model switches on the kind.

// stepDef is how the model judges one op kind.
type stepDef struct {
	// step walks the call on context c and returns what to do once it is
	// judged (or nil); step2 walks a two-thread op.
	step  func(m *Model, op Op, c *mctx, obs *Observation) func()
	step2 func(m *Model, op Op, obs *Observation, call, second *CallObs)
	// liveness: the slots the op fills or empties once the model is lost.
	liveness func(m *Model, op Op)
	// resync follows an answer st the model did not predict (nil: the
	// checker's environment misbehaved, and the model is lost).
	resync func(m *Model, op Op, c *mctx, st abi.Status)
}

var steps [NumKinds]*stepDef

// defineStep registers the model's walk of kind k, once.
func defineStep(k Kind, d stepDef) {
	if !k.Defined() || steps[k] != nil {
		panic("model: op kind " + strconv.Itoa(int(k)) + " defined twice or not in the op language")
	}
	if (d.step == nil) == (d.step2 == nil) {
		panic("model: op kind " + k.String() + " needs exactly one of step and step2")
	}
	steps[k] = &d
}

// stepOf is the model's walk of kind k (nil for a kind it does not know).
func stepOf(k Kind) *stepDef {
	if k <= KindInvalid || k >= NumKinds {
		return nil
	}
	return steps[k]
}

// Judges reports whether the model has its walk of kind k (defineStep).
func Judges(k Kind) bool { return stepOf(k) != nil }

// walk is a step that judges nothing after the call.
func walk(f func(m *Model, op Op, c *mctx)) func(*Model, Op, *mctx, *Observation) func() {
	return func(m *Model, op Op, c *mctx, _ *Observation) func() { f(m, op, c); return nil }
}

// onCtx is a step of an entry that reads only its context.
func onCtx(f func(m *Model, c *mctx)) func(*Model, Op, *mctx, *Observation) func() {
	return walk(func(m *Model, _ Op, c *mctx) { f(m, c) })
}

// byProfile is a step whose walk a legacy build answers in its own way.
func byProfile(legacy, target func(m *Model, op Op, c *mctx)) func(*Model, Op, *mctx, *Observation) func() {
	return walk(func(m *Model, op Op, c *mctx) {
		if m.opt.Profile == ProfileLegacy {
			legacy(m, op, c)
		} else {
			target(m, op, c)
		}
	})
}

// resyncNothing: an unpredicted answer of the op leaves nothing to forget.
func resyncNothing(*Model, Op, *mctx, abi.Status) {}

// forgetContext: after an unpredicted answer the op's context is unknown.
func forgetContext(m *Model, _ Op, c *mctx, _ abi.Status) {
	if c != nil {
		m.forget(c)
	}
}

func init() {
	for k, f := range map[Kind]func(*Model, Op, *mctx){KindRegister: (*Model).register, KindUnregister: (*Model).unregister,
		KindPrepareRun: (*Model).prepareRun, KindRun: (*Model).runWhole, KindLaunchRun: (*Model).launchRun,
		KindPollRun: (*Model).pollRun, KindWaitRun: (*Model).waitRun, KindFinalizeRun: (*Model).finalizeRun} {
		defineStep(k, stepDef{step: walk(f)})
	}
	defineStep(KindHoldLaunch, stepDef{step2: (*Model).holdLaunch})
	defineStep(KindHoldPrepare, stepDef{step2: (*Model).holdPrepare})
	defineStep(KindRaceKInit, stepDef{step2: (*Model).raceKInit})
	defineStep(KindKInit, stepDef{step: walk((*Model).kinit), resync: func(m *Model, op Op, c *mctx, st abi.Status) {
		switch {
		case c == nil:
		case st == abi.OK:
			m.pinKernel(c, op.Dev)
		default:
			m.forget(c)
		}
	}})
	defineStep(KindPrepare, stepDef{
		step:   walk(func(m *Model, op Op, c *mctx) { m.prepare(op, c, op.Img, false) }),
		resync: forgetContext,
	})
	defineStep(KindLaunch, stepDef{step: walk(func(m *Model, op Op, c *mctx) { m.launch(op, c, false) }), resync: forgetContext})
	programSteps()
	contextSteps()
	envSteps()
}

func programSteps() {
	defineStep(KindPInit, stepDef{step: byProfile((*Model).pinitLegacy, (*Model).pinit), resync: func(m *Model, op Op, c *mctx, st abi.Status) {
		switch {
		case c == nil:
		case st == abi.OK:
			m.pinProgram(c, op.Dev)
		default: // a failing simpler_init may have attached the thread first
			m.forget(c)
			m.devKnown = false
		}
	}})
	defineStep(KindACL, stepDef{step: byProfile((*Model).aclLegacy, (*Model).acl), resync: func(m *Model, op Op, c *mctx, st abi.Status) {
		switch {
		case c == nil:
		case st == abi.OK && !c.unknown && c.latch != LatchKernel:
			c.latch = LatchProgram
			m.curDev, m.devKnown = op.Dev, true
		default:
			m.forget(c)
			m.devKnown = false
		}
	}})
	defineStep(KindProg, stepDef{step: byProfile((*Model).progLegacy, (*Model).prog), resync: func(m *Model, _ Op, c *mctx, st abi.Status) {
		// Arguments no entry may act on: only a success may change anything.
		if c != nil && st == abi.OK {
			m.forget(c)
		}
	}})
}

func contextSteps() {
	defineStep(KindCreate, stepDef{
		step: func(m *Model, op Op, _ *mctx, obs *Observation) func() {
			m.create(op)
			c := m.ctxs[op.C]
			if obs != nil && !obs.HandleCreated && obs.Call.Value == 0 {
				// No context: the ops on the slot are not run (L-1 judges it).
				return func() { c.live = false }
			}
			return nil
		},
		liveness: func(m *Model, op Op) { m.ctxs[op.C] = newMctx() },
		resync:   resyncNothing,
	})
	defineStep(KindDestroy, stepDef{
		step: onCtx((*Model).destroy),
		liveness: func(m *Model, op Op) {
			if c := m.ctx(op.C); c != nil {
				c.live = false // unknown whether it was freed: never call it again
			}
		},
		resync: resyncNothing,
	})
	defineStep(KindSupported, stepDef{step: onCtx((*Model).supported), resync: resyncNothing})
	defineStep(KindFinalize, stepDef{
		step: byProfile(func(m *Model, _ Op, c *mctx) { m.finalizeLegacy(c) }, func(m *Model, _ Op, c *mctx) { m.finalize(c) }),
		resync: func(m *Model, _ Op, c *mctx, _ abi.Status) {
			if c == nil {
				return
			}
			if c.latch != LatchKernel {
				m.devKnown = false // a program finalize resets the device
			}
			m.forget(c)
		},
	})
	defineStep(KindCommitted, stepDef{step: onCtx((*Model).committed), resync: resyncNothing})
}

func envSteps() {
	defineStep(KindContract, stepDef{
		step:   func(m *Model, _ Op, _ *mctx, obs *Observation) func() { m.contract(obs); return nil },
		resync: resyncNothing,
	})
	defineStep(KindSetDev, stepDef{step: walk(func(m *Model, op Op, _ *mctx) {
		m.expect(RHooks, one(abi.OK), "simabi_set_current_device returns 0")
		m.curDev, m.devKnown, m.devRule = op.Dev, true, RuleNone
	})})
	defineStep(KindGetDev, stepDef{step: walk(func(m *Model, _ Op, _ *mctx) {
		m.expect(RHooks, anyStatus, "")
		if m.devKnown {
			// The last op's that set the device or had to leave it; else
			// D-1, or on a legacy build the hooks' own bookkeeping.
			r := m.devRule
			if r == RuleNone {
				r = RD1
			}
			if !r.Applies(m.opt.Profile) {
				r = RHooks
			}
			m.value(r, uint64(int64(m.curDev)), "only the caller and program paths change the current device")
		}
	})})
	defineStep(KindSync, stepDef{
		step: walk(func(m *Model, op Op, _ *mctx) { m.sync(op) }),
		resync: func(m *Model, op Op, _ *mctx, _ abi.Status) {
			// Synchronized whatever it answered, unless site 8 was armed.
			if m.sites[8].count > 0 {
				m.lose("#" + strconv.Itoa(m.curIdx) + " " + op.String() + " answered what the model did not predict while fault site 8 was armed")
			}
		},
	})
	defineStep(KindInject, stepDef{step: walk(func(m *Model, op Op, _ *mctx) { m.inject(op) })})
	defineStep(KindClobber, stepDef{step: walk(func(m *Model, _ Op, _ *mctx) {
		m.clobbers++
		m.e.Unchecked = true
	})})
	defineStep(KindUnload, stepDef{step: walk(func(m *Model, _ Op, _ *mctx) { m.unload() }), resync: resyncNothing})
	defineStep(KindHostLog, stepDef{step: walk(func(m *Model, op Op, _ *mctx) { m.hostLog(op) }), resync: resyncNothing})
}
