package speed

import (
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/simabi/simabi/conformance/childproc"
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
	*childproc.Child[childMsg]
	side, label string
	at          string // the entry it last said it was at
	nextID      int64

	build string            // the hello's description
	skips map[string]string // the hello's skips
}

// start launches a child of this binary for cfg; its hello is awaited by
// hello.
func start(side, label string, cfg childConfig, cpu int, verbose io.Writer) (*proc, error) {
	c, err := childproc.Start(childproc.Spec{Env: ChildEnv + "=1", Verbose: verbose,
		Start:    func(cmd *exec.Cmd) error { return startOn(cmd, cpu) },
		ExitZero: "it exited with status 0 (the library called exit?)"},
		func(err error) childMsg { return childMsg{T: "garbled", Err: err.Error()} })
	if err != nil {
		return nil, &Error{Side: side, Build: label, Err: err.Error()}
	}
	p := &proc{Child: c, side: side, label: label}
	if err := p.SendJSON(cfg); err != nil {
		p.Kill()
		return nil, p.fail("the child process died at start: " + p.Death())
	}
	return p, nil
}

// fail is an Error of p at the entry it is at.
func (p *proc) fail(msg string) *Error {
	return &Error{Side: p.side, Build: p.label, Entry: p.at, Err: msg}
}

// hello waits for the child to load its build and probe its entries.
func (p *proc) hello(timeout time.Duration) error {
	return p.await(timeout, "", func(m childMsg) (bool, error) {
		switch m.T {
		case "at":
			p.at = m.Entry
		case "hello":
			p.at, p.build, p.skips = "", m.Build, m.Skips
			return true, nil
		case "error":
			p.at = ""
			return true, p.fail(m.Err)
		}
		return false, nil
	})
}

// batch asks for n calls of entry and returns their times and how long the
// batch took in the child and in all (the round trip); failed is why a
// call answered what the entry does not expect (the child goes on).
func (p *proc) batch(entry string, n int, timeout time.Duration) (ns []int64, elapsed, wall time.Duration, failed string, err error) {
	p.nextID++
	id := p.nextID
	p.at = entry
	t0 := time.Now()
	if werr := p.SendJSON(request{ID: id, Entry: entry, N: n}); werr != nil {
		return nil, 0, 0, "", p.fail("the child process died: " + p.Death())
	}
	err = p.await(timeout, fmt.Sprintf(" (%d calls)", n), func(m childMsg) (bool, error) {
		switch {
		case m.ID != id:
			return false, nil
		case m.T == "done" && len(m.Ns) != n:
			return true, p.fail(fmt.Sprintf("the child sent %d times for %d calls", len(m.Ns), n))
		case m.T == "done":
			ns, elapsed, wall = m.Ns, time.Duration(m.Elapsed), time.Since(t0)
		case m.T == "fail":
			failed, wall = m.Err, time.Since(t0)
		default:
			return false, nil
		}
		return true, nil
	})
	return ns, elapsed, wall, failed, err
}

// await reads p's messages, each given to on until on says it is the last,
// within timeout (past it the child is killed); what says what was asked.
func (p *proc) await(timeout time.Duration, what string, on func(childMsg) (bool, error)) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case m, ok := <-p.Msgs:
			switch {
			case !ok:
				return p.fail("the child process died: " + p.Death())
			case m.T == "garbled":
				return p.fail("the child sent a garbled line: " + m.Err)
			}
			if last, err := on(m); last {
				return err
			}
		case <-timer.C:
			p.Kill()
			return p.fail(fmt.Sprintf("no answer within %v%s; killed the child", timeout, what))
		}
	}
}
