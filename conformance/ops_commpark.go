package conformance

import (
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// Ranks as threads (the model's side: model/commpark.go). A comm call that
// waits for peers later ops bring is parked: made on a thread of its own
// while the runner goes on; the call that completes the rendezvous
// releases it and the model judges its answer. One that returns before its
// releaser broke the wait (E-COMM.8, .20).

const (
	// parkGrace is how long a parked call is watched for an early return
	// (how surely one is seen, never whether a correct runtime passes).
	parkGrace = 2 * time.Millisecond
	// joinTimeout bounds the wait for a released call.
	joinTimeout = 5 * time.Second
)

// commCall is an int comm entry that may wait for peers: start reads its
// arguments on the runner's thread and returns the call (made on a rank's
// thread when parked); finish does the bookkeeping with its answer.
type commCall struct {
	start  func(r *Runner, o op.Op, co *op.CommObs) func() abi.Status
	finish func(r *Runner, o op.Op, co *op.CommObs, st abi.Status)
}

// blockingClass is the class of a comm entry that may wait for peers.
func blockingClass(cc commCall) opClass {
	if cc.finish == nil {
		cc.finish = func(*Runner, op.Op, *op.CommObs, abi.Status) {}
	}
	c := commClass(func(r *Runner, o op.Op, co *op.CommObs) abi.Status {
		st := cc.start(r, o, co)()
		cc.finish(r, o, co, st)
		return st
	}, nil)
	c.park = func(r *Runner, i int, o op.Op, e *Entry) bool { return r.commPark(i, o, e, cc) }
	c.annotation = func(e *Entry) string {
		if at, ok := e.ParkedUntil(); ok {
			return "waited on its rank's thread until #" + strconv.Itoa(at)
		}
		return ""
	}
	return c
}

// parkedRun is a call in flight on a rank's thread.
type parkedRun struct {
	op      op.Op
	e       *Entry
	cc      commCall
	obs     *op.Observation
	entered atomic.Bool // the thread is about to make the call
	issued  atomic.Bool // a call that may release it was made since
	done    chan struct{}
}

// releasing marks every parked call: one that returns from here on did not
// return early.
func (r *Runner) releasing() {
	for _, p := range r.parked {
		p.issued.Store(true)
	}
}

// commPark parks a comm call the model says waits for peers later ops
// bring; one that does not wait is the generic path's.
func (r *Runner) commPark(i int, o op.Op, e *Entry, cc commCall) bool {
	if r.view().CommWaits(o) == "" {
		return false
	}
	if r.view().CommTimesOut(o) {
		r.commTimedOut(i, o, e, cc)
		return true
	}
	p := &parkedRun{op: o, e: e, cc: cc, obs: &op.Observation{Comm: newCommObs()}, done: make(chan struct{})}
	call := cc.start(r, o, p.obs.Comm)
	if r.parked == nil {
		r.parked = map[int]*parkedRun{}
	}
	r.parked[i] = p
	r.st = model.Park(r.st, i, o, p.obs)
	onRankThread(func() {
		p.entered.Store(true)
		st := call()
		p.obs.Comm.Early = !p.issued.Load()
		p.obs.Call.Status = st
		close(p.done)
	})
	r.watchEarly(p)
	return true
}

// watchEarly gives a parked call parkGrace, once inside the runtime, to
// return early.
func (r *Runner) watchEarly(p *parkedRun) {
	deadline := time.Now().Add(joinTimeout)
	for !p.entered.Load() && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	t := time.NewTimer(parkGrace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	}
}

// joinReleased waits for every parked call the model says the last step
// released and has the model judge each.
func (r *Runner) joinReleased() {
	if len(r.parked) == 0 {
		return
	}
	for _, i := range r.view().Released() {
		r.join(i)
	}
}

// join waits for parked call i and judges it; one that does not return
// within joinTimeout is reported and its thread left where it is.
func (r *Runner) join(i int) {
	p := r.parked[i]
	if p == nil {
		return
	}
	t := time.NewTimer(joinTimeout)
	defer t.Stop()
	delete(r.parked, i)
	select {
	case <-p.done:
	case <-t.C:
		// The hang shows at the call that should have released it: a
		// repro runs through it.
		r.stuck(max(r.at, i), "h"+itoa(int32(p.op.Comm.H))+"'s "+p.op.Kind.String()+" did not return within "+joinTimeout.String()+
			" of the call that should have released it (the last rank's arrival releases every rank that waits): its thread is still in the runtime")
		// As a failure: a destroy's handle is invalid all the same, and
		// nothing of its answer is read.
		p.cc.finish(r, p.op, &op.CommObs{}, -1)
		return
	}
	p.cc.finish(r, p.op, p.obs.Comm, p.obs.Call.Status)
	r.st = model.JoinParked(r.st, i, r.at)
	p.e.Obs, p.e.releasedBy = *p.obs, r.at+1
}

// stuck notes the first call whose thread did not come back.
func (r *Runner) stuck(at int, why string) {
	if r.stuckWhy == "" {
		r.stuckAt, r.stuckWhy = at, why
	}
}

// onRankThread runs f on a thread of its own, as a rank of its session.
func onRankThread(f func()) {
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		f()
	}()
}

