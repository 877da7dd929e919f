package isolate

import (
	"os"
	"testing"
)

// ChildEnv tells a child its parent and the directory of library copies
// it removes when the parent died; anything else is a child without one,
// whose parent is the one it has.
func TestChildEnv_parentAndDirectory(t *testing.T) {
	ppid := os.Getppid()
	for _, c := range []struct {
		value   string
		wantPID int
		wantDir string
	}{
		{childEnv("/tmp/abicheck-1"), os.Getpid(), "/tmp/abicheck-1"},
		{"123:/tmp/a:b", 123, "/tmp/a:b"},
		{"1", ppid, ""},
		{"", ppid, ""},
		{"x:/tmp/abicheck-1", ppid, ""},
		{"123:relative", ppid, ""},
	} {
		pid, dir := parentOf(c.value)
		if pid != c.wantPID || dir != c.wantDir {
			t.Errorf("parentOf(%q) = %d, %q; want %d, %q", c.value, pid, dir, c.wantPID, c.wantDir)
		}
	}
}
