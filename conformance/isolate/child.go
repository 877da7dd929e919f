package isolate

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/target/library"

	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/childproc"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/validation"
)

// The isolation protocol.
//
// The parent re-executes its own binary with ChildEnv set to "PID:DIR", its
// pid and the absolute path of its directory of library copies
// (Config.TempDir), or to any other value. A child knows both before it
// reads anything, so that one whose parent died at once, even before the
// exec, still finds it gone and removes the directory. The child reads a
// Config line from stdin, loads the library and answers on fd 3 (a
// pipe: the library may write anything to stdout and stderr) with one JSON
// line: {"t":"hello","info":...} or {"t":"error","err":...}. Then it reads
// one childRequest per stdin line and, for each, runs the ops on a fresh
// instance of the library, writing {"t":"op","id":N,"i":K} before op K
// executes (K = len(ops) before the runner's cleanup, -1 before its setup)
// and {"t":"done","id":N,"rec":...} at the end. It exits 0 after the
// parent's {"bye":true}; stdin ending without it means the parent died, and
// the child removes what the parent would have (leave) and exits 3. When
// the child dies instead, the parent knows the request and the op that was
// executing.
const ChildEnv = "SIMABI_ABICHECK_CHILD"

// Config says what a child loads.
type Config struct {
	Lib      string    `json:"lib"`
	Preloads []string  `json:"preloads,omitempty"`
	ACL      string    `json:"acl,omitempty"`
	TempDir  string    `json:"-"`        // in ChildEnv
	Binaries [4]string `json:"binaries"` // files for the aicpu, aicore, dispatcher and sdma spans
	LogLevel int32     `json:"log_level,omitempty"`
	Callable string    `json:"callable,omitempty"` // the -callable image file
}

type childRequest struct {
	ID      int64    `json:"id"`
	Ops     []string `json:"ops"`
	History bool     `json:"history,omitempty"`
	Bye     bool     `json:"bye,omitempty"` // the parent ends the child: no more requests
}

// loadFailure is a library that did not load: onboard's message and, for a
// BindError, every missing symbol with its group.
type loadFailure struct {
	Message string          `json:"message"`
	Path    string          `json:"path"`
	Missing []MissingSymbol `json:"missing,omitempty"`
}

// MissingSymbol is a requirement of the library's consumer set that it
// lacks (C-BIND-1): the symbol, its group, the revision whose consumer
// requires it and since when (abi.ConsumerRequirement).
type MissingSymbol struct {
	Name     string `json:"name"`
	Group    string `json:"group"`
	Revision string `json:"revision,omitempty"`
	Since    string `json:"since,omitempty"`
}

type childMsg struct {
	T    string                     `json:"t"`
	ID   int64                      `json:"id"`
	I    int                        `json:"i"`
	Info *library.Info              `json:"info,omitempty"`
	Err  *loadFailure               `json:"err,omitempty"`
	Rec  *conformance.OutcomeRecord `json:"rec,omitempty"`
}

func loadFailureOf(path string, err error) *loadFailure {
	lf := &loadFailure{Message: err.Error(), Path: path}
	var be *onboard.BindError
	if errors.As(err, &be) {
		for _, s := range be.Missing {
			lf.Missing = append(lf.Missing, MissingSymbol{Name: s.Name, Group: string(s.Group), Revision: s.Consumer.Revision().String(), Since: s.Since})
		}
	}
	return lf
}

// ReadBinaries reads the span files of a Config (or the CLI's flags).
func ReadBinaries(paths [4]string) ([4][]byte, error) {
	var out [4][]byte
	for i, p := range paths {
		if p == "" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return out, err
		}
		if len(b) == 0 {
			return out, fmt.Errorf("%s is empty", p)
		}
		out[i] = b
	}
	return out, nil
}

// ChildMain is the child process. It never returns to main's flag parsing.
func ChildMain() int {
	parent, tempDir = parentOf(os.Getenv(ChildEnv))
	out, err := childproc.Begin(parent, leave)
	if err != nil {
		fmt.Fprintln(os.Stderr, "abicheck: "+err.Error())
		return 2
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	line, err := in.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		leave() // the parent died before it said what to load
	}
	lib, path, lf := openChildLibrary(line)
	if lf != nil {
		sendMsg(out, childMsg{T: "error", Err: lf})
		return 2
	}
	f, opt := lib.Factory(), lib.Options()
	reuse := lib.Reusable() // nil without the control hooks
	// Every run uses a fresh copy of the library: make sure one loads.
	if _, release, err := f(); err != nil {
		sendMsg(out, childMsg{T: "error", Err: &loadFailure{Path: path,
			Message: "cannot load a private copy of the library (each run uses a fresh instance): " + err.Error()}})
		return 2
	} else if release != nil {
		release()
	}
	info := lib.Info
	sendMsg(out, childMsg{T: "hello", Info: &info})
	return serveChild(in, out, f, opt, reuse, lib.ReleaseKept)
}

// parent is the pid of the process that started this child; tempDir the
// parent's directory of library copies (Config.TempDir), or "". Both are
// set before anything else.
var parent int
var tempDir string

// childEnv is ChildEnv's value for a child of this process.
func childEnv(tempDir string) string { return fmt.Sprintf("%d:%s", os.Getpid(), tempDir) }

