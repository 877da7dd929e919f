package osthread

import (
	"os"
	"runtime"
	"syscall"
	"testing"
)

// On Linux TID is gettid, and the main thread's is the pid.
func TestTIDIsGettid(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if got, want := TID(), syscall.Gettid(); got != want {
		t.Fatalf("TID() = %d, gettid = %d", got, want)
	}
	if !Alive(os.Getpid()) {
		t.Fatal("the main thread (tid = pid) is not alive")
	}
	if !FastPath() && ID() != uint64(TID()) {
		t.Fatalf("without the fast path ID must be gettid: %d, %d", ID(), TID())
	}
}
