package sim

import (
	"runtime"
	"sync"
	"testing"

	"github.com/simabi/simabi/abi"
)

// TestBorrowedDeviceSwitch is D-2: prepare, launch and finalize of a kernel
// context check the calling thread's current device read-only; a mismatch or
// no current device returns IS, poisons nothing, changes nothing, and the
// call works again once the caller restores the device. Every thread key
// (gettid, the default, and the opt-in FS base) behaves the same here.
func TestBorrowedDeviceSwitch(t *testing.T) {
	for _, id := range []ThreadIdentity{ThreadIdentityAuto, ThreadIdentityGettid, ThreadIdentityFSBase} {
		for _, sw := range []int32{1, -1} {
			t.Run(id.String()+"/"+map[int32]string{1: "other device", -1: "no device"}[sw], func(t *testing.T) {
				r := New(TMR, Options{ThreadIdentity: id})
				if id != ThreadIdentityFSBase && r.ThreadKeyIsFSBase() {
					t.Fatalf("ThreadIdentity %v uses the FS base", id)
				}
				if id == ThreadIdentityFSBase && r.ThreadKeyIsFSBase() != FSBaseThreadKey() {
					t.Fatal("ThreadIdentityFSBase does not use the FS base where RDFSBASE is usable")
				}
				ctx := readyCtx(t, r)
				before := state(t, r, ctx)
				acl := r.ACL()
				cBefore := acl.Counters()
				if sw < 0 {
					want(t, "hook clear", r.SimSetCurrentDevice(-1), okS)
				} else {
					setDevice(t, r, sw)
				}
				if d, st := acl.GetDevice(); (sw < 0 && (d != -1 || st != ACLErrorInvalidParam)) || (sw >= 0 && (d != sw || st != 0)) {
					t.Fatalf("GetDevice = (%d, %d)", d, st)
				}
				_, st := prepare(r, ctx, noopImage(t, 0))
				want(t, "prepare", st, isS)
				want(t, "launch", launch(r, ctx, 0, emptyArgs(), streamA), isS)
				want(t, "finalize", r.FinalizeDevice(ctx), isS)
				if d := diffStates(before, state(t, r, ctx)); d != "" {
					t.Fatalf("D-2 refusals changed the context:\n%s", d)
				}
				if r.PendingLaunches(streamA) != 0 {
					t.Fatal("a refused launch enqueued")
				}
				setDevice(t, r, 0)
				mustPrepare(t, r, ctx, noopImage(t, 0), 1)
				want(t, "launch", launch(r, ctx, 1, emptyArgs(), streamA), okS)
				want(t, "finalize", r.FinalizeDevice(ctx), okS)
				d := counterDelta(cBefore, acl.Counters())
				wantSet := uint64(1) // setDevice(0)
				if sw >= 0 {
					wantSet = 2
				}
				if d != (ACLCounters{SetDevice: wantSet, GetDevice: 1}) {
					t.Fatalf("D-1: ACL calls %+v; the runtime made some", d)
				}
			})
		}
	}
}

// TestFreshGoroutineHasNoDevice is D-2's determinism for Go callers: a
// goroutine that never set a device — whatever OS thread it lands on — sees
// none, so its launch, prepare and finalize return IS every time, while the
// locked goroutine that set the device keeps working. (A locked goroutine
// owns its thread: no other goroutine runs there.)
func TestFreshGoroutineHasNoDevice(t *testing.T) {
	r := newTMR(t)
	ctx := readyCtx(t, r)
	var wg sync.WaitGroup
	results := make(chan [4]abi.Status, 64)
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.Gosched()
			var res [4]abi.Status
			res[0] = abi.Status(r.SimCurrentDevice())
			_, res[1] = prepare(r, ctx, noopImage(t, 0))
			res[2] = launch(r, ctx, 0, emptyArgs(), streamA)
			res[3] = r.FinalizeDevice(ctx)
			results <- res
		}()
	}
	wg.Wait()
	close(results)
	for res := range results {
		if res != [4]abi.Status{-1, isS, isS, isS} {
			t.Fatalf("a goroutine that never set a device got (device, prepare, launch, finalize) = %v", res)
		}
	}
	want(t, "launch on the locked goroutine", launch(r, ctx, 0, emptyArgs(), streamA), okS)
}

