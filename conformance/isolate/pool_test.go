package isolate

import (
	"os"
	"strings"
	"testing"
)

// TestStderrTail: the library's last message survives a Go runtime dump,
// and the dump's signal is found.
func TestStderrTail(t *testing.T) {
	var tl stderrTail
	tl.Write([]byte("simabi fake runtime: destroy refused\nsegv shim: about to fault\n"))
	tl.Write([]byte("SIGSEGV: segmentation violation\nPC=0x0 m=0 sigcode=1\n\ngoroutine 1 [syscall]:\nmain.main()\n"))
	if got := tl.lastMessage(); got != "; last message: segv shim: about to fault" {
		t.Errorf("lastMessage %q", got)
	}
	if got := tl.goSignal(); got != "SIGSEGV" {
		t.Errorf("goSignal %q", got)
	}
	var p stderrTail
	p.Write([]byte("panic: boom\n\ngoroutine 1 [running]:\n"))
	if p.goSignal() != "" || !strings.HasPrefix(p.goPanic(), "panic: boom") {
		t.Errorf("panic dump: %q %q", p.goSignal(), p.goPanic())
	}
	var f stderrTail
	f.Write([]byte("fatal error: unexpected signal during runtime execution\n[signal SIGBUS: bus error code=0x2]\n"))
	if f.goSignal() != "SIGBUS" {
		t.Errorf("fatal error dump: %q", f.goSignal())
	}
}

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
