package sim

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
)

// onDevice runs f on a new goroutine locked to its OS thread with dev
// current, and returns a channel that yields f's result.
func onDevice[T any](r *Runtime, dev int32, f func() T) <-chan T {
	ch := make(chan T, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		r.SimSetCurrentDevice(dev)
		defer r.SimSetCurrentDevice(-1)
		ch <- f()
	}()
	return ch
}

// TestGateLaunchFailsFastPrepareWaits is X-2 with site 7: while a prepare
// holds the submission gate, a launch from another goroutine (locked, with
// the device set) returns IS at once, and a concurrent prepare waits for the
// gate and succeeds.
func TestGateLaunchFailsFastPrepareWaits(t *testing.T) {
	const holdMS = 400
	r := newTMR(t)
	ctx := readyCtx(t, r) // ReadyEnqueued: only the gate can refuse a launch
	img := noopImage(t, 0)
	want(t, "inject 7", r.SimInject(abi.SitePrepareHoldGate, 1, holdMS), okS)
	type res struct {
		id int32
		st abi.Status
	}
	prep := func() res { id, st := prepare(r, ctx, img); return res{id, st} }
	first := onDevice(r, 0, prep)
	for r.FaultsRemaining()[abi.SitePrepareHoldGate] != 0 { // the prepare is inside the gate
		runtime.Gosched()
	}
	got := <-onDevice(r, 0, func() res { return res{0, launch(r, ctx, 0, emptyArgs(), streamA)} })
	want(t, "launch during a prepare", got.st, isS)
	second := onDevice(r, 0, prep)
	held := <-first
	if held.id != 1 || held.st != okS {
		t.Fatalf("held prepare = (%d, %v)", held.id, held.st)
	}
	// IS is the proof that the launch did not wait: on a ReadyEnqueued
	// context with the device set only a held gate refuses it, and a launch
	// that waited for the gate would have returned 0. The second prepare
	// waited: it got the next id, after the held one.
	if w := <-second; w.id != 2 || w.st != okS {
		t.Fatalf("waiting prepare = (%d, %v), want id 2 after the held one", w.id, w.st)
	}
	want(t, "launch after", launch(r, ctx, 2, emptyArgs(), streamA), okS)
	if r.PendingLaunches(streamA) != 1 {
		t.Fatal("the refused launch enqueued")
	}
}

// TestConcurrentLaunchesOneContext is X-2 among launches: goroutines
// launching on one context either succeed or get IS (an overlapping launch);
// every success is enqueued exactly once and nothing else changes.
func TestConcurrentLaunchesOneContext(t *testing.T) {
	r := newTMR(t)
	ctx := readyCtx(t, r)
	var ok, busy, other atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-onDevice(r, 0, func() int {
				a := emptyArgs()
				for i := 0; i < 500; i++ {
					switch launch(r, ctx, 0, a, streamA) {
					case okS:
						ok.Add(1)
					case isS:
						busy.Add(1)
					default:
						other.Add(1)
					}
				}
				return 0
			})
		}()
	}
	wg.Wait()
	if other.Load() != 0 || ok.Load()+busy.Load() != 4000 {
		t.Fatalf("ok %d, busy %d, other %d", ok.Load(), busy.Load(), other.Load())
	}
	if got := int64(r.PendingLaunches(streamA)); got != ok.Load() {
		t.Fatalf("%d pending, %d successful launches", got, ok.Load())
	}
	wantState(t, r, ctx, ContextState{Phase: latch.ReadyEnqueued}, "Phase", "PoisonCause")
	want(t, "sync", r.SimSyncStream(streamA), okS)
}

