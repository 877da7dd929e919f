package sim

import (
	"github.com/simabi/simabi/sim/semantics"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
	"github.com/simabi/simabi/validation"
)

// callConfigBytes is the 1148 bytes at p: (nil, true) for NULL, false when
// the span wraps (callerBytes).
func callConfigBytes(p unsafe.Pointer) ([]byte, bool) {
	if p == nil {
		return nil, true
	}
	return callerBytes(p, abi.CallConfigSize)
}

// SimplerInit is simpler_init (E-PINIT, semantics §10): NULL → INTERNAL →
// validation.ProgramInit (IA, unlatched) → latch PROGRAM (IS on a kernel
// context, L-4) → a device already attached: IS → set the calling thread's
// device (one SetDevice), attach → 0.
func (r *Runtime) SimplerInit(ctx abi.Ctx, deviceID int32, aicpu unsafe.Pointer, aicpuSize uintptr, aicore unsafe.Pointer, aicoreSize uintptr,
	dispatcher unsafe.Pointer, dispatcherSize uintptr, prewarmConfig unsafe.Pointer, enableSDMA int32,
	sdmaWarmup unsafe.Pointer, sdmaWarmupSize uint64) abi.Status {
	c := r.lookup(ctx)
	if c == nil {
		return abi.Internal
	}
	prewarm, ok := callConfigBytes(prewarmConfig)
	if !ok {
		return abi.InvalidArgument
	}
	if st := validation.ProgramInit(validation.ProgramInitArgs{
		DeviceID: deviceID,
		Aicpu:    span(aicpu, aicpuSize), Aicore: span(aicore, aicoreSize), Dispatcher: span(dispatcher, dispatcherSize),
		SDMAWarmup: validation.Span{Ptr: uintptr(sdmaWarmup), Size: sdmaWarmupSize},
		Prewarm:    prewarm,
	}); st != abi.OK {
		return st
	}
	if st := c.mode.Latch(latch.Program); st != abi.OK {
		return abi.InvalidState
	}
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if c.p.attached {
		return abi.InvalidState
	}
	r.acl.count(aclSetDevice)
	r.setThreadDevice(deviceID)
	c.p.attached = true
	c.p.deviceID = deviceID
	return abi.OK
}

// EnsureACLReady is ensure_acl_ready_ctx (E-ACL): NULL → IA → device_id < 0:
// IA → latch PROGRAM (IS on a kernel context) → aclInit once per instance,
// set the device on the calling thread → 0. It does not attach.
func (r *Runtime) EnsureACLReady(ctx abi.Ctx, deviceID int32) abi.Status {
	c := r.lookup(ctx)
	if c == nil || deviceID < 0 {
		return abi.InvalidArgument
	}
	if c.mode.Latch(latch.Program) != abi.OK {
		return abi.InvalidState
	}
	if r.acl.runtimeInitDone.CompareAndSwap(false, true) {
		r.acl.count(aclInit)
		r.acl.initialized.Store(true)
	}
	r.acl.count(aclSetDevice)
	r.setThreadDevice(deviceID)
	return abi.OK
}

// liveProgram returns c locked (pmu held) when it has a live program init;
// otherwise it returns the status E-PROG and S-3 give: IA for NULL, IS for a
// context without a live program init.
func (r *Runtime) liveProgram(ctx abi.Ctx) (*context, abi.Status) {
	c := r.lookup(ctx)
	if c == nil {
		return nil, abi.InvalidArgument
	}
	if !c.mode.IsProgram() {
		return nil, abi.InvalidState
	}
	c.pmu.Lock()
	if !c.p.attached {
		c.pmu.Unlock()
		return nil, abi.InvalidState
	}
	return c, abi.OK
}

// DeviceMalloc is device_malloc_ctx: 0 for NULL or without a live program
// init (E-PROG); otherwise a 64-byte-aligned allocation, of 0 bytes too
// (E-PROG.33), or 0 when the 32 GiB are exhausted (E-PROG.34). Committed
// memory grows by size.
func (r *Runtime) DeviceMalloc(ctx abi.Ctx, size uintptr) abi.DevicePtr {
	c, st := r.liveProgram(ctx)
	if st != abi.OK {
		return 0
	}
	defer c.pmu.Unlock()
	p := r.mem.malloc(uint64(size), c)
	if p != 0 {
		c.committed.Add(uint64(size))
	}
	return p
}

