package model

import (
	"slices"
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

// Device memory of a program context: dev_alloc, dev_write, dev_read and
// dev_free on the runner's allocation slots. Without a live program init
// the rules say what these do (E-PROG), and a refused destroy leaves the
// context, its allocations and what they hold as they were (E-DESTROY).
// With one the model follows upstream (src/common/platform/sim/host at
// 6ebaf77, c_api_shared.cpp; onboard :318-350): device_malloc_ctx
// allocates and commits size bytes (:301-308, memory_allocator.cpp:24-35),
// the copies of a range inside it memcpy and return 0 (:317-333,
// device_runner_base.cpp:346-354), device_free_ctx frees it (:310-315), a
// successful finalize_device (a2a3 device_runner.cpp:834) or destroy
// (:294) frees them all, a refused destroy touches nothing (:290-293).
// What an allocation holds before its first write is the runtime's.

// allocSlot is one allocation slot of the runner: the allocation a
// dev_alloc got there, while the model says it is live.
type allocSlot struct {
	ctx     *mctx // the context that allocated it; nil: the slot is empty
	size    uint32
	holds   uint64 // DevHolds(seed) after a dev_write of seed; 0: not known
	refused bool   // live at a refused destroy of its context (E-DESTROY.3)
}

// Alloc is what the model knows of a live allocation's slot.
type Alloc struct {
	Slot  int8   // the context slot that allocated it (NullRef: none any more)
	Size  uint32 // its size in bytes
	Holds uint64 // DevHolds of the seed last written; 0: not known
}

// Allocation reports the live allocation in slot a (false: none).
func (m *Model) Allocation(a int8) (Alloc, bool) {
	if a < 0 || a >= MaxAllocs || m.allocs[a].ctx == nil {
		return Alloc{}, false
	}
	s := &m.allocs[a]
	al := Alloc{Slot: NullRef, Size: s.size, Holds: s.holds}
	if i := slices.Index(m.ctxs[:], s.ctx); i >= 0 {
		al.Slot = int8(i)
	}
	return al, true
}

// Allocations lists the slots holding a live allocation of slot's context.
func (m *Model) Allocations(slot int8) []int8 {
	c := m.ctx(slot)
	var out []int8
	for a := range m.allocs {
		if c != nil && m.allocs[a].ctx == c {
			out = append(out, int8(a))
		}
	}
	return out
}

// dropAllocs empties every slot holding an allocation of c (freed, or forgotten).
func (m *Model) dropAllocs(c *mctx) {
	for a := range m.allocs {
		if m.allocs[a].ctx == c {
			m.allocs[a] = allocSlot{}
		}
	}
}

// refuseDestroyAllocs: a destroy of c was refused; its allocations and
// committed memory must stay as they were (E-DESTROY.3).
func (m *Model) refuseDestroyAllocs(c *mctx) {
	if c.latch != LatchProgram {
		return
	}
	c.destroyMem = true
	for a := range m.allocs {
		if m.allocs[a].ctx == c {
			m.allocs[a].refused = true
		}
	}
}

// inFlight reports whether a run of c is launched and not finalized (its
// kernel may change committed memory).
func (m *Model) inFlight(c *mctx) bool {
	return slices.Contains(m.storages[:], runSlot{StorageLaunched, c})
}

// heldSince: committed memory must read as last read, when only a refused
// destroy came between (E-DESTROY.3).
func (m *Model) heldSince(c *mctx) {
	if c != nil && c.destroyMem && !c.unknown && !m.inFlight(c) {
		m.mem(MemSame, REDestroy)
	}
}

const (
	upMalloc = "upstream: common/platform/sim/host/c_api_shared.cpp:301-308, memory_allocator.cpp:24-35"
	upCopy   = "upstream: common/platform/sim/host/c_api_shared.cpp:317-333, device_runner_base.cpp:346-354"
	upFree   = "upstream: common/platform/sim/host/c_api_shared.cpp:310-315 → memory_allocator.cpp:37-52, which looks the pointer up and returns when it holds none"
	// gLegacySpan grounds a simulated legacy build's -1 for a span past an
	// allocation's end (upstream's memcpy it; the runner does not go there).
	gLegacySpan = "common/platform/sim/host/c_api_shared.cpp:317-333: the legacy copies answer -1 for an argument they refuse; upstream's memcpy (device_runner_base.cpp:346-354) copies past the end"
)

// memKept: c's committed memory must not change, unless a run is in flight.
func (m *Model) memKept(c *mctx) {
	if !m.inFlight(c) {
		m.mem(MemSame, REProg)
	}
}

// devAlloc is dev_alloc: device_malloc_ctx(ctx, size) into slot op.A.
func (m *Model) devAlloc(op Op, c *mctx) {
	if c == nil || m.unknownState(c) {
		m.expect(RuleNone, anyStatus, "")
		return
	}
	sl := &m.allocs[op.A]
	if sl.ctx != nil {
		m.expect(RuleNone, anyStatus, "the slot holds an allocation: the runner does not make the call")
		return
	}
	if !m.liveProgram(c, func() {
		m.expect(REProg, anyStatus, "")
		m.value(REProg, 0, "device_malloc_ctx without a live program init returns NULL (E-PROG.4)")
	}) {
		return
	}
	m.expect(REProg, anyStatus, "")
	switch {
	case op.Mem.Huge:
		m.value(REProg, 0, "device_malloc_ctx of 2^62 bytes, more than the device has, returns NULL and charges nothing (E-PROG.34; "+upMalloc+": std::malloc fails)")
		m.memKept(c)
		return // the slot stays empty whatever came back (the runner frees it)
	case op.Size == 0:
		m.value(REProg, 1, "device_malloc_ctx of 0 bytes with a live program init returns a pointer and charges nothing (E-PROG.33; "+upMalloc+": std::malloc(0))")
		m.memKept(c)
	default:
		m.value(REProg, 1, "device_malloc_ctx of "+strconv.FormatUint(uint64(op.Size), 10)+
			" bytes with a live program init returns an allocation ("+upMalloc+")")
		m.mem(MemAny)
	}
	if co := m.co; co == nil || co.Value != 0 {
		*sl = allocSlot{ctx: c, size: op.Size}
	}
}

// DevCopySpan is the span a dev_write or dev_read passes into an
// allocation of size bytes, and whether it lies inside (E-PROG.28); a
// cross=B span lies in neither (its length is the runner's).
func DevCopySpan(o Op, size uint32) (off, n uint64, inside bool) {
	switch {
	case o.Mem.Cross:
		return uint64(size) - op.DevCrossEdge, 0, false
	case o.Mem.Span:
		off, n = uint64(o.Mem.Off), o.Mem.Len
		return off, n, off <= uint64(size) && n <= uint64(size)-off
	}
	return 0, uint64(size), true
}

// devCopy is dev_write and dev_read of a span of slot op.A's allocation;
// without a live init the runner passes a NULL device pointer (E-PROG: IS).
func (m *Model) devCopy(op Op, c *mctx, write bool) {
	if c = m.runEntry(op, c); c == nil {
		return
	}
	sl := &m.allocs[op.A]
	if sl.ctx != c || (op.Mem.Cross && m.allocs[op.Mem.Into].ctx != c) {
		m.expect(RuleNone, anyStatus, "a"+strconv.Itoa(int(op.A))+" holds no allocation of this context: the runner does not make the call")
		return
	}
	r, note := REProg, upCopy
	if sl.refused {
		r, note = REDestroy, "it lived through a refused destroy, which leaves the context as it was: E-DESTROY.3"
	}
	off, n, inside := DevCopySpan(op, sl.size)
	if n == 0 || op.OutNull || !inside {
		m.memKept(c) // nothing is copied
	}
	m.heldSince(c)
	switch {
	case n == 0 && !op.Mem.Cross && op.OutNull:
		m.expect(RuleNone, anyStatus, "a NULL host pointer with 0 bytes: the contract says nothing (upstream: -1, c_api_shared.cpp:318, :327)")
		return
	case n == 0 && !op.Mem.Cross:
		m.expect(REProg, one(abi.OK), "a copy of 0 bytes copies nothing and returns 0 (E-PROG.31; "+upCopy+": a memcpy of 0 bytes)")
		return
	case op.OutNull:
		m.refuseArgument("a copy with a NULL host pointer (E-PROG.24)", gLegacyCopyNull)
		return
	case !inside:
		m.refuseArgument("a copy whose device span "+devSpanText(op)+" runs past the allocation's end: inside no allocation (E-PROG.30)", gLegacySpan)
		return
	}
	if write {
		m.expect(r, one(abi.OK), "a copy into a live allocation of this context ("+note+")")
		if st, seen := m.observed(); !seen || st == abi.OK {
			switch h := DevHolds(op.Seed); {
			case n == uint64(sl.size):
				sl.holds = h
			case sl.holds != h:
				sl.holds = 0 // two patterns: what it holds is no longer followed
			}
		}
		return
	}
	m.expect(r, one(abi.OK), "a copy out of a live allocation of this context ("+note+")")
	if st, seen := m.observed(); sl.holds == 0 || (seen && st != abi.OK) {
		return // never written (what it holds is the runtime's), or no bytes came back
	}
	m.e.CheckValue, m.e.Value, m.e.ValueRule = true, sl.holds, r
	m.e.ValueNote = "the allocation holds " + DevHoldsText(sl.holds) + " (" + note + ")"
	if op.Mem.Span {
		m.e.ValueNote = "bytes [" + strconv.FormatUint(off, 10) + ", " + strconv.FormatUint(off+n, 10) + ") of " + m.e.ValueNote
	}
	if co := m.co; co != nil && co.Value != sl.holds {
		// Judged as a difference; what it holds now is what was read.
		sl.holds = co.Value
		if op.Mem.Span {
			sl.holds = 0 // a part of it: the rest is not known
		}
	}
}

// devSpanText renders a copy's span for a note.
func devSpanText(o Op) string {
	if o.Mem.Cross {
		return "from the end of one allocation into the next (cross=" + strconv.Itoa(int(o.Mem.Into)) + ")"
	}
	return "[" + strconv.FormatUint(uint64(o.Mem.Off), 10) + ", +" + strconv.FormatUint(o.Mem.Len, 10) + ")"
}

// devFree is dev_free: device_free_ctx of slot op.A's allocation (NULL
// when none), or of a pointer no allocation starts at (frees nothing,
// E-PROG.32).
func (m *Model) devFree(op Op, c *mctx) {
	unknown := c == nil || m.unknownState(c)
	m.expect(RuleNone, anyStatus, "")
	if unknown {
		return
	}
	if c.latch != LatchProgram || !c.attached {
		if c.latch == LatchKernel {
			m.e.D1Rule = REProg // E-PROG.3: no ACL device call
		}
		m.mem(m.memState(c))
		return
	}
	m.mem(MemAny) // program-mode committed memory is the runtime's
	sl := &m.allocs[op.A]
	if op.Mem.Ptr != PtrBase {
		m.expect(REProg, anyStatus, "device_free_ctx of "+devPtrText[op.Mem.Ptr]+" frees nothing (E-PROG.32; "+upFree+")")
		m.memKept(c)
		return
	}
	if sl.ctx == c {
		*sl = allocSlot{}
	}
}

// devPtrText names dev_free's pointers for notes.
var devPtrText = [...]string{
	PtrInterior: "a pointer inside an allocation",
	PtrUnknown:  "a pointer no allocation had",
	PtrFreed:    "a pointer freed already",
	PtrForeign:  "another context's allocation",
}

func init() {
	defineStep(KindDevAlloc, stepDef{step: walk((*Model).devAlloc), resync: resyncNothing})
	defineStep(KindDevWrite, stepDef{step: walk(func(m *Model, op Op, c *mctx) { m.devCopy(op, c, true) }), resync: forgetContext})
	defineStep(KindDevRead, stepDef{step: walk(func(m *Model, op Op, c *mctx) { m.devCopy(op, c, false) }), resync: forgetContext})
	defineStep(KindDevFree, stepDef{step: walk((*Model).devFree), resync: resyncNothing})
}