// parentOf reads ChildEnv's value: the parent's pid (else this process's
// parent now) and its directory of library copies (else "").
func parentOf(v string) (int, string) {
	pid, dir, _ := strings.Cut(v, ":")
	n, err := strconv.Atoi(pid)
	if err != nil || !filepath.IsAbs(dir) {
		return os.Getppid(), ""
	}
	return n, dir
}

// leave ends a child whose parent is gone. What the parent would have
// removed goes first, since nobody else will: the parent's directory of
// library copies (this child's and any sibling's, orphans too) and the
// comm segments named after either process. A dying parent closes its
// pipes before its children are given to another: the result pipe may
// break a moment before the parent changes.
func leave() {
	for i := 0; i < 20 && os.Getppid() == parent; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if os.Getppid() != parent {
		if tempDir != "" {
			os.RemoveAll(tempDir)
		}
		removeSegments(os.Getpid())
		removeSegments(parent)
	}
	os.Exit(3)
}

// sendMsg writes m as a JSON line.
func sendMsg(out *childproc.Out, m childMsg) {
	out.SendJSON(m, func(err error) any {
		return childMsg{T: "done", ID: m.ID, Rec: &conformance.OutcomeRecord{Verdict: model.Crash,
			Detail: "the child could not encode its result: " + err.Error(), At: conformance.AtSetup}}
	})
}

// openChildLibrary opens the library the configuration line names, with
// its binaries and callable, and returns it with its path as configured.
func openChildLibrary(line []byte) (*library.Library, string, *loadFailure) {
	var cfg Config
	if err := json.Unmarshal(line, &cfg); err != nil {
		return nil, "", &loadFailure{Message: "bad child configuration: " + err.Error()}
	}
	bins, err := ReadBinaries(cfg.Binaries)
	if err != nil {
		return nil, "", &loadFailure{Message: "reading a binary: " + err.Error(), Path: cfg.Lib}
	}
	var callable []byte
	if cfg.Callable != "" {
		if callable, err = ReadCallable(cfg.Callable); err != nil {
			return nil, "", &loadFailure{Message: err.Error(), Path: cfg.Lib}
		}
	}
	lib, err := library.Open(cfg.Lib, library.Options{Preloads: cfg.Preloads, ACLPath: cfg.ACL,
		TempDir: tempDir, Binaries: bins, LogLevel: abi.LogLevel(cfg.LogLevel), Callable: callable})
	if err != nil {
		return nil, "", loadFailureOf(cfg.Lib, err)
	}
	return lib, cfg.Lib, nil
}

// serveChild runs the parent's requests, one a line, until the parent says
// bye or stdin ends. Then it unloads the kept instance (releaseKept), unless
// a run hung in it: a process exit runs no library destructor, and the last
// run may have left shared-memory segments that only the instance's unload
// removes. A stdin that ends without a bye is a parent that died: the
// child leaves.
func serveChild(in *bufio.Reader, out *childproc.Out, f conformance.Factory, opt conformance.Options, reuse conformance.Factory, releaseKept func()) int {
	var buf []byte
	crash := func(id int64, detail string) {
		sendMsg(out, childMsg{T: "done", ID: id, Rec: &conformance.OutcomeRecord{Verdict: model.Crash, Detail: detail, At: conformance.AtSetup}})
	}
	unload := func() {
		if reuse != nil && releaseKept != nil {
			releaseKept()
		}
	}
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var req childRequest
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				crash(0, "bad request: "+jerr.Error())
				continue
			}
			if req.Bye {
				unload()
				return 0
			}
			ops, perr := conformance.ParseOpLines(req.Ops)
			if perr != nil {
				crash(req.ID, "the ops do not parse: "+perr.Error())
				continue
			}
			id := strconv.FormatInt(req.ID, 10)
			ropt := opt
			ropt.BeforeOp = func(i int) {
				buf = append(buf[:0], `{"t":"op","id":`...)
				buf = append(buf, id...)
				buf = append(buf, `,"i":`...)
				buf = strconv.AppendInt(buf, int64(i), 10)
				buf = append(buf, '}')
				out.Send(buf)
			}
			sent := false
			done := func(o conformance.Outcome) {
				rec := o.Record()
				sendMsg(out, childMsg{T: "done", ID: req.ID, Rec: &rec})
				sent = true
			}
			factory := f
			if reuse != nil && !conformance.Unloads(ops) {
				factory = reuse
			}
			o := conformance.FactoryExecutor{Factory: factory, Options: ropt, Finished: done}.Execute(ops, req.History)
			if o.Verdict == model.Hang {
				reuse = nil // a thread may still be inside the kept instance
			}
			if !sent {
				done(o)
			}
		}
		if err == io.EOF {
			unload()
			leave()
		}
		if err != nil {
			return 2
		}
	}
}

// ReadCallable reads a callable image file (abicheck -callable) and checks it is a ChipCallable (V-IMG).
func ReadCallable(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-callable %s: %v", path, errors.Unwrap(err))
	}
	if st := validation.Image(b); st != abi.OK {
		return nil, fmt.Errorf("-callable %s: not a ChipCallable image (V-IMG refuses it: %v)", path, validation.CheckImageAt(0, b))
	}
	return b, nil
}
