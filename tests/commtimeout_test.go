package tests

import (
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim"
)

// simabi_comm_timeout_ms (docs/contract.md F-1), on both backends: it
// returns the bound in force before it (the build's 120000 ms first), ms <= 0
// only reads it, a set bound ends a wait for a peer that never comes
// (E-COMM.21: comm_barrier of a rank of two answers -1) within it and not
// at 120 s, and simabi_reset gives the build's bound back.
func TestCommTimeoutHook_setsReadsAndResets(t *testing.T) {
	for name, open := range controlBackends(t, profiles[0]) {
		t.Run(name, func(t *testing.T) {
			tg, release, err := open()
			if err != nil {
				t.Fatal(err)
			}
			if release != nil {
				defer release()
			}
			if !conformance.CapsOf(tg).Has(catalogue.CapCommTimeout) {
				t.Fatal("no CapCommTimeout: the hook did not resolve")
			}
			hook, _ := tg.(conformance.CommTimeoutTarget).CommTimeout()
			ctl, _ := tg.(conformance.ControlTarget).Control()
			var got []int32
			got = append(got, hook.SimCommTimeoutMs(0), hook.SimCommTimeoutMs(-5), hook.SimCommTimeoutMs(20), hook.SimCommTimeoutMs(0), hook.SimCommTimeoutMs(7))
			rt := tg.Runtime()
			path := []byte("/simabi/tests/commtimeout/" + name + "\x00")
			h0 := rt.CommInit(0, 2, 0, unsafe.Pointer(&path[0]))
			h1 := rt.CommInit(1, 2, 0, unsafe.Pointer(&path[0]))
			var ctx uint64
			first := rt.CommAllocWindows(h0, 64, &ctx) // its peer has not come: -1 at the bound (E-COMM.9)
			second := rt.CommAllocWindows(h1, 64, &ctx)
			start := time.Now()
			barrier := rt.CommBarrier(h0)
			took := time.Since(start)
			rt.CommDestroy(h0)
			rt.CommDestroy(h1)
			if st := ctl.SimReset(); st != abi.OK {
				t.Fatalf("reset = %v", st)
			}
			got = append(got, hook.SimCommTimeoutMs(0))
			if d := cmp.Diff([]int32{120000, 120000, 120000, 20, 20, 120000}, got); d != "" {
				t.Errorf("the bounds returned (-want +got):\n%s", d)
			}
			if first != -1 || second != abi.OK || barrier != -1 {
				t.Errorf("calloc of rank 0 = %d, of rank 1 = %d, barrier of rank 0 alone = %d; want -1, 0, -1", first, second, barrier)
			}
			if took > 5*time.Second {
				t.Errorf("the barrier gave up after %v under a 7 ms bound", took)
			}
		})
	}
}

// The runner gives the runtime its own bound back at the end of every run
// (docs/abicheck.md, "Timeouts"), with or without its cleanup, so that no
// later run meets a short one; and a run that sets a short bound holds a
// lone rank's barrier to E-COMM.21 (-1) with no finding.
func TestCommTimeout_runnerRestoresTheBound(t *testing.T) {
	script := "ctimeout ms=3\ncinit h0 rank=0 nranks=2 path=p0\ncinit h1 rank=1 nranks=2 path=p0\ncalloc h0 win=64\ncalloc h1 win=64\ncbarrier h0\n"
	ops, err := op.ParseScript(script)
	if err != nil {
		t.Fatal(err)
	}
	for _, noCleanup := range []bool{false, true} {
		tg := target.SimTarget(sim.TMR)
		r := conformance.NewRunner(tg, conformance.Options{NoCleanup: noCleanup})
		res := r.Run(ops)
		r.Close()
		if res.Failed() {
			t.Fatalf("NoCleanup=%v: the run failed:\n%s", noCleanup, res.History.String())
		}
		var got []string
		for _, e := range res.History.Entries[3:] {
			got = append(got, e.Op.String()+" -> "+strconv.Itoa(int(e.Obs.Call.Status)))
		}
		want := []string{"calloc h0 win=64 -> -1", "calloc h1 win=64 -> 0", "cbarrier h0 -> -1"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("NoCleanup=%v: the calls (-want +got):\n%s", noCleanup, d)
		}
		if b := tg.SimTimeout.SimCommTimeoutMs(0); b != 120000 {
			t.Errorf("NoCleanup=%v: after the run the bound is %d ms, want the build's 120000", noCleanup, b)
		}
	}
}
