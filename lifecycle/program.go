package lifecycle

import (
	"runtime"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/validation"
)

// enter is the common prologue of the gated operations other than Launch:
// the state and OS thread checks, the gate (waiting), and the state again
// (Close may have published CLOSED while it waited). On success the caller
// holds the gate and must unlock it.
func (w *Worker) enter(op string) error {
	if w.state.Load() != stateReady {
		return w.notReady(op)
	}
	if !w.onInitThread() {
		return wrongThread(op)
	}
	w.gate.lock()
	if w.state.Load() != stateReady {
		w.gate.unlock()
		return w.notReady(op)
	}
	return nil
}

// enterProgram adds the C-MODE check of a program-only operation.
func (w *Worker) enterProgram(op string) error {
	if w.mode != Program {
		return wrongMode(op, Program)
	}
	return w.enter(op)
}

// aligned returns b, or a 16-byte-aligned copy of it when its first byte is
// not aligned.
func aligned(b []byte) []byte {
	if uintptr(unsafe.Pointer(unsafe.SliceData(b)))%abi.ChipCallableAlign == 0 {
		return b
	}
	c := abi.AlignedBytes(len(b), abi.ChipCallableAlign)
	copy(c, b)
	return c
}

// RegisterCallable registers a ChipCallable image under a caller-chosen id
// (simpler_register_callable, program mode). simpler_register_callable has
// no size argument: the runtime derives the size from the image header. So
// the worker first runs V-IMG on the image (INVALID_ARGUMENT on any defect,
// before any native call), which guarantees the header describes exactly
// len(image) bytes. A misaligned image is copied into a 16-byte-aligned
// buffer; the buffer passed is kept until the id is unregistered or the
// worker is closed.
func (w *Worker) RegisterCallable(id int32, image []byte) error {
	const op = "Worker.RegisterCallable"
	if w.mode != Program {
		return wrongMode(op, Program)
	}
	if validation.Image(image) != abi.OK {
		return refusal(op, abi.InvalidArgument, "image is not a well-formed ChipCallable (V-IMG)")
	}
	if err := w.enter(op); err != nil {
		return err
	}
	defer w.gate.unlock()
	buf := aligned(image)
	if rc := w.rt.RegisterCallable(w.ctx, id, abi.Ptr(buf)); rc != abi.OK {
		return entryError(opRegister, rc)
	}
	w.native.registered[id] = buf
	return nil
}

// UnregisterCallable drops a program-mode registration
// (simpler_unregister_callable) and the image the worker kept for it.
func (w *Worker) UnregisterCallable(id int32) error {
	const op = "Worker.UnregisterCallable"
	if err := w.enterProgram(op); err != nil {
		return err
	}
	defer w.gate.unlock()
	if rc := w.rt.UnregisterCallable(w.ctx, id); rc != abi.OK {
		return entryError(opUnregister, rc)
	}
	delete(w.native.registered, id)
	return nil
}

// Run runs a registered callable to completion with args and a CallConfig
// (nil: the zero CallConfig; a NULL config is never passed, as upstream's
// builds refuse it), the way upstream's ChipWorker runs one through its run
// lane (src/common/worker/chip_worker.cpp:567-578, chip_run_lane.cpp:159-189,
// :229-243, :410-465): on slot 0, with the next direct generation of this
// worker, simpler_prepare_run → simpler_launch_run → simpler_poll_run, and when the
// run is not complete yet simpler_wait_run → simpler_finalize_run. It never
// calls simpler_run, which upstream's consumer never calls either.
//
// Refusals before any native call: a kernel worker (IS, C-MODE), nil args
// (IA), a worker that is not initialized or is closed (IS), a run path
// poisoned by an earlier failure (IS, below), a CallConfig upstream's
// CallConfig::validate refuses (IA), a slot that holds an unfinished run of
// PrepareNativeRun (IS).
//
// The error is the first failing entry's status, unchanged. A failed launch
// is finalized (its poll decided whether it completed anyway); a failed poll
// is waited for and finalized, and the finalize's failure, if any, is the
// error. As in ChipWorker's lane, a failure after the launch (a poll, wait
// or finalize_run that failed, or a failed launch whose finalize failed)
// poisons the run path: every later Run is refused with INVALID_STATE
// naming that failure, until Close. The phase methods (PrepareNativeRun ...)
// are not poisoned.
func (w *Worker) Run(id int32, args *abi.TaskArgs, cfg *abi.CallConfig) error {
	const op = "Worker.Run"
	if w.mode != Program {
		return wrongMode(op, Program)
	}
	if args == nil || args.Pointer() == nil {
		return refusal(op, abi.InvalidArgument, "args must not be nil")
	}
	if err := w.enter(op); err != nil {
		return err
	}
	defer w.gate.unlock()
	n := w.native
	if n.poison != nil {
		return refusal(op, abi.InvalidState, "the run path is poisoned by an earlier run failure ("+n.poison.Error()+"); Close the worker")
	}
	n.directGen++
	r, err := w.prepareNative(op, id, args, cfg, 0, n.directGen, false)
	if err != nil {
		return err
	}
	if err := w.launchNative(op, r); err != nil {
		if ferr := w.finalizeNative(op, r); ferr != nil {
			n.poison = ferr
		}
		return err
	}
	ready, perr := w.pollNative(op, r)
	if perr != nil {
		err := w.finalizeNative(op, r)
		if err == nil {
			err = perr
		}
		n.poison = err
		return err
	}
	if !ready {
		_ = w.waitNative(op, r)
	}
	if err := w.finalizeNative(op, r); err != nil {
		n.poison = err
		return err
	}
	return nil
}

