package sim

import (
	"fmt"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
)

// releaseLog records release attempts of kernel resources.
type releaseLog struct{ steps []string }

func (l *releaseLog) attach(r *Runtime) {
	r.traceRelease = func(_ abi.Ctx, what string, ok bool) {
		if !ok {
			what += " FAILED"
		}
		l.steps = append(l.steps, what)
	}
}

func (l *releaseLog) take() []string { s := l.steps; l.steps = nil; return s }

var fullRelease = []string{"device resources", "event 4", "event 3", "event 2", "event 1", "event 0", "stream 1", "stream 0"}

// TestFinalizeReleaseOrder is K-5 and E-FIN: finalize of a live kernel
// context enters Closing, releases device resources, then events 4..0, then
// streams 1..0, and reaches Closed with committed memory 0, the claim
// released and every id dead; a second finalize returns 0 (K-6,
// EmptyContextInitThenCloseIsClean).
func TestFinalizeReleaseOrder(t *testing.T) {
	for _, prepared := range []bool{false, true} {
		t.Run(fmt.Sprintf("prepared=%v", prepared), func(t *testing.T) {
			r := newTMR(t)
			var log releaseLog
			log.attach(r)
			setDevice(t, r, 0)
			ctx := kernelCtx(t, r, 0)
			wantSteps := fullRelease[1:]
			if prepared {
				mustPrepare(t, r, ctx, noopImage(t, 0), 0)
				want(t, "launch", launch(r, ctx, 0, emptyArgs(), streamA), okS)
				wantSteps = fullRelease
			}
			want(t, "finalize", r.FinalizeDevice(ctx), okS)
			if got := log.take(); cmpDiff(wantSteps, got) != "" {
				t.Fatalf("release order %v, want %v", got, wantSteps)
			}
			wantState(t, r, ctx, ContextState{Mode: latch.Kernel, Phase: latch.Closed, Finalized: true, DeviceID: 0}, kernelFields...)
			if _, held := r.ClaimHolder(0); held {
				t.Fatal("claim kept after finalize")
			}
			want(t, "finalize again", r.FinalizeDevice(ctx), okS)
			if got := log.take(); len(got) != 0 {
				t.Fatalf("a second finalize released %v", got)
			}
			want(t, "launch of a dead id", launch(r, ctx, 0, emptyArgs(), streamA), isS)
			// The launch enqueued before finalize stays the caller's to
			// synchronize (D-3: finalize never synchronizes a caller stream).
			if prepared && r.PendingLaunches(streamA) != 1 {
				t.Fatal("finalize touched the caller's stream")
			}
		})
	}
}

// TestFinalizeStepFailure is K-5 with site 5 (ClosingIsStickyAndRetriable,
// stream_close, event_close, persistent_free_close): each of the first N
// finalizes fails at its first remaining release step with the injected
// code, stays in Closing (sticky), keeps everything for the retry, keeps the
// first failure as the teardown error, refuses dispatch and destroy; the next
// finalize releases what is left — exactly one more attempt of the failed
// step — and reaches Closed; the teardown error survives.
func TestFinalizeStepFailure(t *testing.T) {
	for _, tc := range []struct {
		name     string
		prepared bool
		first    string
	}{
		{"persistent free (device resources)", true, "device resources"},
		{"event close", false, "event 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTMR(t, Fault{abi.SiteFinalizeRelease, 2, -1100})
			var log releaseLog
			log.attach(r)
			ctx := r.CreateDeviceContext()
			setDevice(t, r, 0)
			want(t, "init", kinit(r, ctx, 0, configBytes(), 1), okS)
			if tc.prepared {
				mustPrepare(t, r, ctx, noopImage(t, 0), 0)
			}
			before := state(t, r, ctx)
			for i := 0; i < 2; i++ {
				want(t, "finalize", r.FinalizeDevice(ctx), -1100)
				if got := log.take(); cmpDiff([]string{tc.first + " FAILED"}, got) != "" {
					t.Fatalf("attempt %d released %v", i, got)
				}
				w := before
				w.Phase, w.TeardownError = latch.Closing, -1100
				wantState(t, r, ctx, w, kernelFields...)
				want(t, "launch in Closing", launch(r, ctx, 0, emptyArgs(), streamA), isS)
				r.DestroyDeviceContext(ctx)
				if _, ok := r.Inspect(ctx); !ok {
					t.Fatal("E-DESTROY: a Closing context was destroyed")
				}
			}
			want(t, "retry", r.FinalizeDevice(ctx), okS)
			wantSteps := fullRelease[1:]
			if tc.prepared {
				wantSteps = fullRelease
			}
			if got := log.take(); cmpDiff(wantSteps, got) != "" {
				t.Fatalf("retry released %v, want %v", got, wantSteps)
			}
			wantState(t, r, ctx, ContextState{Mode: latch.Kernel, Phase: latch.Closed, Finalized: true, DeviceID: 0, TeardownError: -1100}, kernelFields...)
			if r.RefusedDestroys() != 2 {
				t.Fatalf("RefusedDestroys = %d", r.RefusedDestroys())
			}
			r.DestroyDeviceContext(ctx)
			if r.LiveContexts() != 0 {
				t.Fatal("destroy after the successful retry did not free the context")
			}
		})
	}
}

