package speed

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/childproc"
	"github.com/simabi/simabi/conformance/isolate"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/conformance/target/library"
	"github.com/simabi/simabi/sim"
)

// ChildEnv is the environment variable that makes a binary a timing child:
// its main (or TestMain) must then return ChildMain's status first thing.
const ChildEnv = "SIMABI_ABICHECK_SPEED_CHILD"

// childConfig is the first line a child reads: the build it loads, and
// the test hooks' Build.slow (wrapSlow) and Build.dieAfter (wrapDying).
type childConfig struct {
	Sim      string          `json:"sim,omitempty"` // "sim:tmr" or "sim:refusing"
	Lib      *isolate.Config `json:"lib,omitempty"`
	Slow     float64         `json:"slow,omitempty"`
	DieAfter int             `json:"die_after,omitempty"`
}

type request struct {
	ID    int64  `json:"id"`
	Entry string `json:"entry"`
	N     int    `json:"n"`
}

// childMsg is one line of a child's answers (see the package doc).
type childMsg struct {
	T       string            `json:"t"`
	ID      int64             `json:"id,omitempty"`
	Entry   string            `json:"entry,omitempty"`
	Build   string            `json:"build,omitempty"`
	Skips   map[string]string `json:"skips,omitempty"`
	Elapsed int64             `json:"elapsed,omitempty"`
	Ns      []int64           `json:"ns,omitempty"`
	Err     string            `json:"err,omitempty"`
}

// wrapSlow and wrapDying, set only by this package's tests, wrap a child's
// runtime for childConfig.Slow (a build measurably slower than its own)
// and childConfig.DieAfter (a build that dies after a number of runs).
var (
	wrapSlow  func(rt abi.Runtime, factor float64) abi.Runtime
	wrapDying func(rt abi.Runtime, runs int) abi.Runtime
)

// ChildMain is the timing child: it loads the build its parent names on
// stdin, probes every entry, then times batches until stdin ends. It
// returns the process's exit status.
func ChildMain() int {
	// A child whose parent died (killed while this one hung in the
	// library) ends itself.
	w, err := childproc.Begin(os.Getppid(), func() { os.Exit(3) })
	if err != nil {
		fmt.Fprintln(os.Stderr, "speed: "+err.Error())
		return 2
	}
	// The current device is per OS thread: every call of the build is made
	// on this one.
	runtime.LockOSThread()
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	line, err := in.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return 2
	}
	var cfg childConfig
	if err := json.Unmarshal(line, &cfg); err != nil {
		msg(w, childMsg{T: "error", Err: "bad child configuration: " + err.Error()})
		return 2
	}
	b, desc, err := openBuild(cfg)
	if err != nil {
		msg(w, childMsg{T: "error", Err: err.Error()})
		return 2
	}
	skips := map[string]string{}
	ns := make([]int64, 2)
	for _, name := range Entries {
		e := entries[name]
		if e.needs != nil {
			if why := e.needs(b); why != "" {
				skips[name] = why
				continue
			}
		}
		msg(w, childMsg{T: "at", Entry: name})
		if _, err := b.measure(e, ns); err != nil {
			skips[name] = "the first calls failed: " + err.Error()
			continue
		}
		skips[name] = ""
	}
	msg(w, childMsg{T: "hello", Build: desc, Skips: skips})
	status := serve(in, w, b)
	b.close()
	return status
}

// openBuild loads what cfg names and describes it.
func openBuild(cfg childConfig) (b *bench, desc string, err error) {
	switch {
	case cfg.Sim != "" && cfg.Lib != nil:
		return nil, "", errors.New("a build is either the simulator or a library, not both")
	case cfg.Slow != 0 && wrapSlow == nil:
		return nil, "", errors.New("this binary cannot slow a build down (a test's hook)")
	case cfg.DieAfter != 0 && wrapDying == nil:
		return nil, "", errors.New("this binary cannot make a build die (a test's hook)")
	case cfg.Sim != "":
		p, err := simProfile(cfg.Sim)
		if err != nil {
			return nil, "", err
		}
		b, desc = newBench(target.SimTarget(p), p == sim.TMR, [4][]byte{}, nil), "the built-in simulator, profile "+string(p)
	case cfg.Lib != nil:
		if b, desc, err = openLib(*cfg.Lib); err != nil {
			return nil, "", err
		}
	default:
		return nil, "", errors.New("the configuration names no build")
	}
	if cfg.Slow != 0 {
		b.rt = wrapSlow(b.rt, cfg.Slow)
		desc += fmt.Sprintf(", slowed down %gx", cfg.Slow)
	}
	if cfg.DieAfter != 0 {
		b.rt = wrapDying(b.rt, cfg.DieAfter)
		desc += fmt.Sprintf(", dying at run %d", cfg.DieAfter)
	}
	return b, desc, nil
}

