package tests

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim/emit"
)

// fuzzMaxOps bounds one fuzz input's op sequence.
const fuzzMaxOps = 200

// fuzzRunners are one fuzz worker's runtimes, built and loaded once per
// process (each fuzz worker is a process) and brought back to a fresh
// load's state before every input (simabi_reset, Runner.ResetTarget):
// per profile a sim instance and, with a C compiler, an emitted one, each
// with its runner (its locked threads live as long as the worker).
type fuzzRunners struct {
	sim     map[conformance.Profile]*conformance.Runner
	emitted map[conformance.Profile]*conformance.Runner // nil without a C compiler
	unload  []func()
}

// fuzzWorkerUsed is set once the worker's runners exist.
var fuzzWorkerUsed atomic.Bool

// releaseFuzzWorker stops the worker's runners and unloads its libraries
// (TestMain, after the tests: they must leave no thread or library behind).
func releaseFuzzWorker() {
	if !fuzzWorkerUsed.Load() {
		return
	}
	w, err := fuzzWorker()
	if err != nil || w == nil {
		return
	}
	for _, m := range []map[conformance.Profile]*conformance.Runner{w.sim, w.emitted} {
		for _, r := range m {
			r.Close()
		}
	}
	for _, u := range w.unload {
		u()
	}
}

// fuzzWorker makes the worker's runners on first use. The emitted half
// fails only with its build's error; without a compiler it is absent.
var fuzzWorker = sync.OnceValues(func() (*fuzzRunners, error) {
	fuzzWorkerUsed.Store(true)
	w := &fuzzRunners{sim: map[conformance.Profile]*conformance.Runner{}}
	for _, p := range profiles {
		w.sim[p.model] = conformance.NewRunner(target.SimTarget(p.sim), fuzzRunnerOptions)
	}
	for _, p := range profiles {
		a, err := buildEmitted(emit.Config{Profile: p.emit})
		if errors.Is(err, emit.ErrNoCompiler) {
			return w, nil // sim only
		}
		if err != nil {
			return nil, err
		}
		e, err := newEmittedRuntime(a)
		if err != nil {
			return nil, err
		}
		tg, unload, err := e.open() // loaded for the life of the worker
		if err != nil {
			return nil, err
		}
		w.unload = append(w.unload, unload)
		if w.emitted == nil {
			w.emitted = map[conformance.Profile]*conformance.Runner{}
		}
		w.emitted[p.model] = conformance.NewRunner(tg, fuzzRunnerOptions)
	}
	return w, nil
})

// fuzzRunnerOptions: each input runs on the fuzz engine's goroutine (its
// OS thread locked for the run), not handed to the runner's thread.
var fuzzRunnerOptions = conformance.Options{OnCallerThread: true}

// fresh runs ops on r after bringing its target back to a fresh load.
func fresh(r *conformance.Runner, ops []conformance.Op) (*conformance.Result, error) {
	if !r.ResetTarget() {
		return nil, errors.New("the target cannot be reset (no simabi_reset)")
	}
	return r.Run(ops), nil
}

// FuzzOps: bytes → op sequence (decodeBytes: the first byte picks the
// profile, every later choice is read from the input, any input decodes) →
// every call checked by the model on sim → the same sequence (its
// two-thread ops serialized, see serialized) on sim and on the emitted
// runtime must give identical histories (F-1) and pass the model too.
// Runs over its seed corpus (testdata/fuzz/FuzzOps) in every `go test`, and
// unchanged under `go test -fuzz=FuzzOps ./tests` (docs/fuzzing.md). Every
// rule the op space reaches: S-*, V-*, L-*, K-*, E-*, M-*, D-*, X-1, X-2.
// Each worker loads one emitted runtime per profile and resets it between
// inputs (fuzzWorker); FuzzOpsSim is the sim half alone.
//
// The body passes t to nothing but its own methods: a libFuzzer build
// (go-118-fuzz-build, docs/fuzzing.md) replaces the testing package with a
// shim whose T is not a *testing.T, and the helpers it calls import no
// testing package.
func FuzzOps(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		w, p, ops, rs, failure := onSim(data)
		if failure != "" {
			t.Fatal(failure)
		}
		if w.emitted == nil {
			return // sim only: no C compiler for the differential half
		}
		sops := serialized(ops)
		if len(sops) != len(ops) { // two-thread ops: sim again, serialized
			var err error
			if rs, err = fresh(w.sim[p], sops); err != nil {
				t.Fatal(err)
			}
		}
		re, err := fresh(w.emitted[p], sops)
		if err != nil {
			t.Fatal(err)
		}
		if d := conformance.Diff(rs.History, re.History); d != "" {
			t.Fatalf("sim and the emitted runtime differ (- sim, + emitted):\n%sop log (%d ops):\n%ssim history:\n%s",
				clipLines(d), len(sops), conformance.FormatOps(sops), clipLines(rs.History.String()))
		}
		for _, r := range []struct {
			name string
			res  *conformance.Result
		}{{"sim", rs}, {"emitted", re}} {
			if r.res.Failed() {
				t.Fatalf("%s", failureText(r.name+":"+string(p), sops, r.res))
			}
		}
	})
}

// FuzzOpsSim is FuzzOps' first half alone: the op sequence on sim, every
// call checked by the model, for fuzzing the model and sim in bulk (no C
// compiler, no library). Its seeds are FuzzOps' (testdata/fuzz/FuzzOpsSim).
func FuzzOpsSim(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, _, _, _, failure := onSim(data); failure != "" {
			t.Fatal(failure)
		}
	})
}

// onSim is both targets' first half: data decoded into an op sequence run
// on the worker's sim of its profile, every call checked by the model. It
// returns the worker, the profile, the ops and the result, or what failed.
func onSim(data []byte) (w *fuzzRunners, p conformance.Profile, ops []conformance.Op, rs *conformance.Result, failure string) {
	p, ops = decodeBytes(data, fuzzMaxOps, holdMs)
	w, err := fuzzWorker()
	if err == nil {
		rs, err = fresh(w.sim[p], ops)
	}
	switch {
	case err != nil:
		return nil, p, ops, nil, err.Error()
	case rs.Failed():
		return nil, p, ops, nil, failureText("sim:"+string(p), ops, rs)
	}
	return w, p, ops, rs, ""
}