// TestFinalizeAfterInitRollbackFailure: the Closing context K-7 leaves holds
// streams 0..1 and events 0..3; finalize releases events 3..0 then streams
// 1..0 (a retry after a failure releases only what is left).
func TestFinalizeAfterInitRollbackFailure(t *testing.T) {
	r := newTMR(t, Fault{abi.SiteInitCreate, 1, -1101}, Fault{abi.SiteInitRollbackFails, 1, -1102})
	var log releaseLog
	log.attach(r)
	setDevice(t, r, 0)
	ctx := r.CreateDeviceContext()
	want(t, "init", kinit(r, ctx, 0, configBytes(), 1), -1101)
	if got := log.take(); cmpDiff([]string{"rollback event 3 FAILED"}, got) != "" {
		t.Fatalf("rollback %v", got)
	}
	want(t, "inject 5", r.SimInject(abi.SiteFinalizeRelease, 1, -1103), okS)
	want(t, "finalize", r.FinalizeDevice(ctx), -1103)
	want(t, "retry", r.FinalizeDevice(ctx), okS)
	wantSteps := []string{"event 3 FAILED", "event 3", "event 2", "event 1", "event 0", "stream 1", "stream 0"}
	if got := log.take(); cmpDiff(wantSteps, got) != "" {
		t.Fatalf("release %v, want %v", got, wantSteps)
	}
	// The teardown slot keeps the first failure: the rollback's.
	wantState(t, r, ctx, ContextState{Phase: latch.Closed, TeardownError: -1102, InitFailed: true}, "Phase", "TeardownError", "InitFailed")
}

// TestInitRollbackOrder: a rolled-back init destroys events 3..0 then streams
// 1..0 (K-7, PartialInitFailureRollsBackCleanly) and a finalize of the New
// context releases nothing (CloseOnNewContextIsANoOpSuccess).
func TestInitRollbackOrder(t *testing.T) {
	r := newTMR(t, Fault{abi.SiteInitCreate, 1, -1104})
	var log releaseLog
	log.attach(r)
	setDevice(t, r, 0)
	ctx := r.CreateDeviceContext()
	want(t, "init", kinit(r, ctx, 0, configBytes(), 1), -1104)
	wantSteps := []string{"rollback event 3", "rollback event 2", "rollback event 1", "rollback event 0", "rollback stream 1", "rollback stream 0"}
	if got := log.take(); cmpDiff(wantSteps, got) != "" {
		t.Fatalf("rollback %v, want %v", got, wantSteps)
	}
	want(t, "inject 6", r.SimInject(abi.SiteFinalizeFatal, 1, 0), okS)
	want(t, "finalize of New", r.FinalizeDevice(ctx), okS)
	if got := log.take(); len(got) != 0 {
		t.Fatalf("finalize of a New context released %v", got)
	}
	if r.FaultsRemaining()[abi.SiteFinalizeFatal] != 1 {
		t.Fatal("site 6 passed on a context holding nothing")
	}
	wantState(t, r, ctx, ContextState{Phase: latch.Closed, Finalized: true}, "Phase", "Finalized")
}