// TestAtomicLatchAndClaim is X-1: the mode latch and the claim registry are
// atomic under concurrent calls. Racing kernel inits of eight contexts on
// one device: exactly one holds the claim. Racing ensure_acl_ready and kernel
// init on one context: one mode wins and every call of the other mode is
// refused with IS.
func TestAtomicLatchAndClaim(t *testing.T) {
	t.Run("claim", func(t *testing.T) {
		r := newTMR(t)
		var chans []<-chan abi.Status
		ctxs := make([]abi.Ctx, 8)
		for i := range ctxs {
			ctxs[i] = r.CreateDeviceContext()
		}
		for _, c := range ctxs {
			chans = append(chans, onDevice(r, 0, func() abi.Status { return kinit(r, c, 0, configBytes(), 1) }))
		}
		wins := 0
		for i, ch := range chans {
			switch st := <-ch; st {
			case okS:
				wins++
				if h, _ := r.ClaimHolder(0); h != ctxs[i] {
					t.Fatal("the winner does not hold the claim")
				}
			case isS:
			default:
				t.Fatalf("init = %v", st)
			}
		}
		if wins != 1 {
			t.Fatalf("%d inits won the claim", wins)
		}
	})
	t.Run("latch", func(t *testing.T) {
		for round := 0; round < 20; round++ {
			r := newTMR(t)
			ctx := r.CreateDeviceContext()
			var kernelCh, progCh []<-chan abi.Status
			for i := 0; i < 4; i++ {
				kernelCh = append(kernelCh, onDevice(r, 0, func() abi.Status { return kinit(r, ctx, 0, configBytes(), 1) }))
				progCh = append(progCh, onDevice(r, 0, func() abi.Status { return r.EnsureACLReady(ctx, 0) }))
			}
			count := func(chs []<-chan abi.Status) (okN int) {
				for _, ch := range chs {
					st := <-ch
					if st == okS {
						okN++
					} else if st != isS {
						t.Fatalf("status %v", st)
					}
				}
				return okN
			}
			kOK, pOK := count(kernelCh), count(progCh)
			mode := state(t, r, ctx).Mode
			switch {
			case mode == latch.Kernel && kOK == 1 && pOK == 0:
			case mode == latch.Program && kOK == 0 && pOK == 4:
			default:
				t.Fatalf("mode %v with %d kernel and %d program successes", mode, kOK, pOK)
			}
		}
	})
}

// TestInitFinalizeRaces is X-3: init and finalize racing prepares, launches,
// synchronizes, destroys and inspections of the same contexts is the
// caller's error — no result is asserted — but the runtime must not crash,
// must stay free of data races (run with -race), and must not corrupt
// another context, which keeps working throughout.
func TestInitFinalizeRaces(t *testing.T) {
	r := newTMR(t)
	img := noopImage(t, 0)
	bystander := readyCtx(t, r) // device 0, on this goroutine
	stop := make(chan struct{})
	var wg sync.WaitGroup
	ctxs := make([]abi.Ctx, 4)
	for i := range ctxs {
		ctxs[i] = r.CreateDeviceContext()
	}
	worker := func(f func(i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			r.SimSetCurrentDevice(1)
			defer r.SimSetCurrentDevice(-1)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				f(i)
			}
		}()
	}
	pick := func(i int) abi.Ctx { return ctxs[i%len(ctxs)] }
	worker(func(i int) { kinit(r, pick(i), 1, configBytes(), uint64(i+1)) })
	worker(func(i int) { r.FinalizeDevice(pick(i)) })
	worker(func(i int) { prepare(r, pick(i), img) })
	worker(func(i int) { launch(r, pick(i), int32(i%3), emptyArgs(), abi.Stream(0x100+i%2)) })
	worker(func(i int) { r.SimSyncStream(abi.Stream(0x100 + i%2)) })
	worker(func(i int) { r.Inspect(pick(i)); r.CommittedDeviceMemory(pick(i)) })
	worker(func(i int) {
		if i%50 == 0 {
			r.DestroyDeviceContext(pick(i))
		}
		r.EnsureACLReady(pick(i+1), 1)
	})
	deadline := time.Now().Add(300 * time.Millisecond)
	n := int32(1)
	for time.Now().Before(deadline) {
		mustPrepare(t, r, bystander, img, n)
		want(t, "bystander launch", launch(r, bystander, n, emptyArgs(), streamA), okS)
		want(t, "bystander sync", r.SimSyncStream(streamA), okS)
		n++
	}
	close(stop)
	wg.Wait()
	wantState(t, r, bystander, ContextState{Mode: latch.Kernel, Phase: latch.ReadyEnqueued, DeviceID: 0, ClaimHeld: true,
		LiveStreams: 2, LiveEvents: 5, Residents: int(n)}, "Mode", "Phase", "DeviceID", "ClaimHeld", "LiveStreams", "LiveEvents", "Residents", "PoisonCause")
	want(t, "bystander finalize", r.FinalizeDevice(bystander), okS)
}
