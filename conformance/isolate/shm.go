package isolate

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/simabi/simabi/abi"
)

// The comm family's POSIX shared-memory segments (E-COMM) are named after
// the process tree: a session's and a domain allocation's after the parent
// of the process that made them (this process, for a child's), a global
// domain's after that process itself. A child that crashed or was killed,
// or a runtime that does not unlink, leaves them in /dev/shm, where they
// outlive every run; a mechanical run leaked thousands. A dead child's own
// segments go when it exits; those named after this process go when
// RemoveOrphanSegments is called with nothing running.

// shmDir is where glibc's shm_open puts a segment (Linux only).
const shmDir = "/dev/shm"

// removeSegments removes the segments named after process pid and says how
// many there were.
func removeSegments(pid int) int {
	if runtime.GOOS != "linux" || pid <= 0 {
		return 0
	}
	prefix := abi.CommSegmentPrefix(uint32(pid))
	ents, err := os.ReadDir(shmDir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) && os.Remove(filepath.Join(shmDir, e.Name())) == nil {
			n++
		}
	}
	return n
}

// RemoveOrphanSegments removes the segments named after this process:
// those its children's sessions and domain allocations left behind. Call
// it only when no child and no comm call of this process is running (a
// global domain of an in-process runtime is named after this process too).
func RemoveOrphanSegments() int { return removeSegments(os.Getpid()) }
