package opdiff

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/target/library"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/tests/opfuzz"
)

// emitProfiles names each model profile's emitted build.
var emitProfiles = map[model.Profile]emit.Profile{
	model.ProfileTMR:      emit.ProfileTMR,
	model.ProfileRefusing: emit.ProfileRefusing,
}

// emittedWorker is the worker's emitted runtimes: per profile one build
// (the emit cache makes a warm build a hash and a stat), loaded once for the
// life of the process and reset between inputs (simabi_reset), with its
// runner. Nil runners: no C compiler, sim only.
type emittedWorker struct {
	runners map[model.Profile]*conformance.Runner
	libs    []*onboard.Library
	acl     *onboard.ACL
}

var (
	emittedUsed atomic.Bool
	emitted     = sync.OnceValues(openEmitted)
)

func openEmitted() (*emittedWorker, error) {
	emittedUsed.Store(true)
	w := &emittedWorker{}
	for _, p := range opfuzz.Profiles {
		lib, acl, err := LoadEmitted(emitProfiles[p.Model], w.acl)
		if lib != nil {
			w.libs = append(w.libs, lib)
		}
		w.acl = acl
		if errors.Is(err, emit.ErrNoCompiler) {
			return w, nil
		}
		if err != nil {
			return w, err
		}
		if w.runners == nil {
			w.runners = map[model.Profile]*conformance.Runner{}
		}
		w.runners[p.Model] = conformance.NewRunner(library.Target(lib, w.acl), opfuzz.RunnerOptions)
	}
	return w, nil
}

// LoadEmitted builds profile p's emitted runtime (the emit cache makes a
// warm build a hash and a stat) and loads it through onboard, and the fake
// ACL when acl is nil: the ACL's counters are process-wide (one ACL per
// process, docs/fake-runtime.md), so the first build's copy is the one
// every build forwards to. It returns the ACL in use, the library when it
// loaded (to be closed even on an error), and emit.ErrNoCompiler without a
// C compiler.
func LoadEmitted(p emit.Profile, acl *onboard.ACL) (*onboard.Library, *onboard.ACL, error) {
	a, err := emit.Build(emit.Config{Profile: p}, emit.BuildOptions{})
	if errors.Is(err, emit.ErrNoCompiler) {
		return nil, acl, err
	}
	if err != nil {
		return nil, acl, fmt.Errorf("building the emitted %s runtime: %w", p, err)
	}
	lib, err := onboard.Open(a.RuntimePath, onboard.Options{BindKernelWhenUnsupported: true})
	if err != nil {
		return nil, acl, fmt.Errorf("loading the emitted %s runtime: %w", p, err)
	}
	if acl == nil {
		if acl, err = onboard.OpenACL(a.ACLPath); err != nil {
			return lib, nil, fmt.Errorf("loading the fake ACL: %w", err)
		}
	}
	return lib, acl, nil
}

// Release stops the worker's runners and unloads its libraries (TestMain,
// after the tests: they must leave no thread or library behind).
func Release() {
	opfuzz.Release()
	if !emittedUsed.Load() {
		return
	}
	w, _ := emitted()
	if w == nil {
		return
	}
	for _, r := range w.runners {
		r.Close()
	}
	for _, l := range w.libs {
		l.Close()
	}
	if w.acl != nil {
		w.acl.Close()
	}
}
