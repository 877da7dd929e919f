package isolate

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/target/library"

	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/childproc"
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
	for _, p := range []string{e.Path + ": ", "open: ", "dlopen: ", e.Path + ": "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return "cannot load " + e.Path + ": " + msg
}

// Pool runs sequences of one library in child processes, one at a time; it
// implements conformance.Executor. A child serves requests until it dies,
// hangs (it is killed) or has served maxRequestsPerChild; the next request
// starts a fresh one.
type Pool struct {
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
	*childproc.Child[childMsg]
	served int
}

// NewPool prepares a pool for the library at path and starts its first
// child, which reports what the library is (or why it does not load).
func NewPool(cfg Config, timeout, load time.Duration, verbose io.Writer) (*Pool, error) {
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
	p := &Pool{cfg: cfg, timeout: timeout, load: load, verbose: verbose, tmp: tmp, release: release}
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
	}
	p.removeTemp()
}

// retire ends child c, no longer the current one if it was.
func (p *Pool) retire(c *child) {
	c.Close(bye)
	if p.cur == c {
		p.cur = nil
	}
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

// bye ends a child's input (the isolation protocol).
var bye = []byte(`{"bye":true}`)

// start launches a child and waits for its hello.
func (p *Pool) start() (*child, *library.Info, error) {
	cp, err := childproc.Start(childproc.Spec{Env: ChildEnv + "=" + childEnv(p.cfg.TempDir), Verbose: p.verbose,
		Exited:   func(pid int) { removeSegments(pid) }, // its global domains: nothing else maps them
		ExitZero: "the child process exited with status 0 in the middle of a run (the library called exit?)"},
		func(error) childMsg { return childMsg{T: "garbled"} })
	if err != nil {
		return nil, nil, err
	}
	c := &child{Child: cp}
	if err := c.SendJSON(p.cfg); err != nil {
		c.Kill()
		return nil, nil, &LoadError{Path: p.cfg.Lib, Message: "the child process died at start: " + c.Death()}
	}
	timer := time.NewTimer(p.startTimeout())
	defer timer.Stop()
	for {
		select {
		case m, ok := <-c.Msgs:
			if !ok {
				c.Close(bye)
				return nil, nil, &LoadError{Path: p.cfg.Lib, Message: "loading the library killed the checker's child process: " + c.Death()}
			}
			switch m.T {
			case "hello":
				if m.Info == nil {
					continue
				}
				return c, m.Info, nil
			case "error":
				c.Close(bye)
				if m.Err == nil {
					return nil, nil, &LoadError{Path: p.cfg.Lib, Message: "unknown load error"}
				}
				return nil, nil, &LoadError{Path: m.Err.Path, Message: m.Err.Message, Missing: m.Err.Missing}
			}
		case <-timer.C:
			c.Kill()
			return nil, nil, &LoadError{Path: p.cfg.Lib, Message: fmt.Sprintf("loading the library did not finish within %v", p.startTimeout())}
		}
	}
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
			case <-c.Done:
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
		if err := c.SendJSON(req); err != nil {
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
		if at := conformance.UnloadAt(ops); at >= 0 && p.cur == c {
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
			p.retire(c)
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
	}
	return p.Execute(ops, history)
}

// unloadLinger is how long a child that unloaded the library lives on
// before it is retired: long enough for a thread the library left behind to
// run into the unmapped code.
const unloadLinger = 200 * time.Millisecond

// afterUnload retires the child of a run that unloaded the library: what the
// unloaded instance left in the process (threads, thread-exit destructors,
// timers) belongs to that run, so it must neither crash nor poison a later
// case. A death while the child lingers or exits is the run's crash, at
// its unload op.
func (p *Pool) afterUnload(c *child, at int, o *conformance.Outcome) {
	select {
	case <-c.Done:
	case <-time.After(unloadLinger):
	}
	p.retire(c)
	if c.WaitErr != nil && o.Verdict == model.Pass {
		*o = conformance.Outcome{Verdict: model.Crash, At: at,
			Detail: "the process died after the unload, once the run had finished: " + c.Death()}
	}
}

// lateDeath retires a child that died between requests and returns the
// death to report for the run before (the first one found wins).
func (p *Pool) lateDeath(c *child, prior *conformance.Outcome) *conformance.Outcome {
	p.retire(c)
	return firstPrior(prior, &conformance.Outcome{Verdict: model.Crash, Detail: c.Death(), At: conformance.AtSetup})
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
	p.retire(c)
	if c.WaitErr == nil {
		return nil
	}
	return &conformance.Outcome{Verdict: model.Crash, Detail: c.Death(), At: conformance.AtSetup}
}

// await follows one request to its end; started reports whether the child
// began it (sent anything for it).
func (p *Pool) await(c *child, id int64, n int) (out conformance.Outcome, started bool) {
	at := conformance.AtSetup
	timer := time.NewTimer(p.timeout)
	defer timer.Stop()
	for {
		select {
		case m, ok := <-c.Msgs:
			if !ok {
				p.retire(c)
				return conformance.Outcome{Verdict: model.Crash, Detail: c.Death(), At: at}, started
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
			c.Kill()
			p.cur = nil
			where := "killed the child process"
			if at == n {
				where += " (in the cleanup)"
			}
			return conformance.Outcome{Verdict: model.Hang,
				Detail: fmt.Sprintf("no result within -case-timeout %v; %s%s", p.timeout, where, c.LastMessage()), At: at}, started
		}
	}
}
