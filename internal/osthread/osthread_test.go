package osthread

import (
	"runtime"
	"sync"
	"syscall"
	"testing"
)

func TestIDStableOnLockedThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a := ID()
	for range 1000 {
		runtime.Gosched()
		if b := ID(); b != a {
			t.Fatalf("ID changed on a locked thread: %#x then %#x", a, b)
		}
	}
}

// IDs of threads alive at the same time differ, and map one-to-one onto tids.
func TestIDDistinctAcrossLiveThreads(t *testing.T) {
	const n = 8
	var wg sync.WaitGroup
	ids := make([]uint64, n)
	tids := make([]int, n)
	release := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ids[i], tids[i] = ID(), syscall.Gettid()
			wg.Done()
			<-release // keep every thread alive until all have reported
		}()
	}
	wg.Wait()
	close(release)
	byID := map[uint64]int{}
	for i := range n {
		if other, ok := byID[ids[i]]; ok && tids[other] != tids[i] {
			t.Fatalf("threads %d and %d share ID %#x", tids[other], tids[i], ids[i])
		}
		byID[ids[i]] = i
	}
	if len(byID) != n {
		t.Fatalf("%d distinct IDs for %d live threads", len(byID), n)
	}
}

func BenchmarkID(b *testing.B) {
	b.ReportAllocs()
	b.Logf("fast path: %v", FastPath())
	for b.Loop() {
		_ = ID()
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
	done := make(chan Thread)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		done <- Current()
	}()
	if other := <-done; other.ID == me.ID || other.TID == me.TID {
		t.Fatalf("two live threads share an identity: %+v and %+v", me, other)
	}
}
