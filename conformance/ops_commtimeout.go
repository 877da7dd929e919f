package conformance

import (
	"runtime"
	"strconv"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// The comm family's timeout on the runner (the model's side:
// model/commtimeout.go). ctimeout sets the bound of the comm waits through
// the hook simabi_comm_timeout_ms; the runner keeps the bound the run found
// and restores it when the run ends, so that no later run meets a short
// one. A call the model says times out is made on a thread of its own and
// waited for at most joinTimeout past its bound: one that does not return
// then is a hang.

func init() {
	defineOp(op.KindCommTimeout, opClass{
		memProbe: memNone,
		needs: func(op.Op) (Caps, model.Rule, string) {
			return CapComm | CapCommTimeout, model.REComm, "the target exports no simabi_comm_timeout_ms: a comm wait for a peer that never comes lasts upstream's 120 s"
		},
		rule: fixedRule(model.REComm),
		call: func(r *Runner, o op.Op, _ abi.Ctx, obs *op.Observation) {
			obs.Call.Value = uint64(uint32(r.setCommBound(o.Ms)))
			r.comm.boundMs = o.Ms
		},
		result: func(*Entry) string { return "done" },
		gen:    genCommTimeout,
	})
}

// commTimedOut makes a comm call the model says times out and has the
// model judge it.
func (r *Runner) commTimedOut(i int, o op.Op, e *Entry, cc commCall) {
	obs := &r.obs
	*obs = op.Observation{}
	co := &op.CommObs{Out: op.CommUnwritten, Base: op.CommUnwritten}
	obs.Comm = co
	call := cc.start(r, o, co)
	done := make(chan abi.Status, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		done <- call()
	}()
	t := time.NewTimer(joinTimeout + time.Duration(r.comm.boundMs)*time.Millisecond)
	defer t.Stop()
	select {
	case obs.Call.Status = <-done:
	case <-t.C:
		if r.stuckWhy == "" {
			r.stuckAt, r.stuckWhy = i, "h"+itoa(int32(o.Comm.H))+"'s "+o.Kind.String()+" did not return within "+joinTimeout.String()+
				" past the comm timeout in force ("+strconv.Itoa(int(r.comm.boundMs))+" ms): its thread is still in the runtime"
		}
		// Nothing of its answer is read: the thread may still write it.
		*obs = op.Observation{Call: model.CallObs{Status: -1}}
		co = &op.CommObs{}
	}
	if cc.finish != nil {
		cc.finish(r, o, co, obs.Call.Status)
	}
	r.st, _ = model.Step(r.st, i, 0, o, obs)
	e.Obs = *obs
	r.joinReleased()
}

// shortCleanupBound sets a 1 ms bound for the cleanup's destroys when the
// target has the hook (a destroy whose peers are gone then ends at once),
// and reports whether it did. Not while a call that never returned is
// still inside the runtime: its handle must not be freed under it.
func (r *Runner) shortCleanupBound() bool {
	if r.bound == nil || r.stuckWhy != "" {
		return false
	}
	r.setCommBound(1)
	return true
}

// setCommBound sets the bound of the comm waits and returns the one
// before; the first the run found is kept to restore.
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

// genCommTimeoutsMs are the bounds the generator draws: a few ms each, so
// that a random sequence's timeouts cost little, and now and then
// upstream's 120 s again, under which the ranks' calls are parked.
var genCommTimeoutsMs = []int32{1, 2, 3, 1, 2, 3, 120000}

// genCommTimeout offers a ctimeout now and then in comm sequences, on a
// target with the hook.
func genCommTimeout(g *Generator, _ *genState) {
	if !g.o.Comm || !g.o.Caps.Has(CapCommTimeout) {
		return
	}
	g.add(2, func(g *Generator, ch Chooser) op.Op {
		return op.Op{Kind: op.KindCommTimeout, Ms: genCommTimeoutsMs[ch.IntN(len(genCommTimeoutsMs), "ms")]}
	})
}
