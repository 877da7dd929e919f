package lifecycle

// The Worker over sim, the Go reference runtime: the catalogue cases whose
// proof is the runtime's own state (sim.Runtime.Inspect, LiveContexts) and
// the hardware cases of §6.4 that a simulator can reproduce.

import (
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
	"github.com/simabi/simabi/sim"
)

// simInstance is a Loader over one existing sim instance (sim.Loader makes a
// fresh instance per Load, and a test needs the instance to set the current
// device and to inspect contexts). Close is a no-op.
type simInstance struct{ rt *sim.Runtime }

func (l simInstance) Load() (abi.LoadedRuntime, error) { return sim.LoadedRuntime{Runtime: l.rt}, nil }
func (l simInstance) LoadProbe() (abi.LoadedRuntime, error) {
	return sim.LoadedRuntime{Runtime: l.rt}, nil
}
func (l simInstance) String() string { return "sim-instance:" + string(l.rt.Profile()) }

// newSim makes a sim instance and makes device 0 current on the calling
// (locked) thread.
func newSim(t testing.TB, p sim.Profile, faults ...sim.Fault) *sim.Runtime {
	t.Helper()
	rt := sim.New(p, sim.Options{Faults: faults})
	if rc := rt.ACL().SetDevice(0); rc != 0 {
		t.Fatalf("SetDevice: %d", rc)
	}
	return rt
}

func simWorker(rt *sim.Runtime, mode Mode, budget time.Duration) *Worker {
	lg, _ := newLogger()
	return New(Config{Mode: mode, DeviceID: 0, Loader: simInstance{rt}, Logger: lg, CloseBudget: budget})
}

// ctxOf is the worker's native context (0 when none).
func ctxOf(w *Worker) abi.Ctx {
	if w.native == nil {
		return 0
	}
	return w.native.ctx
}

func f32bytes(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// Eager numerics end to end (§6.4 eager_numerics, prepare_twice): one kernel
// worker prepares the add-scalar image twice (ids 0 and 1, minted by the
// runtime: M-1, C-IMG), launches it twice with different scalars, and the
// caller's stream synchronize yields the exact results; committed memory does
// not move across launches; program APIs are refused (C-MODE); Close
// finalizes and destroys (C-FIN).
func TestSimKernelEndToEnd(t *testing.T) {
	lockThread(t)
	rt := newSim(t, sim.TMR)
	acl := rt.ACL()
	w := simWorker(rt, Kernel, 0)
	if ok, err := w.ProbeKernelMode(); !ok || err != nil {
		t.Fatalf("probe: %v %v", ok, err)
	}
	if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
		t.Fatal(err)
	}
	ctx := ctxOf(w)
	st, _ := rt.Inspect(ctx)
	if st.Phase != latch.Collecting || st.Generation == 0 {
		t.Fatalf("after Init: %+v", st)
	}
	img := testImage(t)
	id0, err := w.PrepareCallable(img)
	if err != nil || id0 != 0 {
		t.Fatalf("first prepare: %d %v", id0, err)
	}
	id1, err := w.PrepareCallable(misaligned(img))
	if err != nil || id1 != 1 {
		t.Fatalf("second prepare: %d %v", id1, err)
	}
	committed, err := w.CommittedDeviceMemory()
	if err != nil || committed == 0 {
		t.Fatalf("committed %d %v", committed, err)
	}
	const n = 8
	in, rc := acl.Malloc(4 * n)
	out, rc2 := acl.Malloc(4 * n)
	if rc != 0 || rc2 != 0 {
		t.Fatal("malloc")
	}
	if rc := acl.CopyToDevice(in, f32bytes(1, 2, 3, 4, 5, 6, 7, 8)); rc != 0 {
		t.Fatal("copy")
	}
	stream, rc := acl.CreateStream()
	if rc != 0 {
		t.Fatal("stream")
	}
	for i, s := range []float32{10, 0.5} {
		args := testArgs(t, in, out, n, s)
		if err := w.Launch([]int32{id0, id1}[i], args, stream); err != nil {
			t.Fatalf("launch %d: %v", i, err)
		}
		args.Wipe() // E-LAUNCH-ASYNC: the caller may wipe args at once
		if rc := acl.SynchronizeStream(stream); rc != 0 {
			t.Fatalf("sync: %d", rc)
		}
		got := make([]byte, 4*n)
		acl.CopyFromDevice(got, out)
		for j := range n {
			want := float32(j+1) + s
			if v := math.Float32frombits(binary.LittleEndian.Uint32(got[4*j:])); v != want {
				t.Fatalf("launch %d: out[%d] = %v, want %v", i, j, v, want)
			}
		}
		if c, _ := w.CommittedDeviceMemory(); c != committed {
			t.Errorf("committed moved across a launch: %d → %d", committed, c)
		}
	}
	_, err = w.DeviceMemoryInfo()
	wantCode(t, err, abi.InvalidState)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := rt.Inspect(ctx); ok || rt.LiveContexts() != 0 {
		t.Error("Close did not destroy the context")
	}
	_, err = w.PrepareCallable(img)
	wantCode(t, err, abi.InvalidState)
	wantCode(t, w.Launch(id0, testArgs(t, in, out, n, 1), stream), abi.InvalidState)
	if rt.InvalidHandleCalls() != 0 {
		t.Error("the worker used an invalid handle")
	}
	acl.DestroyStream(stream)
}

