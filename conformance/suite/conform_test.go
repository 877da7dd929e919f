package suite

import (
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/report"
)

// Conform is the tests' way to run the suite in this process: ConformWith
// over a FactoryExecutor (abicheck runs it over child processes or a
// simulator target instead).

// Options configure Conform: a Run in this process, whose Profile and
// Caps are asked of a target (unless Options.Profile gives the profile).
type Options struct {
	Run
	Options conformance.Options // runner options
	Timeout time.Duration       // per run (default 60 s); a run that exceeds it is a hang
}

// Conform runs the directed catalogue and random sequences against targets
// from f, in this process, and reports per rule. It asks one target from f
// for the capabilities and the profile (supported(NULL), unless
// o.Options.Profile gives it) and runs ConformWith over a FactoryExecutor: a
// panic of a run is its crash, a run longer than o.Timeout its hang.
func Conform(f conformance.Factory, o Options) (*report.Report, error) {
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	t, release, err := f()
	if err != nil {
		return nil, err
	}
	probe, s := conformance.NewRunner(t, o.Options), o.Run
	s.Profile, s.Caps = model.ProfileTMR, probe.Caps()
	if o.Options.Profile != nil {
		s.Profile = *o.Options.Profile
	} else {
		probe.Do(func() {
			if t.Runtime().KernelModeSupported(0) == 0 {
				s.Profile = model.ProfileRefusing
			}
		})
	}
	probe.Close()
	if release != nil {
		release()
	}
	return ConformWith(conformance.FactoryExecutor{Factory: f, Options: o.Options, Timeout: o.Timeout}, s).Report, nil
}
