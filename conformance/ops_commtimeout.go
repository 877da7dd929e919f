package conformance

import (
	"strconv"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// The comm timeout on the runner (model/commtimeout.go): ctimeout sets the
// bound through simabi_comm_timeout_ms, restored when the run ends. A call
// that times out is made on a thread of its own, waited for joinTimeout
// past its bound (then a hang).

func init() {
	defineOp(op.KindCommTimeout, opClass{
		memProbe: memNone,
		needs:    need(catalogue.CapComm|catalogue.CapCommTimeout, model.REComm, "the target exports no simabi_comm_timeout_ms: a comm wait for a peer that never comes lasts upstream's 120 s"),
		rule:     model.REComm,
		call: func(r *Runner, o op.Op, _ abi.Ctx, obs *op.Observation) {
			obs.Call.Value = uint64(uint32(r.setCommBound(o.Ms)))
			r.comm.boundMs = o.Ms
		},
		result: func(*Entry) string { return "done" },
		gen:    genCommTimeout,
	})
}

// commTimedOut makes a comm call the model says times out.
func (r *Runner) commTimedOut(i int, o op.Op, e *Entry, cc commCall) {
	obs := &r.obs
	*obs = op.Observation{Comm: newCommObs()}
	call := cc.start(r, o, obs.Comm)
	done := make(chan abi.Status, 1)
	onRankThread(func() { done <- call() })
	t := time.NewTimer(joinTimeout + time.Duration(r.comm.boundMs)*time.Millisecond)
	defer t.Stop()
	co := obs.Comm
	select {
	case obs.Call.Status = <-done:
	case <-t.C:
		r.stuck(i, "h"+itoa(int32(o.Comm.H))+"'s "+o.Kind.String()+" did not return within "+joinTimeout.String()+
			" past the comm timeout in force ("+strconv.Itoa(int(r.comm.boundMs))+" ms): its thread is still in the runtime")
		// Nothing of its answer is read: the thread may still write it.
		*obs, co = op.Observation{Call: model.CallObs{Status: -1}}, &op.CommObs{}
	}
	cc.finish(r, o, co, obs.Call.Status)
	r.st, _ = model.Step(r.st, i, 0, o, obs)
	e.Obs = *obs
	r.joinReleased()
}

// shortCleanupBound sets a 1 ms bound for the cleanup's destroys when it
// can, not while a stuck call is still inside the runtime.
func (r *Runner) shortCleanupBound() bool {
	if r.bound == nil || r.stuckWhy != "" {
		return false
	}
	r.setCommBound(1)
	return true
}

// setCommBound sets the bound, keeping the one the run found to restore.
func (r *Runner) setCommBound(ms int32) int32 {
	prev := r.bound.SimCommTimeoutMs(ms)
	if !r.comm.boundSet {
		r.comm.boundSet, r.comm.boundFound = true, prev
	}
	return prev
}

// restoreCommTimeout gives the runtime back the bound the run found.
func (r *Runner) restoreCommTimeout() {
	if r.bound != nil && r.comm.boundSet {
		r.bound.SimCommTimeoutMs(r.comm.boundFound)
		r.comm.boundSet = false
	}
}

// genCommTimeoutsMs are a few ms each, and now and then upstream's 120 s
// again (the ranks' calls parked).
var genCommTimeoutsMs = []int32{1, 2, 3, 1, 2, 3, 120000}

// genCommTimeout offers a ctimeout on a target with the hook.
func genCommTimeout(g *Generator, _ *genState) {
	if !g.o.Comm || !g.o.Caps.Has(catalogue.CapCommTimeout) {
		return
	}
	g.add(2, func(g *Generator, ch Chooser) op.Op {
		return op.Op{Kind: op.KindCommTimeout, Ms: genCommTimeoutsMs[ch.IntN(len(genCommTimeoutsMs), "ms")]}
	})
}