// DeviceFree is device_free_ctx: frees p if it is the start of a live
// allocation of this context; otherwise (inside one, freed, another
// context's, never allocated: E-PROG.32) and without a live program init
// nothing.
func (r *Runtime) DeviceFree(ctx abi.Ctx, p abi.DevicePtr) {
	c, st := r.liveProgram(ctx)
	if st != abi.OK {
		return
	}
	defer c.pmu.Unlock()
	if n, ok := r.mem.free(p, c); ok {
		c.committed.Add(^(n - 1))
	}
}

// CommittedDeviceMemory is committed_device_memory_ctx (M-7): 0 for NULL and
// unlatched contexts; a kernel context's code blocks (slack included) plus
// the persistent launch region once committed (0 after a successful
// finalize); a program context's live allocations.
func (r *Runtime) CommittedDeviceMemory(ctx abi.Ctx) uintptr {
	c := r.lookup(ctx)
	if c == nil || !c.mode.Latched() {
		return 0
	}
	return uintptr(c.committed.Load())
}

// DeviceMemoryInfo is device_memory_info_ctx: NULL → IA → no live program
// init: IS → info NULL: IA → {free = 32 GiB − committed, total = 32 GiB}.
func (r *Runtime) DeviceMemoryInfo(ctx abi.Ctx, info unsafe.Pointer) abi.Status {
	c, st := r.liveProgram(ctx)
	if st != abi.OK {
		return st
	}
	defer c.pmu.Unlock()
	if info == nil {
		return abi.InvalidArgument
	}
	out, ok := callerBytes(info, abi.DeviceMemoryInfoSize)
	if !ok {
		return abi.InvalidArgument
	}
	mi := abi.DeviceMemoryInfo{FreeBytes: DeviceMemoryTotal - c.committed.Load(), TotalBytes: DeviceMemoryTotal}
	_ = mi.Encode(out)
	return abi.OK
}

// CopyToDevice is copy_to_device_ctx: NULL → IA → no live program init: IS
// → size 0: 0 → dev 0 or host NULL: IA → the range inside neither one
// allocation of this context nor one comm window the instance has mapped
// (E-PROG.28): IA → copy → 0. The device range is checked before the host
// memory is viewed, so no size panics; a host span that wraps (no C caller
// can pass one) is IA too.
func (r *Runtime) CopyToDevice(ctx abi.Ctx, dev abi.DevicePtr, host unsafe.Pointer, size uintptr) abi.Status {
	c, st := r.liveProgram(ctx)
	if st != abi.OK {
		return st
	}
	defer c.pmu.Unlock()
	if size == 0 {
		return abi.OK
	}
	if dev == 0 || host == nil {
		return abi.InvalidArgument
	}
	if !r.mem.copyIn(uint64(dev), host, uint64(size), c, false) && !r.comm.windows.copyIn(uint64(dev), host, uint64(size)) {
		return abi.InvalidArgument
	}
	return abi.OK
}

// CopyFromDevice is copy_from_device_ctx, with the checks of CopyToDevice.
func (r *Runtime) CopyFromDevice(ctx abi.Ctx, host unsafe.Pointer, dev abi.DevicePtr, size uintptr) abi.Status {
	c, st := r.liveProgram(ctx)
	if st != abi.OK {
		return st
	}
	defer c.pmu.Unlock()
	if size == 0 {
		return abi.OK
	}
	if dev == 0 || host == nil {
		return abi.InvalidArgument
	}
	if !r.mem.copyOut(host, uint64(dev), uint64(size), c, false) && !r.comm.windows.copyOut(host, uint64(dev), uint64(size)) {
		return abi.InvalidArgument
	}
	return abi.OK
}

// MaxDerivedImage bounds the image size simpler_register_callable derives
// from a trusted header (it has no size argument).
const MaxDerivedImage = semantics.MaxDerivedImage