// DeviceMalloc allocates size bytes of device memory (device_malloc_ctx). A
// NULL result is INTERNAL. Size 0 goes to the runtime as ChipWorker passes
// it (chip_worker.cpp:1067-1076): upstream's runtime answers a pointer that
// charges nothing (docs/contract.md E-PROG.33).
func (w *Worker) DeviceMalloc(size uintptr) (abi.DevicePtr, error) {
	const op = "Worker.DeviceMalloc"
	if w.mode != Program {
		return 0, wrongMode(op, Program)
	}
	if err := w.enter(op); err != nil {
		return 0, err
	}
	defer w.gate.unlock()
	p := w.rt.DeviceMalloc(w.ctx, size)
	if p == 0 {
		return 0, refusal(opMalloc, abi.Internal, "returned NULL")
	}
	return p, nil
}

// DeviceFree frees device memory DeviceMalloc returned (device_free_ctx).
// Any address is passed on, 0 included, as upstream's ChipWorker::free does
// (src/common/worker/chip_worker.cpp:1078-1083): the runtime frees a live
// allocation of the context and ignores anything else (E-PROG).
func (w *Worker) DeviceFree(p abi.DevicePtr) error {
	const op = "Worker.DeviceFree"
	if err := w.enterProgram(op); err != nil {
		return err
	}
	defer w.gate.unlock()
	w.rt.DeviceFree(w.ctx, p)
	return nil
}

// CopyToDevice copies src to device address dev (copy_to_device_ctx).
func (w *Worker) CopyToDevice(dev abi.DevicePtr, src []byte) error {
	const op = "Worker.CopyToDevice"
	if w.mode != Program {
		return wrongMode(op, Program)
	}
	if dev == 0 && len(src) > 0 {
		return refusal(op, abi.InvalidArgument, "device address must not be 0")
	}
	if err := w.enter(op); err != nil {
		return err
	}
	defer w.gate.unlock()
	host, size := abi.Span(src)
	rc := w.rt.CopyToDevice(w.ctx, dev, host, size)
	runtime.KeepAlive(src)
	if rc != abi.OK {
		return entryError(opCopyTo, rc)
	}
	return nil
}

// CopyFromDevice copies len(dst) bytes from device address dev into dst
// (copy_from_device_ctx).
func (w *Worker) CopyFromDevice(dst []byte, dev abi.DevicePtr) error {
	const op = "Worker.CopyFromDevice"
	if w.mode != Program {
		return wrongMode(op, Program)
	}
	if dev == 0 && len(dst) > 0 {
		return refusal(op, abi.InvalidArgument, "device address must not be 0")
	}
	if err := w.enter(op); err != nil {
		return err
	}
	defer w.gate.unlock()
	host, size := abi.Span(dst)
	rc := w.rt.CopyFromDevice(w.ctx, host, dev, size)
	runtime.KeepAlive(dst)
	if rc != abi.OK {
		return entryError(opCopyFrom, rc)
	}
	return nil
}

// DeviceMemoryInfo returns the device's free and total bytes
// (device_memory_info_ctx).
func (w *Worker) DeviceMemoryInfo() (abi.DeviceMemoryInfo, error) {
	const op = "Worker.DeviceMemoryInfo"
	if err := w.enterProgram(op); err != nil {
		return abi.DeviceMemoryInfo{}, err
	}
	defer w.gate.unlock()
	n := w.native
	clear(n.memInfo)
	if rc := w.rt.DeviceMemoryInfo(w.ctx, abi.Ptr(n.memInfo)); rc != abi.OK {
		return abi.DeviceMemoryInfo{}, entryError(opMemInfo, rc)
	}
	return abi.DecodeDeviceMemoryInfo(n.memInfo)
}

// CommittedDeviceMemory is the device memory the worker's context has
// committed (committed_device_memory_ctx), in either mode (C-MODE).
func (w *Worker) CommittedDeviceMemory() (uint64, error) {
	const op = "Worker.CommittedDeviceMemory"
	if err := w.enter(op); err != nil {
		return 0, err
	}
	defer w.gate.unlock()
	return uint64(w.rt.CommittedDeviceMemory(w.ctx)), nil
}

// defaultCallConfig is the config a nil one stands for (read only).
var defaultCallConfig abi.CallConfig

// packConfig writes cfg into dst (abi.CallConfigSize bytes) in the layout
// of rt's revision: a legacy build reads upstream's older 1144-byte
// CallConfig, whose fields after enable_scope_stats sit elsewhere.
func packConfig(rt abi.Runtime, cfg *abi.CallConfig, dst []byte) {
	if r, ok := rt.(interface{ Revision() abi.Revision }); ok && r.Revision() == abi.RevLegacy {
		clear(dst)
		_ = cfg.EncodeLegacy(dst)
		return
	}
	_ = cfg.Encode(dst)
}
