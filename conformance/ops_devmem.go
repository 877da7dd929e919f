package conformance

import (
	"strconv"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// Device memory of a program context with valid arguments: dev_alloc,
// dev_write, dev_read, dev_free on allocation slots the runner owns.

// devRun is the runner's side of the allocation slots: the pointer each
// dev_alloc returned and its size, and the host buffers the copies use.
type devRun struct {
	p    [op.MaxAllocs]abi.DevicePtr
	size [op.MaxAllocs]uint32
	out  []byte // what a dev_write copies in
	back []byte // what a dev_read copies out into
}

// reset forgets the pointers of the last run (a fresh instance holds no
// allocation); the buffers are kept.
func (d *devRun) reset() {
	d.p, d.size = [op.MaxAllocs]abi.DevicePtr{}, [op.MaxAllocs]uint32{}
}

// devNullSize is the size a copy passes with a NULL device pointer (a slot
// that holds no allocation, on a context without a live program init).
const devNullSize = 64

// buffers returns the two host buffers, n bytes each.
func (d *devRun) buffers(n int) ([]byte, []byte) {
	if len(d.out) < n {
		d.out, d.back = make([]byte, n), make([]byte, n)
	}
	return d.out[:n], d.back[:n]
}

// devTarget is the device pointer and size a copy or free of op's slot
// passes: the slot's allocation when the model says it is live and op's
// context made it, else NULL (the runner calls that only on a context
// without a live program init: devReady).
func (r *Runner) devTarget(o op.Op) (abi.DevicePtr, int) {
	if al, held := r.m.Allocation(o.A); held && al.Slot == o.C {
		return r.dev.p[o.A], int(r.dev.size[o.A])
	}
	return 0, devNullSize
}

// devReady says why the runner does not call op: a model that lost track
// or a context whose state is unknown (what its allocations hold is not
// known), a legacy context
// without a live init (no init gate: its device_malloc_ctx allocates, and
// its copies would reach memory no slot describes), a dev_alloc into a
// slot that holds an allocation, a copy or free of a slot that holds
// another context's allocation, or none on a context with a live init.
func devReady(r *Runner, o op.Op) string {
	c, _ := r.m.Context(o.C)
	slot := "a" + strconv.Itoa(int(o.A))
	if lost, _ := r.m.Lost(); lost {
		// Past a loss the model no longer follows what freed an
		// allocation: a pointer it holds may be a freed one.
		return "the model lost track: whether the allocations live is not known"
	}
	if c.Unknown {
		return "c" + itoa(int32(o.C)) + "'s state is unknown since a divergence: its allocations are not called"
	}
	live := c.Latch == model.LatchProgram && c.Attached
	if !live && r.m.Profile() == model.ProfileLegacy && c.Latch != model.LatchKernel {
		return "legacy build: no init gate (device_malloc_ctx allocates without an init); E-PROG's clauses for a context without a live program init are target-revision decisions"
	}
	al, held := r.m.Allocation(o.A)
	switch {
	case o.Kind == op.KindDevAlloc && held:
		return slot + " holds an allocation already"
	case o.Kind == op.KindDevAlloc:
		return ""
	case held && al.Slot != o.C:
		return slot + " holds an allocation of another context"
	case !held && live:
		return slot + " holds no allocation"
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
			if len(s.program) > 0 {
				g.add(40, func(g *Generator, ch Chooser) op.Op { return g.devOp(ch, g.pick(ch, "slot", g.gs.program)) })
			}
			if len(s.live) > len(s.program) && g.o.Profile != model.ProfileLegacy {
				g.add(2, func(g *Generator, ch Chooser) op.Op { return g.devOp(ch, g.pick(ch, "slot", g.gs.live)) })
			}
		},
		call: func(r *Runner, o op.Op, h abi.Ctx, obs *op.Observation) {
			p := r.rt.DeviceMalloc(h, uintptr(o.Size))
			r.dev.p[o.A], r.dev.size[o.A] = p, o.Size
			if p != 0 {
				obs.Call.Value = 1
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
			p, n := r.devTarget(o)
			out, _ := r.dev.buffers(n)
			op.DevPattern(out, o.A, o.Seed)
			host := unsafe.Pointer(unsafe.SliceData(out))
			if o.OutNull {
				host = nil
			}
			obs.Call.Status = r.rt.CopyToDevice(h, p, host, uintptr(n))
		},
	})
	defineOp(op.KindDevRead, opClass{
		rule:  fixedRule(model.REProg),
		ready: devReady,
		call: func(r *Runner, o op.Op, h abi.Ctx, obs *op.Observation) {
			p, n := r.devTarget(o)
			if al, held := r.m.Allocation(o.A); held && al.Slot == o.C {
				obs.Holds = al.Holds
			}
			_, back := r.dev.buffers(n)
			clear(back)
			host := unsafe.Pointer(unsafe.SliceData(back))
			if o.OutNull {
				host = nil
			}
			obs.Call.Status = r.rt.CopyFromDevice(h, host, p, uintptr(n))
			if obs.Call.Status == abi.OK && p != 0 && host != nil {
				obs.Call.Value = op.DevContent(back, o.A)
			}
		},
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
			p, _ := r.devTarget(o)
			r.rt.DeviceFree(h, p)
		},
		result: func(*Entry) string { return "done" },
	})
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
		al, held := g.m.Allocation(a)
		switch {
		case !held:
			empty[ne], ne = a, ne+1
		case al.Slot == c:
			mine[nm], nm = a, nm+1
		}
	}
	ctx, _ := g.m.Context(c)
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
		return op.Op{Kind: op.KindDevAlloc, C: c, A: empty[ch.IntN(ne, "dev-slot")], Size: pickU32(ch, "dev-size", genDevSizes)}
	}
	a := mine[ch.IntN(nm, "dev-slot")]
	switch x := ch.IntN(10, "dev-op"); {
	case x < 4:
		return op.Op{Kind: op.KindDevWrite, C: c, A: a, Seed: uint8(ch.IntN(16, "dev-seed")), OutNull: ch.IntN(10, "dev-host") == 0}
	case x < 8:
		return op.Op{Kind: op.KindDevRead, C: c, A: a, OutNull: ch.IntN(10, "dev-host") == 0}
	}
	return op.Op{Kind: op.KindDevFree, C: c, A: a}
}
