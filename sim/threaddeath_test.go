package sim

import (
	"runtime"
	"testing"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/internal/osthread"
)

// waitThreadExit waits (up to 200 ms) until the OS thread tid of this process is
// gone, so the next thread the runtime starts may reuse its memory.
func waitThreadExit(tid int) {
	osthread.WaitGone(tid, 200*time.Millisecond) // a wedged main thread never exits
}

// TestDeadThreadDeviceNotInherited is D-2 across thread deaths: a goroutine
// that locks its thread, sets device 0 and exits still locked takes its OS
// thread with it (Go terminates it). A new thread must not inherit that
// thread's current device, even when it reuses the dead thread's memory (and
// so its FS base): a new locked goroutine that never set a device launches
// on the context with INVALID_STATE, every round. With the FS base as the
// thread key this launched OK in most rounds.
func TestDeadThreadDeviceNotInherited(t *testing.T) {
	for _, id := range []ThreadIdentity{ThreadIdentityAuto, ThreadIdentityGettid} {
		t.Run(id.String(), func(t *testing.T) {
			r := New(TMR, Options{ThreadIdentity: id})
			var ctx abi.Ctx
			const rounds = 50
			bad := 0
			for i := 0; i < rounds; i++ {
				type setup struct {
					tid int
					err string
				}
				done := make(chan setup)
				go func() {
					runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
					s := setup{tid: osthread.TID()}
					if st := r.ACL().SetDevice(0); st != 0 {
						s.err = "SetDevice failed"
					} else if i == 0 {
						ctx = r.CreateDeviceContext()
						if st := kinit(r, ctx, 0, configBytes(), 1); st != okS {
							s.err = "kinit: " + st.String()
						} else if _, st := prepare(r, ctx, noopImage(t, 0)); st != okS {
							s.err = "prepare: " + st.String()
						}
					}
					done <- s
				}()
				s := <-done
				if s.err != "" {
					t.Fatal(s.err)
				}
				waitThreadExit(s.tid)
				res := make(chan [2]abi.Status)
				go func() {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					res <- [2]abi.Status{abi.Status(r.SimCurrentDevice()), launch(r, ctx, 0, emptyArgs(), streamA)}
				}()
				if got := <-res; got != [2]abi.Status{-1, isS} {
					bad++
					t.Errorf("round %d: a new thread that never set a device got (device, launch) = %v, want (-1, IS)", i, got)
				}
			}
			if bad > 0 {
				t.Logf("%d of %d rounds inherited a dead thread's device", bad, rounds)
			}
			setDevice(t, r, 0)
			r.SimSyncStream(streamA)
			want(t, "finalize", r.FinalizeDevice(ctx), okS)
		})
	}
}

// TestDeviceTableRemovesEntries: a thread that sets device none (the hook
// with -1, or the caller's ResetDevice of its current device) has no entry
// left in the device table (D-2).
func TestDeviceTableRemovesEntries(t *testing.T) {
	r := newTMR(t)
	lockThread(t)
	steps := []struct {
		name    string
		do      func()
		entries int
	}{
		{"SetDevice(0)", func() { r.ACL().SetDevice(0) }, 1},
		{"hook(-1)", func() { r.SimSetCurrentDevice(-1) }, 0},
		{"hook(-1) again", func() { r.SimSetCurrentDevice(-1) }, 0},
		{"SetDevice(3)", func() { r.ACL().SetDevice(3) }, 1},
		{"SetDevice(4)", func() { r.ACL().SetDevice(4) }, 1},
		{"ResetDevice(4)", func() { r.ACL().ResetDevice(4) }, 0},
	}
	for _, s := range steps {
		s.do()
		if got := r.devs.entries(); got != s.entries {
			t.Fatalf("after %s: %d device-table entries, want %d", s.name, got, s.entries)
		}
	}
}

// TestDeviceTableSweepsDeadThreads: entries of threads that exited are
// dropped when the table doubles, so threads that set a device and die do
// not grow it without bound (D-2, gettid keys).
func TestDeviceTableSweepsDeadThreads(t *testing.T) {
	r := newTMR(t)
	for i := 0; i < 3*minSweepAt; i++ {
		done := make(chan int)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
			r.ACL().SetDevice(int32(i % 4))
			done <- osthread.TID()
		}()
		waitThreadExit(<-done)
	}
	if got := r.devs.entries(); got > minSweepAt {
		t.Fatalf("%d device-table entries after %d threads set a device and exited, want <= %d", got, 3*minSweepAt, minSweepAt)
	}
}

// bytesAllocated runs f and returns the bytes it allocated.
func bytesAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDeviceTableUpdateIsO1: one more thread's entry costs O(1), not a copy
// of the table, for thread ids and for wide (FS base) keys alike.
func TestDeviceTableUpdateIsO1(t *testing.T) {
	const warm, measured = 20000, 1000
	for _, tc := range []struct {
		name string
		key  func(i int) uintptr
	}{
		{"tid", func(i int) uintptr { return uintptr(1000 + i) }},
		{"wide", func(i int) uintptr { return uintptr(1<<30 + 0x800*i) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tb deviceTable
			for i := 0; i < warm; i++ {
				tb.set(tc.key(i), int32(i%8))
			}
			n := bytesAllocated(func() {
				for i := warm; i < warm+measured; i++ {
					tb.set(tc.key(i), int32(i%8))
				}
			})
			if per := n / measured; per > 2048 {
				t.Fatalf("an update with %d entries allocates %d bytes on average, want O(1) (<= 2048)", warm, per)
			}
			for i := 0; i < warm+measured; i += 997 {
				if got := tb.get(tc.key(i)); got != int32(i%8) {
					t.Fatalf("key %d: device %d, want %d", i, got, i%8)
				}
				tb.set(tc.key(i), -1)
				if got := tb.get(tc.key(i)); got != -1 {
					t.Fatalf("key %d after clearing: device %d", i, got)
				}
			}
		})
	}
}
