package isolate

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/target/library"

	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/internal/scratch"
)

// maxRequestsPerChild bounds how many runs one child makes before a fresh one
// takes over (each run loads a private copy of the library; a C++ library
// with unique symbols is never unloaded).
const maxRequestsPerChild = 400

// LoadError is a library that did not load (exit 2).
type LoadError struct {
	Path    string
	Message string
	Missing []MissingSymbol // the required symbols the library lacks, with their groups
}

func (e *LoadError) Error() string {
	if len(e.Missing) > 0 {
		// onboard's message lists them with what requires them (C-BIND-1).
		_, list, ok := strings.Cut(e.Message, ": missing required symbols: ")
		if !ok {
			var parts []string
			for _, m := range e.Missing {
				parts = append(parts, m.Name+" ("+m.Group+")")
			}
			list = strings.Join(parts, ", ")
		}
		return fmt.Sprintf("cannot load %s: missing required symbols: %s", e.Path, list)
	}
	msg := strings.TrimPrefix(e.Message, "onboard: ")
	if e.Path == "" {
		return "cannot load: " + msg
	}
	// Name the path once: onboard's and dlerror's texts repeat it.
	msg = strings.TrimPrefix(msg, e.Path+": ")
	msg = strings.TrimPrefix(msg, "open: ")
	msg = strings.TrimPrefix(msg, "dlopen: ")
	msg = strings.TrimPrefix(msg, e.Path+": ")
	return "cannot load " + e.Path + ": " + msg
}

// Pool runs sequences of one library in child processes, one at a time; it
// implements conformance.Executor. A child serves requests until it dies,
// hangs (it is killed) or has served maxRequestsPerChild; the next request
// starts a fresh one.
type Pool struct {
	exe     string
	cfg     Config
	timeout time.Duration // per case
	load    time.Duration // loading the library in a child
	verbose io.Writer     // the children's stderr is copied here when set
	tmp     string        // the children's copies of the library, in run-PID-N directories
	release func()        // forgets tmp in the scratch registry once removed

	info   *library.Info
	cur    *child
	nextID int64
}

type child struct {
	cmd     *exec.Cmd
	release func() // forgets the child in the scratch registry once reaped
	stdin   io.WriteCloser
	msgs    chan childMsg
	tail    *stderrTail
	done    chan struct{}
	waitErr error
	served  int
}

// NewPool prepares a pool for the library at path and starts its first
// child, which reports what the library is (or why it does not load).
func NewPool(cfg Config, timeout, load time.Duration, verbose io.Writer) (*Pool, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot re-execute myself for isolation: %w", err)
	}
	orphanSegmentsAtExit.Do(func() {
		// Last at exit (the registry undoes the newest first): after every
		// child was ended, what they left named after this process.
		_, _ = scratch.Hold(nil, func() { RemoveOrphanSegments() })
	})
	tmp, release, err := scratch.MkdirTemp("", "abicheck-")
	if err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(tmp); err == nil {
		tmp = abs // ChildEnv carries an absolute path
	}
	cfg.TempDir = tmp
	p := &Pool{exe: exe, cfg: cfg, timeout: timeout, load: load, verbose: verbose, tmp: tmp, release: release}
	c, info, err := p.start()
	if err != nil {
		p.removeTemp()
		return nil, err
	}
	p.cur, p.info = c, info
	return p, nil
}

// Info is what the first child found out about the library.
func (p *Pool) Info() library.Info { return *p.info }

// orphanSegmentsAtExit registers, once per process, the removal of the
// comm segments named after it at the run's end.
var orphanSegmentsAtExit sync.Once

// Close ends the current child and removes the pool's files.
func (p *Pool) Close() {
	if p.cur != nil {
		p.retire(p.cur)
		p.cur = nil
	}
	p.removeTemp()
}

// removeTemp removes the children's directory; no child may be running.
func (p *Pool) removeTemp() {
	os.RemoveAll(p.tmp)
	p.release()
}

// startTimeout bounds loading the library in a new child (-load-timeout).
func (p *Pool) startTimeout() time.Duration {
	if p.load > 0 {
		return p.load
	}
	return 30 * time.Second
}