// derivedImage derives a registered image's span from its header (semantics
// §10: 9376 + the end of the last piece; there is no size argument). It
// follows the canonical child offsets and stops at the first that V-IMG would
// refuse anyway.
func derivedImage(p unsafe.Pointer) ([]byte, bool) {
	hdr, ok := callerBytes(p, abi.ChipCallableSize)
	if !ok {
		return nil, false
	}
	used := uint64(le.Uint32(hdr[abi.ChipBinarySizeOff:]))
	cc := int32(le.Uint32(hdr[abi.ChipChildCountOff:]))
	if cc < 0 || cc > abi.MaxChildren {
		return nil, false
	}
	for i := 0; i < int(cc); i++ {
		off := uint64(le.Uint32(hdr[abi.ChipChildOffsetsOff+4*i:]))
		if off != abi.AlignUp(used, abi.CallableAlign) {
			return nil, false
		}
		at := abi.ChipStorageOff + off + abi.CoreBinarySizeOff // off < 2^32: no overflow
		if !callerSpanOK(p, at+4) {
			return nil, false
		}
		used = off + abi.CoreCodeOffset + uint64(le.Uint32(unsafe.Slice((*byte)(unsafe.Add(p, at)), 4)))
	}
	size := uint64(abi.ChipCallableSize) + used
	if size > MaxDerivedImage || validation.ImageSpanWraps(uintptr(p), size) {
		return nil, false
	}
	return callerBytes(p, size)
}

// RegisterCallable is simpler_register_callable: NULL → IA → no live program
// init: IS → callable NULL or id outside [0, 8192): IA → a run outstanding:
// IS → V-IMG over the span derived from the header: IA → id registered: IS →
// keep the metadata, aicpu dlopen count + 1 → 0.
func (r *Runtime) RegisterCallable(ctx abi.Ctx, callableID int32, callable unsafe.Pointer) abi.Status {
	c, st := r.liveProgram(ctx)
	if st != abi.OK {
		return st
	}
	defer c.pmu.Unlock()
	if callable == nil || callableID < 0 || callableID >= abi.MaxRegisteredCallableIDs {
		return abi.InvalidArgument
	}
	if c.p.outstanding() {
		return abi.InvalidState
	}
	img, ok := derivedImage(callable)
	if !ok || validation.ImageAt(uintptr(callable), img) != abi.OK {
		return abi.InvalidArgument
	}
	if _, dup := c.p.callables[callableID]; dup {
		return abi.InvalidState
	}
	pc := progCallable{
		kernel: kernelFor(img[abi.ChipFuncNameOff : abi.ChipFuncNameOff+int(le.Uint32(img[abi.ChipFuncNameLenOff:]))]),
		size:   uint64(len(img)),
	}
	pc.tensors, pc.scalars = validation.SignatureCounts(img)
	if c.p.callables == nil {
		c.p.callables = make(map[int32]progCallable)
	}
	c.p.callables[callableID] = pc
	c.p.dlopens++
	return abi.OK
}

// UnregisterCallable is simpler_unregister_callable: NULL → IA → no live
// program init: IS → id outside [0, 8192): IA → a run outstanding: IS → 0
// (also when not registered).
func (r *Runtime) UnregisterCallable(ctx abi.Ctx, callableID int32) abi.Status {
	c, st := r.liveProgram(ctx)
	if st != abi.OK {
		return st
	}
	defer c.pmu.Unlock()
	if callableID < 0 || callableID >= abi.MaxRegisteredCallableIDs {
		return abi.InvalidArgument
	}
	if c.p.outstanding() {
		return abi.InvalidState
	}
	delete(c.p.callables, callableID)
	return abi.OK
}

// PrepareRun is simpler_prepare_run (semantics §10): NULL → IA → no live
// program init: IS → rt 0, config or desc NULL, or id outside [0, 8192): IA
// → config failing ProgramCallConfig: IA → id not registered: NOT_RESIDENT →
// rt holds a run: IS → args NULL: IA → counts differ from the callable's: IA
// → snapshot args and the descriptor → Prepared, 0.
func (r *Runtime) PrepareRun(ctx abi.Ctx, rt abi.RunHandle, callableID int32, args, config, descriptor unsafe.Pointer) abi.Status {
	c, st := r.liveProgram(ctx)
	if st != abi.OK {
		return st
	}
	defer c.pmu.Unlock()
	return r.prepareRunLocked(c, rt, callableID, args, config, descriptor)
}

