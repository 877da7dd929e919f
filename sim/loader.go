package sim

import (
	"fmt"

	"github.com/simabi/simabi/abi"
)

// Loader opens in-process simulated runtimes for a consumer (abi.Loader).
// Each Load or LoadProbe returns a fresh instance: two loads share nothing,
// as two dlopen'ed copies of a library share no claim registry.
type Loader struct {
	Profile Profile
	Options Options
}

var _ abi.Loader = Loader{}

// LoadedRuntime is a loaded simulated runtime: the instance, with a Close
// that does nothing (there is nothing to unload).
type LoadedRuntime struct{ *Runtime }

// Close is a no-op returning nil. It does not finalize or destroy contexts.
func (LoadedRuntime) Close() error { return nil }

// Load returns a new instance of l.Profile with l.Options; an unknown profile
// is an error.
func (l Loader) Load() (abi.LoadedRuntime, error) {
	if !Implements(l.Profile) {
		return nil, fmt.Errorf("sim: unknown profile %q (want %q or %q)", l.Profile, TMR, Refusing)
	}
	return LoadedRuntime{New(l.Profile, l.Options)}, nil
}

// LoadProbe is Load: every entry of a simulated runtime is always bound.
func (l Loader) LoadProbe() (abi.LoadedRuntime, error) { return l.Load() }

// String is "sim:" and the profile, for example "sim:tmr".
func (l Loader) String() string { return "sim:" + string(l.Profile) }

// Loader returns an abi.Loader whose Load and LoadProbe return this very
// instance, so a consumer (lifecycle.Worker) drives the runtime whose ACL the
// caller already used to set the device and create streams. Close of what it
// returns does nothing.
func (r *Runtime) Loader() abi.Loader { return instanceLoader{r} }

type instanceLoader struct{ r *Runtime }

func (l instanceLoader) Load() (abi.LoadedRuntime, error)      { return LoadedRuntime{l.r}, nil }
func (l instanceLoader) LoadProbe() (abi.LoadedRuntime, error) { return LoadedRuntime{l.r}, nil }
func (l instanceLoader) String() string                        { return "sim:" + string(l.r.Profile()) }
