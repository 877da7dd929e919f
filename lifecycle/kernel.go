package lifecycle

import (
	"strconv"
	"unsafe"

	"github.com/simabi/simabi/abi"
)

// PrepareCallable hands a ChipCallable image to simpler_kernel_mode_prepare_callable
// and returns the id the runtime minted (M-1).
//
// Refusals before any native call: a program worker (IS, C-MODE), an empty
// image (IA), a worker that is not initialized or is closed (IS), another OS
// thread than Init's (IS, C-THREAD). It then waits for the gate (C-GATE: a
// prepare never fails because of an overlap) and checks the state again,
// since a Close may have published CLOSED meanwhile.
//
// An image whose first byte is not 16-byte aligned (CALLABLE_CHILD_ALIGN) is
// copied into an aligned buffer first. The buffer passed to the runtime —
// the caller's own slice when it was aligned, so the caller must not change
// it afterwards — is kept until a successful Close (C-IMG). A nonzero status
// is returned unchanged and keeps nothing. A status of 0 without an id in
// [0, 8192) is INTERNAL (C-ERR); that buffer is kept too, but the id is not
// launchable.
func (w *Worker) PrepareCallable(image []byte) (int32, error) {
	const op = "Worker.PrepareCallable"
	if w.mode != Kernel {
		return -1, wrongMode(op, Kernel)
	}
	if len(image) == 0 {
		return -1, refusal(op, abi.InvalidArgument, "image must not be empty")
	}
	if w.state.Load() != stateReady {
		return -1, w.notReady(op)
	}
	if !w.onInitThread() {
		return -1, wrongThread(op)
	}
	buf := image
	if uintptr(unsafe.Pointer(unsafe.SliceData(image)))%abi.ChipCallableAlign != 0 {
		buf = abi.AlignedBytes(len(image), abi.ChipCallableAlign)
		copy(buf, image)
	}
	w.gate.lock()
	defer w.gate.unlock()
	if w.state.Load() != stateReady {
		return -1, w.notReady(op)
	}
	id := int32(-1)
	rc := w.rt.KernelModePrepareCallable(w.ctx, abi.Ptr(buf), uintptr(len(buf)), &id)
	if rc != abi.OK {
		return -1, entryError(opPrepare, rc)
	}
	n := w.native
	if id < 0 || id >= abi.MaxRegisteredCallableIDs {
		n.orphans = append(n.orphans, buf)
		return -1, refusal(opPrepare, abi.Internal, "reported success without a callable id (got "+strconv.Itoa(int(id))+
			"); the image is kept until Close and nothing is launchable (C-ERR)")
	}
	if old, dup := n.images[id]; dup { // a runtime that reissued an id (M-1 forbids it)
		n.orphans = append(n.orphans, old)
	}
	n.images[id] = buf
	w.minted[id>>6] |= 1 << (uint32(id) & 63)
	return id, nil
}

// Launch enqueues callable id with args on the caller's stream through
// simpler_kernel_mode_launch; nil means enqueued, not finished. It checks,
// before any native call and in this order (C-ID): a program worker (IS,
// C-MODE) → stream 0 (IA) → args nil (IA) → the gate is held by a prepare,
// a launch or Close's finalize (IS at once, C-GATE) → not initialized or
// closed (IS) → an id this worker's PrepareCallable did not return (IA) →
// another OS thread than Init's (IS, C-THREAD). A nonzero status is returned
// unchanged.
//
// Launch allocates nothing, on success or refusal.
func (w *Worker) Launch(id int32, args *abi.TaskArgs, stream abi.Stream) error {
	if w.mode != Kernel {
		return errLaunchMode
	}
	if stream == 0 {
		return errLaunchStream
	}
	if args == nil {
		return errLaunchArgs
	}
	p := args.Pointer()
	if p == nil { // a TaskArgs not made by abi.NewTaskArgs
		return errLaunchArgs
	}
	if !w.gate.tryLock() {
		return errLaunchBusy
	}
	if w.state.Load() != stateReady {
		w.gate.unlock()
		return errLaunchNotReady
	}
	if uint32(id) >= abi.MaxRegisteredCallableIDs || w.minted[id>>6]&(1<<(uint32(id)&63)) == 0 {
		w.gate.unlock()
		return errLaunchUnknown
	}
	if !w.onInitThreadFast() {
		w.gate.unlock()
		return errLaunchThread
	}
	rc := w.rt.KernelModeLaunch(w.ctx, id, p, stream)
	w.gate.unlock()
	if rc != abi.OK {
		return entryError(opLaunch, rc)
	}
	return nil
}
