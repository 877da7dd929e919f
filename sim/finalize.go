package sim

import (
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
)

// FinalizeDevice is finalize_device (E-FIN, semantics §9): NULL → INTERNAL →
// a program run outstanding → INTERNAL → unlatched, program without a
// device, or kernel Closed → 0 → kernel quarantined → IS → kernel (any other
// phase, init-failed included): D-2 → take the gate → New: Closed, 0 → site 6
// (live phases): quarantine, IS → Closing → release device resources, events
// 4..0, streams 1..0, each step one pass of site 5; a failing step keeps it
// and everything after it for a retry (K-5) → Closed, committed 0, ids dead,
// claim released → 0. It never resets the device, finalizes ACL or
// synchronizes a stream of the caller (D-1).
func (r *Runtime) FinalizeDevice(ctx abi.Ctx) abi.Status {
	c := r.lookup(ctx)
	if c == nil {
		return abi.Internal
	}
	switch c.mode.Mode() {
	case latch.Program:
		return r.finalizeProgram(c)
	case latch.Kernel:
		return r.finalizeKernel(c)
	default:
		return abi.OK
	}
}

var (
	eventNames  = [kernelEvents]string{"event 0", "event 1", "event 2", "event 3", "event 4"}
	streamNames = [kernelStreams]string{"stream 0", "stream 1"}
)

func (r *Runtime) finalizeKernel(c *context) abi.Status {
	if c.machine.Phase() == latch.Closed {
		return abi.OK
	}
	if c.quarantined.Load() {
		r.log.Warn("finalize_device: kernel context is quarantined after a fatal device failure; not reset", "ctx", uint64(c.handle))
		return abi.InvalidState
	}
	if r.currentDevice() != c.deviceID.Load() {
		return abi.InvalidState
	}
	c.gate.Lock()
	defer c.gate.Unlock()
	phase := c.machine.Phase()
	switch {
	case phase == latch.Closed:
		return abi.OK
	case c.quarantined.Load():
		return abi.InvalidState
	case phase == latch.New:
		c.machine.Fire(latch.EvClose, abi.OK)
		c.finalized.Store(true)
		return abi.OK
	}
	if phase.Live() {
		if _, hit := r.faults.pass(abi.SiteFinalizeFatal); hit {
			// D-4: quarantine instead of a reset. Everything is kept, the
			// claim included; dispatch is refused from now on.
			c.quarantined.Store(true)
			c.machine.Fire(latch.EvPoison, abi.InvalidState)
			r.log.Warn("finalize_device: fatal device failure; kernel context quarantined", "ctx", uint64(c.handle))
			return abi.InvalidState
		}
	}
	if _, st := c.machine.Fire(latch.EvClose, abi.OK); st != abi.OK {
		return st
	}
	// step is one release attempt: one pass of site 5.
	step := func(what string) (abi.Status, bool) {
		code, hit := r.faults.pass(abi.SiteFinalizeRelease)
		r.trace(c, what, !hit)
		if hit {
			c.machine.Fire(latch.EvCloseStepFailed, code)
		}
		return code, !hit
	}
	if c.k.deviceResourcesHeld() {
		if code, ok := step("device resources"); !ok {
			return code
		}
		for i := range c.k.residents {
			r.images.release(c.k.residents[i].img)
		}
		c.k.residents = nil
		c.k.blocks, c.k.skipBlocks = nil, 0
		c.k.allocated = 0
		c.k.regionCommitted = false
		c.committed.Store(0)
	}
	for e := kernelEvents - 1; e >= 0; e-- {
		if !c.k.events[e] {
			continue
		}
		if code, ok := step(eventNames[e]); !ok {
			return code
		}
		c.k.events[e] = false
	}
	for s := kernelStreams - 1; s >= 0; s-- {
		if !c.k.streams[s] {
			continue
		}
		if code, ok := step(streamNames[s]); !ok {
			return code
		}
		c.k.streams[s] = false
	}
	c.machine.Fire(latch.EvCloseDone, abi.OK)
	r.releaseClaim(c)
	c.k.lastQ, c.k.lastSerial = nil, 0
	c.finalized.Store(true)
	return abi.OK
}

// finalizeProgram: a run outstanding → INTERNAL, nothing torn down; no
// device attached → 0; else drop registrations and allocations, detach (one
// ResetDevice) → 0, or the code of a site-10 failure of the teardown: the
// context is detached anyway, so the next finalize returns 0 (E-FIN).
func (r *Runtime) finalizeProgram(c *context) abi.Status {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if c.p.outstanding() {
		return abi.Internal
	}
	if !c.p.attached {
		return abi.OK
	}
	code, failed := r.faults.pass(abi.SiteProgramTeardown)
	r.detachProgramLocked(c)
	if failed {
		return code
	}
	return abi.OK
}

// detachProgramLocked releases everything a program context holds and
// detaches its device. pmu held.
func (r *Runtime) detachProgramLocked(c *context) {
	c.p.callables = nil
	c.p.runs = nil
	// Upstream's finalize restarts the count with the callable state
	// (sim/host/device_runner_base.cpp:897 at 6ebaf77; E-PROG.26).
	c.p.dlopens = 0
	r.mem.freeOwned(c)
	c.committed.Store(0)
	r.acl.count(aclResetDevice)
	c.p.attached = false
	c.p.deviceID = -1
}

// DestroyDeviceContext is destroy_device_context (E-DESTROY): NULL (or an
// invalid handle) does nothing. It is refused — logged, counted, nothing
// happens — while a program run is outstanding, or while the context is
// kernel-latched and no finalize of it has returned 0 (quarantined ones
// forever). Otherwise it frees the handle, detaching a program context's
// device first.
func (r *Runtime) DestroyDeviceContext(ctx abi.Ctx) {
	c := r.lookup(ctx)
	if c == nil {
		return
	}
	switch c.mode.Mode() {
	case latch.Program:
		c.pmu.Lock()
		if c.p.outstanding() {
			c.pmu.Unlock()
			r.refuseDestroy(c, "a program run is outstanding")
			return
		}
		if c.p.attached {
			r.detachProgramLocked(c)
		}
		c.pmu.Unlock()
	case latch.Kernel:
		if !c.finalized.Load() {
			reason := "kernel context not finalized"
			if c.quarantined.Load() {
				reason = "kernel context quarantined"
			}
			r.refuseDestroy(c, reason)
			return
		}
	}
	r.ctxs.remove(c)
}

func (r *Runtime) refuseDestroy(c *context, reason string) {
	r.refusedDestroys.Add(1)
	r.log.Warn("destroy_device_context refused; the context stays alive", "ctx", uint64(c.handle), "reason", reason)
}
