package lifecycle

// C-GATE: the gate alone, then the gate and Close ordering with launches and
// prepares blocked inside the runtime (§6.3 TestKernelGate), under -race.

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/simabi/simabi/abi"
)

// C-GATE: tryLock fails while held, lock waits, lockWithin gives up after its
// budget, and the gate excludes under contention.
func TestGatePrimitive(t *testing.T) {
	g := newGate()
	if !g.tryLock() || g.tryLock() {
		t.Fatal("tryLock")
	}
	start := time.Now()
	if g.lockWithin(30 * time.Millisecond) {
		t.Fatal("lockWithin took a held gate")
	}
	if time.Since(start) < 30*time.Millisecond {
		t.Error("lockWithin returned before its budget")
	}
	if g.lockWithin(0) {
		t.Error("lockWithin(0) took a held gate")
	}
	got := make(chan struct{})
	go func() { g.lock(); close(got) }()
	select {
	case <-got:
		t.Fatal("lock took a held gate")
	case <-time.After(20 * time.Millisecond):
	}
	g.unlock()
	<-got
	go func() { time.Sleep(10 * time.Millisecond); g.unlock() }()
	if !g.lockWithin(5 * time.Second) {
		t.Fatal("lockWithin missed an unlock")
	}
	g.unlock()

	// Mutual exclusion under contention (the race detector checks n).
	var wg sync.WaitGroup
	n, tries := 0, atomic.Int64{}
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				switch i % 3 {
				case 0:
					g.lock()
				case 1:
					if !g.lockWithin(time.Second) {
						t.Error("lockWithin starved")
						return
					}
				case 2:
					if !g.tryLock() {
						tries.Add(1)
						continue
					}
				}
				n++
				g.unlock()
			}
		}()
	}
	wg.Wait()
	if want := 8*500 - int(tries.Load()); n != want {
		t.Errorf("n = %d, want %d", n, want)
	}
	if g.held.Load() || g.waiters.Load() != 0 {
		t.Error("gate not released")
	}
}

