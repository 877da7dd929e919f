package model

import (
	"strconv"

	"github.com/simabi/simabi/abi"
)

// Device memory of a program context with valid arguments: dev_alloc,
// dev_write, dev_read and dev_free on the runner's allocation slots.
//
// rules.md says what these entries do without a live program init (E-PROG:
// device_malloc_ctx returns NULL, the copies IS before any other check,
// device_free_ctx nothing), and that a refused destroy leaves the context
// exactly as it was (E-DESTROY), which includes what device_malloc_ctx gave
// it and what that memory holds. What they do with a live init the rules
// leave to upstream, which the model follows (src/common/platform/sim/host
// at 6ebaf77; the onboard file c_api_shared.cpp has the same entries at
// :318-350):
//
//   - device_malloc_ctx returns an allocation of size bytes
//     (c_api_shared.cpp:301-308 → allocate_tensor, device_runner_base.cpp:338
//     → MemoryAllocator::alloc, memory_allocator.cpp:24-35, which also adds
//     size to committed memory at :33);
//   - copy_to_device_ctx and copy_from_device_ctx of a range inside it copy
//     the bytes and return 0 (c_api_shared.cpp:317-333 →
//     device_runner_base.cpp:346-354, a memcpy);
//   - device_free_ctx frees it (c_api_shared.cpp:310-315 →
//     device_runner_base.cpp:340-344 → memory_allocator.cpp:37-52);
//   - a successful finalize_device frees every allocation the context still
//     holds (c_api_shared.cpp:335-352 → DeviceRunner::finalize,
//     src/a2a3/platform/sim/host/device_runner.cpp:792-841, which calls
//     mem_alloc_.finalize() at :834, memory_allocator.cpp:54-62), and so does
//     a destroy that goes through (c_api_shared.cpp:294, the runner's delete);
//   - a refused destroy returns before it touches anything
//     (c_api_shared.cpp:290-293).
//
// What an allocation holds before its first write is the runtime's (a
// malloc), so a read before it is not compared. Committed memory of a
// program context is the runtime's (runEntry: program runs allocate too),
// except that a refused destroy must leave it as it was.

// allocSlot is one allocation slot of the runner: the allocation a
// dev_alloc got there, while the model says it is live.
type allocSlot struct {
	ctx  *mctx // the context that allocated it; nil: the slot is empty
	size uint32
	// holds is what the allocation holds: DevHolds(seed) after a
	// dev_write of seed, 0 when it is not known (never written).
	holds uint64
	// refused: it was live when a destroy of its context was refused, so
	// a read that does not find it as it was breaks E-DESTROY.3.
	refused bool
}

// Alloc is what the model knows of an allocation slot that holds a live
// allocation.
type Alloc struct {
	Slot  int8   // the context slot that allocated it (NullRef: none any more)
	Size  uint32 // its size in bytes
	Holds uint64 // DevHolds of the seed last written; 0: not known
}

// Allocation reports the live allocation in slot a (false: the slot is
// empty).
func (m *Model) Allocation(a int8) (Alloc, bool) {
	if a < 0 || a >= MaxAllocs || m.allocs[a].ctx == nil {
		return Alloc{}, false
	}
	s := &m.allocs[a]
	al := Alloc{Slot: NullRef, Size: s.size, Holds: s.holds}
	for i, c := range m.ctxs {
		if c == s.ctx {
			al.Slot = int8(i)
		}
	}
	return al, true
}

// Allocations lists the slots holding a live allocation of slot's context,
// in order.
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

// dropAllocs empties every slot holding an allocation of c: c freed them
// (finalize, destroy) or the model no longer knows whether it did (forget).
func (m *Model) dropAllocs(c *mctx) {
	for a := range m.allocs {
		if m.allocs[a].ctx == c {
			m.allocs[a] = allocSlot{}
		}
	}
}

// refuseDestroyAllocs: a destroy of c was refused; its allocations must
// live on unchanged, and its committed memory read the same (E-DESTROY.3).
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

// inFlight reports whether a run of c is launched and not finalized: its
// kernel may still be running, and what it does to committed memory is the
// runtime's.
func (m *Model) inFlight(c *mctx) bool {
	for i := range m.storages {
		if m.storages[i].ctx == c && m.storages[i].state == StorageLaunched {
			return true
		}
	}
	return false
}

// heldSince: committed memory must read as the runner last read it, since
// only a refused destroy of this program context came between (E-DESTROY.3).
func (m *Model) heldSince(c *mctx) {
	if c != nil && c.destroyMem && !c.unknown && !m.inFlight(c) {
		m.mem(MemSame)
		m.e.MemRule = REDestroy
	}
}

