package tests

import (
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// controlBackends opens one fresh instance per backend: sim, and the
// emitted runtime through onboard.
func controlBackends(t *testing.T, p profileSet) map[string]opener {
	out := map[string]opener{
		"sim": func() (conformance.Target, func(), error) { return target.SimTarget(p.sim), nil, nil },
	}
	a := emittest.Build(t, emit.Config{Profile: p.emit})
	e, err := newEmittedRuntime(a)
	if err != nil {
		t.Fatal(err)
	}
	out["emitted"] = e.open
	return out
}

// onThread runs f on a new goroutine locked to its own OS thread with dev
// as its current device, and returns a channel closed when f returned.
func onThread(h abi.SimHooks, dev int32, f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		h.SimSetCurrentDevice(dev)
		f()
		h.SimSetCurrentDevice(-1)
	}()
	return done
}

// until polls the gate state of ctx until want (the state is the runtime's;
// nothing here waits on a clock to reach it). It fails t after a minute.
func until(t *testing.T, c abi.SimControl, ctx abi.Ctx, want int32) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for c.SimGateState(ctx) != want {
		if time.Now().After(deadline) {
			t.Fatalf("gate state %d, waited for %d", c.SimGateState(ctx), want)
		}
		runtime.Gosched()
	}
}

// through the control hooks, on both backends: a prepare parked
// holding the gate (simabi_hold_gate) makes a launch fail at once with
// INVALID_STATE, and a second prepare wait (simabi_gate_state counts it);
// released, both prepares succeed with the next two dense ids (M-1).
// NULL and a hold other than 0 or 1 are INVALID_ARGUMENT; NULL's state is 0.
func TestControlHoldGate_X2_parkedPrepare(t *testing.T) {
	for name, open := range controlBackends(t, profiles[0]) {
		t.Run(name, func(t *testing.T) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			tg, release, err := open()
			if err != nil {
				t.Fatal(err)
			}
			if release != nil {
				defer release()
			}
			rt := tg.Runtime()
			h, _ := tg.Hooks()
			c, ok := tg.(conformance.ControlTarget).Control()
			if !ok {
				t.Fatal("no control hooks")
			}
			h.SimSetCurrentDevice(0)
			defer h.SimSetCurrentDevice(-1)
			ctx := rt.CreateDeviceContext()
			cfg := abi.AlignedBytes(abi.CallConfigSize, 8)
			img1, img2, img3 := emittest.Image("a"), emittest.Image("b"), emittest.Image("c")
			args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			id0 := int32(-2)
			if st := rt.KernelModeInit(ctx, 0, nil, 0, nil, 0, nil, 0, abi.Ptr(cfg), 1); st != abi.OK {
				t.Fatalf("kernel init = %v", st)
			}
			if st := rt.KernelModePrepareCallable(ctx, abi.Ptr(img1), uintptr(len(img1)), &id0); st != abi.OK || id0 != 0 {
				t.Fatalf("prepare = %v, id %d", st, id0)
			}
			bad := []string{
				fmt.Sprint(c.SimHoldGate(0, 1)), fmt.Sprint(c.SimHoldGate(ctx, 2)), fmt.Sprint(c.SimHoldGate(ctx, -1)),
				fmt.Sprint(c.SimGateState(0)), fmt.Sprint(c.SimGateState(ctx)),
			}
			if d := cmp.Diff([]string{"INVALID_ARGUMENT(-1004)", "INVALID_ARGUMENT(-1004)", "INVALID_ARGUMENT(-1004)", "0", "0"}, bad); d != "" {
				t.Fatalf("argument checks (-want +got):\n%s", d)
			}
			if st := c.SimHoldGate(ctx, 1); st != abi.OK {
				t.Fatalf("hold = %v", st)
			}
			var st1, st2 abi.Status
			out1, out2 := int32(-2), int32(-2)
			first := onThread(h, 0, func() { st1 = rt.KernelModePrepareCallable(ctx, abi.Ptr(img2), uintptr(len(img2)), &out1) })
			until(t, c, ctx, abi.GateParked)
			if st := rt.KernelModeLaunch(ctx, 0, args.Pointer(), abi.Stream(0x5a00)); st != abi.InvalidState {
				t.Errorf("launch while a prepare holds the gate = %v, want INVALID_STATE at once (X-2)", st)
			}
			second := onThread(h, 0, func() { st2 = rt.KernelModePrepareCallable(ctx, abi.Ptr(img3), uintptr(len(img3)), &out2) })
			until(t, c, ctx, abi.GateParked+abi.GateWaiter)
			if st := c.SimHoldGate(ctx, 0); st != abi.OK {
				t.Fatalf("release = %v", st)
			}
			<-first
			<-second
			got := fmt.Sprintf("%v %d, %v %d, state %d", st1, out1, st2, out2, c.SimGateState(ctx))
			if want := "OK(0) 1, OK(0) 2, state 0"; got != want {
				t.Errorf("the parked prepare and the one that waited: %s, want %s (X-1: dense ids)", got, want)
			}
			// Disarmed: the next prepare does not park.
			if st := c.SimHoldGate(ctx, 1); st != abi.OK {
				t.Fatal(st)
			}
			if st := c.SimHoldGate(ctx, 0); st != abi.OK {
				t.Fatal(st)
			}
			id := int32(-2)
			if st := rt.KernelModePrepareCallable(ctx, abi.Ptr(img1), uintptr(len(img1)), &id); st != abi.OK || id != 3 {
				t.Errorf("prepare after a disarmed hold = %v, id %d; want OK, 3", st, id)
			}
			if st := rt.FinalizeDevice(ctx); st != abi.OK {
				t.Fatalf("finalize = %v", st)
			}
			rt.DestroyDeviceContext(ctx)
		})
	}
}

