// Package childproc supervises the checker's child processes: this
// executable started again in a role (an isolated case runner, a timing
// child), so that whatever a library under check does — a crash, a hang,
// an exit — ends the child and not the checker. The parent side (Start,
// Child) gives each child its report pipe on fd 3 (the library may write
// anything on stdout and stderr), reads it as JSON lines, keeps the tail of
// its output, names the signal it died of, kills it on a deadline or an
// interrupt (Main) and reaps it. The child side (Begin, Out) ignores
// SIGABRT, watches for its parent's death and writes the report lines.
package childproc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/simabi/simabi/internal/scratch"
)

// Spec says how to start a child.
type Spec struct {
	Env     string    // NAME=value: the environment variable that gives the executable its role
	Verbose io.Writer // when set, the child's stdout and stderr are copied here too
	// Start starts the command (nil: cmd.Start); the speed comparison pins
	// its children to one CPU.
	Start func(*exec.Cmd) error
	// Exited, when set, runs once the child is reaped, before Done closes.
	Exited func(pid int)
	// ExitZero is how Death describes an exit with status 0.
	ExitZero string
}

// Child is a running child and what it reports: each line on fd 3 decoded
// into an M.
type Child[M any] struct {
	Msgs <-chan M      // the report lines; closed when the pipe ends
	Done chan struct{} // closed once the child is reaped (then WaitErr holds)
	// WaitErr is how the child ended (nil: status 0); read it after Done.
	WaitErr error

	spec  Spec
	cmd   *exec.Cmd
	stdin io.WriteCloser
	msgs  chan M
	tail  *tail
}

// Start starts this executable as a child per s; garbled is the message
// for a report line that does not decode. The child is registered with
// internal/scratch as it starts: an interrupted run kills it (and waits
// for it).
func Start[M any](s Spec, garbled func(error) M) (*Child[M], error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot re-execute this binary for a child process: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer w.Close() // the child has its own once started
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), s.Env)
	cmd.ExtraFiles = []*os.File{w}
	c := &Child[M]{Done: make(chan struct{}), spec: s, cmd: cmd, msgs: make(chan M, 64), tail: &tail{}}
	c.Msgs = c.msgs
	var out io.Writer = c.tail
	if s.Verbose != nil {
		out = io.MultiWriter(c.tail, s.Verbose)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		r.Close()
		return nil, err
	}
	start := cmd.Start
	if s.Start != nil {
		start = func() error { return s.Start(cmd) }
	}
	release, err := scratch.Hold(start, func() {
		_ = cmd.Process.Kill()
		<-c.Done
	})
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("cannot start a child process: %w", err)
	}
	go c.read(r, garbled)
	go func() {
		c.WaitErr = cmd.Wait()
		if s.Exited != nil {
			s.Exited(cmd.Process.Pid)
		}
		close(c.Done)
		release()
	}()
	return c, nil
}

// read decodes the report pipe's lines into Msgs.
func (c *Child[M]) read(r *os.File, garbled func(error) M) {
	defer close(c.msgs)
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 256<<20)
	for sc.Scan() {
		var m M
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			m = garbled(err)
		}
		c.msgs <- m
	}
}

// Send writes line and a newline on the child's stdin.
func (c *Child[M]) Send(line []byte) error {
	_, err := c.stdin.Write(append(line, '\n'))
	return err
}

// SendJSON writes v as a JSON line on the child's stdin.
func (c *Child[M]) SendJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.Send(b)
}

// Exited reports whether the child has been reaped.
func (c *Child[M]) Exited() bool {
	select {
	case <-c.Done:
		return true
	default:
		return false
	}
}

// Close ends the child: bye (when not nil) and the end of its input, then
// a grace period to exit (or to finish dying), then a kill.
func (c *Child[M]) Close(bye []byte) {
	c.drain()
	if bye != nil {
		_ = c.Send(bye) // fails harmlessly on a dead child
	}
	c.stdin.Close()
	select {
	case <-c.Done:
	case <-time.After(5 * time.Second):
		c.Kill()
	}
}

// Kill ends the child by its pid and waits for it.
func (c *Child[M]) Kill() {
	if c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
	}
	c.drain()
	c.stdin.Close()
	<-c.Done
}

// drain discards what the child still sends, so that its reader ends.
func (c *Child[M]) drain() {
	go func() {
		for range c.msgs {
		}
	}()
}

// LastMessage is "; last message: ..." for the last line the child wrote
// before any Go runtime dump, or "".
func (c *Child[M]) LastMessage() string { return c.tail.lastMessage() }

// Death waits for the child and says how it ended: its signal or exit
// status (a fault or panic the Go runtime reported, by name) and the last
// message it wrote before dying.
func (c *Child[M]) Death() string {
	<-c.Done
	var how string
	var ee *exec.ExitError
	switch {
	case c.WaitErr == nil:
		how = c.spec.ExitZero
	case errors.As(c.WaitErr, &ee):
		ws, ok := ee.Sys().(syscall.WaitStatus)
		switch {
		case ok && ws.Signaled():
			how = "killed by signal " + SignalName(ws.Signal())
		case ok:
			how = fmt.Sprintf("exit status %d", ws.ExitStatus())
			if sig := c.tail.goSignal(); sig != "" {
				how = "signal " + sig + " (the Go runtime reported it and exited with status " + fmt.Sprint(ws.ExitStatus()) + ")"
			} else if pm := c.tail.goPanic(); pm != "" {
				how = "the checker's child panicked: " + pm
			}
		default:
			how = c.WaitErr.Error()
		}
	default:
		how = c.WaitErr.Error()
	}
	return how + c.tail.lastMessage()
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGABRT: "SIGABRT", syscall.SIGSEGV: "SIGSEGV", syscall.SIGBUS: "SIGBUS", syscall.SIGILL: "SIGILL",
	syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGTRAP: "SIGTRAP",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGSYS: "SIGSYS", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
}

// SignalName is a signal's name and description: "SIGSEGV (segmentation
// fault)".
func SignalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n + " (" + s.String() + ")"
	}
	return s.String()
}