// drainParked waits for the calls a run left parked (only a broken runtime
// leaves any) as for released ones.
func (r *Runner) drainParked() {
	for i := range r.parked {
		r.join(i)
	}
}

// The comm entries that may wait for peers.
func init() {
	defineOp(op.KindCommAlloc, blockingClass(commCall{
		start: func(r *Runner, o op.Op, co *op.CommObs) func() abi.Status {
			h, win, out := r.commHandle(o), uintptr(o.Comm.Win), outPtr(&co.Out, o.Comm.NullOut)
			return func() abi.Status { return r.rt.CommAllocWindows(h, win, out) }
		},
		finish: func(r *Runner, o op.Op, co *op.CommObs, st abi.Status) {
			if o.Comm.H >= 0 {
				// Whatever it returned: a runtime may have mapped them.
				r.comm.windows[o.Comm.H] = true
				r.comm.maps++
			}
			// A ready wait that timed out wrote the context too (E-COMM.9).
			if o.Comm.H >= 0 && (st == abi.OK || (st == -1 && co.Out != op.CommUnwritten)) {
				r.comm.ctxs[o.Comm.H].base = co.Out
				r.peekCtx(co.Out, co)
			}
		},
	}))
	defineOp(op.KindCommBarrier, blockingClass(commCall{
		start: func(r *Runner, o op.Op, _ *op.CommObs) func() abi.Status {
			h := r.commHandle(o)
			return func() abi.Status { return r.rt.CommBarrier(h) }
		},
	}))
	defineOp(op.KindCommDestroy, blockingClass(commCall{
		start: func(r *Runner, o op.Op, _ *op.CommObs) func() abi.Status {
			h := r.commHandle(o)
			return func() abi.Status { return r.rt.CommDestroy(h) }
		},
		finish: func(r *Runner, o op.Op, _ *op.CommObs, _ abi.Status) {
			if o.Comm.H >= 0 {
				// The handle is invalid after the call, whatever it returned.
				r.comm.handles[o.Comm.H], r.comm.ctxs[o.Comm.H] = 0, commCtxs{}
			}
		},
	}))
	defineOp(op.KindCommDomainAlloc, blockingClass(commCall{
		start: func(r *Runner, o op.Op, co *op.CommObs) func() abi.Status {
			c := o.Comm
			h, id, ids := r.commHandle(o), r.comm.id(c.ID, false), r.comm.rankIDs(c.IDs, true)
			if h != 0 {
				r.comm.names(abi.CommAllocName(uint32(os.Getppid()), r.comm.sessions[c.H], id))
			}
			out, base := outPtr(&co.Out, c.NullOut), outPtr(&co.Base, c.NullBase)
			return func() abi.Status {
				return r.rt.CommAllocDomainWindows(h, id, ids, uintptr(c.N), uint32(c.Rank), uintptr(c.Win), out, base)
			}
		},
		finish: func(r *Runner, o op.Op, co *op.CommObs, st abi.Status) {
			c := o.Comm
			if st == abi.OK {
				r.comm.maps++
			}
			if st == abi.OK && c.H >= 0 {
				x := &r.comm.ctxs[c.H]
				if x.domains == nil {
					x.domains = map[uint8]uint64{}
				}
				x.domains[c.ID] = co.Out
				r.peekCtx(co.Out, co)
			}
		},
	}))
	defineOp(op.KindCommDomainRelease, blockingClass(commCall{
		start: func(r *Runner, o op.Op, _ *op.CommObs) func() abi.Status {
			c := o.Comm
			h, id := r.commHandle(o), r.comm.id(c.ID, false)
			return func() abi.Status { return r.rt.CommReleaseDomainWindows(h, id, uintptr(c.N), uint32(c.Rank)) }
		},
		finish: func(r *Runner, o op.Op, _ *op.CommObs, st abi.Status) {
			if st == abi.OK && o.Comm.H >= 0 {
				delete(r.comm.ctxs[o.Comm.H].domains, o.Comm.ID)
			}
		},
	}))
}
