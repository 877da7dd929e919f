package lifecycle

import (
	"fmt"
	"runtime"

	"github.com/simabi/simabi/abi"
)

// NativeRunLease admits a native run: the pipeline slot it runs on (below the
// runtime PipelineContract's pipeline_depth) and a nonzero lease generation
// that is not older than the newest one admitted on that slot. It is
// upstream's PipelineSlotLease (src/common/worker/pipeline_slot_pool.h) as
// ChipWorker's prepare_native_run takes it.
type NativeRunLease struct {
	Slot       uint32
	Generation uint64
}

// NativeRun is the token of one prepared native run, upstream's
// ChipWorkerNativeRun: its slot, its lease generation and the process-unique
// run epoch of the prepare that made it. A token is stale once its run was
// finalized (or the worker closed); the phase methods refuse a stale token
// with INVALID_STATE before any native call.
type NativeRun struct {
	Slot       uint32
	Generation uint64
	Epoch      uint64
}

// Phases of a native-run slot, as ChipWorker keeps them
// (src/common/worker/chip_worker.cpp:657-764, :788-903).
type runPhase uint8

const (
	runEmpty    runPhase = iota // no run on the slot
	runPrepared                 // simpler_prepare_run returned 0
	runLaunched                 // simpler_launch_run returned 0
	runReaped                   // completion observed (poll 1, wait, or a failed launch whose poll answered 1)
)

// runSlot is one slot's native run: its phase, identity, the code a wait (or
// a failed launch reaped at once) left for finalize, and what the runtime may
// still read until the run is finalized (its args, config and descriptor).
type runSlot struct {
	phase  runPhase
	epoch  uint64
	gen    uint64
	waitRC abi.Status
	waitOp string // the entry that returned waitRC: simpler_wait_run, or simpler_launch_run for a failed launch reaped at once
	// permitsSuccessor: the run was prepared when a successor could be
	// staged beside it (ChipWorker's permits_prepared_successor).
	permitsSuccessor bool
	storage          []byte
	cfg              []byte
	desc             []byte
	args             *abi.TaskArgs
}

// Names of the run family's entries, used as StatusError.Op.
var (
	opPrepareRun  = abi.EntryPrepareRun.Name()
	opLaunchRun   = abi.EntryLaunchRun.Name()
	opPollRun     = abi.EntryPollRun.Name()
	opWaitRun     = abi.EntryWaitRun.Name()
	opFinalizeRun = abi.EntryFinalizeRun.Name()
)

// pipelineDepth is the runtime's PipelineContract depth when the runtime
// exposes the contract its loader read (onboard does, C-BIND-2), else 1. It
// makes no native call: the contract was read once, at load.
func pipelineDepth(rt abi.Runtime) (abi.PipelineContract, uint32) {
	if c, ok := rt.(interface{ Contract() abi.PipelineContract }); ok {
		pc := c.Contract()
		if pc.PipelineDepth >= 1 && pc.PipelineDepth <= 2 {
			return pc, pc.PipelineDepth
		}
	}
	return abi.PipelineContract{}, 1
}

// arenaBank is the arena bank of a slot: the copy of the first of the GM
// heap, GM shared memory and runtime image resources the contract declares,
// which is slot 0 for a resource of one copy (DEVICE_SCRATCH) and the slot
// otherwise (upstream ChipWorker::arena_bank_for_slot, chip_worker.cpp:580-592,
// and pipeline_resource_slot, src/common/worker/pipeline_contract.h:56-65).
func arenaBank(c abi.PipelineContract, slot uint32) uint32 {
	for _, kind := range []uint32{abi.ResourceGMHeap, abi.ResourceGMSM, abi.ResourceRuntimeImage} {
		for i := uint32(0); i < c.ResourceCount && i < abi.PipelineMaxResources; i++ {
			if r := c.Resources[i]; r.Kind == kind {
				if r.Class == abi.ClassDeviceScratch || c.PipelineDepth <= 1 {
					return 0
				}
				return slot
			}
		}
	}
	return 0
}

// checkCallConfig is upstream's CallConfig::validate
// (src/common/task_interface/call_config.h:84-108, :134-143), which
// ChipWorker applies to every run before any native call: a diagnostic
// enabled without an output prefix, or a ring sizing override outside the
// ring buffer's constraints, is INVALID_ARGUMENT.
func checkCallConfig(op string, c *abi.CallConfig) error {
	if diagnostics(c) && c.OutputPrefix[0] == 0 {
		return refusal(op, abi.InvalidArgument, "CallConfig enables a diagnostic without an output prefix")
	}
	return checkRings(op, c)
}

