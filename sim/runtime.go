package sim

import (
	"hash/maphash"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
)

// Profile is a runtime build profile (abi.Profile).
type Profile = abi.Profile

// Profiles the simulator implements.
const (
	// TMR models tensormap_and_ringbuffer on silicon: the full kernel
	// lifecycle; simpler_kernel_mode_supported is 1.
	TMR = abi.ProfileTMR
	// Refusing models host_build_graph and stub builds: the kernel entries
	// validate, then refuse; supported is 0.
	Refusing = abi.ProfileRefusing
)

// Implements reports whether p is a profile the simulator implements.
func Implements(p Profile) bool { return p == TMR || p == Refusing }

// Options configure a runtime instance.
type Options struct {
	// Faults is the initial simabi_inject state, applied in order as if by
	// SimInject. A fault SimInject would refuse is ignored, and a refusing
	// build ignores them all (it models no site).
	Faults []Fault
	// Logger receives the lines a C runtime would log (refused destroys,
	// quarantine). Nil discards them.
	Logger *slog.Logger
	// ThreadIdentity selects the per-OS-thread key of the current device:
	// the kernel thread id by default; ThreadIdentityFSBase is a faster
	// opt-in that is wrong once threads that set a device exit (see its doc).
	ThreadIdentity ThreadIdentity
	// CallerLocksThread promises that every call that sets a current device
	// comes from a goroutine locked to its OS thread (runtime.LockOSThread),
	// as the checker's runner does: the simulator then skips its check that
	// the goroutine is locked (a read of the goroutine's stack header, the
	// most expensive part of a setdev, about 2.5 µs here), and an unlocked
	// caller sets the device of whichever thread it happens to run on.
	CallerLocksThread bool
	// CommTimeout bounds every wait of the comm family for its peers (the
	// size and publication of a segment, the ready, release and destroy
	// barriers, comm_barrier); 0 is upstream's 120 s. A test that drives a
	// missing peer sets a short one instead of waiting (docs/semantics.md
	// §14).
	CommTimeout time.Duration
	// Pipeline selects the program pipeline the instance presents: its
	// PipelineContract and run storage (docs/semantics.md §10); "" is the
	// profile's default, abi.PipelineSingle for tmr and refusing. An
	// unknown name is abi.PipelineSingle (ParsePipeline validates names).
	Pipeline abi.Pipeline
}

// Runtime is one simulated runtime instance (semantics §1): its contexts,
// device-claim registry, fault state, stream queues, device memory, interned
// images and simulated ACL. Two instances share nothing. It implements
// abi.Runtime and abi.SimHooks; every method is safe for concurrent use and
// none panics on any argument (pointers must point at memory of the sizes
// the C ABI implies, as for a C runtime).
type Runtime struct {
	profile     Profile
	kernel      bool // the tmr profile: kernel mode supported
	log         *slog.Logger
	fsbase      bool
	trustLocked bool // Options.CallerLocksThread

	initialFaults []Fault // Options.Faults, applied again by SimReset

	ctxs    ctxTable
	claims  latch.ClaimRegistry
	faults  faultState
	devs    deviceTable
	streams streamTable
	mem     deviceMemory
	images  imageStore
	acl     ACL
	comm    *commState

	contract [abi.PipelineContractSize / 8]uint64
	pipeline abi.PipelineSpec // Options.Pipeline's: the contract and the run storage

	invalidHandles  atomic.Uint64
	refusedDestroys atomic.Uint64

	// runStorage is the run storage holding a native run, whichever
	// context's: a second prepare on it is refused (semantics §10).
	runStorageMu sync.Mutex
	runStorage   map[abi.RunHandle]*context

	// traceRelease, when set (tests), is told of every release attempt of a
	// kernel context's resources, in order, with whether it succeeded.
	traceRelease func(ctx abi.Ctx, what string, ok bool)
}

var (
	_ abi.Runtime        = (*Runtime)(nil)
	_ abi.SimHooks       = (*Runtime)(nil)
	_ abi.SimCommTimeout = (*Runtime)(nil)
)