// openLib loads a library as abicheck's child processes load one.
func openLib(c isolate.Config) (*bench, string, error) {
	bins, err := isolate.ReadBinaries(c.Binaries)
	if err != nil {
		return nil, "", fmt.Errorf("reading a binary: %v", err)
	}
	var callable []byte
	if c.Callable != "" {
		if callable, err = isolate.ReadCallable(c.Callable); err != nil {
			return nil, "", err
		}
	}
	lib, err := library.Open(c.Lib, library.Options{Preloads: c.Preloads, ACLPath: c.ACL, Binaries: bins,
		LogLevel: abi.LogLevel(c.LogLevel), Callable: callable})
	if err != nil {
		return nil, "", fmt.Errorf("cannot load %s: %v", c.Lib, err)
	}
	t, _, err := lib.Factory()()
	if err != nil {
		lib.Close()
		return nil, "", fmt.Errorf("cannot load %s: %v", c.Lib, err)
	}
	in := lib.Info
	desc := in.Revision + " revision, profile " + in.Profile
	if in.Hooks {
		desc += ", simulation hooks"
	} else if in.ACL != "" {
		desc += ", ACL " + in.ACL
	}
	b := newBench(t, in.Profile == "tmr", bins, callable)
	b.closeLib = lib.Close
	return b, desc, nil
}

// simProfile is the profile of a built-in simulator's spec.
func simProfile(spec string) (sim.Profile, error) {
	switch spec {
	case "sim:tmr":
		return sim.TMR, nil
	case "sim:refusing":
		return sim.Refusing, nil
	}
	return "", fmt.Errorf("unknown built-in build %q (sim:tmr or sim:refusing)", spec)
}

// serve answers the parent's requests, one a line, until stdin ends.
func serve(in *bufio.Reader, w *childproc.Out, b *bench) int {
	var ns []int64
	var buf []byte
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var req request
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				msg(w, childMsg{T: "fail", Err: "bad request: " + jerr.Error()})
				continue
			}
			e := entries[req.Entry]
			if e == nil || req.N < 1 || req.N > MaxCalls {
				msg(w, childMsg{T: "fail", ID: req.ID, Err: fmt.Sprintf("bad request: entry %q, %d calls", req.Entry, req.N)})
				continue
			}
			msg(w, childMsg{T: "at", ID: req.ID, Entry: req.Entry})
			if cap(ns) < req.N {
				ns = make([]int64, req.N)
			}
			elapsed, merr := b.measure(e, ns[:req.N])
			if merr != nil {
				msg(w, childMsg{T: "fail", ID: req.ID, Entry: req.Entry, Err: merr.Error()})
				continue
			}
			// Written by hand: the answer allocates nothing in the child
			// between its batches.
			buf = append(buf[:0], `{"t":"done","id":`...)
			buf = strconv.AppendInt(buf, req.ID, 10)
			buf = append(buf, `,"elapsed":`...)
			buf = strconv.AppendInt(buf, elapsed, 10)
			buf = append(buf, `,"ns":[`...)
			for i, v := range ns[:req.N] {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = strconv.AppendInt(buf, v, 10)
			}
			buf = append(buf, "]}"...)
			w.Send(buf)
		}
		if err == io.EOF {
			return 0
		}
		if err != nil {
			return 2
		}
	}
}

// msg writes m as a JSON line.
func msg(w *childproc.Out, m childMsg) {
	w.SendJSON(m, func(err error) any {
		return childMsg{T: "fail", ID: m.ID, Err: "the child could not encode its answer: " + err.Error()}
	})
}
