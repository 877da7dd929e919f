package model

import (
	"slices"
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

// NewTraceState is the owned state a trace is judged with (driven: the
// consumer drove its streams through the hooks).
func NewTraceState(p Profile, driven bool) State {
	return NewState(ModelOptions{Profile: p, Device: -1, DrivenCompletion: driven})
}

// StepRecorded judges call k of t as op i of the judged order.
func StepRecorded(s State, t *Trace, i, k int) State {
	return with(s, func(m *Model) { stepTraceCall(m, t, i, k) })
}

// PassRule records a pass of r outside any walk (X-2's fail-fast launch).
func PassRule(s State, r Rule) State { return with(s, func(m *Model) { m.pass(r) }) }

// stepTraceCall judges call k (as op number i of the judged order) on m.
func stepTraceCall(m *Model, t *Trace, i, k int) {
	c := &t.Calls[k]
	m.curDev, m.devKnown = c.Dev, c.DevKnown
	slot, _ := c.Op.Slots()
	if slot >= 0 && !c.Op.Kind.MakesContext() && !m.SlotLive(slot) && c.Skip == "" {
		// A context the trace never created (a forked child's): unknown.
		mc := newMctx()
		mc.unknown, mc.divergedAt = true, i
		m.ctxs[slot] = mc
	}
	if k := c.Op.Kind; k.CommCodes() {
		// A recorded session: ranks may be other processes (E-COMM).
		cm := m.comm()
		cm.shared = true
		if c.Unfinished || c.Skip != "" {
			cm.unknown = true
		}
		m.recordedHere(c)
	}
	at := "@" + strconv.FormatUint(c.B, 10) + " not judged: "
	if c.Reset {
		m.resetRuntime()
		m.skip(i, c.Op, RuleNone, at+"simabi_reset: the runtime starts again as loaded, and the calls after it are judged so")
		return
	}
	if (c.Unfinished || c.Skip != "") && c.Op.Kind.PassesSites() {
		m.unsureSites() // the call may have passed an armed fault site
	}
	switch {
	case c.Unfinished:
		m.skip(i, c.Op, RuleNone, at+"it never returned")
		if mc := m.ctx(slot); mc != nil && mc.live {
			m.forget(mc) // it may have taken effect in part
		}
		return
	case c.Skip != "":
		m.skip(i, c.Op, RuleNone, at+c.Skip)
		if mc := m.ctx(slot); mc != nil && mc.live && c.Op.Kind != KindCommitted && c.Op.Kind != KindSupported {
			m.forget(mc) // the call may have changed its state
		}
		return
	case c.SpacesHidden && (c.Obs.Call.Status == abi.InvalidArgument || c.Obs.Call.Status == abi.Internal):
		// A refusal changes nothing (E-LAUNCH): the state is kept.
		m.skip(i, c.Op, RuleNone, at+"a version 1 trace records only whether tensor 0's address space is HOST, "+
			"and the launch may have been refused for the address space of a tensor it does not hold")
		return
	}
	obs := c.Obs
	if m.opt.Profile == ProfileLegacy && c.Op.Kind.Entry() && !c.Op.Kind.CommCodes() {
		// A legacy trace holds the build's own codes, translated as the
		// live runner does; the comm family's -1 stays (E-COMM).
		obs.Call.Status = abi.TranslateLegacy(obs.Call.Status)
	}
	if !m.opt.DrivenCompletion && binariesDecide(c) {
		// Binaries are recorded by size only, and on a build that is not
		// simulated their bytes decide: an unexplained refusal is not judged.
		probe := m.copy()
		before := probe.Failures()
		probe.step(i, 0, c.Op, &obs)
		if probe.Failures() > before {
			m.skip(i, c.Op, RuleNone, at+"the executor binaries are recorded by size only, and on a build that is not simulated "+
				"their bytes decide whether the init succeeds")
			if mc := m.ctx(slot); mc != nil && mc.live {
				m.forget(mc)
			}
			m.unsureSites()
			return
		}
	}
	if c.Op.Kind == KindLaunchRun {
		obs.Accepted = acceptedInModelTerms(c)
	}
	m.argsUnrecorded = c.ArgsUnrecorded
	m.step(i, 0, c.Op, &obs)
	m.argsUnrecorded = false
	if c.Op.Kind == op.KindCommInit {
		if h := m.comm().handle(c.Op.Comm.H); h != nil {
			h.here = c.RanksHere
		}
	}
}

// binariesDecide reports whether c is a refused init that passed binaries.
func binariesDecide(c *TraceCall) bool {
	if (c.Op.Kind != KindKInit && c.Op.Kind != KindPInit) || c.Obs.Call.Status == abi.OK {
		return false
	}
	return slices.Contains(c.Op.Spans[:], SpanBytes)
}

// acceptedInModelTerms maps a recorded accepted_state to the model's
// AcceptedValue(st) when it equals the descriptor's own accepted_value.
func acceptedInModelTerms(c *TraceCall) int32 {
	if !c.WantKnown || c.Obs.Accepted == c.Want {
		return AcceptedValue(c.Op.St)
	}
	return c.Obs.Accepted
}
