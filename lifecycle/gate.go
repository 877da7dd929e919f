package lifecycle

import (
	"sync/atomic"
	"time"
)

// gate is the worker's kernel gate (C-GATE): a mutex with a non-blocking
// acquire for Launch, a blocking acquire for PrepareCallable and the program
// operations, and an acquire bounded by a budget for the native finalize of
// Close. sync.Mutex has no bounded acquire, hence this small lock.
//
// held is the lock word. A waiter registers in waiters, then retries; an
// unlock that sees a registered waiter leaves a token in wake. Both sides use
// sequentially consistent atomics, so either the waiter's retry sees the lock
// free or the unlock sees the waiter and wakes it. The uncontended
// tryLock/unlock pair is one CAS, one store and one load.
type gate struct {
	held    atomic.Bool
	waiters atomic.Int32
	wake    chan struct{} // capacity 1: at most one pending token
}

func newGate() gate { return gate{wake: make(chan struct{}, 1)} }

func (g *gate) tryLock() bool { return g.held.CompareAndSwap(false, true) }

func (g *gate) unlock() {
	g.held.Store(false)
	if g.waiters.Load() > 0 {
		select {
		case g.wake <- struct{}{}:
		default: // a token is already pending
		}
	}
}

// lock waits as long as it takes.
func (g *gate) lock() {
	if g.tryLock() {
		return
	}
	g.wait(nil)
}

// lockWithin waits at most d; it reports whether it took the gate.
func (g *gate) lockWithin(d time.Duration) bool {
	if g.tryLock() {
		return true
	}
	if d <= 0 {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	return g.wait(t.C)
}

func (g *gate) wait(timeout <-chan time.Time) bool {
	g.waiters.Add(1)
	defer g.waiters.Add(-1)
	for {
		if g.tryLock() {
			return true
		}
		select {
		case <-g.wake:
		case <-timeout:
			return g.tryLock()
		}
	}
}
