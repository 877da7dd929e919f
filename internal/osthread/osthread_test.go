package osthread

import (
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestMain keeps the main goroutine locked to the process's main thread
// while the tests run, so no test goroutine lands on it: Go never ends the
// main thread (it wedges it when a locked goroutine exits there), and the
// tests below need the threads they end to end.
func TestMain(m *testing.M) {
	runtime.LockOSThread()
	os.Exit(m.Run())
}

// onLockedThread runs f on a new goroutine locked to its own OS thread and
// waits for it; with exit set the goroutine returns still locked, which ends
// its thread.
func onLockedThread(exit bool, f func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		if !exit {
			defer runtime.UnlockOSThread()
		}
		defer close(done)
		f()
	}()
	<-done
}

func TestIDStableOnLockedThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, ta := ID(), TID()
	for range 1000 {
		runtime.Gosched()
		if b, tb := ID(), TID(); b != a || tb != ta {
			t.Fatalf("identity changed on a locked thread: (%#x, %d) then (%#x, %d)", a, ta, b, tb)
		}
	}
}

// D-2, C-THREAD: threads alive at the same time have distinct IDs and
// distinct TIDs, each TID is alive, and the two map one-to-one.
func TestIdentityDistinctAcrossLiveThreads(t *testing.T) {
	const n = 8
	var wg sync.WaitGroup
	ids := make([]uint64, n)
	tids := make([]int, n)
	alive := make([]bool, n)
	release := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ids[i], tids[i] = ID(), TID()
			alive[i] = Alive(tids[i])
			wg.Done()
			<-release // keep every thread alive until all have reported
		}()
	}
	wg.Wait()
	close(release)
	byID, byTID := map[uint64]int{}, map[int]int{}
	for i := range n {
		if other, ok := byID[ids[i]]; ok {
			t.Fatalf("threads %d and %d share ID %#x", tids[other], tids[i], ids[i])
		}
		if other, ok := byTID[tids[i]]; ok {
			t.Fatalf("live threads %d and %d share TID %d", other, i, tids[i])
		}
		if !alive[i] {
			t.Fatalf("Alive(%d) is false on the live thread itself", tids[i])
		}
		byID[ids[i]], byTID[tids[i]] = i, i
	}
}

// C-THREAD: a thread that exited is reported gone, and no later thread
// inherits its kernel thread id: a dead thread is never mistaken for a live
// one by IsExact, even when a new thread reuses its cheap ID.
func TestExitedThreadIsGoneAndItsTIDNotInherited(t *testing.T) {
	var dead []Thread
	for len(dead) < 20 {
		var th Thread
		onLockedThread(true, func() { th = Current() })
		if th.TID == os.Getpid() {
			// The goroutine ran on the main thread, which Go parks for good
			// rather than end (the runner's locked threads skip it too).
			continue
		}
		if !WaitGone(th.TID, 10*time.Second) {
			t.Fatalf("thread %d still alive 10s after its locked goroutine returned", th.TID)
		}
		if Alive(th.TID) {
			t.Fatalf("Alive(%d) after WaitGone reported it gone", th.TID)
		}
		dead = append(dead, th)
	}
	reusedID := 0
	onLockedThread(false, func() {
		me := TID()
		for _, d := range dead {
			if d.TID == me {
				t.Errorf("a new thread got the kernel thread id %d of a dead thread", me)
			}
			if d.IsExact() {
				t.Errorf("IsExact of dead thread %+v holds on a new thread", d)
			}
			if d.Is() {
				reusedID++
			}
		}
	})
	t.Logf("%d of %d dead threads' cheap IDs were reused by the new thread (allowed; fast path %v)", reusedID, len(dead), FastPath())
}

func TestAliveOfNoThread(t *testing.T) {
	for _, tid := range []int{0, -1} {
		if Alive(tid) {
			t.Errorf("Alive(%d) = true", tid)
		}
	}
	if !WaitGone(0, 0) {
		t.Error("WaitGone(0) = false")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if me := TID(); !Alive(me) || WaitGone(me, time.Millisecond) {
		t.Errorf("the calling thread %d is not alive", me)
	}
}

// A thread that reuses a dead thread's ID is told apart by IsExact.
func TestThreadIsExactOnlyOnItself(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	me := Current()
	if !me.Is() || !me.IsExact() {
		t.Fatalf("Current() not recognized on its own thread: %+v", me)
	}
	forged := Thread{ID: me.ID, TID: me.TID + 1} // same ID, another kernel thread
	if !forged.Is() || forged.IsExact() {
		t.Fatalf("IsExact must compare the kernel thread id: Is=%v IsExact=%v", forged.Is(), forged.IsExact())
	}
	var other Thread
	onLockedThread(false, func() { other = Current() })
	if other.ID == me.ID || other.TID == me.TID {
		t.Fatalf("two live threads share an identity: %+v and %+v", me, other)
	}
}

func BenchmarkID(b *testing.B) {
	b.ReportAllocs()
	b.Logf("fast path: %v", FastPath())
	for b.Loop() {
		_ = ID()
	}
}

func BenchmarkTID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = TID()
	}
}

// TID allocates nothing: the simulator's device check (E-LAUNCH: launch
// allocates nothing) calls it on every launch.
func TestTIDAllocatesNothing(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = TID(); _ = ID() }); n != 0 {
		t.Fatalf("TID and ID: %v allocs per call, want 0", n)
	}
}
