package sim

import (
	"sync"
	"sync/atomic"

	"github.com/simabi/simabi/abi"
)

// Fault arms one fault site of simabi_inject (docs/contract.md, semantics §5): the next
// Count passes through Site fail with Code (site 7: hold the gate Code
// milliseconds; site 6: Code is ignored).
type Fault struct{ Site, Count, Code int32 }

// faultState is the per-instance fault-injection state: for each site a
// remaining count and a code. A pass through an unarmed site is one atomic
// load, so the launch path pays nothing for site 4.
type faultState struct {
	mu     sync.Mutex
	remain [abi.LastSite + 1]atomic.Int32
	code   [abi.LastSite + 1]int32
}

// set replaces site's count and code (count 0 disarms). The caller has
// checked the arguments.
func (f *faultState) set(site, count, code int32) {
	f.mu.Lock()
	f.code[site] = code
	f.remain[site].Store(count)
	f.mu.Unlock()
}

// pass consumes one pass through site: it reports whether the site fired and
// with which code.
func (f *faultState) pass(site int32) (abi.Status, bool) {
	if f.remain[site].Load() == 0 {
		return abi.OK, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.remain[site].Load()
	if n == 0 {
		return abi.OK, false
	}
	f.remain[site].Store(n - 1)
	return abi.Status(f.code[site]), true
}

// remaining is the count left at site (for tests and Faults).
func (f *faultState) remaining(site int32) int32 { return f.remain[site].Load() }

// SimInject is simabi_inject: abi.CheckInjectArgs (INVALID_ARGUMENT), then
// UNSUPPORTED on a refusing build (it models no site), else it replaces the
// site's count and code and returns 0 (semantics §5).
func (r *Runtime) SimInject(site, count, code int32) abi.Status {
	if st := abi.CheckInjectArgs(site, count, code); st != abi.OK {
		return st
	}
	if !r.kernel {
		return abi.Unsupported
	}
	r.faults.set(site, count, code)
	return abi.OK
}

// FaultsRemaining reports, for each site 1..9 (index 0 unused), how many
// passes are still armed.
func (r *Runtime) FaultsRemaining() [abi.LastSite + 1]int32 {
	var out [abi.LastSite + 1]int32
	for s := abi.FirstSite; s <= abi.LastSite; s++ {
		out[s] = r.faults.remaining(s)
	}
	return out
}
