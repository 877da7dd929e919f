package commdiff

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/conformance/target/library"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/tests/opdiff"
)

// MaxOps bounds one input's sequence (about three input bytes an op).
const MaxOps = 40

// Profiles are the emitted builds the first byte picks from: the comm
// family is the same on each, and the legacy build's comm codes are not
// translated (E-COMM's own convention).
var Profiles = []struct {
	Model model.Profile
	Emit  emit.Profile
}{{model.ProfileTMR, emit.ProfileTMR}, {model.ProfileRefusing, emit.ProfileRefusing}, {model.ProfileLegacy, emit.ProfileLegacy}}

// Decode is the target's decoder: the first byte picks the profile, the
// rest are the generator's choices until they run out or the sequence has
// MaxOps ops. Any input decodes.
func Decode(data []byte) (int, []op.Op) {
	c := conformance.NewByteChooser(data)
	p := c.IntN(len(Profiles), "profile")
	g := conformance.NewGenerator(conformance.GenOptions{Profile: model.ProfileTMR, CommOnly: true,
		Caps: catalogue.CapComm | catalogue.CapPeek | catalogue.CapSetDevice | catalogue.CapClearDevice |
			catalogue.CapGetDevice | catalogue.CapSync | catalogue.CapInject | catalogue.CapDriven | catalogue.CapCommTimeout})
	for !c.Exhausted() && len(g.Ops()) < MaxOps {
		g.Next(c)
	}
	return p, g.Ops()
}

// worker is a fuzz worker's runtimes, made once per process and reset
// before every input: a sim instance, and each profile's emitted runtime
// loaded through onboard (none without a C compiler).
type worker struct {
	sim     *conformance.Runner
	emitted []*conformance.Runner
	libs    []*onboard.Library
	acl     *onboard.ACL
}

var (
	workerUsed atomic.Bool
	theWorker  = sync.OnceValues(openWorker)
)

func openWorker() (*worker, error) {
	workerUsed.Store(true)
	w := &worker{sim: conformance.NewRunner(target.SimTarget(sim.TMR), conformance.Options{OnCallerThread: true})}
	for _, p := range Profiles {
		lib, acl, err := opdiff.LoadEmitted(p.Emit, w.acl)
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
		o := conformance.Options{OnCallerThread: true}
		if p.Model == model.ProfileLegacy {
			lp := p.Model
			o.Profile = &lp
		}
		w.emitted = append(w.emitted, conformance.NewRunner(library.Target(lib, w.acl), o))
	}
	return w, nil
}

// fresh runs ops on r after bringing its target back to a fresh load.
func fresh(r *conformance.Runner, ops []op.Op) (*conformance.Result, error) {
	if !r.ResetTarget() {
		return nil, errors.New("the target cannot be reset (no simabi_reset)")
	}
	return r.Run(ops), nil
}

// Release stops the worker's runners and unloads its libraries (TestMain).
func Release() {
	if !workerUsed.Load() {
		return
	}
	w, _ := theWorker()
	if w == nil {
		return
	}
	// A reset releases what the last input left (a worker the fuzz
	// engine stops may be inside one): the comm family's segments are the
	// machine's, not the process's.
	w.sim.ResetTarget()
	w.sim.Close()
	for _, r := range w.emitted {
		r.ResetTarget()
		r.Close()
	}
	for _, l := range w.libs {
		l.Close()
	}
	if w.acl != nil {
		w.acl.Close()
	}
}