// simabi_reset (docs/contract.md F-1), on both backends and both profiles:
// every directed check of the catalogue gives the same history on an
// instance that ran a random sequence and was reset as on a fresh instance.
// The random sequences leave contexts live, claims held, faults armed and
// work queued.
func TestControlReset_indistinguishableFromAFreshLoad(t *testing.T) {
	for _, p := range profiles {
		for name, open := range controlBackends(t, p) {
			t.Run(p.name+"/"+name, func(t *testing.T) {
				used, release, err := open()
				if err != nil {
					t.Fatal(err)
				}
				if release != nil {
					defer release()
				}
				ctl, ok := used.(conformance.ControlTarget).Control()
				if !ok {
					t.Fatal("no control hooks")
				}
				caps := conformance.CapsOf(used) &^ catalogue.CapUnload
				checks := 0
				for i, c := range catalogue.Checks() {
					if c.Needs&^caps != 0 || !appliesTo(c, p.model) {
						continue
					}
					checks++
					fresh, err := runChecked(open, c.Ops())
					if err != nil {
						t.Fatal(err)
					}
					dirt := conformance.Generate(conformance.GenOptions{Seed: uint64(i + 1), Ops: 60, Caps: caps, Profile: p.model})
					r := conformance.NewRunner(used, conformance.Options{})
					r.Run(dirt)
					r.Close()
					if st := ctl.SimReset(); st != abi.OK {
						t.Fatalf("reset = %v", st)
					}
					r = conformance.NewRunner(used, conformance.Options{})
					reused := r.Run(c.Ops())
					r.Close()
					if d := conformance.Diff(fresh.History, reused.History); d != "" {
						t.Errorf("%s: a reset instance answers otherwise than a fresh one (- fresh, + reset):\n%s\nafter:\n%s",
							c.Name, d, op.FormatOps(dirt))
					}
				}
				if checks < 10 {
					t.Fatalf("only %d directed checks ran", checks)
				}
				t.Logf("%d directed checks: a reset instance answered as a fresh one", checks)
			})
		}
	}
}

// appliesTo reports whether check c runs on profile p.
func appliesTo(c catalogue.Check, p model.Profile) bool {
	if c.Profiles == nil {
		return p == model.ProfileTMR || p == model.ProfileRefusing
	}
	for _, q := range c.Profiles {
		if q == p {
			return true
		}
	}
	return false
}