// start launches a child and waits for its hello.
func (p *Pool) start() (*child, *library.Info, error) {
	cmd := exec.Command(p.exe)
	cmd.Env = append(os.Environ(), ChildEnv+"="+childEnv(p.cfg.TempDir))
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.ExtraFiles = []*os.File{w}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		r.Close()
		w.Close()
		return nil, nil, err
	}
	c := &child{cmd: cmd, stdin: stdin, msgs: make(chan childMsg, 64), tail: &stderrTail{}, done: make(chan struct{})}
	var out io.Writer = c.tail
	if p.verbose != nil {
		out = io.MultiWriter(c.tail, p.verbose)
	}
	cmd.Stdout, cmd.Stderr = out, out
	// Registered as it starts: an interrupted run kills it (and waits for
	// it, so that nothing writes into tmp once it is removed).
	release, err := scratch.Hold(cmd.Start, func() {
		_ = cmd.Process.Kill()
		<-c.done
	})
	if err != nil {
		r.Close()
		w.Close()
		return nil, nil, fmt.Errorf("cannot start a child process: %w", err)
	}
	c.release = release
	w.Close()
	go func() {
		defer close(c.msgs)
		defer r.Close()
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<16), 256<<20)
		for sc.Scan() {
			var m childMsg
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				m = childMsg{T: "garbled"}
			}
			c.msgs <- m
		}
	}()
	go func() {
		c.waitErr = cmd.Wait()
		removeSegments(cmd.Process.Pid) // its global domains: nothing else maps them
		close(c.done)
		c.release()
	}()
	cfg, _ := json.Marshal(p.cfg)
	if _, err := c.stdin.Write(append(cfg, '\n')); err != nil {
		p.kill(c)
		return nil, nil, &LoadError{Path: p.cfg.Lib, Message: "the child process died at start: " + c.death()}
	}
	timer := time.NewTimer(p.startTimeout())
	defer timer.Stop()
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				p.retire(c)
				return nil, nil, &LoadError{Path: p.cfg.Lib, Message: "loading the library killed the checker's child process: " + c.death()}
			}
			switch m.T {
			case "hello":
				if m.Info == nil {
					continue
				}
				return c, m.Info, nil
			case "error":
				p.retire(c)
				if m.Err == nil {
					return nil, nil, &LoadError{Path: p.cfg.Lib, Message: "unknown load error"}
				}
				return nil, nil, &LoadError{Path: m.Err.Path, Message: m.Err.Message, Missing: m.Err.Missing}
			}
		case <-timer.C:
			p.kill(c)
			return nil, nil, &LoadError{Path: p.cfg.Lib, Message: fmt.Sprintf("loading the library did not finish within %v", p.startTimeout())}
		}
	}
}

// drain discards what an abandoned child still sends, so that its reader
// goroutine ends.
func (c *child) drain() {
	go func() {
		for range c.msgs {
		}
	}()
}

// retire ends a child: bye and end of input, then a grace period to exit
// (or to finish dying, when its result pipe closed), then a kill.
func (p *Pool) retire(c *child) {
	c.drain()
	_, _ = c.stdin.Write([]byte(`{"bye":true}` + "\n")) // fails harmlessly on a dead child
	c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		p.kill(c)
	}
}

// kill ends a child by its pid and waits for it.
func (p *Pool) kill(c *child) {
	if c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
	}
	c.drain()
	c.stdin.Close()
	<-c.done
}

// Execute implements conformance.Executor: one run in a child. A child that
// died after its previous run had finished (before this request started) is
// reported as that run's death (Outcome.Prior), and this request goes to a
// fresh child.
func (p *Pool) Execute(ops []op.Op, history bool) conformance.Outcome {
	req := childRequest{Ops: conformance.OpLines(ops), History: history}
	var prior, residue *conformance.Outcome
	for attempt := 0; ; attempt++ {
		if c := p.cur; c != nil {
			select {
			case <-c.done:
				prior = p.lateDeath(c, prior)
			default:
			}
		}
		if p.cur == nil {
			c, _, err := p.start()
			if err != nil {
				return conformance.Outcome{Verdict: model.Crash, Detail: err.Error(), At: conformance.AtSetup, Prior: prior}
			}
			p.cur = c
		}
		c := p.cur
		p.nextID++
		req.ID = p.nextID
		b, _ := json.Marshal(req)
		if _, err := c.stdin.Write(append(b, '\n')); err != nil {
			prior = p.lateDeath(c, prior)
			continue
		}
		o, started := p.await(c, req.ID, len(ops))
		if !started && o.Verdict == model.Crash && attempt == 0 {
			// It died before it began this request: the death is the
			// previous run's, and a fresh child gets the request.
			prior = firstPrior(prior, &o)
			continue
		}
		if at := unloadAt(ops); at >= 0 && p.cur == c {
			p.afterUnload(c, at, &o)
		}
		if o.Verdict == model.Crash && started && c.served > 0 && residue == nil {
			// The child had run earlier cases, each loading and unloading
			// its own instance: run the case again in a fresh process. If
			// it does not die there, what killed it was left behind by an
			// unloaded instance (U-1), not this case's calls.
			first := o
			first.Detail += fmt.Sprintf(" (the process had run %d earlier cases)", c.served)
			residue = &first
			if p.cur == c {
				p.retire(c)
				p.cur = nil
			}
			continue
		}
		if residue != nil && o.Verdict != model.Crash {
			o.Residue = residue
		}
		o.Prior = prior
		return o
	}
}

