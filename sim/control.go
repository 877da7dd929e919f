package sim

import (
	"sync"
	"sync/atomic"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
)

// The simulation control hooks (docs/contract.md, F-1): a checker parks a
// prepare holding its context's submission gate and sees who waits for the
// gate, instead of timing a hold; and it returns the instance to the
// state of a fresh one, instead of making a new one per fuzz input.

var _ abi.SimControl = (*Runtime)(nil)

// submissionGate is a kernel context's submission gate: prepare, init
// and finalize take it blocking, launch try-locks it. It counts the calls
// blocked on it and can park one prepare holding it (SimHoldGate).
type submissionGate struct {
	mu      sync.Mutex
	waiters atomic.Int32

	armed   atomic.Bool // the next prepare parks (fast path: one load per prepare)
	parkMu  sync.Mutex  // guards parked and release
	parked  bool
	release chan struct{}
}

// Lock takes the gate, counted as a waiter while it blocks.
func (g *submissionGate) Lock() {
	if g.mu.TryLock() {
		return
	}
	g.waiters.Add(1)
	g.mu.Lock()
	g.waiters.Add(-1)
}

// TryLock takes the gate when it is free.
func (g *submissionGate) TryLock() bool { return g.mu.TryLock() }

// Unlock releases the gate.
func (g *submissionGate) Unlock() { g.mu.Unlock() }

// parkIfArmed is called by a prepare holding the gate, where site 7 holds
// it: when armed, the prepare stays here until SimHoldGate(ctx, 0).
func (g *submissionGate) parkIfArmed() {
	if !g.armed.Load() {
		return
	}
	g.parkMu.Lock()
	if !g.armed.CompareAndSwap(true, false) {
		g.parkMu.Unlock()
		return
	}
	ch := make(chan struct{})
	g.parked, g.release = true, ch
	g.parkMu.Unlock()
	<-ch
}

// hold arms (on) or releases a parked prepare and disarms (off).
func (g *submissionGate) hold(on bool) {
	g.parkMu.Lock()
	defer g.parkMu.Unlock()
	g.armed.Store(on)
	if !on && g.release != nil {
		close(g.release)
		g.parked, g.release = false, nil
	}
}

// state is SimGateState's value.
func (g *submissionGate) state() int32 {
	g.parkMu.Lock()
	parked := g.parked
	g.parkMu.Unlock()
	s := g.waiters.Load() * abi.GateWaiter
	if parked {
		s += abi.GateParked
	}
	return s
}

// SimHoldGate arms ctx (hold 1): its next prepare that takes the gate parks
// holding it until SimHoldGate(ctx, 0), which releases it or disarms.
// INVALID_ARGUMENT for NULL (or an unknown handle) or another hold value.
func (r *Runtime) SimHoldGate(ctx abi.Ctx, hold int32) abi.Status {
	c := r.lookup(ctx)
	if c == nil || (hold != 0 && hold != 1) {
		return abi.InvalidArgument
	}
	c.gate.hold(hold == 1)
	return abi.OK
}

// SimGateState is abi.GateParked while a prepare of ctx is parked holding
// its gate, plus abi.GateWaiter per call blocked on the gate; 0 for NULL.
func (r *Runtime) SimGateState(ctx abi.Ctx) int32 {
	c := r.ctxs.lookup(ctx)
	if c == nil {
		return 0
	}
	return c.gate.state()
}

// SimReset returns the instance to the state of New with the same profile
// and options: every context (live or destroyed) and claim gone, handles
// and fault sites as new, stream queues and run storages empty, the device
// memory of contexts freed. The simulated ACL's side (each thread's current
// device, the call counters, ACL-created streams, the caller's device
// memory) stays, as the process's ACL stays for the emitted runtime. No call
// of the instance may be in progress. Returns 0.
func (r *Runtime) SimReset() abi.Status {
	r.ctxs.mu.Lock()
	if p := r.ctxs.chunks.Load(); p != nil {
		// Empty the slots and keep their storage: the handles minted next
		// are a fresh instance's (serial and slot restart), and a fuzz
		// worker that resets before every input allocates no table.
		for s := uint32(0); s < r.ctxs.nextSlot; s++ {
			(*p)[s>>ctxChunkBits][s&(ctxChunkSize-1)].Store(nil)
		}
	}
	r.ctxs.free, r.ctxs.nextSlot, r.ctxs.serial, r.ctxs.live = r.ctxs.free[:0], 0, 0, 0
	r.ctxs.mu.Unlock()

	r.claims = latch.ClaimRegistry{}
	r.images.mu.Lock()
	r.images.byHash, r.images.count, r.images.held, r.images.last = nil, 0, 0, nil
	r.images.mu.Unlock()
	r.faults.reset()
	for _, f := range r.initialFaults {
		_ = r.SimInject(f.Site, f.Count, f.Code)
	}
	r.streams.resetQueues()
	r.mem.freeAllOwned()
	r.acl.runtimeInitDone.Store(false)
	r.invalidHandles.Store(0)
	r.refusedDestroys.Store(0)
	r.runStorageMu.Lock()
	r.runStorage = nil
	r.runStorageMu.Unlock()
	r.comm.releaseAll()
	r.comm.timeout.Store(int64(r.comm.initial)) // the bound of a fresh instance
	return abi.OK
}

// reset disarms every site.
func (f *faultState) reset() {
	f.mu.Lock()
	for site := range f.remain {
		f.remain[site].Store(0)
		f.code[site] = 0
	}
	f.mu.Unlock()
}

// resetQueues drops every queue's pending work and forgets the queues no
// ACL call created; an ACL-created stream keeps its value and flags.
func (t *streamTable) resetQueues() {
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		for s, q := range sh.m {
			q.mu.Lock()
			t.chunks.put(q.head)
			q.head, q.tail, q.pending, q.enqueued, q.listed = nil, nil, 0, 0, false
			q.completed.Store(0)
			q.mu.Unlock()
			if !q.aclCreated && !q.aclDestroyed {
				delete(sh.m, s)
			}
		}
		sh.mu.Unlock()
	}
	t.orderMu.Lock()
	t.order = nil
	t.orderMu.Unlock()
}

// freeAllOwned releases every allocation a context made (the caller's ACL
// allocations stay).
func (m *deviceMemory) freeAllOwned() {
	m.mu.Lock()
	defer m.mu.Unlock()
	kept := m.allocs[:0]
	for _, a := range m.allocs {
		if a.owner != nil {
			m.live -= uint64(len(a.data))
			m.backing.free(a.data)
			continue
		}
		kept = append(kept, a)
	}
	clear(m.allocs[len(kept):])
	m.allocs = kept
}
