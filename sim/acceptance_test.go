package sim

import (
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
)

// TestLatchAcceptance reproduces upstream's latch tests
// (test_execution_mode_latch.cpp) through the entries: a new context is
// unlatched (L-1); latching the held mode again succeeds and the other mode
// is refused with IS, keeping the held one (L-2); nothing unlatches, and the
// same mode re-latches after a finalized lifetime (L-3, L-4).
func TestLatchAcceptance(t *testing.T) {
	r := newTMR(t)
	setDevice(t, r, 0)
	ctx := r.CreateDeviceContext()
	wantState(t, r, ctx, ContextState{Mode: latch.Unlatched}, "Mode") // StartsUnlatched
	want(t, "ensure", r.EnsureACLReady(ctx, 0), okS)
	want(t, "ensure again", r.EnsureACLReady(ctx, 0), okS)
	want(t, "simpler_init", pinit(r, ctx, 0), okS) // LatchingIsIdempotentForTheHeldMode
	wantState(t, r, ctx, ContextState{Mode: latch.Program}, "Mode")
	want(t, "kernel init on program", kinit(r, ctx, 0, configBytes(), 1), isS) // ModesAreMutuallyExclusive
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
	want(t, "simpler_init after a lifetime", pinit(r, ctx, 0), okS) // SameModeRelatchesAfterAFinalizedLifetime
	want(t, "kernel init still refused", kinit(r, ctx, 0, configBytes(), 1), isS)
	wantState(t, r, ctx, ContextState{Mode: latch.Program}, "Mode")

	k := kernelCtx(t, r, 0)
	want(t, "simpler_init on kernel", pinit(r, k, 0), isS)
	want(t, "finalize kernel", r.FinalizeDevice(k), okS)
	want(t, "simpler_init on closed kernel", pinit(r, k, 0), isS)
	wantState(t, r, k, ContextState{Mode: latch.Kernel}, "Mode") // L-3: finalize does not unlatch
}