// TestUnlockedSetDeviceIsIgnored is D-2's determinism for a goroutine that
// forgot runtime.LockOSThread: its SetDevice (ACL or hook) is counted and
// returns 0 but sets nothing, so the kernel init that follows fails with IS
// every time rather than depending on where the scheduler put it.
func TestUnlockedSetDeviceIsIgnored(t *testing.T) {
	r := newTMR(t)
	for i := 0; i < 50; i++ {
		done := make(chan [4]int64)
		go func() { // deliberately not locked
			before := r.ACL().Counters().SetDevice
			st := r.ACL().SetDevice(0)
			hook := r.SimSetCurrentDevice(0)
			ctx := r.CreateDeviceContext()
			init := kinit(r, ctx, 0, configBytes(), 1)
			done <- [4]int64{int64(st), int64(hook), int64(init), int64(r.ACL().Counters().SetDevice - before)}
		}()
		if got := <-done; got != [4]int64{0, 0, int64(isS), 1} {
			t.Fatalf("run %d: (SetDevice, hook, init, SetDevice count) = %v, want (0, 0, IS, 1)", i, got)
		}
	}
	if got := goroutineLocked(); got {
		t.Fatal("goroutineLocked on an unlocked test goroutine")
	}
	runtime.LockOSThread()
	locked := goroutineLocked()
	runtime.UnlockOSThread()
	if !locked {
		t.Fatal("goroutineLocked is false on a locked goroutine")
	}
}