// diagnostics is upstream's CallConfig::diagnostics_any
// (src/common/task_interface/call_config.h:123-126).
func diagnostics(c *abi.CallConfig) bool {
	return c.EnableChipSwimlane != 0 || c.EnableDumpArgs != 0 || c.EnablePMU != 0 || c.EnableDepGen != 0 || c.EnableScopeStats != 0
}

// tokenSlot returns the slot of r when r is a live token in one of the given
// phases, else the INVALID_STATE refusal ChipWorker gives a stale token
// (chip_worker.cpp:795-797, :823-825).
func (w *Worker) tokenSlot(op string, r NativeRun, phases ...runPhase) (*runSlot, error) {
	n := w.native
	if int(r.Slot) >= len(n.slots) {
		return nil, refusal(op, abi.InvalidArgument, "native-run token slot is outside the runtime PipelineContract")
	}
	s := &n.slots[r.Slot]
	if s.epoch == r.Epoch && s.phase != runEmpty {
		for _, p := range phases {
			if s.phase == p {
				return s, nil
			}
		}
	}
	return nil, refusal(op, abi.InvalidState, "native-run token is stale or used in the wrong phase")
}

// prepareNative is ChipWorker's prepare_native_run_on_slot
// (chip_worker.cpp:657-764) for a caller holding the gate: the config check,
// the args, the slot, the slot's and the other slots' phases, the lease
// generation (when admit), a new run epoch, then simpler_prepare_run with a
// NativeRunDescriptor {slot, arena bank, run_id 0, generation, dispatch_id 0,
// epoch}. A failed prepare leaves the slot empty; a successful one admits the
// generation and leaves the run PREPARED.
func (w *Worker) prepareNative(op string, id int32, args *abi.TaskArgs, cfg *abi.CallConfig, slot uint32, gen uint64, admit bool) (NativeRun, error) {
	if cfg == nil {
		cfg = &defaultCallConfig
	}
	if err := checkCallConfig(op, cfg); err != nil {
		return NativeRun{}, err
	}
	if args == nil || args.Pointer() == nil {
		return NativeRun{}, refusal(op, abi.InvalidArgument, "args must not be nil")
	}
	n := w.native
	if int(slot) >= len(n.slots) {
		return NativeRun{}, refusal(op, abi.InvalidArgument, "native-run slot is outside the runtime PipelineContract")
	}
	successor := w.successorAllowed(cfg)
	s := &n.slots[slot]
	if s.phase != runEmpty {
		return NativeRun{}, refusal(op, abi.InvalidState, fmt.Sprintf("slot %d already holds an unfinished native run", slot))
	}
	if err := n.successorRefusal(op, successor); err != nil {
		return NativeRun{}, err
	}
	if admit && gen < n.newestGen[slot] {
		return NativeRun{}, refusal(op, abi.InvalidState, fmt.Sprintf("native-run lease generation %d is stale (slot %d admitted %d)", gen, slot, n.newestGen[slot]))
	}
	epoch := runEpochs.Add(1)
	d := abi.NativeRunDescriptor{PipelineSlot: slot, ArenaBank: arenaBank(n.contract, slot), Generation: gen, RunEpoch: epoch}
	_ = d.Encode(s.desc)
	packConfig(w.rt, cfg, s.cfg)
	rc := w.rt.PrepareRun(w.ctx, abi.RunHandle(uintptr(abi.Ptr(s.storage))), id, args.Pointer(), abi.Ptr(s.cfg), abi.Ptr(s.desc))
	runtime.KeepAlive(args)
	if rc != abi.OK {
		return NativeRun{}, entryError(opPrepareRun, rc)
	}
	if admit {
		n.newestGen[slot] = gen
	}
	s.phase, s.epoch, s.gen, s.waitRC, s.args = runPrepared, epoch, gen, abi.OK, args
	s.permitsSuccessor = successor
	return NativeRun{Slot: slot, Generation: gen, Epoch: epoch}, nil
}

// successorAllowed is ChipWorker's allow_prepared_successor
// (chip_worker.cpp:674, supports_concurrent_native_prepare at :652-655): a
// run may be staged beside another only above depth 1, when
// supports_concurrent_native_prepare_ctx answers above 0 (asked on every
// prepare there, before the slots' phases are looked at) and cfg enables
// no diagnostic. At depth 1 nothing is asked.
func (w *Worker) successorAllowed(cfg *abi.CallConfig) bool {
	if len(w.native.slots) <= 1 {
		return false
	}
	return w.rt.SupportsConcurrentNativePrepare(w.ctx) > 0 && !diagnostics(cfg)
}

