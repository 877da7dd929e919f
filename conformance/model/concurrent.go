package model

import (
	"github.com/simabi/simabi/abi"
)

// The two-thread ops judged against one serial order.

// holdLaunch: the runner made a prepare hold the gate (site 7 armed with
// count 1, code = ms, or parked through the control hooks) and, while it
// held it, made a launch on another thread.
func (m *Model) holdLaunch(op Op, obs *Observation, call, second *CallObs) {
	m.armHold(op, obs)
	c := m.ctx(op.C)
	held := m.takesGate(op, c, op.Img) && (obs == nil || obs.Overlap)
	runPrepare := func() { m.judged(call, obs, c, func() { m.prepare(op, c, op.Img, false) }) }
	if !held {
		runPrepare()
	}
	if m.lost || m.diverged {
		return
	}
	m.judged(second, obs, c, func() { m.launch(op, c, held) })
	if obs != nil && held && obs.SecondLate {
		m.finding(RX2, Fail, "the launch returned only after the prepare holding the gate returned: it waited instead of failing at once")
	}
	if held && !m.lost && !m.diverged {
		runPrepare()
	}
}

// judged walks one call of a two-thread op on c and judges co's answer.
func (m *Model) judged(co *CallObs, obs *Observation, c *mctx, walk func()) {
	m.begin(co)
	walk()
	m.end(c)
	if obs != nil {
		m.judge(co, obs, false)
	}
}

// holdPrepare: a second prepare on a second thread while the first holds
// the gate: it waits and then proceeds.
func (m *Model) holdPrepare(op Op, obs *Observation, call, second *CallObs) {
	m.armHold(op, obs)
	c := m.ctx(op.C)
	first, firstObs, secondImg, secondObs := op.Img, call, op.Img2, second
	if obs != nil && c != nil && call.Status == abi.OK && second.Status == abi.OK && second.Out == int32(len(c.ids)) {
		// The second thread reached the gate first.
		first, firstObs, secondImg, secondObs = op.Img2, second, op.Img, call
	}
	m.judged(firstObs, obs, c, func() { m.prepare(op, c, first, false) })
	if !m.lost && !m.diverged {
		m.judged(secondObs, obs, c, func() { m.prepare(op, c, secondImg, true) })
	}
}

// armHold is the runner's site-7 injection of a timed hold (a parked hold
// arms no site).
func (m *Model) armHold(op Op, obs *Observation) {
	if obs == nil || !obs.Parked {
		m.sites[7] = siteState{count: 1, code: op.Ms}
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
		m.judged(x.co, obs, x.c, func() {
			if m.kinit(x.op, x.c); m.e.Rule == REClaim {
				m.e.Rule = RX1
			}
		})
	}
}
