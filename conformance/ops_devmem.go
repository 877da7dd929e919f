package conformance

import (
	"strconv"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// Device memory of a program context: dev_alloc, dev_write, dev_read,
// dev_free on the runner's allocation slots (op.DevArgs).

// devRun is the allocation slots' pointers (kept after a free: ptr=freed
// passes it) and sizes, and the copies' host buffers.
type devRun struct {
	p       [op.MaxAllocs]abi.DevicePtr
	size    [op.MaxAllocs]uint32
	out     []byte   // what a dev_write copies in
	back    []byte   // what a dev_read copies out into
	unknown [64]byte // what ptr=unknown passes: never an allocation
}

// reset forgets the last run's pointers; the buffers are kept.
func (d *devRun) reset() {
	d.p, d.size = [op.MaxAllocs]abi.DevicePtr{}, [op.MaxAllocs]uint32{}
}

const (
	devNullSize = 64      // what a copy with a NULL device pointer passes
	devHostMax  = 4 << 20 // the host buffers' bound (len=huge passes this)
	devCrossMax = 1 << 22 // how far apart the allocations a cross=B joins may lie
)

// buffers returns the two host buffers, n bytes each and one more behind
// (a copy of 0 bytes still passes a pointer).
func (d *devRun) buffers(n int) ([]byte, []byte) {
	if len(d.out) < n+1 {
		d.out, d.back = make([]byte, n+1), make([]byte, n+1)
	}
	return d.out[:n], d.back[:n]
}

// devSpan is the device pointer and length a copy of op passes and the
// offset into the allocation: NULL when op's context holds none there.
func (r *Runner) devSpan(o op.Op) (abi.DevicePtr, uint64, uint64) {
	al, held := r.view().Allocation(o.A)
	if !held || al.Slot != o.C {
		return 0, devNullSize, 0
	}
	if o.Mem.Cross {
		lo, hi := o.A, o.Mem.Into
		if r.dev.p[hi] < r.dev.p[lo] {
			lo, hi = hi, lo
		}
		from := r.dev.p[lo] + abi.DevicePtr(r.dev.size[lo]) - op.DevCrossEdge
		return from, uint64(r.dev.p[hi]+op.DevCrossEdge) - uint64(from), 0
	}
	off, n, _ := model.DevCopySpan(o, r.dev.size[o.A])
	return r.dev.p[o.A] + abi.DevicePtr(off), n, off
}

// devFreePtr is the pointer a dev_free of op passes.
func (r *Runner) devFreePtr(o op.Op) abi.DevicePtr {
	switch o.Mem.Ptr {
	case op.PtrInterior:
		return r.dev.p[o.A] + abi.DevicePtr(o.Mem.Off)
	case op.PtrUnknown:
		return abi.DevicePtr(uintptr(unsafe.Pointer(&r.dev.unknown[0])))
	case op.PtrFreed, op.PtrForeign:
		return r.dev.p[o.A]
	}
	p, _, _ := r.devSpan(o)
	return p
}

// devReady says why the runner does not call op: the allocations' state is
// unknown, a legacy context has no init gate, the slot holds the wrong
// allocation or none, or devArgsReady refuses the arguments.
func devReady(r *Runner, o op.Op) string {
	c, _ := r.view().Context(o.C)
	slot := "a" + strconv.Itoa(int(o.A))
	if lost, _ := r.view().Lost(); lost {
		return "the model lost track: whether the allocations live is not known"
	}
	if c.Unknown {
		return "c" + itoa(int32(o.C)) + "'s state is unknown since a divergence: its allocations are not called"
	}
	live := c.Latch == model.LatchProgram && c.Attached
	if !live && r.view().Profile() == model.ProfileLegacy && c.Latch != model.LatchKernel {
		return "legacy build: no init gate (device_malloc_ctx allocates without an init); E-PROG's clauses for a context without a live program init are target-revision decisions"
	}
	if o.Mem != (op.DevArgs{}) && !live && o.Kind != op.KindDevAlloc {
		return "a span or pointer of " + slot + " is passed only on a context with a live program init"
	}
	al, held := r.view().Allocation(o.A)
	switch {
	case o.Kind == op.KindDevAlloc && held:
		return slot + " holds an allocation already"
	case o.Kind == op.KindDevAlloc, o.Kind == op.KindDevFree && o.Mem.Ptr == op.PtrUnknown:
		return ""
	case o.Kind == op.KindDevFree && o.Mem.Ptr == op.PtrForeign:
		if !held || al.Slot == o.C {
			return slot + " holds no allocation of another context"
		}
		return ""
	case o.Kind == op.KindDevFree && o.Mem.Ptr == op.PtrFreed:
		return r.devFreedReady(o)
	case held && al.Slot != o.C:
		return slot + " holds an allocation of another context"
	case !held && live:
		return slot + " holds no allocation"
	}
	return r.devArgsReady(o, al)
}

// devFreedReady says why a dev_free ptr=freed is not made: no freed
// allocation, or its address may have been handed out again.
func (r *Runner) devFreedReady(o op.Op) string {
	slot := "a" + strconv.Itoa(int(o.A))
	if _, held := r.view().Allocation(o.A); held || r.dev.p[o.A] == 0 {
		return slot + " holds no freed allocation"
	}
	for a := range int8(op.MaxAllocs) {
		if _, held := r.view().Allocation(a); held && r.dev.p[a] == r.dev.p[o.A] {
			return "the address " + slot + " had is a live allocation's again"
		}
	}
	if !r.view().Options().Simulated {
		return "a real build's allocator may have handed the freed address out again, to buffers the runner cannot see"
	}
	return ""
}

// devArgsReady says why a span or interior pointer of al is not passed:
// what lies there may be another allocation or mapping, or a real legacy
// build would memcpy past the end (E-PROG.30).
func (r *Runner) devArgsReady(o op.Op, al model.Alloc) string {
	slot := "a" + strconv.Itoa(int(o.A))
	wild := false
	switch {
	case o.Kind == op.KindDevFree && o.Mem.Ptr == op.PtrInterior:
		if o.Mem.Off >= al.Size {
			return "at=" + strconv.FormatUint(uint64(o.Mem.Off), 10) + " is not inside " + slot + "'s " + strconv.FormatUint(uint64(al.Size), 10) + " bytes"
		}
	case o.Mem.Cross:
		b, held := r.view().Allocation(o.Mem.Into)
		if !held || b.Slot != o.C {
			return "a" + strconv.Itoa(int(o.Mem.Into)) + " holds no allocation of this context"
		}
		if al.Size < op.DevCrossEdge || b.Size < op.DevCrossEdge {
			return "cross= joins allocations of at least " + strconv.Itoa(op.DevCrossEdge) + " bytes"
		}
		if _, n, _ := r.devSpan(o); n > devCrossMax {
			return "the two allocations lie " + strconv.FormatUint(n, 10) + " bytes apart"
		}
		wild = true
	case o.Mem.Span:
		_, n, inside := model.DevCopySpan(o, al.Size)
		switch {
		case n > 0 && o.Mem.Off > al.Size:
			return "off=" + strconv.FormatUint(uint64(o.Mem.Off), 10) + " starts past " + slot + "'s end, where another allocation may lie"
		case n > 0 && o.Mem.Off == al.Size && al.Size%4096 == 0:
			return slot + " ends on a page boundary, where another mapping may begin"
		}
		wild = !inside && n > 0
	}
	if wild && o.OutNull {
		return ""
	}
	if wild && r.view().Profile() == model.ProfileLegacy && !r.view().Options().Simulated {
		return "a legacy build that is not simulated memcpys a span past an allocation's end (upstream device_runner_base.cpp:346-354): the checker does not write into its heap (E-PROG.30)"
	}
	return ""
}

func init() {
	defineOp(op.KindDevAlloc, opClass{
		rule:  model.REProg,
		ready: devReady,
		// The family's candidates, now and then on a non-program context.
		gen: func(g *Generator, s *genState) {
			g.onSlot(40, s.program, 0, (*Generator).devOp)
			if len(s.live) > len(s.program) && g.o.Profile != model.ProfileLegacy {
				g.onSlot(2, s.live, 0, (*Generator).devOp)
			}
		},
		call: func(r *Runner, o op.Op, h abi.Ctx, obs *op.Observation) {
			size := uintptr(o.Size)
			if o.Mem.Huge {
				size = op.DevHugeSize
			}
			p := r.rt.DeviceMalloc(h, size)
			r.dev.p[o.A], r.dev.size[o.A] = p, o.Size
			if p != 0 {
				obs.Call.Value = 1
			}
			if p != 0 && o.Mem.Huge { // no slot keeps it
				r.rt.DeviceFree(h, p)
				r.dev.p[o.A] = 0
			}
		},
		result: nonNull,
	})
	defineOp(op.KindDevWrite, opClass{
		rule:  model.REProg,
		ready: devReady,
		call: func(r *Runner, o op.Op, h abi.Ctx, obs *op.Observation) {
			p, n, off := r.devSpan(o)
			out, _ := r.dev.buffers(int(off) + int(min(n, devHostMax)))
			op.DevPattern(out, o.A, o.Seed)
			host := unsafe.Pointer(unsafe.SliceData(out[off:]))
			if o.OutNull {
				host = nil
			}
			obs.Call.Status = r.rt.CopyToDevice(h, p, host, uintptr(n))
		},
	})
	defineOp(op.KindDevRead, opClass{
		rule:  model.REProg,
		ready: devReady,
		call:  devRead,
		result: func(e *Entry) string {
			o := &e.Obs
			switch {
			case o.Call.Status != abi.OK:
				return op.StatusName(o.Call.Status)
			case o.Holds == 0:
				return "read"
			case o.Call.Value == o.Holds:
				return "same"
			}
			return "differs"
		},
	})
	defineOp(op.KindDevFree, opClass{
		rule:  model.REProg,
		ready: devReady,
		call: func(r *Runner, o op.Op, h abi.Ctx, _ *op.Observation) {
			r.rt.DeviceFree(h, r.devFreePtr(o))
		},
		result: func(*Entry) string { return "done" },
	})
}

// devRead is a dev_read's call: Call.Value names the pattern read back,
// Holds the one the model says the allocation holds.
func devRead(r *Runner, o op.Op, h abi.Ctx, obs *op.Observation) {
	p, n, off := r.devSpan(o)
	al, held := r.view().Allocation(o.A)
	if held && al.Slot == o.C && n > 0 {
		obs.Holds = al.Holds
	}
	_, back := r.dev.buffers(int(min(n, devHostMax)))
	clear(back)
	host := unsafe.Pointer(unsafe.SliceData(back))
	if o.OutNull {
		host = nil
	}
	obs.Call.Status = r.rt.CopyFromDevice(h, host, p, uintptr(n))
	switch {
	case obs.Call.Status != abi.OK || p == 0 || host == nil || n == 0:
	case o.Mem.Span:
		obs.Call.Value = op.DevSpanContent(back, o.A, uint32(off), al.Holds)
	case !o.Mem.Cross:
		obs.Call.Value = op.DevContent(back, o.A)
	}
}

var genDevSizes = []uint32{8, 64, 100, 4096}

// devOp is one device memory op on context c.
func (g *Generator) devOp(ch Chooser, c int8) op.Op {
	var mine, empty [op.MaxAllocs]int8
	nm, ne := 0, 0
	for a := range int8(op.MaxAllocs) {
		al, held := g.st.Model().Allocation(a)
		switch {
		case !held:
			empty[ne], ne = a, ne+1
		case al.Slot == c:
			mine[nm], nm = a, nm+1
		}
	}
	ctx, _ := g.st.Model().Context(c)
	if ctx.Latch != model.LatchProgram || !ctx.Attached {
		if ne == 0 {
			return op.Op{Kind: op.KindCommitted, C: c}
		}
		a := empty[ch.IntN(ne, "dev-slot")]
		switch ch.IntN(3, "dev-noinit") {
		case 0:
			return op.Op{Kind: op.KindDevAlloc, C: c, A: a, Size: pickU32(ch, "dev-size", genDevSizes)}
		case 1:
			return op.Op{Kind: op.KindDevWrite, C: c, A: a, Seed: uint8(ch.IntN(16, "dev-seed"))}
		}
		return op.Op{Kind: op.KindDevRead, C: c, A: a}
	}
	if nm == 0 || (ne > 0 && ch.IntN(4, "dev-new") == 0) {
		if ne == 0 {
			return op.Op{Kind: op.KindCommitted, C: c}
		}
		return g.devAlloc(ch, c, empty[ch.IntN(ne, "dev-slot")])
	}
	a := mine[ch.IntN(nm, "dev-slot")]
	if ch.IntN(6, "dev-odd") == 0 {
		var free int8 = -1
		if ne > 0 {
			free = empty[ch.IntN(ne, "dev-freed")]
		}
		return g.devOddOp(ch, c, a, mine[ch.IntN(nm, "dev-into")], free)
	}
	switch x := ch.IntN(10, "dev-op"); {
	case x < 4:
		return op.Op{Kind: op.KindDevWrite, C: c, A: a, Seed: uint8(ch.IntN(16, "dev-seed")), OutNull: ch.IntN(10, "dev-host") == 0}
	case x < 8:
		return op.Op{Kind: op.KindDevRead, C: c, A: a, OutNull: ch.IntN(10, "dev-host") == 0}
	}
	return op.Op{Kind: op.KindDevFree, C: c, A: a}
}

// devAlloc is a dev_alloc into empty slot a, now and then of 0 bytes or a
// huge size (E-PROG.33, .34).
func (g *Generator) devAlloc(ch Chooser, c, a int8) op.Op {
	o := op.Op{Kind: op.KindDevAlloc, C: c, A: a, Size: pickU32(ch, "dev-size", genDevSizes)}
	switch ch.IntN(16, "dev-size-odd") {
	case 0:
		o.Size = 0
	case 1:
		o.Size, o.Mem.Huge = 0, true
	}
	return o
}

// devOddOp is a copy or free of allocation a with arguments beyond the
// whole allocation (freed: a slot with a freed one, -1 none).
func (g *Generator) devOddOp(ch Chooser, c, a, into, freed int8) op.Op {
	al, _ := g.st.Model().Allocation(a)
	size := uint64(al.Size)
	o := op.Op{Kind: op.KindDevRead, C: c, A: a}
	if ch.IntN(2, "dev-odd-write") == 0 {
		o.Kind, o.Seed = op.KindDevWrite, uint8(ch.IntN(16, "dev-seed"))
	}
	off := uint64(ch.IntN(int(size)+1, "dev-off"))
	o.Mem = op.DevArgs{Span: true, Off: uint32(off)}
	switch ch.IntN(6, "dev-odd-form") {
	case 0: // inside, or ending at the end (E-PROG.28)
		o.Mem.Len = uint64(ch.IntN(int(size-off)+1, "dev-len"))
	case 1: // past the end (E-PROG.30)
		o.Mem.Len = size - off + []uint64{1, 64, op.DevHugeSize}[ch.IntN(3, "dev-past")]
	case 2: // 0 bytes at the end (E-PROG.31)
		o.Mem.Off, o.Mem.Len = uint32(size), 0
	case 3: // into the next allocation (E-PROG.30)
		if into != a {
			o.Mem = op.DevArgs{Cross: true, Into: into}
			return o
		}
		o.Mem.Len = size - off + 1
	case 4: // a pointer inside it (E-PROG.32)
		if size < 2 {
			return op.Op{Kind: op.KindDevFree, C: c, A: a, Mem: op.DevArgs{Ptr: op.PtrUnknown}}
		}
		return op.Op{Kind: op.KindDevFree, C: c, A: a, Mem: op.DevArgs{Ptr: op.PtrInterior, Off: uint32(1 + ch.IntN(int(size)-1, "dev-at"))}}
	default: // a pointer no live allocation of c starts at (E-PROG.32)
		ptr := []op.DevPtr{op.PtrUnknown, op.PtrForeign, op.PtrFreed}[ch.IntN(3, "dev-ptr")]
		free := op.Op{Kind: op.KindDevFree, C: c, A: a, Mem: op.DevArgs{Ptr: ptr}}
		if ptr == op.PtrForeign {
			free.A = g.foreignAlloc(c, a)
		}
		if ptr == op.PtrFreed && freed >= 0 {
			free.A = freed
		}
		return free
	}
	return o
}

// foreignAlloc is a slot holding another context's allocation, else a.
func (g *Generator) foreignAlloc(c, a int8) int8 {
	for b := range int8(op.MaxAllocs) {
		if al, held := g.st.Model().Allocation(b); held && al.Slot != c {
			return b
		}
	}
	return a
}
