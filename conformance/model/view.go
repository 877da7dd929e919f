package model

import (
	"maps"
	"slices"

	"github.com/simabi/simabi/abi"
)

// What the model knows, for the engine (the generator, the runner's
// cleanup, the probes): copies and readings only.

// Context is what the model knows of the context in one slot.
type Context struct {
	Live    bool // the runner may call it
	Unknown bool // an answer the model did not predict left its state unknown
	Latch   Latch
	// Attached: a live program init; Bins: it gave both executor binaries.
	Attached, Bins bool
	// Dispatch: its phase takes prepare and launch; DispatchAny:
	// quarantined, so the contract does not say what a dispatch does.
	Dispatch, DispatchAny bool
	IDs                   int   // the ids prepare published on it
	Dev                   int32 // the device it is bound to (-1: none)
	Claim                 bool  // it holds its device's claim
	Runs                  int   // native runs outstanding on it
	LastStream            int8  // the stream of its last launch (NullRef: none)
}

// Context reports what the model knows of slot's context (false: none).
func (m *Model) Context(slot int8) (Context, bool) {
	c := m.ctx(slot)
	if c == nil {
		return Context{}, false
	}
	return Context{Live: c.live, Unknown: c.unknown, Latch: c.latch, Attached: c.attached, Bins: c.bins,
		Dispatch: c.phase.dispatch(), DispatchAny: c.dispatchAny, IDs: len(c.ids), Dev: c.dev, Claim: c.claim,
		Runs: c.runs, LastStream: c.lastStream}, true
}

// Registered lists the ids slot's program context has a callable under.
func (m *Model) Registered(slot int8) []int32 {
	c := m.ctx(slot)
	if c == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(c.prog)) // map order is random; a choice made from it must not be
}

// DeviceClaimed reports whether a context holds dev's claim.
func (m *Model) DeviceClaimed(dev int32) bool { return m.claims[dev] != nil }

// Device is the calling thread's current device as the model has it.
func (m *Model) Device() (dev int32, known bool) { return m.curDev, m.devKnown }

// SiteArmed reports whether fault site s still has failures to deliver.
func (m *Model) SiteArmed(s int32) bool { return s >= 0 && s <= abi.LastSite && m.sites[s].count > 0 }

// Storage is run storage st's state and the slot of the context whose run
// it holds (NullRef: none).
func (m *Model) Storage(st int8) (RunState, int8) {
	sl := &m.storages[st]
	if i := slices.Index(m.ctxs[:], sl.ctx); sl.ctx != nil && i >= 0 {
		return sl.state, int8(i)
	}
	return sl.state, NullRef
}

// Options are the options the model was made with.
func (m *Model) Options() ModelOptions { return m.opt }

// Generic counts, per rule, the passes earned with a legacy build's -1.
func (m *Model) Generic() [NumRules]uint32 { return m.generic }

// RunClauses counts, per rule, the passes of outstanding-run clauses.
func (m *Model) RunClauses() [NumRules]uint32 { return m.runClauses }

// Divergences is how many unpredicted answers the model re-synchronised from.
func (m *Model) Divergences() int { return m.divergences }

// Failures counts the failing findings so far, from the tally (counting
// findings after every call made a long trace quadratic).
func (m *Model) Failures() int {
	n := 0
	for r := range m.tally {
		n += int(m.tally[r][Fail])
	}
	return n
}

// resume makes a lost model predict again, the thread's device unknown.
func (m *Model) resume() { m.lost, m.devKnown = false, false }

// PassedImage is the model's reading of what an image recipe passes.
type PassedImage struct {
	Bytes            []byte // shared: never written
	Size             uint64
	Null, Huge, Wrap bool
	Tensors, Scalars int32
}

// Passed is what recipe r passes (built once per recipe).
func Passed(r ImageRecipe) PassedImage {
	f := factsOf(r)
	return PassedImage{Bytes: f.image, Size: f.size, Null: f.null, Huge: f.huge, Wrap: f.wrap, Tensors: f.t, Scalars: f.s}
}

// SiteRule is the rule fault site s drives (RHooks for one not numbered).
func SiteRule(s int32) Rule {
	if r, ok := siteRules[s]; ok {
		return r
	}
	return RHooks
}

// NotChecked says why this engine never drives rule r (false when it does).
func NotChecked(r Rule) (string, bool) {
	why, ok := notChecked[r]
	return why, ok
}

// exactFitNear is how little budget must be left for a probe to fill it
// exactly (M-5), so that a refusal that charged anything shows as BYTES.
const exactFitNear = 4 * blockBytes

// ExactFit is the binary size of a childless valid() image whose prepare
// fills exactly what slot's kernel context has left of its budget: its
// largest block tail, or its last 2 MiB block (false: more than
// exactFitNear left, or nothing fits).
func (m *Model) ExactFit(slot int8) (uint32, bool) {
	c := m.ctx(slot)
	if c == nil || c.unknown || c.latch != LatchKernel || c.allocated+exactFitNear < budgetBytes {
		return 0, false
	}
	place := uint64(0)
	for _, used := range c.blocks {
		if used != ^uint32(0) {
			place = max(place, blockBytes-uint64(used))
		}
	}
	if budgetBytes-c.allocated == blockBytes && len(c.blocks) > 0 {
		place = blockBytes // the last block of the budget: an image charged all of it
	}
	if place < abi.ChipCallableSize || place%64 != 0 {
		return 0, false
	}
	return uint32(place - abi.ChipCallableSize), true
}
