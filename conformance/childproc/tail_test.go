package childproc

import (
	"strings"
	"testing"
)

// TestStderrTail: the library's last message survives a Go runtime dump,
// and the dump's signal is found.
func TestStderrTail(t *testing.T) {
	var tl tail
	tl.Write([]byte("simabi fake runtime: destroy refused\nsegv shim: about to fault\n"))
	tl.Write([]byte("SIGSEGV: segmentation violation\nPC=0x0 m=0 sigcode=1\n\ngoroutine 1 [syscall]:\nmain.main()\n"))
	if got := tl.lastMessage(); got != "; last message: segv shim: about to fault" {
		t.Errorf("lastMessage %q", got)
	}
	if got := tl.goSignal(); got != "SIGSEGV" {
		t.Errorf("goSignal %q", got)
	}
	var p tail
	p.Write([]byte("panic: boom\n\ngoroutine 1 [running]:\n"))
	if p.goSignal() != "" || !strings.HasPrefix(p.goPanic(), "panic: boom") {
		t.Errorf("panic dump: %q %q", p.goSignal(), p.goPanic())
	}
	var f tail
	f.Write([]byte("fatal error: unexpected signal during runtime execution\n[signal SIGBUS: bus error code=0x2]\n"))
	if f.goSignal() != "SIGBUS" {
		t.Errorf("fatal error dump: %q", f.goSignal())
	}
}