// ExecuteFresh implements conformance.FreshExecutor: Execute in a child
// that has served no run before (the current one is retired if it has).
func (p *Pool) ExecuteFresh(ops []op.Op, history bool) conformance.Outcome {
	if c := p.cur; c != nil && c.served > 0 {
		p.retire(c)
		p.cur = nil
	}
	return p.Execute(ops, history)
}

// unloadLinger is how long a child that unloaded the library lives on
// before it is retired: long enough for a thread the library left behind to
// run into the unmapped code.
const unloadLinger = 200 * time.Millisecond

// unloadAt is the index of ops' unload op (U-1), or -1.
func unloadAt(ops []op.Op) int {
	for i, o := range ops {
		if o.Kind == op.KindUnload {
			return i
		}
	}
	return -1
}

// afterUnload retires the child of a run that unloaded the library: what the
// unloaded instance left in the process (threads, thread-exit destructors,
// timers) belongs to that run, so it must neither crash nor poison a later
// case. A death while the child lingers or exits is the run's crash, at
// its unload op.
func (p *Pool) afterUnload(c *child, at int, o *conformance.Outcome) {
	select {
	case <-c.done:
	case <-time.After(unloadLinger):
	}
	p.retire(c)
	p.cur = nil
	if c.waitErr != nil && o.Verdict == model.Pass {
		*o = conformance.Outcome{Verdict: model.Crash, At: at,
			Detail: "the process died after the unload, once the run had finished: " + c.death()}
	}
}

// lateDeath retires a child that died between requests and returns the
// death to report for the run before (the first one found wins).
func (p *Pool) lateDeath(c *child, prior *conformance.Outcome) *conformance.Outcome {
	p.retire(c)
	p.cur = nil
	return firstPrior(prior, &conformance.Outcome{Verdict: model.Crash, Detail: c.death(), At: conformance.AtSetup})
}

func firstPrior(prior, o *conformance.Outcome) *conformance.Outcome {
	if prior != nil {
		return prior
	}
	return o
}

// Finish implements suite.Finisher: it ends the current child and
// reports a death after its last run (a crash at exit), or nil.
func (p *Pool) Finish() *conformance.Outcome {
	c := p.cur
	if c == nil {
		return nil
	}
	p.cur = nil
	p.retire(c)
	if c.waitErr == nil {
		return nil
	}
	return &conformance.Outcome{Verdict: model.Crash, Detail: c.death(), At: conformance.AtSetup}
}

// await follows one request to its end; started reports whether the child
// began it (sent anything for it).
func (p *Pool) await(c *child, id int64, n int) (out conformance.Outcome, started bool) {
	at := conformance.AtSetup
	timer := time.NewTimer(p.timeout)
	defer timer.Stop()
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				p.retire(c)
				p.cur = nil
				return conformance.Outcome{Verdict: model.Crash, Detail: c.death(), At: at}, started
			}
			if m.ID != id {
				continue
			}
			started = true
			switch m.T {
			case "op":
				at = m.I
			case "done":
				c.served++
				if c.served >= maxRequestsPerChild {
					p.retire(c)
					p.cur = nil
				}
				if m.Rec == nil {
					return conformance.Outcome{Verdict: model.Crash, Detail: "the child sent no result", At: at}, true
				}
				o, err := m.Rec.Outcome()
				if err != nil {
					return conformance.Outcome{Verdict: model.Crash, Detail: "garbled result: " + err.Error(), At: at}, true
				}
				return o, true
			}
		case <-timer.C:
			p.kill(c)
			p.cur = nil
			where := "killed the child process"
			if at == n {
				where += " (in the cleanup)"
			}
			return conformance.Outcome{Verdict: model.Hang,
				Detail: fmt.Sprintf("no result within -case-timeout %v; %s%s", p.timeout, where, c.tail.lastMessage()), At: at}, started
		}
	}
}