// TestDevicePerThread: two locked goroutines hold different current devices
// at once (D-2: the current device is per OS thread), and each drives its
// own kernel context.
func TestDevicePerThread(t *testing.T) {
	r := newTMR(t)
	var wg sync.WaitGroup
	errs := make(chan string, 2)
	for dev := int32(0); dev < 2; dev++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			defer r.SimSetCurrentDevice(-1)
			if st := r.ACL().SetDevice(dev); st != 0 {
				errs <- "SetDevice failed"
				return
			}
			ctx := r.CreateDeviceContext()
			if st := kinit(r, ctx, dev, configBytes(), 1); st != okS {
				errs <- "init: " + st.String()
				return
			}
			sp := spec("test.noop", 0)
			img, _ := sp.Build()
			id := int32(0)
			for i := 0; i < 100; i++ {
				if st := r.KernelModePrepareCallable(ctx, abi.Ptr(img), uintptr(len(img)), &id); st != okS {
					errs <- "prepare: " + st.String()
					return
				}
				if got := r.SimCurrentDevice(); got != dev {
					errs <- "device changed under a locked goroutine"
					return
				}
			}
			if st := r.FinalizeDevice(ctx); st != okS {
				errs <- "finalize: " + st.String()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// TestNoForbiddenACLCalls is D-1 over every kernel path, faults included:
// init (success, claim failure, rollback), prepare (success, every failure),
// launch (success, PI, poison), finalize (success, failure, retry,
// quarantine) and destroy never call aclInit, aclFinalize, set-device,
// reset-device, or synchronize a stream or the device. The caller's own
// calls are the only ones counted; the hooks count nothing.
func TestNoForbiddenACLCalls(t *testing.T) {
	r := newTMR(t)
	setDevice(t, r, 0)
	acl := r.ACL()
	before := acl.Counters()
	inj := func(site, n, code int32) { want(t, "inject", r.SimInject(site, n, code), okS) }

	inj(abi.SiteInitCreate, 1, -1)
	c := r.CreateDeviceContext()
	want(t, "rollback", kinit(r, c, 0, configBytes(), 1), -1)
	a := kernelCtx(t, r, 0)
	b := r.CreateDeviceContext()
	want(t, "claim failure", kinit(r, b, 0, configBytes(), 1), isS)
	img := addImage(t)
	mustPrepare(t, r, a, img, 0)
	inj(abi.SitePrepareCopy, 1, -2)
	_, st := prepare(r, a, img)
	want(t, "copy failure", st, -2)
	_, st = prepare(r, a, img[:len(img)-1])
	want(t, "V-IMG", st, iaS)
	in := devAlloc(t, r, f32([]float32{1}))
	args := addArgs(t, in, in, 1, 1)
	want(t, "launch", launch(r, a, 0, args, streamA), okS)
	want(t, "PI", launch(r, a, 0, args, streamB), piS)
	inj(abi.SiteAsyncDeviceFail, 1, -3)
	want(t, "hook sync", r.SimSyncStream(streamA), -3)
	inj(abi.SiteFinalizeRelease, 1, -4)
	want(t, "finalize failure", r.FinalizeDevice(a), -4)
	want(t, "finalize retry", r.FinalizeDevice(a), okS)
	r.DestroyDeviceContext(a)
	r.DestroyDeviceContext(b)
	want(t, "finalize init-failed", r.FinalizeDevice(b), okS)
	want(t, "finalize rolled back", r.FinalizeDevice(c), okS)
	d := kernelCtx(t, r, 0)
	mustPrepare(t, r, d, img, 0)
	inj(abi.SiteLaunchEnqueue, 1, -5)
	want(t, "poisoning launch", launch(r, d, 0, args, streamA), -5)
	inj(abi.SiteFinalizeFatal, 1, 0)
	want(t, "quarantine", r.FinalizeDevice(d), isS)
	r.DestroyDeviceContext(d)
	want(t, "hook device", r.SimSetCurrentDevice(0), okS)
	_ = r.SimCurrentDevice()

	if got := counterDelta(before, acl.Counters()); got != (ACLCounters{}) {
		t.Fatalf("D-1: the kernel paths made ACL calls: %+v", got)
	}
}

// TestSetDeviceACLCodes: ACL.SetDevice(-1) is refused and changes nothing;
// the hook clears with any negative value; the caller's ResetDevice of the
// current device leaves the thread with none, of another device changes
// nothing; the runtime's program detach counts a ResetDevice but leaves the
// thread's device alone.
func TestSetDeviceACLCodes(t *testing.T) {
	r := newTMR(t)
	setDevice(t, r, 2)
	if st := r.ACL().SetDevice(-1); st != ACLErrorInvalidParam || r.SimCurrentDevice() != 2 {
		t.Fatalf("SetDevice(-1) = %d, device %d", st, r.SimCurrentDevice())
	}
	if st := r.ACL().ResetDevice(3); st != 0 || r.SimCurrentDevice() != 2 {
		t.Fatal("ResetDevice of another device changed the current one")
	}
	if st := r.ACL().ResetDevice(2); st != 0 || r.SimCurrentDevice() != -1 {
		t.Fatal("ResetDevice of the current device left it current")
	}
	ctx := programCtx(t, r, 6)
	want(t, "program finalize", r.FinalizeDevice(ctx), okS)
	if r.SimCurrentDevice() != 6 {
		t.Fatal("the program detach changed the thread's device")
	}
	if st := r.ACL().ResetDevice(-1); st != ACLErrorInvalidParam {
		t.Fatal("ResetDevice(-1) accepted")
	}
	setDevice(t, r, 4)
	want(t, "hook", r.SimSetCurrentDevice(-7), okS)
	if r.SimCurrentDevice() != -1 {
		t.Fatal("hook(-7) did not clear")
	}
}

// D-2: with Options.CallerLocksThread the simulator takes the caller's word
// that it is locked: a set from an unlocked goroutine applies (to whichever
// thread it runs on) instead of being ignored as it is by default.
func TestCallerLocksThread_D2_skipsTheLockCheck(t *testing.T) {
	for _, trust := range []bool{false, true} {
		r := New(TMR, Options{CallerLocksThread: trust})
		applied := make(chan bool)
		go func() { applied <- r.setThreadDevice(1) }() // not locked
		if got := <-applied; got != trust {
			t.Errorf("CallerLocksThread=%v: a set from an unlocked goroutine applied=%v, want %v", trust, got, trust)
		}
	}
}
