package conformance

import (
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// Ranks as threads (the model's side: model/commpark.go). A comm call that
// waits for the other ranks of its session, when later ops of the sequence
// bring them, is parked: made on a thread of its own while the runner goes
// on with the ops that follow; the call that completes the rendezvous
// releases it, and the runner then waits for its answer and has the model
// judge it. A parked call that returns before its releaser is made broke
// the wait (E-COMM.8, .20): the runner gives it parkGrace to show that
// before it goes on (the grace decides only how surely an early return is
// seen, never whether a correct runtime passes).

// parkGrace is how long the runner watches a parked call for an early
// return once it is inside the runtime.
const parkGrace = 2 * time.Millisecond

// joinTimeout bounds the wait for a released call: one that does not
// return then is reported, and its thread is left in the runtime.
const joinTimeout = 5 * time.Second

// commCall is an int comm entry that may wait for peers: start reads its
// arguments on the runner's thread and returns the call, which a parked op
// makes on a rank's thread; finish does the runner's bookkeeping with its
// answer, on the runner's thread (nil: none).
type commCall struct {
	start  func(r *Runner, o op.Op, co *op.CommObs) func() abi.Status
	finish func(r *Runner, o op.Op, co *op.CommObs, st abi.Status)
}

// blockingClass is the class of a comm entry that may wait for peers.
func blockingClass(cc commCall) opClass {
	c := commClass(func(r *Runner, o op.Op, co *op.CommObs) abi.Status {
		st := cc.start(r, o, co)()
		if cc.finish != nil {
			cc.finish(r, o, co, st)
		}
		return st
	})
	c.run = func(r *Runner, i int, o op.Op, e *Entry) { r.commExec(i, o, e, cc) }
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

// commExec makes a comm call that may wait: at once when the model says it
// returns at once (then joins what it released), else parked.
func (r *Runner) commExec(i int, o op.Op, e *Entry, cc commCall) {
	if r.m.CommWaits(o) == "" {
		for _, p := range r.parked {
			p.issued.Store(true)
		}
		obs := &r.obs
		*obs = op.Observation{}
		classOf(o.Kind).call(r, o, 0, obs)
		r.st, _ = model.Step(r.st, i, 0, o, obs)
		e.Obs = *obs
		r.joinReleased()
		return
	}
	if r.m.CommTimesOut(o) {
		r.commTimedOut(i, o, e, cc)
		return
	}
	p := &parkedRun{op: o, e: e, cc: cc, obs: &op.Observation{}, done: make(chan struct{})}
	co := &op.CommObs{Out: op.CommUnwritten, Base: op.CommUnwritten}
	p.obs.Comm = co
	call := cc.start(r, o, co)
	if r.parked == nil {
		r.parked = map[int]*parkedRun{}
	}
	r.parked[i] = p
	r.st = model.Park(r.st, i, o, p.obs)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		p.entered.Store(true)
		st := call()
		co.Early = !p.issued.Load()
		p.obs.Call.Status = st
		close(p.done)
	}()
	r.watchEarly(p)
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
	for _, i := range r.m.TakeReleased() {
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
	select {
	case <-p.done:
	case <-t.C:
		if r.stuckWhy == "" {
			r.stuckAt, r.stuckWhy = i, "h"+itoa(int32(p.op.Comm.H))+"'s "+p.op.Kind.String()+" did not return within "+joinTimeout.String()+
				" of the call that should have released it (the last rank's arrival releases every rank that waits): its thread is still in the runtime"
		}
		delete(r.parked, i)
		if p.cc.finish != nil {
			// As a failure: a destroy's handle is invalid all the same,
			// and nothing of its answer is read.
			p.cc.finish(r, p.op, &op.CommObs{}, -1)
		}
		return
	}
	delete(r.parked, i)
	if p.cc.finish != nil {
		p.cc.finish(r, p.op, p.obs.Comm, p.obs.Call.Status)
	}
	r.st = model.JoinParked(r.st, i)
	p.e.Obs, p.e.releasedBy = *p.obs, r.at+1
}

// drainParked ends a run that left parked calls: none should be (the model
// parks only a call later ops release), so each is a call a runtime that
// broke the contract left waiting; it is waited for as a released one.
func (r *Runner) drainParked() {
	for i := range r.parked {
		r.join(i)
	}
}
