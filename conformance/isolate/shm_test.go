package isolate

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/abi"
)

// TestRemoveSegments_ECOMM_onlyTheDeadProcesssOwn: the segments named after
// a process that exited go, and a segment named after any other process
// stays.
func TestRemoveSegments_ECOMM_onlyTheDeadProcesssOwn(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("POSIX shared memory is a file in /dev/shm only on Linux")
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	pid := dead.Process.Pid
	other := os.Getpid()
	var mine, theirs []string
	for i := uint32(1); i <= 3; i++ {
		mine = append(mine, abi.CommSegmentPrefix(uint32(pid))+"00abc00"+strconv.Itoa(int(i)))
	}
	theirs = append(theirs, abi.CommSegmentPrefix(uint32(other))+"00abc001")
	for _, n := range append(append([]string(nil), mine...), theirs...) {
		p := filepath.Join(shmDir, n)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Skip("cannot write in /dev/shm:", err)
		}
		t.Cleanup(func() { os.Remove(p) })
	}
	if got := removeSegments(pid); got != len(mine) {
		t.Errorf("removeSegments(%d) = %d, want %d", pid, got, len(mine))
	}
	var left []string
	for _, n := range append(append([]string(nil), mine...), theirs...) {
		if _, err := os.Stat(filepath.Join(shmDir, n)); err == nil {
			left = append(left, n)
		}
	}
	if diff := cmp.Diff(theirs, left); diff != "" {
		t.Errorf("segments left (-want +got):\n%s", diff)
	}
}
