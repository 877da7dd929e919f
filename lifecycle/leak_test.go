package lifecycle

// C-LEAK: an unclosed worker found by the garbage collector is pinned and a
// warning is logged; nothing ever calls the runtime from a cleanup. (§6.3
// TestGcPin; TestInitRouting "a failed kernel init arms no GC pin".)

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// collected runs GCs until done reports true or a few seconds pass.
func collected(done func() bool) bool {
	deadline := time.Now().Add(5 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			return false
		}
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// abandon initializes a worker over f and drops it; it returns a channel
// closed when the Worker is collected. The Worker lives only in this frame.
//
//go:noinline
func abandon(t *testing.T, f *scriptRuntime, lg *logBuffer, fail bool) <-chan struct{} {
	w := scriptWorker(Kernel, f)
	w.log = newLoggerTo(lg)
	if fail {
		f.kernelInitRC = -91
	}
	err := w.Init(InitConfig{Config: kernelConfig()})
	if fail != (err != nil) {
		t.Fatalf("Init: %v", err)
	}
	gone := make(chan struct{})
	runtime.AddCleanup(w, func(c chan struct{}) { close(c) }, gone)
	return gone
}

func TestGCPinsAnAbandonedWorker(t *testing.T) {
	lockThread(t)
	f := newScript()
	var logs logBuffer
	before := PinnedWorkers()
	gone := abandon(t, f, &logs, false)
	if !collected(func() bool {
		select {
		case <-gone:
			return PinnedWorkers() > before
		default:
			return false
		}
	}) {
		t.Fatal("the abandoned worker was not collected and pinned")
	}
	if PinnedWorkers() != before+1 {
		t.Errorf("pinned %d, want %d", PinnedWorkers(), before+1)
	}
	out := logs.String()
	if !strings.Contains(out, "garbage-collected without Close") || !strings.Contains(out, "mode=kernel") {
		t.Errorf("warning not logged: %q", out)
	}
	if f.count("finalize_device") != 0 || f.count("destroy_device_context") != 0 || f.liveContexts() != 1 {
		t.Error("the runtime was called from the cleanup")
	}
	if _, _, closes, _, _ := f.snapshot(); closes != 0 {
		t.Error("the runtime was unloaded")
	}
	pinnedMu.Lock()
	last := pinned[len(pinned)-1]
	pinnedMu.Unlock()
	if last.ctx == 0 || last.rt == nil || last.images == nil {
		t.Error("the pin does not hold the native state")
	}
}

func TestGCDoesNotPinClosedOrFailedWorkers(t *testing.T) {
	lockThread(t)
	before := PinnedWorkers()

	// A failed kernel Init arms nothing: the worker is collected, no pin, no warning.
	f := newScript()
	var logs logBuffer
	gone := abandon(t, f, &logs, true)
	if !collected(func() bool {
		select {
		case <-gone:
			return true
		default:
			return false
		}
	}) {
		t.Fatal("a worker whose Init failed was not collected")
	}

	// A closed worker is neither warned about nor pinned.
	f2 := newScript()
	var logs2 logBuffer
	gone2 := func() <-chan struct{} {
		w := scriptWorker(Kernel, f2)
		w.log = newLoggerTo(&logs2)
		if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		c := make(chan struct{})
		runtime.AddCleanup(w, func(c chan struct{}) { close(c) }, c)
		return c
	}()
	if !collected(func() bool {
		select {
		case <-gone2:
			return true
		default:
			return false
		}
	}) {
		t.Fatal("a closed worker was not collected")
	}
	// Give a (wrongly) armed cleanup the chance to run too.
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	if PinnedWorkers() != before {
		t.Errorf("pinned %d, want %d", PinnedWorkers(), before)
	}
	if logs.String() != "" || logs2.String() != "" {
		t.Errorf("warnings: %q %q", logs.String(), logs2.String())
	}
}