// death describes how a child ended: its signal or exit status and the last
// message it wrote before dying.
func (c *child) death() string {
	<-c.done
	var how string
	var ee *exec.ExitError
	switch {
	case c.waitErr == nil:
		how = "the child process exited with status 0 in the middle of a run (the library called exit?)"
	case errors.As(c.waitErr, &ee):
		ws, ok := ee.Sys().(syscall.WaitStatus)
		switch {
		case ok && ws.Signaled():
			how = "killed by signal " + signalName(ws.Signal())
		case ok:
			how = fmt.Sprintf("exit status %d", ws.ExitStatus())
			if sig := c.tail.goSignal(); sig != "" {
				how = "signal " + sig + " (the Go runtime reported it and exited with status " + fmt.Sprint(ws.ExitStatus()) + ")"
			} else if pm := c.tail.goPanic(); pm != "" {
				how = "the checker's child panicked: " + pm
			}
		default:
			how = c.waitErr.Error()
		}
	default:
		how = c.waitErr.Error()
	}
	return how + c.tail.lastMessage()
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGABRT: "SIGABRT", syscall.SIGSEGV: "SIGSEGV", syscall.SIGBUS: "SIGBUS", syscall.SIGILL: "SIGILL",
	syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGTRAP: "SIGTRAP",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGSYS: "SIGSYS", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
}

func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n + " (" + s.String() + ")"
	}
	return s.String()
}

// stderrTail keeps what a child wrote: the last lines, until a Go runtime
// dump starts (then the dump's first line, and nothing after it, so that the
// library's own last message survives a long traceback).
type stderrTail struct {
	mu      sync.Mutex
	partial []byte
	lines   []string
	dump    string   // the first line of a Go runtime dump
	dumpTop []string // its first few lines
}

var dumpStart = regexp.MustCompile(`^(SIG[A-Z]+: |fatal error: |panic: |\[signal SIG|goroutine \d+ |runtime: |unexpected fault address)`)
var sigRE = regexp.MustCompile(`SIG[A-Z]+`)

func (t *stderrTail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			t.partial = append(t.partial, b...)
			if len(t.partial) > 4096 {
				t.partial = t.partial[len(t.partial)-4096:]
			}
			break
		}
		line := string(append(t.partial, b[:i]...))
		t.partial = t.partial[:0]
		b = b[i+1:]
		t.line(line)
	}
	return n, nil
}

func (t *stderrTail) line(l string) {
	if t.dump != "" {
		if len(t.dumpTop) < 4 {
			t.dumpTop = append(t.dumpTop, l)
		}
		return
	}
	if dumpStart.MatchString(l) {
		t.dump = l
		t.dumpTop = append(t.dumpTop, l)
		return
	}
	if strings.TrimSpace(l) == "" {
		return
	}
	t.lines = append(t.lines, l)
	if len(t.lines) > 16 {
		t.lines = t.lines[1:]
	}
}

// lastMessage is "; last message: ..." for the last line before any dump, or
// "".
func (t *stderrTail) lastMessage() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	last := ""
	if len(t.partial) > 0 && t.dump == "" {
		last = string(t.partial)
	} else if len(t.lines) > 0 {
		last = t.lines[len(t.lines)-1]
	}
	if last == "" {
		return ""
	}
	if len(last) > 300 {
		last = last[:300] + "..."
	}
	return "; last message: " + last
}

// goSignal is the signal a Go runtime dump names, or "".
func (t *stderrTail) goSignal() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if strings.HasPrefix(t.dump, "panic: ") {
		return ""
	}
	return sigRE.FindString(strings.Join(t.dumpTop, "\n"))
}

// goPanic is the message of a Go panic dump, or "".
func (t *stderrTail) goPanic() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if strings.HasPrefix(t.dump, "panic: ") || strings.HasPrefix(t.dump, "fatal error: ") {
		return t.dump
	}
	return ""
}
