// Package target adapts a sim instance to the engine's Target (SimTarget,
// SimFactory); conformance/target/library adapts a library loaded by
// onboard. The engine itself links neither backend.
package target

import (
	"github.com/simabi/simabi/sim"

	"github.com/simabi/simabi/conformance"
)

// SimTarget is a fresh sim instance of profile p as a Target: the runtime is
// its own hooks, and its simulated ACL gives the D-1 counters and the
// caller's device memory.
func SimTarget(p sim.Profile) *conformance.Basic {
	// The runner calls from locked OS threads only (lockedThread), so the
	// simulator need not check it on every setdev.
	rt := sim.New(p, sim.Options{CallerLocksThread: true})
	return &conformance.Basic{RT: rt, SimHooks: rt, SimCtl: rt, SimTimeout: rt, CountersF: SimCounters(rt), Mem: rt.ACL()}
}

var _ conformance.DeviceMemory = (*sim.ACL)(nil)

// SimCounters reads the D-1 counters of rt's simulated ACL.
func SimCounters(rt *sim.Runtime) func() conformance.ACLCounts {
	return func() conformance.ACLCounts { return rt.ACL().Counters() }
}

// SimFactory makes a fresh sim instance of profile p for every run.
func SimFactory(p sim.Profile) conformance.Factory {
	return func() (conformance.Target, func(), error) { return SimTarget(p), nil, nil }
}