// §6.3 TestSimRuntime, §6.4 hbg_init_refused, C-ERR, C-SUPPORTED: on a
// refusing build the probe answers false, kernel Init is UNSUPPORTED, the
// worker stays uninitialized and Close is fine; program mode works there.
// (§6.1 test_unsupported_runtime_still_exports_lifecycle_symbols.)
func TestSimRefusingRuntime(t *testing.T) {
	lockThread(t)
	rt := newSim(t, sim.Refusing)
	w := simWorker(rt, Kernel, 0)
	if ok, err := w.ProbeKernelMode(); ok || err != nil {
		t.Fatalf("probe on refusing: %v %v", ok, err)
	}
	err := w.Init(InitConfig{Config: kernelConfig()})
	wantCode(t, err, abi.Unsupported)
	if !errors.Is(err, ErrUnsupported) {
		t.Error("not ErrUnsupported")
	}
	wantContains(t, err, "kernel mode")
	if w.Initialized() || w.KernelModeSupported() || rt.LiveContexts() != 0 {
		t.Error("a refused kernel Init left state behind")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	p := simWorker(rt, Program, 0)
	if err := p.Init(InitConfig{}); err != nil {
		t.Fatal(err)
	}
	if p.KernelModeSupported() {
		t.Error("program worker on a refusing build reads kernel-supported")
	}
	_, err = p.PrepareCallable(testImage(t))
	wantCode(t, err, abi.InvalidState) // C-MODE
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if !p.Initialized() && rt.LiveContexts() != 0 {
		t.Error("program Close left a context")
	}
}

// Program mode over sim (§6.1 test_supported_runtime_with_complete_lifecycle_symbols;
// C-MODE "committed device memory is available in both").
func TestSimProgramMode(t *testing.T) {
	lockThread(t)
	rt := newSim(t, sim.TMR)
	w := simWorker(rt, Program, 0)
	if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
		t.Fatal(err)
	}
	if !w.KernelModeSupported() {
		t.Error("program worker on tmr: supported false")
	}
	img := testImage(t)
	if err := w.RegisterCallable(3, img); err != nil {
		t.Fatal(err)
	}
	const n = 4
	in, err := w.DeviceMalloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.DeviceMalloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.CopyToDevice(in, f32bytes(1, 2, 3, 4)); err != nil {
		t.Fatal(err)
	}
	if err := w.Run(3, testArgs(t, in, out, n, 2), nil); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4*n)
	if err := w.CopyFromDevice(got, out); err != nil {
		t.Fatal(err)
	}
	if v := math.Float32frombits(binary.LittleEndian.Uint32(got[12:])); v != 6 {
		t.Errorf("out[3] = %v, want 6", v)
	}
	c, err := w.CommittedDeviceMemory()
	if err != nil || c != 8*n {
		t.Errorf("committed %d %v", c, err)
	}
	info, err := w.DeviceMemoryInfo()
	if err != nil || info.TotalBytes == 0 || info.FreeBytes != info.TotalBytes-8*n {
		t.Errorf("info %+v %v", info, err)
	}
	// A refused entry status is forwarded with its entry name.
	err = w.RegisterCallable(3, img)
	se := wantCode(t, err, abi.InvalidState)
	if se.Op != "simpler_register_callable" {
		t.Errorf("Op %q", se.Op)
	}
	if err := w.DeviceFree(in); err != nil {
		t.Fatal(err)
	}
	if err := w.UnregisterCallable(3); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if rt.LiveContexts() != 0 {
		t.Error("context left")
	}
}