// TestPhaseMachineAcceptance reproduces upstream's phase-machine tests
// (test_kernel_execution_state.cpp) through the entries of sim. Cases that
// also have a dedicated test elsewhere are cross-referenced.
func TestPhaseMachineAcceptance(t *testing.T) {
	t.Run("EmptyContextInitThenCloseIsClean", func(t *testing.T) { // K-2, K-5
		r := newTMR(t)
		setDevice(t, r, 0)
		ctx := kernelCtx(t, r, 0)
		wantState(t, r, ctx, freshKernelState(0), kernelFields...)
		want(t, "finalize", r.FinalizeDevice(ctx), okS)
		wantState(t, r, ctx, ContextState{Mode: latch.Kernel, Phase: latch.Closed, Finalized: true, DeviceID: 0}, kernelFields...)
		want(t, "second close", r.FinalizeDevice(ctx), okS)
	})
	t.Run("CloseOnNewContextIsANoOpSuccess", func(t *testing.T) { // K-5: see TestInitRollbackOrder
		r := newTMR(t, Fault{abi.SiteInitCreate, 1, -1300})
		setDevice(t, r, 0)
		ctx := r.CreateDeviceContext()
		want(t, "init", kinit(r, ctx, 0, configBytes(), 1), -1300)
		want(t, "close of New", r.FinalizeDevice(ctx), okS)
		wantState(t, r, ctx, ContextState{Phase: latch.Closed}, "Phase", "LiveStreams", "LiveEvents")
	})
	t.Run("PreEnqueueValidationLeavesStateUnchanged", func(t *testing.T) { // K-2, L-5
		r := newTMR(t)
		setDevice(t, r, 0)
		ctx := r.CreateDeviceContext()
		want(t, "device -1", kinit(r, ctx, -1, configBytes(), 1), iaS)
		want(t, "NULL config", r.KernelModeInit(ctx, 0, nil, 0, nil, 0, nil, 0, nil, 1), iaS)
		wantState(t, r, ctx, ContextState{Mode: latch.Unlatched, DeviceID: -1}, kernelFields...)
		want(t, "valid init", kinit(r, ctx, 0, configBytes(), 1), okS)
	})
	t.Run("DeviceMismatchRejectedBeforeAnyCreation", func(t *testing.T) { // D-2, K-2
		r := newTMR(t)
		setDevice(t, r, 1)
		ctx := r.CreateDeviceContext()
		want(t, "init", kinit(r, ctx, 0, configBytes(), 1), isS)
		wantState(t, r, ctx, ContextState{Mode: latch.Kernel, Phase: latch.New, InitFailed: true, DeviceID: 0}, kernelFields...)
	})
	t.Run("GetCurrentDeviceFailurePropagates", func(t *testing.T) { // D-2: no current device → IS (tolerated: the query's code)
		r := newTMR(t)
		ctx := r.CreateDeviceContext()
		want(t, "init", kinit(r, ctx, 0, configBytes(), 1), isS)
		wantState(t, r, ctx, ContextState{Mode: latch.Kernel, Phase: latch.New, InitFailed: true, DeviceID: 0}, kernelFields...)
	})
	t.Run("PartialInitFailureRollsBackCleanly", func(t *testing.T) { // K-7: see TestKernelInitResourceFailure
		r := newTMR(t, Fault{abi.SiteInitCreate, 1, -1301})
		setDevice(t, r, 0)
		ctx := r.CreateDeviceContext()
		want(t, "init", kinit(r, ctx, 0, configBytes(), 1), -1301)
		wantState(t, r, ctx, ContextState{Phase: latch.New, InitFailed: true}, "Phase", "InitFailed", "LiveStreams", "LiveEvents")
		kernelCtx(t, r, 0) // a retry (on a context of its own: this one is latched) succeeds
	})
	t.Run("InitFailureWithFailedCleanupLandsInClosing", func(t *testing.T) { // K-7: see TestKernelInitRollbackFailure
		r := newTMR(t, Fault{abi.SiteInitCreate, 1, -1302}, Fault{abi.SiteInitRollbackFails, 1, -1303})
		setDevice(t, r, 0)
		ctx := r.CreateDeviceContext()
		want(t, "init", kinit(r, ctx, 0, configBytes(), 1), -1302)
		wantState(t, r, ctx, ContextState{Phase: latch.Closing, TeardownError: -1303, LiveStreams: 2, LiveEvents: 4},
			"Phase", "TeardownError", "LiveStreams", "LiveEvents")
		want(t, "close", r.FinalizeDevice(ctx), okS)
	})
	t.Run("ReadyEnqueuedKeepsAdmissionOpen", func(t *testing.T) { // K-3
		r := newTMR(t)
		setDevice(t, r, 0)
		ctx := kernelCtx(t, r, 0)
		for i := int32(0); i < 3; i++ {
			mustPrepare(t, r, ctx, noopImage(t, 0), i)
			wantState(t, r, ctx, ContextState{Phase: latch.ReadyEnqueued}, "Phase")
		}
		want(t, "launch", launch(r, ctx, 2, emptyArgs(), streamA), okS)
	})
	t.Run("MarkReadyEnqueuedRejectedOffPath", func(t *testing.T) { // K-1
		r := newTMR(t)
		setDevice(t, r, 0)
		fresh := r.CreateDeviceContext()
		_, st := prepare(r, fresh, noopImage(t, 0))
		want(t, "prepare on New", st, isS)
		ctx := kernelCtx(t, r, 0)
		want(t, "finalize", r.FinalizeDevice(ctx), okS)
		_, st = prepare(r, ctx, noopImage(t, 0))
		want(t, "prepare on Closed", st, isS)
		wantState(t, r, ctx, ContextState{Phase: latch.Closed}, "Phase", "Residents")
	})
	t.Run("PoisonRejectsDispatchButAllowsClose", func(t *testing.T) { // K-4: see TestRegistrationFailurePoisons
		r := newTMR(t, Fault{abi.SiteLaunchEnqueue, 1, -1304})
		ctx := readyCtx(t, r)
		want(t, "launch", launch(r, ctx, 0, emptyArgs(), streamA), -1304)
		_, st := prepare(r, ctx, noopImage(t, 0))
		want(t, "prepare", st, isS)
		want(t, "close", r.FinalizeDevice(ctx), okS)
		wantState(t, r, ctx, ContextState{Phase: latch.Closed, PoisonCause: -1304}, "Phase", "PoisonCause")
	})
	t.Run("PoisonOutsideDispatchPhasesIsIgnored", func(t *testing.T) { // K-4
		// Through the entries the only poison outside the dispatch phases is
		// a quarantine of a Closing or Poisoned context (see
		// TestQuarantineKeepsFirstPoisonCause); Closed and New contexts never
		// reach a poisoning step. A Closed context keeps its empty cause.
		r := newTMR(t, Fault{abi.SiteFinalizeFatal, 1, 0})
		setDevice(t, r, 0)
		ctx := r.CreateDeviceContext()
		want(t, "init", kinit(r, ctx, 0, configBytes(), 1), okS)
		want(t, "close", r.FinalizeDevice(ctx), isS) // quarantine poisons a live context
		wantState(t, r, ctx, ContextState{Phase: latch.Poisoned, Quarantined: true, PoisonCause: isS}, "Phase", "Quarantined", "PoisonCause")
	})
	t.Run("ClosingIsStickyAndRetriable", func(t *testing.T) { // K-5: see TestFinalizeStepFailure
		r := newTMR(t, Fault{abi.SiteFinalizeRelease, 1, -1305})
		ctx := readyCtx(t, r)
		want(t, "close", r.FinalizeDevice(ctx), -1305)
		_, st := prepare(r, ctx, noopImage(t, 0))
		want(t, "prepare in Closing", st, isS)
		want(t, "retry", r.FinalizeDevice(ctx), okS)
	})
}

