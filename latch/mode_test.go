package latch_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestModeNamesAndWire(t *testing.T) {
	cases := []struct {
		m    latch.Mode
		name string
		wire int32
	}{
		{latch.Unlatched, "UNLATCHED", -1},
		{latch.Program, "PROGRAM", 0}, // SIMPLER_MODE_PROGRAM
		{latch.Kernel, "KERNEL", 1},   // SIMPLER_MODE_KERNEL
	}
	for _, c := range cases {
		if c.m.String() != c.name || c.m.Wire() != c.wire {
			t.Errorf("%d: %q %d, want %q %d", c.m, c.m.String(), c.m.Wire(), c.name, c.wire)
		}
	}
}

// L-1 (§14.1 StartsUnlatched): a new latch reports neither latched nor kernel.
func TestL1StartsUnlatched(t *testing.T) {
	var l latch.ModeLatch
	if l.Latched() || l.IsKernel() || l.IsProgram() || l.Mode() != latch.Unlatched {
		t.Errorf("L-1: new latch %v latched=%v kernel=%v program=%v", l.Mode(), l.Latched(), l.IsKernel(), l.IsProgram())
	}
}

// L-2 (§14.1 LatchingIsIdempotentForTheHeldMode): latching PROGRAM twice
// succeeds and reads back PROGRAM, not kernel; the same for KERNEL.
func TestL2LatchingIsIdempotentForTheHeldMode(t *testing.T) {
	for _, m := range []latch.Mode{latch.Program, latch.Kernel} {
		var l latch.ModeLatch
		for i := range 3 {
			if st := l.Latch(m); st != abi.OK {
				t.Errorf("L-2: latch %v #%d = %v", m, i, st)
			}
		}
		if l.Mode() != m || !l.Latched() || l.IsKernel() != (m == latch.Kernel) || l.IsProgram() != (m == latch.Program) {
			t.Errorf("L-2: after latching %v: mode %v kernel=%v program=%v", m, l.Mode(), l.IsKernel(), l.IsProgram())
		}
	}
}

// L-2 (§14.1 ModesAreMutuallyExclusiveInBothDirections): the other mode is
// INVALID_STATE and the held mode is kept.
func TestL2ModesAreMutuallyExclusiveInBothDirections(t *testing.T) {
	for _, dir := range [][2]latch.Mode{{latch.Program, latch.Kernel}, {latch.Kernel, latch.Program}} {
		var l latch.ModeLatch
		if st := l.Latch(dir[0]); st != abi.OK {
			t.Fatalf("latch %v = %v", dir[0], st)
		}
		if st := l.Latch(dir[1]); st != abi.InvalidState {
			t.Errorf("L-2: %v then %v = %v, want INVALID_STATE", dir[0], dir[1], st)
		}
		if l.Mode() != dir[0] {
			t.Errorf("L-2: a refused latch changed the mode to %v", l.Mode())
		}
		if st := l.Latch(dir[0]); st != abi.OK {
			t.Errorf("L-2: re-latching the held mode after a refusal = %v", st)
		}
	}
}

// L-3 (§14.1 SameModeRelatchesAfterAFinalizedLifetime): nothing unlatches, so
// after a lifetime (init, failures, finalize: none of which touch the latch)
// the held mode latches again and the other one is still refused.
func TestL3SameModeRelatchesAfterAFinalizedLifetime(t *testing.T) {
	for _, m := range []latch.Mode{latch.Program, latch.Kernel} {
		other := latch.Program
		if m == latch.Program {
			other = latch.Kernel
		}
		var l latch.ModeLatch
		l.Latch(m)
		// A kernel lifetime that fails and closes: the phase machine moves,
		// the latch does not.
		var k latch.Machine
		k.Fire(latch.EvInit, 0)
		k.Fire(latch.EvInitRolledBack, abi.Internal)
		k.Fire(latch.EvClose, 0)
		if l.Mode() != m {
			t.Errorf("L-3: mode %v after a lifetime, want %v", l.Mode(), m)
		}
		if st := l.Latch(m); st != abi.OK {
			t.Errorf("L-3: relatch %v = %v", m, st)
		}
		if st := l.Latch(other); st != abi.InvalidState {
			t.Errorf("L-3: switching to %v after a lifetime = %v", other, st)
		}
	}
}