// TestFatalDeviceQuarantine is D-4 with site 6 (fatal_device): finalize
// returns IS and quarantines instead of resetting; every later finalize
// returns IS too (no reset, no D-2 check needed); destroy is refused
// forever; the claim is kept; dispatch is refused (poisoned); nothing is
// released and no ACL call is made (D-1).
func TestFatalDeviceQuarantine(t *testing.T) {
	r := newTMR(t, Fault{abi.SiteFinalizeFatal, 1, 0})
	var log releaseLog
	log.attach(r)
	ctx := readyCtx(t, r)
	before := r.ACL().Counters()
	want(t, "finalize", r.FinalizeDevice(ctx), isS)
	wantState(t, r, ctx, ContextState{Mode: latch.Kernel, Phase: latch.Poisoned, Quarantined: true, DeviceID: 0, ClaimHeld: true,
		LiveStreams: 2, LiveEvents: 5, DeviceResourcesHeld: true, Residents: 1, AllocatedBlockBytes: 2 * mib,
		Committed: 2*mib + PersistentLaunchRegionBytes, PoisonCause: isS}, kernelFields...)
	setDevice(t, r, 5) // even with the device switched: quarantine answers first
	for i := 0; i < 3; i++ {
		want(t, "finalize again", r.FinalizeDevice(ctx), isS)
		r.DestroyDeviceContext(ctx)
	}
	setDevice(t, r, 0)
	want(t, "launch", launch(r, ctx, 0, emptyArgs(), streamA), isS)
	_, st := prepare(r, ctx, noopImage(t, 0))
	want(t, "prepare", st, isS)
	if _, ok := r.Inspect(ctx); !ok || r.RefusedDestroys() != 3 {
		t.Fatal("a quarantined context was destroyed")
	}
	if h, ok := r.ClaimHolder(0); !ok || h != ctx {
		t.Fatal("D-4: the claim was released")
	}
	if got := log.take(); len(got) != 0 {
		t.Fatalf("quarantine released %v", got)
	}
	if d := counterDelta(before, r.ACL().Counters()); d.ResetDevice != 0 || d.Finalize != 0 {
		t.Fatalf("D-4: the device was reset: %+v", d)
	}
}

// TestQuarantineKeepsFirstPoisonCause: a quarantine of a context already
// poisoned keeps the first cause (K-4 "only the first cause";
// PoisonRejectsDispatchButAllowsClose), and a poison during Closing is
// ignored (PoisonDuringClosingIsIgnored).
func TestQuarantineKeepsFirstPoisonCause(t *testing.T) {
	t.Run("poisoned", func(t *testing.T) {
		r := newTMR(t, Fault{abi.SiteLaunchEnqueue, 1, -1110})
		ctx := readyCtx(t, r)
		want(t, "launch", launch(r, ctx, 0, emptyArgs(), streamA), -1110)
		want(t, "inject 6", r.SimInject(abi.SiteFinalizeFatal, 1, 0), okS)
		want(t, "finalize", r.FinalizeDevice(ctx), isS)
		wantState(t, r, ctx, ContextState{Phase: latch.Poisoned, Quarantined: true, PoisonCause: -1110}, "Phase", "Quarantined", "PoisonCause")
	})
	t.Run("closing", func(t *testing.T) {
		r := newTMR(t, Fault{abi.SiteFinalizeRelease, 1, -1111})
		ctx := readyCtx(t, r)
		want(t, "finalize", r.FinalizeDevice(ctx), -1111)
		want(t, "inject 6", r.SimInject(abi.SiteFinalizeFatal, 1, 0), okS)
		want(t, "finalize", r.FinalizeDevice(ctx), isS)
		wantState(t, r, ctx, ContextState{Phase: latch.Closing, Quarantined: true, TeardownError: -1111},
			"Phase", "Quarantined", "PoisonCause", "TeardownError")
	})
}