// New returns a runtime instance of profile p. A profile other than TMR
// behaves as Refusing (Profile still reports p; Loader refuses to load it).
func New(p Profile, o Options) *Runtime {
	r := &Runtime{profile: p, kernel: p == TMR, log: o.Logger}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler) // formats nothing: a refusal costs no formatting
	}
	r.fsbase = o.ThreadIdentity == ThreadIdentityFSBase && FSBaseThreadKey()
	r.trustLocked = o.CallerLocksThread
	if !r.fsbase {
		r.devs.prune = threadAlive
	}
	r.images.seed = maphash.MakeSeed()
	r.mem.backing = new(deviceBacking)
	runtime.AddCleanup(r, (*deviceBacking).release, r.mem.backing)
	r.acl.r = r
	log := r.log
	r.comm = newCommState(o.CommTimeout, func(msg string, args ...any) { log.Warn(msg, args...) })
	keepComm(r, r.comm)
	if o.Pipeline == "" {
		o.Pipeline = p.DefaultPipeline()
	}
	r.pipeline = o.Pipeline.Spec()
	c := r.pipeline.Contract
	_ = c.Encode(unsafe.Slice((*byte)(unsafe.Pointer(&r.contract[0])), abi.PipelineContractSize))
	r.initialFaults = o.Faults
	for _, f := range o.Faults {
		_ = r.SimInject(f.Site, f.Count, f.Code)
	}
	return r
}

// Profile is the build profile.
func (r *Runtime) Profile() Profile { return r.profile }

// ThreadKeyIsFSBase reports whether this instance identifies threads by FS
// base (else by kernel thread id).
func (r *Runtime) ThreadKeyIsFSBase() bool { return r.fsbase }

// ACL is the simulated ACL of this instance: the caller's side of the
// borrowed device.
func (r *Runtime) ACL() *ACL { return &r.acl }

// InvalidHandleCalls counts entry calls that passed a non-NULL handle that
// create_device_context never returned or that destroy freed; each was
// treated like NULL for that entry (semantics §2).
func (r *Runtime) InvalidHandleCalls() uint64 { return r.invalidHandles.Load() }

// RefusedDestroys counts destroy_device_context calls that were refused
// (E-DESTROY).
func (r *Runtime) RefusedDestroys() uint64 { return r.refusedDestroys.Load() }

// LiveContexts is the number of contexts created and not destroyed.
func (r *Runtime) LiveContexts() int { return r.ctxs.liveCount() }

// Images reports the interned image store.
func (r *Runtime) Images() ImageStats { return r.images.stats() }

// ClaimHolder returns the context holding the claim on device, if any.
func (r *Runtime) ClaimHolder(device int32) (abi.Ctx, bool) {
	o, ok := r.claims.Holder(device)
	return abi.Ctx(o), ok
}

// lookup resolves a handle; a non-NULL handle that names no live context is
// counted and resolves to nil, like NULL.
func (r *Runtime) lookup(h abi.Ctx) *context {
	c := r.ctxs.lookup(h)
	if c == nil && h != 0 {
		r.invalidHandles.Add(1)
	}
	return c
}

// nullable is the handle validation sees: the handle, or NULL when it names
// no live context.
func nullable(c *context) abi.Ctx {
	if c == nil {
		return 0
	}
	return c.handle
}

// CreateDeviceContext returns a fresh, unlatched context (L-1) with a handle
// never used before in this instance, or 0 when 2^24 contexts are live.
func (r *Runtime) CreateDeviceContext() abi.Ctx {
	c := &context{rt: r}
	c.deviceID.Store(-1)
	c.p.deviceID = -1
	if !r.ctxs.insert(c) {
		return 0
	}
	return c.handle
}

// Block is one allocated kernel code block (M-5).
type Block struct {
	Size uint64 // bytes allocated (2 MiB, or the exact charge of a large image)
	Used uint64 // bytes charged to it
}

