package childproc

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/simabi/simabi/internal/scratch"
)

// What a command makes for itself — the isolated children, their copies of
// the library, the comm segments they leave, a diff's unreported scripts,
// the emitter's build directories and compilers — is registered with
// internal/scratch as it is made, and goes when the command ends: normally,
// or on SIGINT or SIGTERM, after which it exits 128+signal.

// cleanupLimit bounds the cleanup after a signal: every child is killed,
// so it takes milliseconds, unless a process will not die.
const cleanupLimit = 10 * time.Second

// Main runs run (a command's main without the exit) with the cleanup at
// exit and on SIGINT and SIGTERM, and returns its exit status. The run
// writes through the handler's gate: once a signal is handled, what the
// dying run still says (a child "died") is dropped, and the handler's
// line, naming prog, is the last.
func Main(prog string, stdout, stderr *os.File, run func(stdout, stderr io.Writer) int) int {
	h := handleSignals(prog, stderr)
	code := run(h.gate(stdout), h.gate(stderr))
	h.finish()
	scratch.Cleanup()
	return code
}

// signals is the handling of SIGINT and SIGTERM: until the run finishes,
// the cleanup, one line on stderr and exit status 128+signal (130, 143);
// after it, nothing (the normal exit's cleanup is under way).
type signals struct {
	prog               string
	mu                 sync.Mutex // held by a write of the run too
	handling, finished bool
}

// gated is a file the run writes to until a signal is handled. It is a
// file still for what asks (session's terminal detection).
type gated struct {
	h *signals
	f *os.File
}

func (h *signals) gate(f *os.File) gated { return gated{h, f} }

func (g gated) Write(b []byte) (int, error) {
	g.h.mu.Lock()
	defer g.h.mu.Unlock()
	if g.h.handling {
		return len(b), nil
	}
	return g.f.Write(b)
}

func (g gated) Stat() (os.FileInfo, error) { return g.f.Stat() }

func handleSignals(prog string, stderr *os.File) *signals {
	h := &signals{prog: prog}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for s := range sigs {
			h.mu.Lock()
			if h.finished {
				h.mu.Unlock()
				continue
			}
			h.handling = true
			h.mu.Unlock()
			h.exit(s.(syscall.Signal), stderr)
		}
	}()
	return h
}

// finish ends the handling when the run has returned; when a signal came
// first, the handler's exit is the one that counts, and finish waits for it.
func (h *signals) finish() {
	h.mu.Lock()
	handling := h.handling
	h.finished = !handling
	h.mu.Unlock()
	if handling {
		select {}
	}
}

// exit cleans up after sig, says so and exits.
func (h *signals) exit(sig syscall.Signal, stderr *os.File) {
	done := make(chan struct{})
	go func() {
		scratch.Cleanup()
		close(done)
	}()
	what := "its children ended and its temporary files removed"
	select {
	case <-done:
	case <-time.After(cleanupLimit):
		what = fmt.Sprintf("the cleanup did not finish within %v", cleanupLimit)
	}
	fmt.Fprintf(stderr, "%s%s: stopped by %s: %s\n", clearLine(stderr), h.prog, signalNames[sig], what)
	os.Exit(128 + int(sig))
}

// clearLine clears a progress line on a terminal (the progress is on
// stdout, usually the same terminal).
func clearLine(f *os.File) string {
	if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		return "\r\033[K"
	}
	return ""
}
