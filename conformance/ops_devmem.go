package conformance

import (
	"strconv"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// Device memory of a program context: dev_alloc, dev_write, dev_read,
// dev_free on allocation slots the runner owns, with whole allocations and
// with the spans, pointers and sizes op.DevArgs describes.

// devRun is the runner's side of the allocation slots: the pointer each
// dev_alloc returned (kept after a free: ptr=freed passes it) and its
// size, and the host buffers the copies use.
type devRun struct {
	p    [op.MaxAllocs]abi.DevicePtr
	size [op.MaxAllocs]uint32
	out  []byte // what a dev_write copies in
	back []byte // what a dev_read copies out into
	// unknown is what ptr=unknown passes: the runner's own memory, which no
	// runtime ever handed out as an allocation.
	unknown [64]byte
}

// reset forgets the pointers of the last run (a fresh instance holds no
// allocation); the buffers are kept.
func (d *devRun) reset() {
	d.p, d.size = [op.MaxAllocs]abi.DevicePtr{}, [op.MaxAllocs]uint32{}
}

// devNullSize is the size a copy passes with a NULL device pointer (a slot
// that holds no allocation, on a context without a live program init).
const devNullSize = 64

// devHostMax bounds the host buffers: a longer span (len=huge) passes a
// buffer this long, which only a runtime that takes the span runs past.
const devHostMax = 4 << 20

// buffers returns the two host buffers, n bytes each, with one byte more
// behind them, so that a copy of 0 bytes still passes a pointer.
func (d *devRun) buffers(n int) ([]byte, []byte) {
	if len(d.out) < n+1 {
		d.out, d.back = make([]byte, n+1), make([]byte, n+1)
	}
	return d.out[:n], d.back[:n]
}

// devSpan is the device pointer and length a copy of op passes, and the
// span's offset into the slot's allocation: the slot's allocation (or the
// span op names) when the model says it is live and op's context made it,
// else NULL (the runner calls that only on a context without a live program
// init: devReady).
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

// devCrossMax bounds how far apart two allocations a cross=B span joins
// may lie: the span's host buffer is that long.
const devCrossMax = 1 << 22

// devReady says why the runner does not call op: a model that lost track
// or a context whose state is unknown (what its allocations hold is not
// known), a legacy context
// without a live init (no init gate: its device_malloc_ctx allocates, and
// its copies would reach memory no slot describes), a dev_alloc into a
// slot that holds an allocation, a copy or free of a slot that holds
// another context's allocation, or none on a context with a live init,
// and the arguments devArgsReady refuses.
func devReady(r *Runner, o op.Op) string {
	c, _ := r.view().Context(o.C)
	slot := "a" + strconv.Itoa(int(o.A))
	if lost, _ := r.view().Lost(); lost {
		// Past a loss the model no longer follows what freed an
		// allocation: a pointer it holds may be a freed one.
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

// devFreedReady says why a dev_free ptr=freed is not made: the slot holds
// a live allocation, or never held one, or the address it had was handed
// out again (a live slot holds it), or the build may have handed it out
// to memory the runner cannot see (a real build's allocator reuses freed
// addresses for a run's buffers).
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

// devArgsReady says why a span or interior pointer of the allocation al
// is not passed: one that starts past its end (another allocation may lie
// there), or at an end on a page boundary (another mapping may begin
// there), a cross=B of allocations too small or too far apart, an
// interior pointer outside the allocation, and on a legacy build that is
// not simulated a span past the end (upstream's copies memcpy it:
// docs/contract.md E-PROG.30).
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
		rule:  fixedRule(model.REProg),
		ready: devReady,
		// The family's candidates, all from here: on a live program
		// context mostly, now and then on any other (E-PROG).
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
			if p != 0 && o.Mem.Huge {
				// No slot keeps it (the runner's buffers cannot): it goes
				// back at once, inside the call the model judges.
				r.rt.DeviceFree(h, p)
				r.dev.p[o.A] = 0
			}
		},
		result: func(e *Entry) string {
			// Addresses differ between any two runs: only whether there
			// was one.
			if e.Obs.Call.Value != 0 {
				return "nonnull"
			}
			return "null"
		},
	})
	defineOp(op.KindDevWrite, opClass{
		rule:  fixedRule(model.REProg),
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
		rule:  fixedRule(model.REProg),
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
		rule:  fixedRule(model.REProg),
		ready: devReady,
		call: func(r *Runner, o op.Op, h abi.Ctx, _ *op.Observation) {
			r.rt.DeviceFree(h, r.devFreePtr(o))
		},
		result: func(*Entry) string { return "done" },
	})
}

// devRead is a dev_read's call: the bytes read back name the pattern they
// are (Call.Value), for the history's comparison with what the model says
// the allocation holds (Holds).
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

// Allocation sizes the generator draws: a word, a line, one that is no
// multiple of 64, a page.
var genDevSizes = []uint32{8, 64, 100, 4096}

// devOp is one device memory op on context c: on a live program context
// an allocation into a free slot, or a write, read or free of one of its
// own; on any other context (E-PROG) an allocation, or a copy of a slot
// that holds none.
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

// devAlloc is a dev_alloc into the empty slot a of a live program context:
// now and then of 0 bytes or of a huge size (E-PROG.33, .34).
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

// devOddOp is a copy or free of allocation a of live program context c
// with arguments beyond the whole allocation: a span inside it, ending at
// its end or running past it, of 0 bytes, crossing into allocation into
// (when that is another), or a free of a pointer inside it, of one no
// allocation had, of another context's or of slot freed's freed one (-1:
// none). The copies pass a host pointer (a NULL one would decide first,
// E-PROG.24).
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

// foreignAlloc is a slot holding another context's allocation than c's,
// else a (the runner skips the free then).
func (g *Generator) foreignAlloc(c, a int8) int8 {
	for b := range int8(op.MaxAllocs) {
		if al, held := g.st.Model().Allocation(b); held && al.Slot != c {
			return b
		}
	}
	return a
}