// ContextState is a snapshot of a context for tests (Inspect).
type ContextState struct {
	Mode        latch.Mode
	Phase       latch.Phase // kernel phase (New for other modes)
	InitFailed  bool
	Quarantined bool
	Finalized   bool  // a kernel finalize returned 0
	DeviceID    int32 // kernel: recorded at init; program: attached device; -1 none
	Generation  uint64
	ClaimHeld   bool
	LiveStreams int
	LiveEvents  int
	// DeviceResourcesHeld: code blocks or the persistent region.
	DeviceResourcesHeld bool
	Residents           int // published ids
	AllocatedBlockBytes uint64
	Blocks              []Block
	RegionCommitted     bool
	Committed           uint64 // committed_device_memory_ctx
	PoisonCause         abi.Status
	TeardownError       abi.Status
	ConfigKept          bool       // the 1148 config bytes were copied at init
	LastStream          abi.Stream // the stream of the last successful launch, 0 none

	Attached           bool // program: a live program init
	ProgramCallables   int
	ProgramAllocations int
	ProgramRuns        int
	OutstandingRun     bool
	AicpuDlopens       uint64
}

// Inspect snapshots ctx; false for NULL or an invalid handle. It waits for
// the context's submission gate (a prepare in progress finishes first).
func (r *Runtime) Inspect(ctx abi.Ctx) (ContextState, bool) {
	c := r.ctxs.lookup(ctx)
	if c == nil {
		return ContextState{}, false
	}
	c.gate.Lock()
	s := ContextState{
		Mode:                c.mode.Mode(),
		Phase:               c.machine.Phase(),
		InitFailed:          c.initFailed.Load(),
		Quarantined:         c.quarantined.Load(),
		Finalized:           c.finalized.Load(),
		DeviceID:            c.deviceID.Load(),
		Generation:          c.k.generation,
		ClaimHeld:           c.k.claimHeld,
		LiveStreams:         c.k.liveStreams(),
		LiveEvents:          c.k.liveEvents(),
		DeviceResourcesHeld: c.k.deviceResourcesHeld(),
		Residents:           len(c.k.residents),
		AllocatedBlockBytes: c.k.allocated,
		RegionCommitted:     c.k.regionCommitted,
		Committed:           c.committed.Load(),
		PoisonCause:         c.machine.RuntimeError(),
		TeardownError:       c.machine.TeardownError(),
		ConfigKept:          c.k.config != nil,
	}
	for _, b := range c.k.blocks {
		s.Blocks = append(s.Blocks, Block{Size: b.size, Used: b.used})
	}
	if c.k.lastQ != nil {
		s.LastStream = c.k.lastQ.id
	}
	c.gate.Unlock()
	c.pmu.Lock()
	if s.Mode == latch.Program {
		s.DeviceID = c.p.deviceID
	}
	s.Attached = c.p.attached
	s.ProgramCallables = len(c.p.callables)
	s.ProgramRuns = len(c.p.runs)
	s.OutstandingRun = c.p.outstanding()
	s.AicpuDlopens = c.p.dlopens
	c.pmu.Unlock()
	s.ProgramAllocations = r.mem.countOwned(c)
	return s, true
}

// ResidentPlacement says where resident id of ctx was charged: its block
// index (in creation order) and byte offset in the block, and its simulated
// device address (blocks never move, so neither does it; M-5).
func (r *Runtime) ResidentPlacement(ctx abi.Ctx, id int32) (block int, offset uint64, ok bool) {
	c := r.ctxs.lookup(ctx)
	if c == nil {
		return 0, 0, false
	}
	c.gate.Lock()
	defer c.gate.Unlock()
	if id < 0 || int(id) >= len(c.k.residents) {
		return 0, 0, false
	}
	res := c.k.residents[id]
	return int(res.block), res.offset, true
}

// ResidentImage returns the runtime's copy of resident id's image (M-6).
func (r *Runtime) ResidentImage(ctx abi.Ctx, id int32) ([]byte, bool) {
	c := r.ctxs.lookup(ctx)
	if c == nil {
		return nil, false
	}
	c.gate.Lock()
	defer c.gate.Unlock()
	if id < 0 || int(id) >= len(c.k.residents) {
		return nil, false
	}
	return c.k.residents[id].img.Bytes(), true
}

// KernelConfig returns the CallConfig bytes a kernel context copied at init.
func (r *Runtime) KernelConfig(ctx abi.Ctx) ([]byte, bool) {
	c := r.ctxs.lookup(ctx)
	if c == nil {
		return nil, false
	}
	c.gate.Lock()
	defer c.gate.Unlock()
	if c.k.config == nil {
		return nil, false
	}
	return append([]byte(nil), c.k.config[:]...), true
}
