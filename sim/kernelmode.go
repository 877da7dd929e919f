package sim

import (
	"time"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
	"github.com/simabi/simabi/validation"
)

func span(p unsafe.Pointer, n uintptr) validation.Span {
	return validation.Span{Ptr: uintptr(p), Size: uint64(n)}
}

// KernelModeSupported is the build constant (E-SUP): 1 for tmr, 0 otherwise,
// for every ctx (NULL and invalid handles included) in every state. An
// invalid handle is counted (the emitted runtime aborts on it, F-3) but does
// not change the answer.
func (r *Runtime) KernelModeSupported(ctx abi.Ctx) int32 {
	r.lookup(ctx)
	if r.kernel {
		return 1
	}
	return 0
}

// KernelModeInit is simpler_kernel_mode_init, in the order of semantics §8:
// V-INIT → V-CFG → (refusing: UNSUPPORTED) → latched or not New: IS → latch
// KERNEL, record device and generation → claim (IS) → D-2 (IS) → site 1 and
// creation (K-7) → keep the config → Collecting → 0. Every failure after the
// latch sets "init failed" (L-5) and releases the claim (E-CLAIM). The
// context's gate is held from the state check on.
func (r *Runtime) KernelModeInit(ctx abi.Ctx, deviceID int32, aicpu unsafe.Pointer, aicpuSize uintptr,
	aicore unsafe.Pointer, aicoreSize uintptr, dispatcher unsafe.Pointer, dispatcherSize uintptr,
	config unsafe.Pointer, generation uint64) abi.Status {
	c := r.lookup(ctx)
	if st := validation.KernelInit(validation.KernelInitArgs{
		Ctx: nullable(c), DeviceID: deviceID,
		Aicpu: span(aicpu, aicpuSize), Aicore: span(aicore, aicoreSize), Dispatcher: span(dispatcher, dispatcherSize),
		Config: uintptr(config), Generation: generation,
	}); st != abi.OK {
		return st
	}
	// The config is read once, here: V-CFG checks this copy and init keeps it.
	// A config span that wraps cannot be read (no C caller can pass one): IA.
	src, ok := callerBytes(config, abi.CallConfigSize)
	if !ok {
		return abi.InvalidArgument
	}
	var cfg [abi.CallConfigSize]byte
	copy(cfg[:], src)
	if st := validation.KernelCallConfig(cfg[:]); st != abi.OK {
		return st
	}
	if !r.kernel {
		return abi.Unsupported
	}
	c.gate.Lock()
	defer c.gate.Unlock()
	if c.mode.Latched() || c.machine.Phase() != latch.New {
		return abi.InvalidState
	}
	if c.mode.Latch(latch.Kernel) != abi.OK { // a racing simpler_init latched PROGRAM
		return abi.InvalidState
	}
	c.deviceID.Store(deviceID)
	c.k.generation = generation
	if !r.claims.Claim(deviceID, uintptr(c.handle)) {
		c.initFailed.Store(true)
		return abi.InvalidState
	}
	c.k.claimHeld = true
	if r.currentDevice() != deviceID {
		r.releaseClaim(c)
		c.initFailed.Store(true)
		return abi.InvalidState
	}
	if _, st := c.machine.Fire(latch.EvInit, abi.OK); st != abi.OK {
		r.releaseClaim(c)
		c.initFailed.Store(true)
		return st
	}
	// Creation order: stream 0, stream 1, event 0..4. Site 1 fails the
	// creation of event 4, so 2 streams and 4 events exist (semantics §5).
	if code, hit := r.faults.pass(abi.SiteInitCreate); hit {
		c.k.streams = [kernelStreams]bool{true, true}
		c.k.events = [kernelEvents]bool{true, true, true, true, false}
		r.releaseClaim(c)
		c.initFailed.Store(true)
		if rb, hit := r.faults.pass(abi.SiteInitRollbackFails); hit {
			// The first destroy of the rollback (event 3) fails: nothing is
			// destroyed, the context lands in Closing holding all six (K-7).
			r.trace(c, "rollback event 3", false)
			c.machine.Fire(latch.EvInitRollbackFailed, rb)
			return code
		}
		for e := kernelEvents - 2; e >= 0; e-- { // events 3..0, then streams 1..0
			r.trace(c, "rollback "+eventNames[e], true)
			c.k.events[e] = false
		}
		for s := kernelStreams - 1; s >= 0; s-- {
			r.trace(c, "rollback "+streamNames[s], true)
			c.k.streams[s] = false
		}
		c.machine.Fire(latch.EvInitRolledBack, code)
		return code
	}
	for i := range c.k.streams {
		c.k.streams[i] = true
	}
	for i := range c.k.events {
		c.k.events[i] = true
	}
	kept := cfg
	c.k.config = &kept
	c.machine.Fire(latch.EvInitSucceeded, abi.OK)
	return abi.OK
}