// blocker makes a scripted entry block until released, and reports entry.
type blocker struct {
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func newBlocker() *blocker {
	return &blocker{entered: make(chan struct{}), release: make(chan struct{})}
}

func (b *blocker) hook() {
	b.once.Do(func() {
		close(b.entered)
		<-b.release
	})
}

// C-GATE, C-ID: a launch during a blocked prepare fails fast with IS (the
// gate check precedes the state and thread checks, so it fails fast from any
// thread), and a later launch succeeds.
func TestLaunchDuringBlockedPrepareFailsFast(t *testing.T) {
	lockThread(t)
	f := newScript()
	w := initScript(t, Kernel, f)
	defer w.Close()
	img := testImage(t)
	id, err := w.PrepareCallable(img)
	if err != nil {
		t.Fatal(err)
	}
	b := newBlocker()
	f.mu.Lock()
	f.onPrepare = b.hook
	f.mu.Unlock()
	args := abi.NewTaskArgs()
	launched := make(chan error, 1)
	go func() {
		<-b.entered
		start := time.Now()
		err := w.Launch(id, args, 1)
		if d := time.Since(start); d > time.Second {
			t.Errorf("launch waited %v", d)
		}
		close(b.release)
		launched <- err
	}()
	if _, err := w.PrepareCallable(img); err != nil { // blocks until the launch has failed
		t.Fatal(err)
	}
	err = <-launched
	wantCode(t, err, abi.InvalidState)
	if !errors.Is(err, errLaunchBusy) {
		t.Errorf("launch during a prepare failed with %q, want the busy-gate refusal", err)
	}
	if f.count("simpler_kernel_mode_launch") != 0 {
		t.Fatal("the launch reached the runtime")
	}
	if err := w.Launch(id, args, 1); err != nil {
		t.Fatalf("a later launch: %v", err)
	}
	noViolations(t, f)
}

// C-GATE: Close during a blocked launch publishes CLOSED, waits on the gate
// and finalizes only after the launch returned; a launch attempted meanwhile
// fails fast. The two calls must overlap, which C-THREAD forbids from two
// goroutines (they are necessarily on two OS threads), so this test turns the
// thread check off to observe the gate alone; TestCloseFromOtherThreadDuringLaunch
// covers the same moment with the check on.
func TestCloseDuringBlockedLaunchWaits(t *testing.T) {
	lockThread(t)
	f := newScript()
	w := initScript(t, Kernel, f)
	w.anyThread = true // as Config.AnyThread does
	id, err := w.PrepareCallable(testImage(t))
	if err != nil {
		t.Fatal(err)
	}
	var launchReturned atomic.Bool
	var finalizeAfterLaunch atomic.Bool
	b := newBlocker()
	f.mu.Lock()
	// The native launch returns right after its hook: marked there, not
	// after Worker.Launch returns, since the gate (and so Close's finalize)
	// is released between the two.
	f.onLaunch = func() { b.hook(); launchReturned.Store(true) }
	f.onFinalize = func() { finalizeAfterLaunch.Store(launchReturned.Load()) }
	f.mu.Unlock()
	args := abi.NewTaskArgs()
	launchDone := make(chan error, 1)
	go func() { launchDone <- w.Launch(id, args, 1) }()
	<-b.entered
	closeDone := make(chan error, 1)
	go func() { closeDone <- w.Close() }()
	// Close publishes CLOSED before it waits on the gate.
	deadline := time.Now().Add(5 * time.Second)
	for w.state.Load() != stateClosed {
		if time.Now().After(deadline) {
			t.Fatal("Close did not publish CLOSED")
		}
		time.Sleep(time.Millisecond)
	}
	for w.gate.waiters.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("Close is not waiting on the gate")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-closeDone:
		t.Fatalf("Close returned (%v) while the launch holds the gate", err)
	default:
	}
	wantCode(t, w.Launch(id, args, 1), abi.InvalidState) // gate held: fails fast
	if f.count("finalize_device") != 0 {
		t.Fatal("finalize overlapped the launch")
	}
	close(b.release)
	if err := <-launchDone; err != nil {
		t.Fatalf("the blocked launch: %v", err)
	}
	if err := <-closeDone; err != nil {
		t.Fatalf("Close: %v", err)
	}
	if f.count("finalize_device") != 1 || !finalizeAfterLaunch.Load() {
		t.Error("finalize did not run exactly once after the launch returned")
	}
	// After CLOSED, a launch sees it.
	err = w.Launch(id, args, 1)
	wantCode(t, err, abi.InvalidState)
	if !errors.Is(err, errLaunchNotReady) {
		t.Errorf("launch after Close: %q", err)
	}
	noViolations(t, f)
}