// TestCallableCacheAcceptance reproduces the remaining cases of upstream's
// callable-cache tests (test_kernel_callable_cache.cpp) in the minted-id
// form; the block cases are in TestByteBudget and the count case in
// TestResidentCount (M-4, M-5, M-6).
func TestCallableCacheAcceptance(t *testing.T) {
	t.Run("InvalidAndMissingIdsDoNotMutateResidents", func(t *testing.T) { // V-LAUNCH, E-LAUNCH
		r := newTMR(t)
		ctx := readyCtx(t, r)
		before := state(t, r, ctx)
		want(t, "id -1", launch(r, ctx, -1, emptyArgs(), streamA), iaS)
		want(t, "id 8192", launch(r, ctx, 8192, emptyArgs(), streamA), iaS)
		want(t, "id 1 never minted", launch(r, ctx, 1, emptyArgs(), streamA), nrS)
		if d := diffStates(before, state(t, r, ctx)); d != "" {
			t.Fatalf("changed:\n%s", d)
		}
	})
	t.Run("ChildAddressesArePatchedOnlyInDeviceScratch", func(t *testing.T) { // M-6
		r := newTMR(t)
		setDevice(t, r, 0)
		ctx := kernelCtx(t, r, 0)
		img := build(t, abi.ChipCallableSpec{FuncName: "test.kids", Binary: make([]byte, 33),
			Children: []abi.ChildKernel{{FuncID: 1, Binary: []byte{1, 2, 3}}, {FuncID: 2, Binary: []byte{4}}}})
		orig := append([]byte(nil), img...)
		mustPrepare(t, r, ctx, img, 0)
		if string(img) != string(orig) {
			t.Fatal("prepare modified the caller's image")
		}
		kept, _ := r.ResidentImage(ctx, 0)
		if string(kept) != string(orig) {
			t.Fatal("the kept copy differs from the prepared bytes")
		}
	})
	t.Run("PendingEntryIsNotLaunchable", func(t *testing.T) { // M-3, K-4
		// A prepare that fails at registration publishes no id; the context
		// is poisoned, so the id it staged is never launchable.
		r := newTMR(t)
		ctx := readyCtx(t, r)
		want(t, "inject 3", r.SimInject(abi.SitePrepareRegister, 1, -1306), okS)
		_, st := prepare(r, ctx, noopImage(t, 0))
		want(t, "prepare", st, -1306)
		want(t, "launch of the staged id", launch(r, ctx, 1, emptyArgs(), streamA), isS)
		wantState(t, r, ctx, ContextState{Residents: 1}, "Residents")
	})
}