// TestTeardownErrorSeparateFromPoisonCause: the poison cause and the
// teardown failure are kept in separate slots; the teardown error survives
// a successful retry (TeardownErrorSlotIsSeparateFromRuntimeError).
func TestTeardownErrorSeparateFromPoisonCause(t *testing.T) {
	r := newTMR(t, Fault{abi.SitePrepareRegister, 1, -1120}, Fault{abi.SiteFinalizeRelease, 1, -1121})
	setDevice(t, r, 0)
	ctx := kernelCtx(t, r, 0)
	_, st := prepare(r, ctx, noopImage(t, 0))
	want(t, "prepare", st, -1120)
	want(t, "finalize", r.FinalizeDevice(ctx), -1121)
	want(t, "retry", r.FinalizeDevice(ctx), okS)
	wantState(t, r, ctx, ContextState{Phase: latch.Closed, PoisonCause: -1120, TeardownError: -1121}, "Phase", "PoisonCause", "TeardownError")
}

// TestFinalizeNonKernel is E-FIN for the contexts that need no teardown: an
// unlatched context, a program context with no device attached, and a Closed
// kernel context → 0, nothing changes.
func TestFinalizeNonKernel(t *testing.T) {
	r := newTMR(t)
	setDevice(t, r, 0)
	fresh := r.CreateDeviceContext()
	want(t, "finalize fresh", r.FinalizeDevice(fresh), okS)
	wantState(t, r, fresh, ContextState{Mode: latch.Unlatched, Phase: latch.New, DeviceID: -1}, kernelFields...)
	prog := r.CreateDeviceContext()
	want(t, "ensure_acl_ready", r.EnsureACLReady(prog, 0), okS) // program, not attached
	before := r.ACL().Counters()
	want(t, "finalize unattached program", r.FinalizeDevice(prog), okS)
	if d := counterDelta(before, r.ACL().Counters()); d != (ACLCounters{}) {
		t.Fatalf("finalize of an unattached program context called ACL: %+v", d)
	}
	// A fresh context stays usable for either mode after finalize.
	want(t, "kernel init after finalize of fresh", kinit(r, fresh, 0, configBytes(), 1), okS)
}

// TestFinalizeDeviceCheck is D-2 at finalize: with the caller's device
// switched (or cleared) finalize returns IS, changes nothing, poisons
// nothing, and works once the device is restored. Init-failed contexts are
// checked too.
func TestFinalizeDeviceCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, r *Runtime) abi.Ctx
	}{
		{"ready", func(t *testing.T, r *Runtime) abi.Ctx { return readyCtx(t, r) }},
		{"init failed", func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := r.CreateDeviceContext()
			want(t, "inject", r.SimInject(abi.SiteInitCreate, 1, -1130), okS)
			want(t, "init", kinit(r, ctx, 0, configBytes(), 1), -1130)
			return ctx
		}},
	} {
		for _, sw := range []int32{1, -1} {
			t.Run(fmt.Sprintf("%s/switch to %d", tc.name, sw), func(t *testing.T) {
				r := newTMR(t)
				setDevice(t, r, 0)
				ctx := tc.setup(t, r)
				before := state(t, r, ctx)
				want(t, "hook", r.SimSetCurrentDevice(sw), okS)
				want(t, "finalize", r.FinalizeDevice(ctx), isS)
				if d := diffStates(before, state(t, r, ctx)); d != "" {
					t.Fatalf("D-2 refusal changed the context:\n%s", d)
				}
				want(t, "hook", r.SimSetCurrentDevice(0), okS)
				want(t, "finalize", r.FinalizeDevice(ctx), okS)
			})
		}
	}
}