// C-KINIT, C-OWED, K-7 over sim: a kernel init whose resource creation fails
// (site 1) is finalized first and then destroyed; when its rollback failed
// too (site 9) and the first release step of the worker's finalize fails
// (site 5), the worker owes a teardown: Init refuses with IS, and Close
// finalizes the rest and destroys. (§6.1
// test_init_failure_with_a_failed_teardown_owes_a_retry.)
func TestSimKernelInitFailureOwesTeardown(t *testing.T) {
	t.Run("clean rollback", func(t *testing.T) {
		lockThread(t)
		rt := newSim(t, sim.TMR, sim.Fault{Site: abi.SiteInitCreate, Count: 1, Code: -91})
		w := simWorker(rt, Kernel, 0)
		err := w.Init(InitConfig{Config: kernelConfig()})
		wantCode(t, err, -91)
		if w.TeardownOwed() || rt.LiveContexts() != 0 || rt.RefusedDestroys() != 0 {
			t.Fatal("a clean rollback left the context (or its destroy was refused: no finalize first)")
		}
		if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
			t.Fatalf("retry: %v", err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("failed teardown", func(t *testing.T) {
		lockThread(t)
		rt := newSim(t, sim.TMR,
			sim.Fault{Site: abi.SiteInitCreate, Count: 1, Code: -91},
			sim.Fault{Site: abi.SiteInitRollbackFails, Count: 1, Code: -95},
			sim.Fault{Site: abi.SiteFinalizeRelease, Count: 1, Code: -77})
		w := simWorker(rt, Kernel, 0)
		err := w.Init(InitConfig{Config: kernelConfig()})
		wantCode(t, err, -91)
		wantContains(t, err, "finalize_device failed with", "(-77)")
		if !w.TeardownOwed() || w.KernelModeSupported() {
			t.Fatal("not owed")
		}
		ctx := ctxOf(w)
		st, ok := rt.Inspect(ctx)
		if !ok || st.Phase != latch.Closing || st.LiveEvents == 0 {
			t.Fatalf("context not kept in Closing: %v %+v", ok, st)
		}
		wantCode(t, w.Init(InitConfig{Config: kernelConfig()}), abi.InvalidState)
		if err := w.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if _, ok := rt.Inspect(ctx); ok || rt.LiveContexts() != 0 {
			t.Error("Close did not finish the teardown")
		}
	})
}

// C-FIN over sim: a kernel teardown failure (site 5) is returned, keeps the
// context, its residents and the claim, and a retry finishes it.
// (§6.1 test_kernel_teardown_failure_is_raised_and_retriable.)
func TestSimKernelTeardownFailureIsRetriable(t *testing.T) {
	lockThread(t)
	rt := newSim(t, sim.TMR, sim.Fault{Site: abi.SiteFinalizeRelease, Count: 1, Code: -77})
	w := simWorker(rt, Kernel, 0)
	if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.PrepareCallable(testImage(t)); err != nil {
		t.Fatal(err)
	}
	ctx := ctxOf(w)
	err := w.Close()
	wantCode(t, err, -77)
	st, ok := rt.Inspect(ctx)
	if !ok || st.Phase != latch.Closing || !st.ClaimHeld || len(w.native.images) != 1 {
		t.Fatalf("not kept: %v %+v", ok, st)
	}
	if w.KernelModeSupported() {
		t.Error("supported after a failed teardown")
	}
	wantCode(t, w.Init(InitConfig{Config: kernelConfig()}), abi.InvalidState)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := rt.Inspect(ctx); ok {
		t.Error("retry did not destroy")
	}
}

// D-2 with C-KINIT: an Init on a thread without the device current is refused
// by the runtime after the latch (IS), so the worker finalizes first; that
// finalize is refused by the same device check, so the worker owes the
// teardown; once the caller makes the device current, Close completes it.
func TestSimInitWithoutCurrentDeviceOwesTeardown(t *testing.T) {
	lockThread(t)
	rt := newSim(t, sim.TMR)
	rt.ACL().SetDevice(5) // not the worker's device 0
	w := simWorker(rt, Kernel, 0)
	err := w.Init(InitConfig{Config: kernelConfig()})
	wantCode(t, err, abi.InvalidState)
	wantContains(t, err, "finalize_device failed with INVALID_STATE(-1003)")
	if !w.TeardownOwed() {
		t.Fatal("not owed")
	}
	err = w.Close() // still the wrong device
	wantCode(t, err, abi.InvalidState)
	rt.ACL().SetDevice(0)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if rt.LiveContexts() != 0 {
		t.Error("context left")
	}
}

// §6.4 second_worker_same_device: a rival kernel worker on a claimed device
// fails its Init (IS, E-CLAIM), finalizes and destroys its context; the owner
// keeps working; a successor initializes after the owner closed.
func TestSimSecondWorkerSameDevice(t *testing.T) {
	lockThread(t)
	rt := newSim(t, sim.TMR)
	owner := simWorker(rt, Kernel, 0)
	if err := owner.Init(InitConfig{Config: kernelConfig()}); err != nil {
		t.Fatal(err)
	}
	rival := simWorker(rt, Kernel, 0)
	err := rival.Init(InitConfig{Config: kernelConfig()})
	wantCode(t, err, abi.InvalidState)
	if rival.TeardownOwed() || rt.LiveContexts() != 1 {
		t.Fatal("the rival's context was not torn down")
	}
	if _, err := owner.PrepareCallable(testImage(t)); err != nil {
		t.Fatalf("owner: %v", err)
	}
	if err := owner.Close(); err != nil {
		t.Fatal(err)
	}
	succ := simWorker(rt, Kernel, 0)
	if err := succ.Init(InitConfig{Config: kernelConfig()}); err != nil {
		t.Fatalf("successor: %v", err)
	}
	if err := succ.Close(); err != nil {
		t.Fatal(err)
	}
	rival.Close()
}

// §6.4 launch_refusals, C-ID: an unknown id and a zero stream are refused
// by the worker, a signature-mismatched args by the runtime (IA, named
// simpler_kernel_mode_launch); nothing is enqueued; a valid launch then works.
func TestSimLaunchRefusals(t *testing.T) {
	lockThread(t)
	rt := newSim(t, sim.TMR)
	w := simWorker(rt, Kernel, 0)
	if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	id, err := w.PrepareCallable(testImage(t))
	if err != nil {
		t.Fatal(err)
	}
	in, _ := rt.ACL().Malloc(16)
	out, _ := rt.ACL().Malloc(16)
	good := testArgs(t, in, out, 4, 1)
	wantCode(t, w.Launch(id+1, good, 7), abi.InvalidArgument)
	wantCode(t, w.Launch(id, good, 0), abi.InvalidArgument)
	bad := abi.NewTaskArgs() // 0 tensors, 0 scalars: the signature wants 2 + 1
	err = w.Launch(id, bad, 7)
	se := wantCode(t, err, abi.InvalidArgument)
	if se.Op != "simpler_kernel_mode_launch" {
		t.Errorf("Op %q", se.Op)
	}
	wantContains(t, err, "simpler_kernel_mode_launch failed")
	if rt.PendingLaunches(7) != 0 {
		t.Fatal("a refused launch was enqueued")
	}
	if err := w.Launch(id, good, 7); err != nil {
		t.Fatal(err)
	}
	if rt.PendingLaunches(7) != 1 {
		t.Error("valid launch not enqueued")
	}
	rt.SimSyncStream(7)
}

// C-GATE over sim: a prepare parked inside the runtime (simabi_hold_gate)
// holds the worker's gate; a launch meanwhile fails fast with IS while the
// prepare is still parked, and a later launch succeeds. The prepare is
// released by the test, not by a timer, so a loaded machine cannot let it
// finish before the launch. (§6.3 TestKernelGate, first case.)
func TestSimLaunchDuringBlockedPrepare(t *testing.T) {
	lockThread(t)
	rt := newSim(t, sim.TMR)
	w := simWorker(rt, Kernel, 0)
	if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	id, err := w.PrepareCallable(testImage(t))
	if err != nil {
		t.Fatal(err)
	}
	if st := rt.SimHoldGate(w.ctx, 1); st != abi.OK {
		t.Fatalf("SimHoldGate: %v", st)
	}
	in, _ := rt.ACL().Malloc(16)
	out, _ := rt.ACL().Malloc(16)
	args := testArgs(t, in, out, 4, 1)
	// The launch comes from another thread while the prepare, on the
	// worker's thread (C-THREAD), is parked; then that thread releases it.
	var returned atomic.Bool
	type launched struct {
		err      error
		parked   bool // the prepare was still parked when the launch returned
		launched bool
	}
	res := make(chan launched, 1)
	go func() {
		for rt.SimGateState(w.ctx)&abi.GateParked == 0 {
			if returned.Load() {
				res <- launched{}
				return
			}
			runtime.Gosched()
		}
		// A launch that waits on the worker's gate instead of failing fast
		// would wait for ever: seen waiting, the prepare is released.
		var done atomic.Bool
		go func() {
			for !done.Load() {
				if w.gate.waiters.Load() > 0 {
					rt.SimHoldGate(w.ctx, 0)
					return
				}
				runtime.Gosched()
			}
		}()
		err := w.Launch(id, args, 9)
		done.Store(true)
		parked := rt.SimGateState(w.ctx)&abi.GateParked != 0
		rt.SimHoldGate(w.ctx, 0)
		res <- launched{err, parked, true}
	}()
	_, perr := w.PrepareCallable(testImage(t))
	returned.Store(true)
	l := <-res
	if perr != nil || !l.launched {
		t.Fatalf("the prepare returned (%v) without parking", perr)
	}
	err, parked := l.err, l.parked
	wantCode(t, err, abi.InvalidState)
	wantContains(t, err, "gate")
	if !parked {
		t.Error("the launch returned after the prepare was released: it waited for the gate")
	}
	if err := w.Launch(id, args, 9); err != nil {
		t.Fatalf("later launch: %v", err)
	}
	rt.SimSyncStream(9)
}
