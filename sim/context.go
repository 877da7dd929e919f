package sim

import (
	"github.com/simabi/simabi/sim/semantics"
	"sync"
	"sync/atomic"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
)

// Kernel context resources (semantics §5, §6): 2 streams and 5 events.
const (
	kernelStreams = 2
	kernelEvents  = 5
)

// PersistentLaunchRegionBytes is the persistent launch region a kernel
// context commits at the first prepare that reaches device registration
// (M-7).
const PersistentLaunchRegionBytes = semantics.PersistentLaunchRegionBytes

// codeBlock is one allocated kernel code block (M-5): size bytes, of which
// used are charged.
type codeBlock struct {
	size, used uint64
}

// resident is one published callable id of a kernel context.
type resident struct {
	img     *internedImage
	kernel  kernelKind
	tensors int32
	scalars int32
	size    uint64
	block   int32
	offset  uint64
}

// kernelState is what a kernel context holds; guarded by the context's gate.
type kernelState struct {
	generation      uint64
	config          *[abi.CallConfigSize]byte
	claimHeld       bool
	streams         [kernelStreams]bool
	events          [kernelEvents]bool
	residents       []resident
	blocks          []codeBlock
	allocated       uint64
	regionCommitted bool
	lastQ           *streamQueue // the stream of the last successful launch
	lastSerial      uint64       // its serial on that stream
	// skipBlocks: the blocks before it have room for no image V-PREP-2 lets
	// through (or are an image's own block). No block is freed while the
	// context lives, so first fit starts there: a fill to 8192 residents
	// does not walk every full block on every prepare.
	skipBlocks int
}

func (k *kernelState) liveStreams() int {
	n := 0
	for _, s := range k.streams {
		if s {
			n++
		}
	}
	return n
}

func (k *kernelState) liveEvents() int {
	n := 0
	for _, e := range k.events {
		if e {
			n++
		}
	}
	return n
}

// deviceResourcesHeld: code blocks or the persistent region (K-5 step a).
func (k *kernelState) deviceResourcesHeld() bool { return len(k.blocks) > 0 || k.regionCommitted }

func (k *kernelState) committed() uint64 {
	c := k.allocated
	if k.regionCommitted {
		c += PersistentLaunchRegionBytes
	}
	return c
}

// runState is the state of a program run.
type runState uint8

const (
	runPrepared runState = iota
	runLaunched
	runCompleted
)

// progCallable is a program-mode registration.
type progCallable struct {
	kernel  kernelKind
	tensors int32
	scalars int32
	size    uint64
}

// progRun is one program run, keyed by its RuntimeHandle value.
type progRun struct {
	state         runState
	work          kernelWork // what the kernel reads of args, snapshotted at prepare
	acceptedState *int32
	acceptedValue int32
	result        abi.Status
}

// programState is what a program context holds; guarded by the context's pmu.
type programState struct {
	attached  bool
	deviceID  int32
	callables map[int32]progCallable
	runs      map[abi.RunHandle]*progRun
	dlopens   uint64
}

// outstanding reports a native run outstanding (E-FIN): one is from the
// successful prepare_run that opened it until finalize_run of its run
// storage returns, launched or not, completed or not. finalize_device,
// destroy, register and unregister consult it.
func (p *programState) outstanding() bool { return len(p.runs) > 0 }

// context is one device context.
type context struct {
	rt     *Runtime
	handle abi.Ctx
	mode   latch.ModeLatch

	// Kernel mode. gate is the submission gate: prepare, init and
	// finalize take it blocking, launch try-locks it; k is guarded by it.
	gate        submissionGate
	machine     latch.Machine
	deviceID    atomic.Int32
	initFailed  atomic.Bool
	quarantined atomic.Bool
	finalized   atomic.Bool // a finalize of this kernel context returned 0
	committed   atomic.Uint64
	k           kernelState

	// Program mode, guarded by pmu.
	pmu sync.Mutex
	p   programState
}

// ctxChunkBits sizes a chunk of the handle table.
const (
	ctxChunkBits = 10
	ctxChunkSize = 1 << ctxChunkBits
	// ctxSlotBits is how many low bits of a handle index the table; the bits
	// above hold a per-instance serial, so a handle value is never reused
	// even when its slot is.
	ctxSlotBits = 24
	ctxSlotMask = 1<<ctxSlotBits - 1
)

type ctxChunk [ctxChunkSize]atomic.Pointer[context]

// ctxTable maps handles to contexts. Lookups are lock-free: an atomic load
// of the chunk list, an index, an atomic load of the slot, and a compare of
// the full handle value. Create and destroy lock.
type ctxTable struct {
	mu       sync.Mutex
	chunks   atomic.Pointer[[]*ctxChunk]
	free     []uint32
	nextSlot uint32
	serial   uint64
	live     int
}

func (t *ctxTable) lookup(h abi.Ctx) *context {
	if h == 0 {
		return nil
	}
	slot := uint32(uintptr(h) & ctxSlotMask)
	chunks := t.chunks.Load()
	if chunks == nil {
		return nil
	}
	ci := int(slot >> ctxChunkBits)
	if ci >= len(*chunks) {
		return nil
	}
	c := (*chunks)[ci][slot&(ctxChunkSize-1)].Load()
	if c == nil || c.handle != h {
		return nil
	}
	return c
}

// insert gives c a fresh handle; false when every slot is in use.
func (t *ctxTable) insert(c *context) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	var slot uint32
	if n := len(t.free); n > 0 {
		slot = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		if t.nextSlot > ctxSlotMask {
			return false
		}
		slot = t.nextSlot
		t.nextSlot++
	}
	ci := int(slot >> ctxChunkBits)
	var chunks []*ctxChunk
	if p := t.chunks.Load(); p != nil {
		chunks = *p
	}
	if ci >= len(chunks) {
		grown := make([]*ctxChunk, ci+1)
		copy(grown, chunks)
		grown[ci] = new(ctxChunk)
		t.chunks.Store(&grown)
		chunks = grown
	}
	t.serial++
	c.handle = abi.Ctx(uintptr(t.serial)<<ctxSlotBits | uintptr(slot))
	chunks[ci][slot&(ctxChunkSize-1)].Store(c)
	t.live++
	return true
}

// remove frees c's slot; its handle becomes invalid.
func (t *ctxTable) remove(c *context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	slot := uint32(uintptr(c.handle) & ctxSlotMask)
	chunks := *t.chunks.Load()
	p := &chunks[slot>>ctxChunkBits][slot&(ctxChunkSize-1)]
	if p.Load() != c {
		return
	}
	p.Store(nil)
	t.free = append(t.free, slot)
	t.live--
}

func (t *ctxTable) liveCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.live
}