// TestDestroy is E-DESTROY: NULL does nothing; a refused destroy (kernel
// context not finalized: Collecting, ReadyEnqueued, Poisoned, Closing,
// init-failed) is counted, schedules nothing, and leaves the context behaving
// as if destroy had not been called; a later destroy after a successful
// finalize frees it. Unlatched and program contexts are freed at once
// (destroy_unclosed).
func TestDestroy(t *testing.T) {
	r := newTMR(t)
	setDevice(t, r, 0)
	r.DestroyDeviceContext(0)
	fresh := r.CreateDeviceContext()
	r.DestroyDeviceContext(fresh)
	if _, ok := r.Inspect(fresh); ok {
		t.Fatal("an unlatched context was not freed")
	}
	prog := r.CreateDeviceContext()
	want(t, "simpler_init", r.SimplerInit(prog, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0), okS)
	before := r.ACL().Counters()
	r.DestroyDeviceContext(prog)
	if _, ok := r.Inspect(prog); ok {
		t.Fatal("a program context was not freed")
	}
	if d := counterDelta(before, r.ACL().Counters()); d != (ACLCounters{ResetDevice: 1}) {
		t.Fatalf("destroy of an attached program context: ACL %+v, want one ResetDevice", d)
	}

	ctx := readyCtx(t, r)
	r.DestroyDeviceContext(ctx)
	if r.RefusedDestroys() != 1 {
		t.Fatal("refusal not counted")
	}
	// The context answers exactly as before.
	want(t, "launch after a refused destroy", launch(r, ctx, 0, emptyArgs(), streamA), okS)
	want(t, "ensure_acl_ready", r.EnsureACLReady(ctx, 0), isS)
	mustPrepare(t, r, ctx, noopImage(t, 0), 1)
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
	if _, ok := r.Inspect(ctx); !ok {
		t.Fatal("a refused destroy was carried out later by finalize")
	}
	r.DestroyDeviceContext(ctx)
	if _, ok := r.Inspect(ctx); ok {
		t.Fatal("destroy after finalize did not free the context")
	}
	if h, ok := r.ClaimHolder(0); ok {
		t.Fatalf("claim held by %#x after destroy", h)
	}
}

// TestKernelClosedIsTerminal is K-6 and E-FIN's last sentence: after a
// successful finalize, committed memory is 0, ids are dead, prepare, launch
// and both inits return IS, and finalize returns 0 again.
func TestKernelClosedIsTerminal(t *testing.T) {
	r := newTMR(t)
	ctx := readyCtx(t, r)
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
	if r.CommittedDeviceMemory(ctx) != 0 {
		t.Fatal("committed memory after finalize")
	}
	_, st := prepare(r, ctx, noopImage(t, 0))
	want(t, "prepare", st, isS)
	want(t, "launch", launch(r, ctx, 0, emptyArgs(), streamA), isS)
	want(t, "kernel init", kinit(r, ctx, 0, configBytes(), 2), isS)
	want(t, "simpler_init", r.SimplerInit(ctx, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0), isS)
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
	want(t, "finalize with the device switched", r.SimSetCurrentDevice(4), okS)
	want(t, "finalize of Closed ignores the device", r.FinalizeDevice(ctx), okS)
}

