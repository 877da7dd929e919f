package speed

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/simabi/simabi/internal/scratch"
)

// The sides of a comparison, as errors and the report name them.
const (
	SideOld   = "OLD"
	SideNoise = "OLD'" // OLD again: the noise reference
	SideNew   = "NEW"
)

// Error is a child that failed: it did not load its build, died or did not
// answer in time. It names the side, its build and the entry it was
// timing.
type Error struct {
	Side  string // SideOld, SideNoise or SideNew
	Build string // the build's label
	Entry string // the entry being timed or probed; "" while loading
	Err   string
}

func (e *Error) Error() string {
	where := "loading"
	if e.Entry != "" {
		where = "entry " + e.Entry
	}
	side := e.Side
	if side == SideNoise {
		side += " (OLD again, the noise reference)"
	}
	return fmt.Sprintf("speed: %s %s, %s: %s", side, e.Build, where, e.Err)
}

// proc is one child process and what it told.
type proc struct {
	side, label string
	cmd         *exec.Cmd
	stdin       io.WriteCloser
	msgs        chan childMsg
	done        chan struct{}
	waitErr     error
	tail        *tail
	at          string // the entry it last said it was at
	nextID      int64

	build string            // the hello's description
	skips map[string]string // the hello's skips
}

// start launches a child of this binary for cfg; its hello is awaited by
// hello.
func start(side, label string, cfg childConfig, cpu int, verbose io.Writer) (*proc, error) {
	fail := func(format string, a ...any) error {
		return &Error{Side: side, Build: label, Err: fmt.Sprintf(format, a...)}
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fail("cannot re-execute this binary: %v", err)
	}
	line, err := json.Marshal(cfg)
	if err != nil {
		return nil, fail("%v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fail("%v", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), ChildEnv+"=1")
	cmd.ExtraFiles = []*os.File{w}
	p := &proc{side: side, label: label, cmd: cmd, msgs: make(chan childMsg, 16), done: make(chan struct{}), tail: &tail{}}
	var out io.Writer = p.tail
	if verbose != nil {
		out = io.MultiWriter(p.tail, verbose)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		r.Close()
		w.Close()
		return nil, fail("%v", err)
	}
	// Registered as it starts: an interrupted run kills it.
	release, err := scratch.Hold(func() error { return startOn(cmd, cpu) }, func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	if err != nil {
		r.Close()
		w.Close()
		return nil, fail("cannot start a child process: %v", err)
	}
	w.Close()
	go func() {
		defer close(p.msgs)
		defer r.Close()
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<16), 16<<20)
		for sc.Scan() {
			var m childMsg
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = childMsg{T: "garbled", Err: err.Error()}
			}
			p.msgs <- m
		}
	}()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
		release()
	}()
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		p.kill()
		return nil, p.fail("the child process died at start: " + p.death())
	}
	return p, nil
}

// fail is an Error of p at the entry it is at.
func (p *proc) fail(msg string) *Error {
	return &Error{Side: p.side, Build: p.label, Entry: p.at, Err: msg}
}

// hello waits for the child to load its build and probe its entries.
func (p *proc) hello(timeout time.Duration) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				return p.fail("the child process died: " + p.death())
			}
			switch m.T {
			case "at":
				p.at = m.Entry
			case "hello":
				p.at, p.build, p.skips = "", m.Build, m.Skips
				return nil
			case "error":
				p.at = ""
				return p.fail(m.Err)
			case "garbled":
				return p.fail("the child sent a garbled line: " + m.Err)
			}
		case <-timer.C:
			p.kill()
			return p.fail(fmt.Sprintf("no answer within %v; killed the child", timeout))
		}
	}
}

// batch asks for n calls of entry and returns their times and how long the
// batch took in the child and in all (the round trip); failed is why a
// call answered what the entry does not expect (the child goes on).
func (p *proc) batch(entry string, n int, timeout time.Duration) (ns []int64, elapsed, wall time.Duration, failed string, err error) {
	p.nextID++
	id := p.nextID
	p.at = entry
	line, _ := json.Marshal(request{ID: id, Entry: entry, N: n})
	t0 := time.Now()
	if _, werr := p.stdin.Write(append(line, '\n')); werr != nil {
		return nil, 0, 0, "", p.fail("the child process died: " + p.death())
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				return nil, 0, 0, "", p.fail("the child process died: " + p.death())
			}
			if m.T == "garbled" {
				return nil, 0, 0, "", p.fail("the child sent a garbled line: " + m.Err)
			}
			if m.ID != id {
				continue
			}
			switch m.T {
			case "done":
				if len(m.Ns) != n {
					return nil, 0, 0, "", p.fail(fmt.Sprintf("the child sent %d times for %d calls", len(m.Ns), n))
				}
				return m.Ns, time.Duration(m.Elapsed), time.Since(t0), "", nil
			case "fail":
				return nil, 0, time.Since(t0), m.Err, nil
			}
		case <-timer.C:
			p.kill()
			return nil, 0, 0, "", p.fail(fmt.Sprintf("no answer within %v (%d calls); killed the child", timeout, n))
		}
	}
}

// close ends the child: end of input, a grace period to release what it
// made and exit, then a kill.
func (p *proc) close() {
	p.drain()
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		p.kill()
	}
}

// kill ends the child by its pid and waits for it.
func (p *proc) kill() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
	p.drain()
	p.stdin.Close()
	<-p.done
}

// drain discards what the child still sends, so that its reader ends.
func (p *proc) drain() {
	go func() {
		for range p.msgs {
		}
	}()
}

// death says how the child ended and what it wrote last.
func (p *proc) death() string {
	<-p.done
	var how string
	var ee *exec.ExitError
	switch {
	case p.waitErr == nil:
		how = "it exited with status 0 (the library called exit?)"
	case errors.As(p.waitErr, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			how = "killed by signal " + signalName(ws.Signal())
		} else {
			how = p.waitErr.Error()
		}
	default:
		how = p.waitErr.Error()
	}
	if last := p.tail.last(); last != "" {
		how += "; last message: " + last
	}
	return how
}

// signalNames are the signals a library dies of.
var signalNames = map[syscall.Signal]string{
	syscall.SIGABRT: "SIGABRT", syscall.SIGSEGV: "SIGSEGV", syscall.SIGBUS: "SIGBUS", syscall.SIGILL: "SIGILL",
	syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGTRAP: "SIGTRAP",
}

func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n + " (" + s.String() + ")"
	}
	return s.String()
}

// tail keeps the last line a child wrote on stdout or stderr, or the first
// line of a Go runtime dump (a panic, a fatal signal), whose traceback
// would hide what happened.
type tail struct {
	mu   sync.Mutex
	buf  []byte
	line string
	dump bool
}

// dumpStarts begin the first line of a Go runtime dump.
var dumpStarts = []string{"panic: ", "fatal error: ", "SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT", "SIGTRAP"}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		if l := bytes.TrimSpace(t.buf[:i]); len(l) > 0 && !t.dump {
			t.line = string(l)
			for _, d := range dumpStarts {
				t.dump = t.dump || strings.HasPrefix(t.line, d)
			}
		}
		t.buf = t.buf[i+1:]
	}
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	return len(b), nil
}

func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.line
	if s := string(bytes.TrimSpace(t.buf)); s != "" && !t.dump {
		l = s
	}
	if len(l) > 300 {
		l = l[:300] + "..."
	}
	return l
}