func (r *Runtime) trace(c *context, what string, ok bool) {
	if r.traceRelease != nil {
		r.traceRelease(c.handle, what, ok)
	}
}

// releaseClaim drops c's device claim if it holds it. Gate held.
func (r *Runtime) releaseClaim(c *context) {
	if c.k.claimHeld {
		r.claims.Release(c.deviceID.Load(), uintptr(c.handle))
		c.k.claimHeld = false
	}
}

// KernelModePrepareCallable is simpler_kernel_mode_prepare_callable, in the
// order of semantics §8: write -1 → V-PREP-2 → (refusing: IS) → not kernel or
// not accepting dispatch: IS → take the gate (blocking) and re-check → site 7
// → D-2 → size > 2 GiB: BYTES → V-IMG → 8192 residents: COUNT → budget:
// BYTES → site 2 → charge and copy → commit the persistent region if first →
// site 3 (poison) → publish id k, mark ready, write k → 0.
func (r *Runtime) KernelModePrepareCallable(ctx abi.Ctx, callable unsafe.Pointer, size uintptr, outID *int32) abi.Status {
	validation.ResetOutID(outID)
	c := r.lookup(ctx)
	if st := validation.PrepareArgs(nullable(c), uintptr(callable), uint64(size), outID != nil); st != abi.OK {
		return st
	}
	if !r.kernel {
		return abi.InvalidState
	}
	if !c.mode.IsKernel() || !c.machine.AcceptsDispatch() {
		return abi.InvalidState
	}
	c.gate.Lock()
	st := r.prepareLocked(c, callable, size, outID)
	c.gate.Unlock()
	return st
}

// placement is where a prepare's charge goes.
type placement struct {
	block    int    // index of the block taking the charge (len(blocks): a new one)
	newBlock uint64 // size of the new block, 0 when an existing tail takes it
	charge   uint64
}

// place is M-5's first fit: a charge of at most 2 MiB goes into the first
// block whose tail fits it, else into a new 2 MiB block; a larger image gets
// its own block of exactly its charge. false: the budget would be exceeded.
func (k *kernelState) place(size uint64) (placement, bool) {
	c := abi.KernelCharge(size)
	if size <= abi.KernelCodeBlockBytes {
		minCharge := abi.KernelCharge(abi.ChipCallableSize)
		for k.skipBlocks < len(k.blocks) {
			if b := &k.blocks[k.skipBlocks]; b.size == abi.KernelCodeBlockBytes && b.size-b.used >= minCharge {
				break
			}
			k.skipBlocks++
		}
		start := 0
		if c >= minCharge {
			start = k.skipBlocks
		}
		for i := start; i < len(k.blocks); i++ {
			b := &k.blocks[i]
			if b.size == abi.KernelCodeBlockBytes && b.size-b.used >= c {
				return placement{block: i, charge: c}, true
			}
		}
		if k.allocated+abi.KernelCodeBlockBytes > abi.KernelCodeBudget {
			return placement{}, false
		}
		return placement{block: len(k.blocks), newBlock: abi.KernelCodeBlockBytes, charge: c}, true
	}
	if k.allocated+c > abi.KernelCodeBudget {
		return placement{}, false
	}
	return placement{block: len(k.blocks), newBlock: c, charge: c}, true
}

