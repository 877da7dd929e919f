package suite

import (
	"strings"
	"time"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/report"
)

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

func capsText(c catalogue.Caps) string {
	var parts []string
	for _, x := range []struct {
		c    catalogue.Caps
		name string
	}{{catalogue.CapSetDevice, "set-device"}, {catalogue.CapClearDevice, "clear-device"}, {catalogue.CapGetDevice, "current-device"},
		{catalogue.CapSync, "sync-stream"}, {catalogue.CapInject, "simabi_inject"}, {catalogue.CapCounters, "ACL counters"},
		{catalogue.CapDriven, "driven stream completion (hooks)"}, {catalogue.CapUnload, "unloading a private copy"},
		{catalogue.CapGate, "simabi_hold_gate"}, {catalogue.CapReset, "simabi_reset"}, {catalogue.CapComm, "the simulated comm backend"},
		{catalogue.CapPeek, "reading a CommContext (hooks)"}, {catalogue.CapCommTimeout, "simabi_comm_timeout_ms"}} {
		if c&x.c != 0 {
			parts = append(parts, x.name)
		}
	}
	return strings.Join(parts, ", ")
}