// TestCAPIScenarios reproduces upstream's C-API lifecycle scenarios
// (test_kernel_mode_c_api.py) against sim; every scenario also asserts that
// the runtime made none of the forbidden ACL calls (D-1).
func TestCAPIScenarios(t *testing.T) {
	scenarios := []struct {
		name   string
		faults []Fault
		run    func(t *testing.T, r *Runtime)
	}{
		// repeat_init: E-KINIT, K-2, E-ACL.
		{"repeat_init", nil, func(t *testing.T, r *Runtime) {
			ctx := kernelCtx(t, r, 0)
			want(t, "second init", kinit(r, ctx, 0, configBytes(), 1), isS)
			want(t, "ensure_acl_ready", r.EnsureACLReady(ctx, 0), isS)
			want(t, "finalize", r.FinalizeDevice(ctx), okS)
		}},
		// init_failure: K-7, L-5.
		{"init_failure", []Fault{{abi.SiteInitCreate, 1, -1140}, {abi.SiteInitRollbackFails, 1, -1141}}, func(t *testing.T, r *Runtime) {
			ctx := r.CreateDeviceContext()
			want(t, "init", kinit(r, ctx, 0, configBytes(), 1), -1140)
			want(t, "re-init", kinit(r, ctx, 0, configBytes(), 1), isS)
			want(t, "finalize", r.FinalizeDevice(ctx), okS)
		}},
		// stream_close: K-5; a retry makes exactly one extra attempt.
		{"stream_close", nil, func(t *testing.T, r *Runtime) {
			var log releaseLog
			log.attach(r)
			ctx := kernelCtx(t, r, 0)
			// Fail the first stream destroy: let the five events go first.
			r.traceRelease = func(_ abi.Ctx, what string, ok bool) {
				if !ok {
					what += " FAILED"
				}
				log.steps = append(log.steps, what)
				if what == "event 0" {
					_ = r.SimInject(abi.SiteFinalizeRelease, 1, -1142)
				}
			}
			want(t, "finalize", r.FinalizeDevice(ctx), -1142)
			want(t, "retry", r.FinalizeDevice(ctx), okS)
			wantSteps := []string{"event 4", "event 3", "event 2", "event 1", "event 0", "stream 1 FAILED", "stream 1", "stream 0"}
			if got := log.take(); cmpDiff(wantSteps, got) != "" {
				t.Fatalf("steps %v, want %v", got, wantSteps)
			}
		}},
		// event_close.
		{"event_close", nil, func(t *testing.T, r *Runtime) {
			var log releaseLog
			ctx := kernelCtx(t, r, 0)
			r.traceRelease = func(_ abi.Ctx, what string, ok bool) {
				if !ok {
					what += " FAILED"
				}
				log.steps = append(log.steps, what)
				if what == "event 3" {
					_ = r.SimInject(abi.SiteFinalizeRelease, 1, -1143)
				}
			}
			want(t, "finalize", r.FinalizeDevice(ctx), -1143)
			wantState(t, r, ctx, ContextState{Phase: latch.Closing, LiveEvents: 3, LiveStreams: 2}, "Phase", "LiveEvents", "LiveStreams")
			want(t, "retry", r.FinalizeDevice(ctx), okS)
			wantSteps := []string{"event 4", "event 3", "event 2 FAILED", "event 2", "event 1", "event 0", "stream 1", "stream 0"}
			if got := log.take(); cmpDiff(wantSteps, got) != "" {
				t.Fatalf("steps %v, want %v", got, wantSteps)
			}
		}},
		// persistent_free_close.
		{"persistent_free_close", nil, func(t *testing.T, r *Runtime) {
			ctx := kernelCtx(t, r, 0)
			mustPrepare(t, r, ctx, noopImage(t, 0), 0)
			want(t, "inject 5", r.SimInject(abi.SiteFinalizeRelease, 1, -1144), okS)
			want(t, "finalize", r.FinalizeDevice(ctx), -1144)
			if r.CommittedDeviceMemory(ctx) == 0 {
				t.Fatal("a failed release dropped committed memory")
			}
			want(t, "retry", r.FinalizeDevice(ctx), okS)
			if r.CommittedDeviceMemory(ctx) != 0 {
				t.Fatal("committed memory after the retry")
			}
		}},
		// destroy_unclosed: E-DESTROY.
		{"destroy_unclosed", nil, func(t *testing.T, r *Runtime) {
			ctx := kernelCtx(t, r, 0)
			r.DestroyDeviceContext(ctx)
			want(t, "ensure_acl_ready still answers", r.EnsureACLReady(ctx, 0), isS)
			want(t, "finalize", r.FinalizeDevice(ctx), okS)
			r.DestroyDeviceContext(ctx)
			if r.LiveContexts() != 0 {
				t.Fatal("not freed")
			}
		}},
		// fatal_device: D-4.
		{"fatal_device", []Fault{{abi.SiteFinalizeFatal, 1, 0}}, func(t *testing.T, r *Runtime) {
			ctx := kernelCtx(t, r, 0)
			want(t, "finalize", r.FinalizeDevice(ctx), isS)
			want(t, "finalize", r.FinalizeDevice(ctx), isS)
			r.DestroyDeviceContext(ctx)
			if r.LiveContexts() != 1 {
				t.Fatal("destroy of a quarantined context was not refused")
			}
		}},
		// prepare: M-2, M-7, K-6 (the minted-id form of the scenario).
		{"prepare", nil, func(t *testing.T, r *Runtime) {
			ctx := kernelCtx(t, r, 0)
			img := noopImage(t, 0)
			mustPrepare(t, r, ctx, img, 0)
			c1 := r.CommittedDeviceMemory(ctx)
			if c1 == 0 {
				t.Fatal("committed memory did not grow")
			}
			mustPrepare(t, r, ctx, img, 1)
			if got := r.CommittedDeviceMemory(ctx); got != c1 {
				t.Fatalf("the same bytes in the same block changed committed memory: %d → %d", c1, got)
			}
			want(t, "finalize", r.FinalizeDevice(ctx), okS)
			if r.CommittedDeviceMemory(ctx) != 0 {
				t.Fatal("committed after finalize")
			}
			_, st := prepare(r, ctx, img)
			want(t, "prepare after finalize", st, isS)
		}},
		// test_kernel_context_brings_up_and_closes_on_a_borrowed_device.
		{"brings_up_and_closes", nil, func(t *testing.T, r *Runtime) {
			ctx := kernelCtx(t, r, 0)
			want(t, "simpler_init", r.SimplerInit(ctx, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0), isS)
			want(t, "finalize", r.FinalizeDevice(ctx), okS)
			r.DestroyDeviceContext(ctx)
			if r.LiveContexts() != 0 {
				t.Fatal("not freed")
			}
		}},
		// unregister on a kernel context → IS (E-PROG; handle-era addition).
		{"unregister_on_kernel", nil, func(t *testing.T, r *Runtime) {
			ctx := kernelCtx(t, r, 0)
			want(t, "unregister", r.UnregisterCallable(ctx, 0), isS)
			want(t, "finalize", r.FinalizeDevice(ctx), okS)
		}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			r := newTMR(t, sc.faults...)
			setDevice(t, r, 0)
			before := r.ACL().Counters()
			sc.run(t, r)
			if d := counterDelta(before, r.ACL().Counters()); d.Forbidden() != 0 {
				t.Fatalf("D-1: forbidden ACL calls %+v", d)
			}
		})
	}
}

