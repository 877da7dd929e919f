package tests

// This file and decode_test.go hold everything FuzzImageCAgainstGo and
// FuzzRecordedTraceAgreesWithLive need besides their harness files, and
// import no testing package, so that a libFuzzer build (docs/fuzzing.md)
// can compile them as ordinary files.

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/target/library"

	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/tests/opfuzz"
)

// profiles are the two build profiles every property runs against: tmr (the
// full kernel lifecycle) and refusing (kernel entries validate, then refuse).
var profiles = []profileSet{
	{"tmr", sim.TMR, emit.ProfileTMR, model.ProfileTMR},
	{"refusing", sim.Refusing, emit.ProfileRefusing, model.ProfileRefusing},
}

// profileSet names one profile in each package.
type profileSet struct {
	name  string
	sim   sim.Profile
	emit  emit.Profile
	model model.Profile
}

// builds caches emitted runtimes per configuration for the process (the
// on-disk cache of sim/emit makes a warm build a hash and a stat).
var builds sync.Map // string(cfg) -> *buildResult

type buildResult struct {
	once sync.Once
	a    *emit.Artifacts
	err  error
}

func buildEmitted(cfg emit.Config) (*emit.Artifacts, error) {
	key := fmt.Sprintf("%s|%s|%v|%+v", cfg.Profile, cfg.Mutant, cfg.Omit, cfg.Knobs)
	v, _ := builds.LoadOrStore(key, &buildResult{})
	b := v.(*buildResult)
	b.once.Do(func() { b.a, b.err = emit.Build(cfg, emit.BuildOptions{Unoptimized: true}) })
	return b.a, b.err
}

func newEmittedRuntime(a *emit.Artifacts) (*emittedRuntime, error) {
	lib, err := os.ReadFile(a.RuntimePath)
	if err != nil {
		return nil, err
	}
	return &emittedRuntime{a: a, lib: lib}, nil
}

// emittedRuntime opens fresh instances of one emitted build.
type emittedRuntime struct {
	a   *emit.Artifacts
	lib []byte
}

var (
	instanceSeq atomic.Int64
	aclOnce     sync.Once
	acl         *onboard.ACL
	aclErr      error
)

// fakeACL opens the fake ACL library once per process (RTLD_GLOBAL, like the
// one ACL of a process on silicon); every emitted build carries the same
// source of it. Its call counters are process-wide, so tests that read them
// (D-1) must not run emitted instances in parallel.
func fakeACL(path string) (*onboard.ACL, error) {
	aclOnce.Do(func() { acl, aclErr = onboard.OpenACL(path) })
	return acl, aclErr
}

// instanceRoot holds the copies of emitted libraries for the process; it is
// removed by TestMain.
var instanceRoot = sync.OnceValues(func() (string, error) { return os.MkdirTemp("", "simabi-tests-") })

// open returns a fresh runtime instance: a private copy of the .so (a
// different file is a separate RTLD_LOCAL instance with its own contexts,
// claims and fault sites) next to a link to the fake ACL, loaded through
// onboard, with the hooks of the library and the counters of the fake ACL.
// release unloads it and removes the copy.
func (e *emittedRuntime) open() (conformance.Target, func(), error) {
	path, dir, err := e.instance()
	if err != nil {
		return nil, nil, err
	}
	lib, err := onboard.Open(path, onboard.Options{BindKernelWhenUnsupported: true})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	t := &conformance.Basic{RT: lib}
	if h, ok := lib.Hooks(); ok {
		t.SimHooks = h
	}
	if c, ok := lib.Control(); ok {
		t.SimCtl = c
	}
	if b, ok := lib.CommTimeout(); ok {
		t.SimTimeout = b
	}
	if a, err := fakeACL(e.a.ACLPath); err == nil && a.HasCounters() {
		t.CountersF = library.Counters(a)
	}
	return t, func() { lib.Close(); os.RemoveAll(dir) }, nil
}

// instance writes a private copy of the .so into a fresh directory of its
// own, beside a link to the fake ACL: the copy's path and the directory
// (which the caller removes).
func (e *emittedRuntime) instance() (path, dir string, err error) {
	root, err := instanceRoot()
	if err != nil {
		return "", "", err
	}
	dir = filepath.Join(root, fmt.Sprint(instanceSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", "", err
	}
	path = filepath.Join(dir, filepath.Base(e.a.RuntimePath))
	if err := os.WriteFile(path, e.lib, 0o755); err != nil {
		return "", "", err
	}
	if err := os.Symlink(e.a.ACLPath, filepath.Join(dir, filepath.Base(e.a.ACLPath))); err != nil {
		return "", "", err
	}
	return path, dir, nil
}

// opener opens a fresh runtime instance for one run.
type opener func() (conformance.Target, func(), error)

// counts are what a property checked, for its log line.
type counts struct{ seqs, ops, calls atomic.Int64 }

func (c *counts) String() string {
	return fmt.Sprintf("%d sequences, %d ops, %d model-checked calls", c.seqs.Load(), c.ops.Load(), c.calls.Load())
}

// firstFailure is the first failing finding of a result.
func firstFailure(res *conformance.Result) (model.Finding, bool) {
	for _, f := range res.Findings {
		if f.Verdict == model.Fail {
			return f, true
		}
	}
	return model.Finding{}, false
}

// runChecked runs ops on a fresh instance from open; the runner checks every
// call against the model as it goes (Model.Step after each op).
func runChecked(open opener, ops []op.Op) (*conformance.Result, error) {
	tg, release, err := open()
	if err != nil {
		return nil, err
	}
	r := conformance.NewRunner(tg, conformance.Options{})
	res := r.Run(ops)
	r.Close()
	if release != nil {
		release()
	}
	return res, nil
}

// failureText is what a failing property prints: the finding, the op log
// (replayable: save it as tests/testdata/NAME.ops) and the history.
func failureText(target string, ops []op.Op, res *conformance.Result) string {
	return opfuzz.FailureText(target, ops, res)
}

// simACLTarget is a fresh sim instance driven through its simulated ACL only,
// as a checker drives a runtime on silicon: no hooks.
func simACLTarget(p sim.Profile) conformance.Target {
	rt := sim.New(p, sim.Options{})
	return &conformance.Basic{RT: rt, ACLib: rt.ACL()}
}

// openACLOnly is open without the library's hooks: the checker drives the
// device and the streams through the fake ACL, as it would a runtime on
// silicon.
func (e *emittedRuntime) openACLOnly() (conformance.Target, func(), error) {
	t, release, err := e.open()
	if err != nil {
		return nil, nil, err
	}
	a, err := fakeACL(e.a.ACLPath)
	if err != nil {
		release()
		return nil, nil, err
	}
	b := t.(*conformance.Basic)
	b.SimHooks, b.ACLib = nil, library.ACL(a)
	return b, release, nil
}

// clipLines shortens overlong lines of a report.
func clipLines(s string) string { return opfuzz.ClipLines(s) }