// successorRefusal is ChipWorker's check of the other slots
// (chip_worker.cpp:683-698): each occupied slot must permit a successor and
// hold a launched or reaped run, and at most one may be occupied.
func (n *native) successorRefusal(op string, allowed bool) error {
	occupied := 0
	for i := range n.slots {
		o := &n.slots[i]
		if o.phase == runEmpty {
			continue
		}
		occupied++
		if !allowed || !o.permitsSuccessor || (o.phase != runLaunched && o.phase != runReaped) {
			return refusal(op, abi.InvalidState, "another slot holds an unfinished native run that admits no successor")
		}
	}
	if occupied > 1 {
		return refusal(op, abi.InvalidState, "a prepared successor is staged already")
	}
	return nil
}

func (n *native) handle(s *runSlot) abi.RunHandle {
	return abi.RunHandle(uintptr(abi.Ptr(s.storage)))
}

// launchNative is ChipWorker's launch_native_run (chip_worker.cpp:788-814):
// simpler_launch_run; on failure simpler_poll_run decides whether the run is
// already complete (REAPED, its code kept for finalize) or still PREPARED,
// and the launch code is returned. The token stays live either way: the
// caller still finalizes it.
func (w *Worker) launchNative(op string, r NativeRun) error {
	s, err := w.tokenSlot(op, r, runPrepared)
	if err != nil {
		return err
	}
	h := w.native.handle(s)
	if rc := w.rt.LaunchRun(w.ctx, h); rc != abi.OK {
		if w.rt.PollRun(w.ctx, h) == abi.PollComplete {
			s.phase, s.waitRC, s.waitOp = runReaped, rc, opLaunchRun
		} else {
			s.phase, s.waitRC = runPrepared, abi.OK
		}
		return entryError(opLaunchRun, rc)
	}
	s.phase = runLaunched
	return nil
}

// pollNative is ChipWorker's poll_native_run (chip_worker.cpp:816-842): a
// reaped run answers true without a call; simpler_poll_run's 0 is false, 1
// reaps the run, any other value is returned as the error and changes
// nothing.
func (w *Worker) pollNative(op string, r NativeRun) (bool, error) {
	s, err := w.tokenSlot(op, r, runLaunched, runReaped)
	if err != nil {
		return false, err
	}
	if s.phase == runReaped {
		return true, nil
	}
	switch rc := w.rt.PollRun(w.ctx, w.native.handle(s)); rc {
	case abi.PollNotReady:
		return false, nil
	case abi.PollComplete:
		s.phase = runReaped
		return true, nil
	default:
		return false, entryError(opPollRun, rc)
	}
}

// waitNative is ChipWorker's wait_native_run (chip_worker.cpp:844-862): a
// reaped run returns at once; otherwise simpler_wait_run, whose code is kept
// for finalize (not returned), and the run is reaped.
func (w *Worker) waitNative(op string, r NativeRun) error {
	s, err := w.tokenSlot(op, r, runLaunched, runReaped)
	if err != nil {
		return err
	}
	if s.phase == runReaped {
		return nil
	}
	s.waitRC, s.waitOp = w.rt.WaitRun(w.ctx, w.native.handle(s)), opWaitRun
	s.phase = runReaped
	return nil
}

// finalizeNative is ChipWorker's finalize_native_run (chip_worker.cpp:864-903):
// a launched run is waited for first (simpler_wait_run), then
// simpler_finalize_run frees the slot whatever it returns; its code, else the
// wait's (or a reaped failed launch's), is the error.
func (w *Worker) finalizeNative(op string, r NativeRun) error {
	s, err := w.tokenSlot(op, r, runPrepared, runLaunched, runReaped)
	if err != nil {
		return err
	}
	h := w.native.handle(s)
	waitRC, waitOp := s.waitRC, s.waitOp
	if s.phase == runLaunched {
		waitRC, waitOp = w.rt.WaitRun(w.ctx, h), opWaitRun
	}
	frc := w.rt.FinalizeRun(w.ctx, h)
	s.reset()
	switch {
	case frc != abi.OK:
		return entryError(opFinalizeRun, frc)
	case waitRC != abi.OK:
		return entryError(waitOp, waitRC)
	}
	return nil
}

func (s *runSlot) reset() {
	s.phase, s.epoch, s.gen, s.waitRC, s.waitOp, s.args = runEmpty, 0, 0, abi.OK, "", nil
}

