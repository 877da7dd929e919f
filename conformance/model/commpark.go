package model

import (
	"slices"
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

// Ranks of one session as threads (E-COMM.8, .19-20, .27, .33, .58): a
// call that waits for ranks the following ops bring is parked (made on a
// thread of its own: CommParkable). The model steps it when made (its
// arrival counts) and judges it when the call that completes the
// rendezvous releases it (JoinParked): it returns 0 then, not before.

// waitKey is what a parked call waits for: a segment's last arrival
// (ready), last departure (left), or a barrier phase.
type waitKey struct {
	kind  uint8
	seg   int
	phase int32
}

const (
	waitReady uint8 = iota + 1
	waitLeft
	waitBarrier
)

// parkedCall is one call parked on a handle slot's rank.
type parkedCall struct {
	idx      int
	op       Op
	h        int8
	key      waitKey
	e        Expectation
	after    func()
	obs      *Observation
	released bool
}

// parkState is the comm model's parking: the calls in flight and those
// released and not yet joined.
type parkState struct {
	parked   []parkedCall
	released []int   // the op indices released and not joined
	parking  bool    // the step in progress is a parked call's
	key      waitKey // what it waits for
}

func (p parkState) copy() parkState {
	return parkState{parked: append([]parkedCall(nil), p.parked...), released: append([]int(nil), p.released...), parking: p.parking, key: p.key}
}

// at is the position of op index idx's parked call (-1: none).
func (p *parkState) at(idx int) int {
	for i := len(p.parked) - 1; i >= 0; i-- {
		if p.parked[i].idx == idx {
			return i
		}
	}
	return -1
}

// busy reports whether slot h's rank is in a parked call.
func (cm *commModel) busy(h int8) bool {
	return slices.ContainsFunc(cm.park.parked, func(p parkedCall) bool { return p.h == h })
}

// release marks every parked call waiting for k released.
func (cm *commModel) release(k waitKey) {
	if k.kind == 0 {
		return
	}
	for i := range cm.park.parked {
		if p := &cm.park.parked[i]; !p.released && p.key == k {
			p.released = true
			cm.park.released = append(cm.park.released, p.idx)
		}
	}
}

// waitFor expects a call that may wait: done (it returns at once and
// releases the calls waiting for k), or it waits for k.
func (m *Model) waitFor(done bool, k waitKey, note string) {
	cm := m.comm()
	switch {
	case done:
		m.commExpect(one(abi.OK), note)
		cm.release(k)
	case cm.park.parking && !cm.segs[k.seg].shared:
		cm.park.key = k
		m.commExpect(one(abi.OK), "it waits for the other ranks of its session, which come later in this sequence, and returns 0 once the last arrives")
	case cm.timesOut():
		m.commTimeout("")
	default:
		m.commWait(false, note)
	}
}

// CommBusy reports whether slot h's rank is in a parked call: the runner
// makes no other call of it meanwhile.
func (m *Model) CommBusy(h int8) bool { return m.cm != nil && h >= 0 && m.cm.busy(h) }

// CommBusyWhy says why an op naming a busy rank's handle is not made (""
// when it names none).
func (m *Model) CommBusyWhy(o Op) string {
	byHandle := (o.Kind == op.KindCommMem || o.Kind == op.KindCommCopy) && o.Comm.Ref != op.RefGlobal && o.Comm.Ref != op.RefLocal
	if h := o.Comm.H; (o.Kind.CommCodes() || byHandle) && m.CommBusy(h) {
		return "h" + strconv.Itoa(int(h)) + "'s rank is waiting in a call for its peers: a rank makes one call at a time"
	}
	return ""
}

// CommParkable reports whether ops[0], a call that waits for peers
// (CommWaits), is released by the calls of ops[1:] the runner would make
// (a call on a busy rank is not made, one that waits is parked in turn).
func (m *Model) CommParkable(ops []Op) bool {
	if m.lost || len(ops) == 0 || m.cm == nil || m.cm.unknown || m.cm.shared || m.cm.timesOut() {
		return false // under a short timeout a parked call could give up before its releaser
	}
	c := m.scratch()
	c.park(0, ops[0], nil)
	if len(c.cm.park.parked) == 0 || c.cm.park.parked[len(c.cm.park.parked)-1].key == (waitKey{}) {
		return false // nothing it waits for can be released
	}
	const ahead = 4 * op.MaxCommHandles
	for j := 1; j < len(ops) && j <= ahead; j++ {
		o := ops[j]
		if !o.Kind.CommCodes() || c.CommBusyWhy(o) != "" {
			continue
		}
		if c.CommWaits(o) != "" {
			c.park(j, o, nil)
		} else {
			c.step(j, 0, o, nil)
		}
		if k := c.cm.park.at(0); k >= 0 && c.cm.park.parked[k].released {
			return true
		}
	}
	return false
}

// scratch is a copy of the model to step ahead on (the look aheads).
func (m *Model) scratch() *Model {
	c := m.copy()
	c.findings = c.findings[:len(c.findings):len(c.findings)]
	return c
}

// park steps op as a parked call: its arrival counts now, its answer
// (obs, filled when it returns) is judged by JoinParked.
func (m *Model) park(idx int, o Op, obs *Observation) {
	m.curOp, m.curIdx, m.curRep = o, idx, 0
	if m.lost {
		m.trackLiveness(o)
		return
	}
	cm := m.comm()
	var call *CallObs
	if obs != nil {
		call = &obs.Call
	}
	m.begin(call)
	cm.park.parking, cm.park.key = true, waitKey{}
	after := stepOf(o.Kind).step(m, o, nil, obs)
	cm.park.parking = false
	m.end(nil)
	cm.park.parked = append(cm.park.parked, parkedCall{idx: idx, op: o, h: o.Comm.H, key: cm.park.key, e: m.e, after: after, obs: obs})
}

// joinParked judges the parked call of op index idx, released by op index
// at; early: it returned before its release (a recorded trace's reading).
func (m *Model) joinParked(idx, at int, early bool) {
	cm := m.comm()
	if i := slices.Index(cm.park.released, idx); i >= 0 {
		cm.park.released = slices.Delete(cm.park.released, i, i+1)
	}
	k := cm.park.at(idx)
	if k < 0 {
		return
	}
	p := cm.park.parked[k]
	cm.park.parked = append(cm.park.parked[:k], cm.park.parked[k+1:]...)
	if m.lost || p.obs == nil {
		return
	}
	m.curOp, m.curIdx, m.curRep, m.upto = p.op, p.idx, 0, at
	defer func() { m.upto = 0 }()
	m.e, m.co, m.tolBranch = p.e, &p.obs.Call, false
	if early || (p.obs.Comm != nil && p.obs.Comm.Early) {
		m.finding(REComm, Fail, p.op.Kind.String()+" of h"+strconv.Itoa(int(p.h))+" returned before the last rank of its session arrived: "+
			"a rank waits for its peers (E-COMM.8, E-COMM.20, E-COMM.27, E-COMM.33, E-COMM.58)")
	}
	if p.after != nil {
		p.after()
	}
	m.judge(&p.obs.Call, p.obs, false)
	if m.diverged {
		m.diverged = false
		commLost(m, p.op, nil, p.obs.Call.Status)
	}
}

// Park steps a parked call (made on a rank's thread; obs is filled when it
// returns) and returns the state after it.
func Park(s State, idx int, o Op, obs *Observation) State {
	m := s.advancing()
	m.park(idx, o, obs)
	return m.state()
}

// JoinParked judges the parked call of op index idx, released by op index at.
func JoinParked(s State, idx, at int) State {
	m := s.advancing()
	m.joinParked(idx, at, false)
	return m.state()
}

// Released returns the op indices of the parked calls released and not
// yet judged: the runner joins each.
func (m *Model) Released() []int {
	if m.cm == nil {
		return nil
	}
	return slices.Clone(m.cm.park.released)
}

// Parked lists the op indices of the calls parked and not released.
func (m *Model) Parked() []int {
	if m.cm == nil {
		return nil
	}
	var out []int
	for _, p := range m.cm.park.parked {
		if !p.released {
			out = append(out, p.idx)
		}
	}
	return out
}

// CommLeaveTogether lists the live handle slots whose comm_destroy returns
// when every live handle's is made at once (the runner's cleanup).
func (m *Model) CommLeaveTogether() []int8 {
	if m.cm == nil {
		return nil
	}
	c := m.scratch()
	var out []int8
	for h := int8(0); h < op.MaxCommHandles; h++ {
		if c.cm.handle(h) == nil || c.cm.busy(h) {
			continue
		}
		o := Op{Kind: op.KindCommDestroy, Comm: op.CommRecipe{H: h}}
		if c.CommWaits(o) != "" {
			c.park(int(h), o, nil)
			continue
		}
		c.step(int(h), 0, o, nil)
		out = append(out, h)
	}
	for _, p := range c.cm.park.parked {
		if p.released && p.op.Kind == op.KindCommDestroy {
			out = append(out, p.h)
		}
	}
	return out
}