// TestRefusingBuildScenarios reproduces the simulator scenarios of
// upstream's C-API test and the refusing hardware entry tests against the
// refusing profile: malformed arguments → IA (structural checks win), a
// valid init → UNSUPPORTED leaving no claim, valid prepare/launch → IS,
// supported 0 (E-SUP, E-KINIT, E-PREP, E-LAUNCH).
func TestRefusingBuildScenarios(t *testing.T) {
	r := New(Refusing, Options{})
	setDevice(t, r, 0)
	ctx := r.CreateDeviceContext()
	if r.KernelModeSupported(ctx) != 0 {
		t.Fatal("supported != 0")
	}
	want(t, "init gen 0", kinit(r, ctx, 0, configBytes(), 0), iaS)
	want(t, "init device -1", kinit(r, ctx, -1, configBytes(), 1), iaS)
	want(t, "init NULL config", r.KernelModeInit(ctx, 0, nil, 0, nil, 0, nil, 0, nil, 1), iaS)
	want(t, "init", kinit(r, ctx, 0, configBytes(), 1), unsup)
	if _, held := r.ClaimHolder(0); held {
		t.Fatal("a refusing init took the claim")
	}
	img := noopImage(t, 0)
	id, st := prepare(r, ctx, img)
	if st != isS || id != -1 {
		t.Fatalf("prepare = (%d, %v)", id, st)
	}
	id = 9
	want(t, "prepare truncated", r.KernelModePrepareCallable(ctx, abi.Ptr(img), abi.ChipCallableSize-1, &id), iaS)
	want(t, "launch", launch(r, ctx, 0, emptyArgs(), streamA), isS)
	want(t, "launch NULL stream", launch(r, ctx, 0, emptyArgs(), 0), iaS)
	want(t, "launch id -1", launch(r, ctx, -1, emptyArgs(), streamA), iaS)
	want(t, "inject on refusing", r.SimInject(abi.SiteInitCreate, 1, -1), unsup)
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
	r.DestroyDeviceContext(ctx)
	if r.LiveContexts() != 0 {
		t.Fatal("not freed")
	}
}