const (
	upMalloc = "upstream: common/platform/sim/host/c_api_shared.cpp:301-308, memory_allocator.cpp:24-35"
	upCopy   = "upstream: common/platform/sim/host/c_api_shared.cpp:317-333, device_runner_base.cpp:346-354"
)

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
	if c.latch != LatchProgram || !c.attached {
		m.mem(m.memState(c))
		if c.latch == LatchKernel {
			m.e.D1Rule = REProg // E-PROG.3: no ACL device call
		}
		if m.opt.Profile == ProfileLegacy && c.latch != LatchKernel {
			m.skipClause(REProg, "E-PROG's clauses for a context without a live program init are target-revision decisions: "+gNoInitGate)
			m.expect(RuleNone, anyStatus, "")
			return
		}
		m.expect(REProg, anyStatus, "")
		m.value(REProg, 0, "device_malloc_ctx without a live program init returns NULL (E-PROG.4)")
		return
	}
	m.expect(REProg, anyStatus, "")
	m.value(REProg, 1, "device_malloc_ctx of "+strconv.FormatUint(uint64(op.Size), 10)+
		" bytes with a live program init returns an allocation ("+upMalloc+")")
	m.mem(MemAny)
	if co := m.co; co == nil || co.Value != 0 {
		*sl = allocSlot{ctx: c, size: op.Size}
	}
}

// devCopy is dev_write and dev_read: a copy of slot op.A's whole
// allocation. Without a live program init the runner passes a NULL device
// pointer (the slot holds no allocation of a context without one), and
// E-PROG wants IS before anything else.
func (m *Model) devCopy(op Op, c *mctx, write bool) {
	if c = m.runEntry(op, c); c == nil {
		return
	}
	sl := &m.allocs[op.A]
	if sl.ctx != c {
		m.expect(RuleNone, anyStatus, "a"+strconv.Itoa(int(op.A))+" holds no allocation of this context: the runner does not make the call")
		return
	}
	r, note := REProg, upCopy
	if sl.refused {
		r, note = REDestroy, "it lived through a refused destroy, which leaves the context as it was: E-DESTROY.3"
	}
	m.heldSince(c)
	if op.OutNull {
		// E-PROG.24: a NULL host pointer is refused; the allocation keeps
		// what it holds.
		m.refuseArgument("a copy with a NULL host pointer (E-PROG.24)", gLegacyCopyNull)
		return
	}
	if write {
		m.expect(r, one(abi.OK), "a copy into a live allocation of this context ("+note+")")
		if st, seen := m.observed(); !seen || st == abi.OK {
			sl.holds = DevHolds(op.Seed)
		}
		return
	}
	m.expect(r, one(abi.OK), "a copy out of a live allocation of this context ("+note+")")
	if st, seen := m.observed(); sl.holds == 0 || (seen && st != abi.OK) {
		return // never written (what it holds is the runtime's), or no bytes came back
	}
	m.e.CheckValue, m.e.Value, m.e.ValueRule = true, sl.holds, r
	m.e.ValueNote = "the allocation holds " + DevHoldsText(sl.holds) + " (" + note + ")"
	if co := m.co; co != nil && co.Value != sl.holds {
		// Judged as a difference; what it holds now is what was read.
		sl.holds = co.Value
	}
}

// devFree is dev_free: device_free_ctx of slot op.A's allocation (a NULL
// pointer when the slot holds none: without a live init E-PROG.5).
func (m *Model) devFree(op Op, c *mctx) {
	if c == nil || m.unknownState(c) {
		m.expect(RuleNone, anyStatus, "")
		return
	}
	m.expect(RuleNone, anyStatus, "")
	if c.latch != LatchProgram || !c.attached {
		if c.latch == LatchKernel {
			m.e.D1Rule = REProg // E-PROG.3: no ACL device call
		}
		m.mem(m.memState(c))
		return
	}
	m.mem(MemAny) // program-mode committed memory is the runtime's
	if sl := &m.allocs[op.A]; sl.ctx == c {
		*sl = allocSlot{}
	}
}

func init() {
	defineStep(KindDevAlloc, stepDef{
		step: func(m *Model, op Op, c *mctx, _ *Observation) func() { m.devAlloc(op, c); return nil },
		// A NULL where an allocation was due: the slot stays empty, which
		// devAlloc followed from the answer; there is no status.
		resync: resyncNothing,
	})
	defineStep(KindDevWrite, stepDef{
		step:   func(m *Model, op Op, c *mctx, _ *Observation) func() { m.devCopy(op, c, true); return nil },
		resync: forgetContext,
	})
	defineStep(KindDevRead, stepDef{
		step:   func(m *Model, op Op, c *mctx, _ *Observation) func() { m.devCopy(op, c, false); return nil },
		resync: forgetContext,
	})
	defineStep(KindDevFree, stepDef{
		step:   func(m *Model, op Op, c *mctx, _ *Observation) func() { m.devFree(op, c); return nil },
		resync: resyncNothing,
	})
}