func (r *Runtime) prepareLocked(c *context, callable unsafe.Pointer, size uintptr, outID *int32) abi.Status {
	if !c.machine.AcceptsDispatch() {
		return abi.InvalidState
	}
	if ms, hit := r.faults.pass(abi.SitePrepareHoldGate); hit && ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	c.gate.parkIfArmed() // SimHoldGate
	if r.currentDevice() != c.deviceID.Load() {
		return abi.InvalidState
	}
	if uint64(size) > abi.KernelCodeBudget {
		return abi.CallableBytesExceeded
	}
	if validation.ImageSpanWraps(uintptr(callable), uint64(size)) {
		return abi.InvalidArgument
	}
	img, ok := callerBytes(callable, uint64(size)) // size <= 2 GiB, no wrap: always ok
	if !ok || validation.ImageAt(uintptr(callable), img) != abi.OK {
		return abi.InvalidArgument
	}
	if len(c.k.residents) >= abi.MaxRegisteredCallableIDs {
		return abi.CallableCountExceeded
	}
	pl, ok := c.k.place(uint64(size))
	if !ok {
		return abi.CallableBytesExceeded
	}
	if code, hit := r.faults.pass(abi.SitePrepareCopy); hit {
		return code
	}
	// Allocate (if a new block) and charge; copy (intern) the image.
	if pl.newBlock != 0 {
		c.k.blocks = append(c.k.blocks, codeBlock{size: pl.newBlock})
		c.k.allocated += pl.newBlock
	}
	b := &c.k.blocks[pl.block]
	offset := b.used
	b.used += pl.charge
	res := resident{
		img:    r.images.intern(img),
		kernel: kernelFor(img[abi.ChipFuncNameOff : abi.ChipFuncNameOff+int(le.Uint32(img[abi.ChipFuncNameLenOff:]))]),
		size:   uint64(size),
		block:  int32(pl.block),
		offset: offset,
	}
	res.tensors, res.scalars = validation.SignatureCounts(img)
	c.k.regionCommitted = true
	c.committed.Store(c.k.committed())
	if code, hit := r.faults.pass(abi.SitePrepareRegister); hit {
		// Registration failed: poisoned (K-4); the block and its charge stay
		// allocated and counted, no id is published (semantics §5).
		r.images.release(res.img)
		c.machine.Fire(latch.EvPoison, code)
		return code
	}
	c.k.residents = append(c.k.residents, res)
	c.machine.Fire(latch.EvMarkReady, abi.OK)
	*outID = int32(len(c.k.residents) - 1)
	return abi.OK
}

// KernelModeLaunch is simpler_kernel_mode_launch, in the order of semantics
// §8: V-LAUNCH → (refusing: IS) → not kernel or not accepting dispatch: IS →
// gate try-lock fails: IS → no successful prepare: IS → D-2 → id not
// published: NOT_RESIDENT → counts or address spaces: IA → stream switch: PI
// → site 4 (poison) → append the item, remember stream and serial → 0. It
// allocates nothing once the stream's buffers have grown.
func (r *Runtime) KernelModeLaunch(ctx abi.Ctx, callableID int32, args unsafe.Pointer, stream abi.Stream) abi.Status {
	c := r.lookup(ctx)
	if st := validation.LaunchArgs(nullable(c), callableID, uintptr(args), stream); st != abi.OK {
		return st
	}
	if !callerSpanOK(args, abi.TaskArgsSize) { // no C caller can pass args that wrap
		return abi.InvalidArgument
	}
	if !r.kernel {
		return abi.InvalidState
	}
	if !c.mode.IsKernel() || !c.machine.AcceptsDispatch() {
		return abi.InvalidState
	}
	if !c.gate.TryLock() {
		return abi.InvalidState
	}
	st := r.launchLocked(c, callableID, (*[abi.TaskArgsSize]byte)(args), stream)
	c.gate.Unlock()
	return st
}

func (r *Runtime) launchLocked(c *context, id int32, args *[abi.TaskArgsSize]byte, stream abi.Stream) abi.Status {
	if c.machine.Phase() != latch.ReadyEnqueued {
		return abi.InvalidState
	}
	if r.currentDevice() != c.deviceID.Load() {
		return abi.InvalidState
	}
	if int(id) >= len(c.k.residents) {
		return abi.CallableNotResident
	}
	res := &c.k.residents[id]
	nt := int32(le.Uint32(args[abi.TaskArgsTensorCountOff:]))
	ns := int32(le.Uint32(args[abi.TaskArgsScalarCountOff:]))
	if nt != res.tensors || ns != res.scalars {
		return abi.InvalidArgument
	}
	for i := 0; i < int(nt); i++ {
		if abi.AddressSpace(args[i*abi.ChipTensorSize+abi.TensorAddressSpaceOff]) != abi.DeviceSpace {
			return abi.InvalidArgument
		}
	}
	last := c.k.lastQ
	if last != nil && last.id != stream && last.completed.Load() < c.k.lastSerial {
		return abi.PreparedIncompatible
	}
	if code, hit := r.faults.pass(abi.SiteLaunchEnqueue); hit {
		c.machine.Fire(latch.EvPoison, code)
		return code
	}
	q := last
	if q == nil || q.id != stream {
		q = r.streams.get(stream)
	}
	c.k.lastSerial = q.enqueue(&r.streams, res.kernel, args, nt, ns)
	c.k.lastQ = q
	return abi.OK
}