// finishRuns is ChipWorker's cleanup_native_runs_noexcept
// (chip_worker.cpp:905-928), run by Close before finalize_device: every run
// still on a slot is waited for when launched and finalized, whatever the
// codes (E-FIN: finalize_device refuses while a native run is outstanding).
func (w *Worker) finishRuns() {
	n := w.native
	for i := range n.slots {
		s := &n.slots[i]
		if s.phase == runEmpty {
			continue
		}
		h := n.handle(s)
		if s.phase == runLaunched {
			_ = w.rt.WaitRun(w.ctx, h)
		}
		if rc := w.rt.FinalizeRun(w.ctx, h); rc != abi.OK {
			w.log.Warn("lifecycle: finalizing a native run left at Close failed", "slot", i, "code", rc.String())
		}
		s.reset()
	}
}

// PrepareNativeRun prepares a run of registered callable id on the lease's
// slot without launching it (simpler_prepare_run), as upstream's ChipWorker
// prepare_native_run does, and returns its token; the caller owns the run
// from then on and must finalize it (FinalizeNativeRun), also after a failed
// launch. cfg nil is the zero CallConfig.
//
// Refusals before any native call: a kernel worker (IS, C-MODE), a lease
// with generation 0 or a slot at or past the runtime's pipeline depth (IA),
// a CallConfig upstream's CallConfig::validate refuses (IA), a worker that
// is not initialized or is closed (IS), nil args (IA), a slot that holds an
// unfinished run or another slot that does (IS: the worker stages no
// successor), a lease generation older than the newest admitted on the slot
// (IS). A status of simpler_prepare_run is returned unchanged and leaves the
// slot empty.
func (w *Worker) PrepareNativeRun(id int32, args *abi.TaskArgs, cfg *abi.CallConfig, lease NativeRunLease) (NativeRun, error) {
	const op = "Worker.PrepareNativeRun"
	if w.mode != Program {
		return NativeRun{}, wrongMode(op, Program)
	}
	if lease.Generation == 0 {
		return NativeRun{}, refusal(op, abi.InvalidArgument, "native-run lease generation must not be 0")
	}
	if err := w.enter(op); err != nil {
		return NativeRun{}, err
	}
	defer w.gate.unlock()
	return w.prepareNative(op, id, args, cfg, lease.Slot, lease.Generation, true)
}

// LaunchNativeRun launches a prepared run (simpler_launch_run), as
// ChipWorker's launch_native_run: on failure it asks simpler_poll_run
// whether the run completed anyway and returns the launch code; the token
// stays live and must still be finalized. A token that is not PREPARED is
// refused with INVALID_STATE before any native call.
func (w *Worker) LaunchNativeRun(r NativeRun) error {
	const op = "Worker.LaunchNativeRun"
	if err := w.enterProgram(op); err != nil {
		return err
	}
	defer w.gate.unlock()
	return w.launchNative(op, r)
}

// PollNativeRun reports whether a launched run completed (simpler_poll_run),
// as ChipWorker's poll_native_run: a run already observed complete answers
// true without a call; a poll that answers neither 0 nor 1 is returned as the
// error.
func (w *Worker) PollNativeRun(r NativeRun) (bool, error) {
	const op = "Worker.PollNativeRun"
	if err := w.enterProgram(op); err != nil {
		return false, err
	}
	defer w.gate.unlock()
	return w.pollNative(op, r)
}

// WaitNativeRun waits for a launched run (simpler_wait_run), as ChipWorker's
// wait_native_run: the wait's code is not returned here but by
// FinalizeNativeRun; a run already observed complete returns at once.
func (w *Worker) WaitNativeRun(r NativeRun) error {
	const op = "Worker.WaitNativeRun"
	if err := w.enterProgram(op); err != nil {
		return err
	}
	defer w.gate.unlock()
	return w.waitNative(op, r)
}

// FinalizeNativeRun ends a run, as ChipWorker's finalize_native_run: a
// launched run not yet observed complete is waited for (simpler_wait_run),
// then simpler_finalize_run frees the slot whatever it returns. The error is
// finalize_run's code, else the wait's (or a failed launch's whose poll
// answered complete). After it the token is stale.
func (w *Worker) FinalizeNativeRun(r NativeRun) error {
	const op = "Worker.FinalizeNativeRun"
	if err := w.enterProgram(op); err != nil {
		return err
	}
	defer w.gate.unlock()
	return w.finalizeNative(op, r)
}