// Latching "unlatched" is not a mode: refused, and it cannot clear a latch
// (L-3).
func TestL3LatchUnlatchedIsRefused(t *testing.T) {
	var l latch.ModeLatch
	if st := l.Latch(latch.Unlatched); st != abi.InvalidArgument || l.Latched() {
		t.Errorf("Latch(Unlatched) on a fresh latch = %v, latched %v", st, l.Latched())
	}
	l.Latch(latch.Kernel)
	for _, m := range []latch.Mode{latch.Unlatched, latch.Mode(3), latch.Mode(^uint32(0))} {
		if st := l.Latch(m); st != abi.InvalidArgument || l.Mode() != latch.Kernel {
			t.Errorf("L-3: Latch(%d) = %v, mode now %v", m, st, l.Mode())
		}
	}
}

// X-1 / L-2 under -race: many goroutines race PROGRAM against KERNEL on one
// latch; exactly one mode wins, every latcher of that mode gets OK and every
// latcher of the other gets INVALID_STATE.
func TestL2ConcurrentLatching(t *testing.T) {
	const perMode = 64
	for round := range 50 {
		var l latch.ModeLatch
		var start sync.WaitGroup
		start.Add(1)
		var wg sync.WaitGroup
		results := make([]abi.Status, 2*perMode)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				m := latch.Program
				if i%2 == 1 {
					m = latch.Kernel
				}
				start.Wait()
				if i%7 == 0 {
					runtime.Gosched()
				}
				results[i] = l.Latch(m)
			}()
		}
		start.Done()
		wg.Wait()
		won := l.Mode()
		if won != latch.Program && won != latch.Kernel {
			t.Fatalf("round %d: no mode latched (%v)", round, won)
		}
		for i, st := range results {
			m := latch.Program
			if i%2 == 1 {
				m = latch.Kernel
			}
			want := abi.InvalidState
			if m == won {
				want = abi.OK
			}
			if st != want {
				t.Fatalf("round %d: %v latcher %d got %v, want %v (winner %v)", round, m, i, st, want, won)
			}
		}
	}
}

// E-CLAIM / X-1: one claimant per device; the holder may claim again; release
// by a non-holder does nothing; a released device can be claimed anew.
func TestClaimRegistry(t *testing.T) {
	var r latch.ClaimRegistry
	if _, ok := r.Holder(0); ok {
		t.Error("empty registry has a holder")
	}
	r.Release(0, 1) // nothing held: no effect, no panic
	if !r.Claim(0, 1) {
		t.Error("first claim refused")
	}
	if !r.Claim(0, 1) {
		t.Error("the holder's repeated claim refused")
	}
	if r.Claim(0, 2) {
		t.Error("second claimant of device 0 accepted")
	}
	if !r.Claim(1, 2) {
		t.Error("device 1 refused to a new owner")
	}
	r.Release(0, 2)
	if h, ok := r.Holder(0); !ok || h != 1 {
		t.Errorf("release by a non-holder dropped the claim: %v %v", h, ok)
	}
	r.Release(0, 1)
	if _, ok := r.Holder(0); ok {
		t.Error("holder's release kept the claim")
	}
	if !r.Claim(0, 2) {
		t.Error("released device refused")
	}
	if !r.Claim(-1, 3) {
		t.Error("device ids are keys, any value")
	}
}

// X-1 under -race: many owners race for each of several devices; exactly one
// wins per device, and the holder is that winner.
func TestClaimRegistryConcurrent(t *testing.T) {
	const devices, owners = 8, 32
	var r latch.ClaimRegistry
	var wins [devices]atomic.Int32
	var winner [devices]atomic.Uintptr
	var wg sync.WaitGroup
	for d := range devices {
		for o := 1; o <= owners; o++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if r.Claim(int32(d), uintptr(o)) {
					wins[d].Add(1)
					winner[d].Store(uintptr(o))
				}
				_, _ = r.Holder(int32(d))
				r.Release(int32(d), uintptr(1000+o)) // never a holder
			}()
		}
	}
	wg.Wait()
	for d := range devices {
		if n := wins[d].Load(); n != 1 {
			t.Errorf("device %d: %d winners", d, n)
		}
		if h, ok := r.Holder(int32(d)); !ok || h != winner[d].Load() {
			t.Errorf("device %d: holder %v %v, winner %v", d, h, ok, winner[d].Load())
		}
	}
	// Release and re-claim races: at any time at most one holder.
	var holders atomic.Int32
	var bad atomic.Bool
	for o := 1; o <= owners; o++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if r.Claim(100, uintptr(o)) {
					if holders.Add(1) != 1 {
						bad.Store(true)
					}
					holders.Add(-1)
					r.Release(100, uintptr(o))
				}
			}
		}()
	}
	wg.Wait()
	if bad.Load() {
		t.Error("two owners held device 100 at once")
	}
}