func (r *Runtime) prepareRunLocked(c *context, rt abi.RunHandle, callableID int32, args, config, descriptor unsafe.Pointer) abi.Status {
	// A NULL config is refused like a NULL args or descriptor: upstream
	// requires all three (common/platform/sim/host/c_api_shared.cpp:617,
	// onboard :675).
	if rt == 0 || config == nil || descriptor == nil || callableID < 0 || callableID >= abi.MaxRegisteredCallableIDs {
		return abi.InvalidArgument
	}
	if !callerSpanOK(descriptor, abi.NativeRunDescSize) {
		return abi.InvalidArgument
	}
	if cfg, ok := callConfigBytes(config); !ok || validation.ProgramCallConfig(cfg) != abi.OK {
		return abi.InvalidArgument
	}
	pc, ok := c.p.callables[callableID]
	if !ok {
		return abi.CallableNotResident
	}
	if r.storageBusy(rt) {
		return abi.InvalidState
	}
	// NULL args are refused after the registry and the storage, where
	// upstream's bind refuses them (sim/host/c_api_shared.cpp:630, :640,
	// then runtime_maker.cpp:867-870 at 6ebaf77; E-PROG.7).
	if args == nil || !callerSpanOK(args, abi.TaskArgsSize) {
		return abi.InvalidArgument
	}
	a := (*[abi.TaskArgsSize]byte)(args)
	nt := int32(le.Uint32(a[abi.TaskArgsTensorCountOff:]))
	ns := int32(le.Uint32(a[abi.TaskArgsScalarCountOff:]))
	if nt != pc.tensors || ns != pc.scalars {
		return abi.InvalidArgument
	}
	run := &progRun{}
	run.work.snapshot(pc.kernel, a, nt, ns)
	d := (*[abi.NativeRunDescSize]byte)(descriptor)
	run.acceptedState = *(**int32)(unsafe.Pointer(&d[abi.DescAcceptedStateOff]))
	run.acceptedValue = int32(le.Uint32(d[abi.DescAcceptedValueOff:]))
	if c.p.runs == nil {
		c.p.runs = make(map[abi.RunHandle]*progRun)
	}
	c.p.runs[rt] = run
	r.holdStorage(rt, c)
	return abi.OK
}

// storageBusy reports whether run storage rt holds a run of any context.
func (r *Runtime) storageBusy(rt abi.RunHandle) bool {
	r.runStorageMu.Lock()
	defer r.runStorageMu.Unlock()
	_, busy := r.runStorage[rt]
	return busy
}

// holdStorage records that rt holds a run of c (nil: it holds none).
func (r *Runtime) holdStorage(rt abi.RunHandle, c *context) {
	r.runStorageMu.Lock()
	defer r.runStorageMu.Unlock()
	if c == nil {
		delete(r.runStorage, rt)
		return
	}
	if r.runStorage == nil {
		r.runStorage = make(map[abi.RunHandle]*context)
	}
	r.runStorage[rt] = c
}

// LaunchRun is simpler_launch_run: NULL → IA → no live program init: IS →
// rt 0: IA → no run or not Prepared: IS → write accepted_value through a
// non-NULL accepted_state → Launched, 0.
func (r *Runtime) LaunchRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	c, st := r.liveProgram(ctx)
	if st != abi.OK {
		return st
	}
	defer c.pmu.Unlock()
	return r.launchRunLocked(c, rt)
}

func (r *Runtime) launchRunLocked(c *context, rt abi.RunHandle) abi.Status {
	if rt == 0 {
		return abi.InvalidArgument
	}
	run := c.p.runs[rt]
	if run == nil || run.state != runPrepared {
		return abi.InvalidState
	}
	if run.acceptedState != nil {
		*run.acceptedState = run.acceptedValue
	}
	run.state = runLaunched
	return abi.OK
}