// C-GATE: Close past its budget returns the timeout error (IS), stays CLOSED,
// keeps the context and the images and does not finalize; after the launch
// returns, a later Close finalizes exactly once. (§6.3 TestKernelGate "grace
// budget patched to 0.2 s".)
func TestCloseBudgetTimeoutIsRetriable(t *testing.T) {
	lockThread(t)
	f := newScript()
	lg, _ := newLogger()
	w := New(Config{Mode: Kernel, Loader: scriptLoader{f}, Logger: lg, CloseBudget: 200 * time.Millisecond})
	if err := w.Init(InitConfig{Config: kernelConfig()}); err != nil {
		t.Fatal(err)
	}
	w.anyThread = true // as Config.AnyThread does // see TestCloseDuringBlockedLaunchWaits
	id, err := w.PrepareCallable(testImage(t))
	if err != nil {
		t.Fatal(err)
	}
	b := newBlocker()
	f.mu.Lock()
	f.onLaunch = b.hook
	f.mu.Unlock()
	launchDone := make(chan error, 1)
	go func() { launchDone <- w.Launch(id, abi.NewTaskArgs(), 1) }()
	<-b.entered
	start := time.Now()
	err = w.Close()
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("Close gave up after %v, before its budget", d)
	}
	se := wantCode(t, err, abi.InvalidState)
	if se.Op != "Worker.Close" || !errors.Is(err, ErrCloseTimeout) || !errors.Is(err, ErrInvalidState) {
		t.Errorf("timeout error %q: Op %q, Is(ErrCloseTimeout) %v", err, se.Op, errors.Is(err, ErrCloseTimeout))
	}
	wantContains(t, err, "200ms", "Close again")
	if w.state.Load() != stateClosed || w.native == nil || len(w.native.images) != 1 || !w.armed {
		t.Fatal("the timed-out Close did not keep everything")
	}
	if f.count("finalize_device") != 0 || f.liveContexts() != 1 {
		t.Fatal("the timed-out Close finalized")
	}
	close(b.release)
	if err := <-launchDone; err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if f.count("finalize_device") != 1 || f.liveContexts() != 0 {
		t.Error("the retry did not finalize exactly once")
	}
	if err := w.Close(); err != nil || f.count("finalize_device") != 1 {
		t.Error("a third Close finalized again")
	}
	noViolations(t, f)
}

// C-THREAD, C-GATE: with the thread check on, a launch blocked on the init
// thread cannot be overlapped by a Close: a Close from another thread is
// refused with IS, publishes nothing and leaves the worker READY; once the
// launch returned, Close on the init thread finalizes once.
func TestCloseFromOtherThreadDuringLaunch(t *testing.T) {
	lockThread(t)
	f := newScript()
	w := initScript(t, Kernel, f)
	id, err := w.PrepareCallable(testImage(t))
	if err != nil {
		t.Fatal(err)
	}
	b := newBlocker()
	f.mu.Lock()
	f.onLaunch = func() {
		b.hook()
	}
	f.mu.Unlock()
	closeErr := make(chan error, 1)
	go func() {
		<-b.entered
		onOtherThread(func() { closeErr <- w.Close() })
		close(b.release)
	}()
	if err := w.Launch(id, abi.NewTaskArgs(), 1); err != nil { // blocks until the Close was refused
		t.Fatal(err)
	}
	err = <-closeErr
	wantCode(t, err, abi.InvalidState)
	wantContains(t, err, "C-THREAD")
	if !w.Initialized() || f.count("finalize_device") != 0 {
		t.Fatal("the refused Close changed the worker")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if f.count("finalize_device") != 1 {
		t.Error("not finalized once")
	}
	noViolations(t, f)
}

// C-GATE: a prepare waits for the gate instead of failing, and one that
// waited through a Close sees CLOSED and refuses without a native call.
func TestPrepareWaitsAndSeesClosed(t *testing.T) {
	lockThread(t)
	f := newScript()
	w := initScript(t, Kernel, f)
	w.anyThread = true // as Config.AnyThread does
	id, err := w.PrepareCallable(testImage(t))
	if err != nil {
		t.Fatal(err)
	}
	b := newBlocker()
	f.mu.Lock()
	f.onLaunch = b.hook
	f.mu.Unlock()
	go func() { _ = w.Launch(id, abi.NewTaskArgs(), 1) }()
	<-b.entered
	prepared := make(chan error, 1)
	go func() { _, err := w.PrepareCallable(testImage(t)); prepared <- err }()
	for w.gate.waiters.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	w.state.Store(stateClosed) // what Close publishes first
	close(b.release)
	err = <-prepared
	wantCode(t, err, abi.InvalidState)
	wantContains(t, err, "closed")
	if f.count("simpler_kernel_mode_prepare_callable") != 1 {
		t.Error("the prepare that saw CLOSED reached the runtime")
	}
	w.state.Store(stateReady)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	noViolations(t, f)
}
