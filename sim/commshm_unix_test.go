//go:build unix

package sim

import (
	"os"
	"testing"

	"github.com/simabi/simabi/abi"
)

// The segments this process created and did not unlink are the ones a
// run's end removes (internal/scratch calls unlinkAll): one unlinked by
// its own call is forgotten, one left live is removed.
func TestCreatedSegments_liveOnesUnlinkedAtTheEnd(t *testing.T) {
	base := "/" + abi.CommSegmentPrefix(uint32(os.Getpid())) + "created_"
	live, gone := base+"live", base+"gone"
	for _, name := range []string{live, gone} {
		fd, _, err := shmCreate(name)
		if err != nil {
			t.Fatalf("shmCreate(%s): %v", name, err)
		}
		shmClose(fd)
	}
	t.Cleanup(func() { shmUnlink(live) })
	shmUnlink(gone)
	livePath, _ := shmFile(live)
	gonePath, _ := shmFile(gone)
	created.mu.Lock()
	held, forgot := created.paths[livePath], !created.paths[gonePath]
	created.mu.Unlock()
	if !held || !forgot {
		t.Errorf("after unlinking %s: live held %v, unlinked forgotten %v; want both", gone, held, forgot)
	}
	// Another test's live segments are in created too: unlink a copy.
	own := createdSegments{paths: map[string]bool{livePath: true}}
	own.unlinkAll()
	if _, err := os.Stat(livePath); !os.IsNotExist(err) {
		t.Errorf("%s after unlinkAll: %v, want it gone", livePath, err)
	}
}