// complete runs a launched run's kernel now.
func (r *Runtime) complete(run *progRun) {
	if run.state == runLaunched {
		run.result = r.mem.runKernel(&run.work)
		run.state = runCompleted
	}
}

// runOf is the shared front of poll, wait and finalize_run.
func (r *Runtime) runOf(ctx abi.Ctx, rt abi.RunHandle) (*context, *progRun, abi.Status) {
	c, st := r.liveProgram(ctx)
	if st != abi.OK {
		return nil, nil, st
	}
	if rt == 0 {
		c.pmu.Unlock()
		return nil, nil, abi.InvalidArgument
	}
	run := c.p.runs[rt]
	if run == nil {
		c.pmu.Unlock()
		return nil, nil, abi.InvalidState
	}
	return c, run, abi.OK
}

// PollRun is simpler_poll_run: … no run: IS → Prepared: 0 (not ready) →
// Launched: run the kernel now → Completed: 1 if it succeeded, else its
// failure code.
func (r *Runtime) PollRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	c, run, st := r.runOf(ctx, rt)
	if st != abi.OK {
		return st
	}
	defer c.pmu.Unlock()
	if run.state == runPrepared {
		return abi.PollNotReady
	}
	r.complete(run)
	if run.result != abi.OK {
		return run.result
	}
	return abi.PollComplete
}

// WaitRun is simpler_wait_run: … Prepared: IS → Launched or Completed: run if
// needed → 0 or the failure code.
func (r *Runtime) WaitRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	c, run, st := r.runOf(ctx, rt)
	if st != abi.OK {
		return st
	}
	defer c.pmu.Unlock()
	if run.state == runPrepared {
		return abi.InvalidState
	}
	r.complete(run)
	return run.result
}

// FinalizeRun is simpler_finalize_run: … Prepared: drop, 0 → otherwise run if
// needed, drop → 0 or the failure code.
func (r *Runtime) FinalizeRun(ctx abi.Ctx, rt abi.RunHandle) abi.Status {
	c, run, st := r.runOf(ctx, rt)
	if st != abi.OK {
		return st
	}
	defer c.pmu.Unlock()
	return r.finalizeRunLocked(c, rt, run)
}

func (r *Runtime) finalizeRunLocked(c *context, rt abi.RunHandle, run *progRun) abi.Status {
	delete(c.p.runs, rt)
	r.holdStorage(rt, nil)
	if run.state == runPrepared {
		return abi.OK
	}
	r.complete(run)
	return run.result
}

// Run is simpler_run: prepare, launch, wait, finalize; the first failure is
// returned (a failed prepare leaves nothing behind).
func (r *Runtime) Run(ctx abi.Ctx, rt abi.RunHandle, callableID int32, args, config, descriptor unsafe.Pointer) abi.Status {
	c, st := r.liveProgram(ctx)
	if st != abi.OK {
		return st
	}
	defer c.pmu.Unlock()
	if st := r.prepareRunLocked(c, rt, callableID, args, config, descriptor); st != abi.OK {
		return st
	}
	first := r.launchRunLocked(c, rt)
	run := c.p.runs[rt]
	if first == abi.OK {
		r.complete(run)
		first = run.result
	}
	if st := r.finalizeRunLocked(c, rt, run); first == abi.OK {
		first = st
	}
	return first
}

// AicpuDlopenCount is get_aicpu_dlopen_count: the context's successful
// program registrations since its program init attached it (0 for NULL).
func (r *Runtime) AicpuDlopenCount(ctx abi.Ctx) uintptr {
	c := r.lookup(ctx)
	if c == nil {
		return 0
	}
	c.pmu.Lock()
	defer c.pmu.Unlock()
	return uintptr(c.p.dlopens)
}

// HostDlopenCount is get_host_dlopen_count: 0.
func (r *Runtime) HostDlopenCount(ctx abi.Ctx) uintptr {
	r.lookup(ctx)
	return 0
}

// RunStreamSetCreateCount is get_run_stream_set_create_count: 0.
func (r *Runtime) RunStreamSetCreateCount(ctx abi.Ctx) uintptr {
	r.lookup(ctx)
	return 0
}
