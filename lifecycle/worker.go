package lifecycle

import (
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/internal/osthread"
	"github.com/simabi/simabi/validation"
)

// Mode is a worker's execution mode, fixed when the worker is made (C-MODE).
type Mode int32

// Execution modes.
const (
	// Program is the program mode of simpler_init and the run family.
	Program Mode = iota
	// Kernel is the kernel mode of simpler_kernel_mode_init, prepare and
	// launch.
	Kernel
)

// String names the mode ("program", "kernel").
func (m Mode) String() string {
	switch m {
	case Program:
		return "program"
	case Kernel:
		return "kernel"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// DefaultCloseBudget is how long Close waits for the gate when
// Config.CloseBudget is 0.
const DefaultCloseBudget = 10 * time.Second

// Config makes a Worker. Nothing in it is checked by New, which never fails
// and touches nothing native; Init refuses an unusable Config with
// INVALID_ARGUMENT.
type Config struct {
	// Mode is Program (the zero value) or Kernel.
	Mode Mode
	// DeviceID is the device the worker's context uses; the caller makes it
	// current on its OS thread before Init.
	DeviceID int32
	// Loader opens the runtime: onboard.Loader{Path, Options{Preloads}} for
	// a shared library, sim.Loader{Profile, Options} for the Go simulator.
	Loader abi.Loader
	// CloseBudget bounds how long Close waits for an operation holding the
	// gate (C-GATE); 0 means DefaultCloseBudget.
	CloseBudget time.Duration
	// Logger receives warnings (a GC-pinned worker, a program-mode teardown
	// failure); nil means slog.Default().
	Logger *slog.Logger
	// AnyThread turns off the C-THREAD check, so native calls (Close
	// included) may come from any OS thread. Leave it off unless every thread
	// that calls the worker has DeviceID current — for example a pool of
	// goroutines each locked to its thread with runtime.LockOSThread after
	// setting the device: the runtime's own borrowed-device check (D-2) then
	// still holds on every call, and the gate (C-GATE) orders the calls.
	AnyThread bool
}

// InitConfig are the arguments of Init.
type InitConfig struct {
	// Aicpu, Aicore and Dispatcher are the binaries passed to the runtime;
	// any may be empty.
	Aicpu, Aicore, Dispatcher []byte
	// Config is the context-static CallConfig of kernel mode (required
	// there) or the optional prewarm config of program mode (nil = NULL).
	Config *abi.CallConfig
	// Generation is the kernel context generation; 0 takes NextGeneration()
	// (C-GEN). Ignored in program mode.
	Generation uint64
	// EnableSDMA and SDMAWarmup are program-mode only; kernel mode refuses
	// them with INVALID_ARGUMENT.
	EnableSDMA bool
	SDMAWarmup []byte
}

// Lifecycle states of a Worker.
const (
	stateNew    int32 = iota // no native context: before Init, or after an Init that failed and cleaned up
	stateReady               // initialized
	stateOwed                // a kernel Init failed and so did its finalize_device: the context is kept (C-OWED)
	stateClosed              // CLOSED published; native state remains until a teardown succeeds
)

// Answers of the kernel-mode probe cache.
const (
	probeUnknown int32 = iota
	probeNo
	probeYes
)

// native is everything the runtime may still reference: the loaded runtime,
// the context, the prepared and registered images (C-IMG) and the program-run
// storage. It never references the Worker, so it can be the argument of the
// Worker's cleanup and be pinned when the Worker is collected (C-LEAK).
type native struct {
	rt          abi.LoadedRuntime
	ctx         abi.Ctx
	mode        Mode
	device      int32
	runtimeName string
	log         *slog.Logger

	images     map[int32][]byte // kernel: minted id → the buffer passed to prepare (C-IMG)
	orphans    [][]byte         // buffers passed to prepares that yielded no launchable id
	registered map[int32][]byte // program: registered id → the buffer passed to register

	runStorage []byte // program: slot 0's native-run storage (get_runtime_size at get_runtime_alignment)
	memInfo    []byte // program: DeviceMemoryInfo out-buffer

	// Program-mode native runs, as upstream's ChipWorker keeps them: one
	// storage per pipeline slot of the runtime's PipelineContract, each
	// slot's run phase, the newest lease generation admitted per slot, the
	// direct-run generation counter of Run, and the failure that poisoned
	// Run (native.go).
	contract  abi.PipelineContract
	slots     []runSlot
	newestGen [2]uint64
	directGen uint64
	poison    error
}

// Worker drives one device context of one runtime, in one mode, for one use:
// Init, operations, Close (C-SINGLE). See the package documentation for the
// rules it keeps.
type Worker struct {
	mode   Mode
	device int32
	loader abi.Loader
	budget time.Duration
	log    *slog.Logger

	mu    sync.Mutex   // serializes Init and Close
	state atomic.Int32 // stateNew, stateReady, stateOwed, stateClosed
	gate  gate         // C-GATE

	// Hot-path copies of the native state. They are written before state
	// becomes Ready (or Owed) and cleared under the gate after CLOSED is
	// published, so a reader that saw Ready inside the gate sees them.
	rt     abi.Runtime
	ctx    abi.Ctx
	thread osthread.Thread // the OS thread of Init (C-THREAD)
	// minted is the set of ids this worker's prepares returned, as a bitmap
	// over [0, MAX_REGISTERED_CALLABLE_IDS); read and written under the gate.
	minted [abi.MaxRegisteredCallableIDs / 64]uint64

	native    *native
	supported int32 // simpler_kernel_mode_supported of the fresh context Init made
	cleanup   runtime.Cleanup
	armed     bool // cleanup is registered (C-LEAK)

	// anyThread disables the C-THREAD check (Config.AnyThread).
	anyThread bool

	probeMu sync.Mutex
	probe   atomic.Int32 // probeUnknown, probeNo, probeYes
}

// New makes a worker. It touches nothing native: no load, no context, no
// probe.
func New(cfg Config) *Worker {
	w := &Worker{
		mode:   cfg.Mode,
		device: cfg.DeviceID,
		loader: cfg.Loader,
		budget: cfg.CloseBudget,
		log:    cfg.Logger,
		gate:   newGate(),

		anyThread: cfg.AnyThread,
	}
	if w.budget <= 0 {
		w.budget = DefaultCloseBudget
	}
	if w.log == nil {
		w.log = slog.Default()
	}
	return w
}

// Mode is the worker's execution mode.
func (w *Worker) Mode() Mode { return w.mode }

// DeviceID is the device id the worker was made with.
func (w *Worker) DeviceID() int32 { return w.device }

// Initialized reports whether Init succeeded and Close has not been called.
func (w *Worker) Initialized() bool { return w.state.Load() == stateReady }

// TeardownOwed reports whether a kernel Init failed and so did its
// finalize_device, so the context is kept and only Close reaches it (C-OWED).
func (w *Worker) TeardownOwed() bool { return w.state.Load() == stateOwed }

// KernelModeSupported is C-SUPPORTED: true only while the worker is
// initialized on a runtime whose simpler_kernel_mode_supported returned
// nonzero on the fresh context Init made. It is false before Init, after a
// failed Init, after a failed teardown and after Close, and it never calls
// the runtime. To ask before Init, use ProbeKernelMode.
func (w *Worker) KernelModeSupported() bool {
	return w.state.Load() == stateReady && w.supported != 0
}

// ProbeKernelMode is C-PROBE for the worker's runtime: whether it supports
// kernel mode, asked on a fresh context of a probe load that is destroyed and
// unloaded again (ProbeKernelModeSupported). It needs no Init and no device.
// A kernel worker that is initialized answers true without probing (its Init
// only succeeds on a supporting runtime). A successful answer is cached for
// the life of the worker (an Init also seeds it, having asked the same
// question on its own fresh context); an error is not cached.
func (w *Worker) ProbeKernelMode() (bool, error) {
	if w.mode == Kernel && w.state.Load() == stateReady {
		return true, nil
	}
	if p := w.probe.Load(); p != probeUnknown {
		return p == probeYes, nil
	}
	w.probeMu.Lock()
	defer w.probeMu.Unlock()
	if p := w.probe.Load(); p != probeUnknown {
		return p == probeYes, nil
	}
	if w.loader == nil {
		return false, refusal("Worker.ProbeKernelMode", abi.InvalidArgument, "Config.Loader is nil")
	}
	ok, err := ProbeKernelModeSupported(w.loader)
	if err != nil {
		return false, err
	}
	w.probe.Store(probeAnswer(ok))
	return ok, nil
}

func probeAnswer(ok bool) int32 {
	if ok {
		return probeYes
	}
	return probeNo
}

// ProbeKernelModeSupported is C-PROBE: LoadProbe (which binds only the host
// log, create, destroy and supported), create a fresh context, ask
// simpler_kernel_mode_supported, destroy the context, unload. It takes no
// device and leaves no context behind.
func ProbeKernelModeSupported(l abi.Loader) (bool, error) {
	const op = "ProbeKernelModeSupported"
	if l == nil {
		return false, refusal(op, abi.InvalidArgument, "loader is nil")
	}
	rt, err := l.LoadProbe()
	if err != nil {
		return false, loadError(op, l, err)
	}
	ctx := rt.CreateDeviceContext()
	if ctx == 0 {
		_ = rt.Close()
		return false, refusal(opCreate, abi.Internal, "returned NULL")
	}
	s := rt.KernelModeSupported(ctx)
	rt.DestroyDeviceContext(ctx)
	if err := rt.Close(); err != nil {
		return false, &StatusError{Op: op, Code: abi.Internal, Msg: "unloading " + l.String() + ": " + err.Error(), err: err}
	}
	return s != 0, nil
}

func loadError(op string, l abi.Loader, err error) error {
	return &StatusError{Op: op, Code: abi.Internal, Msg: "loading " + l.String() + ": " + err.Error(), err: err}
}

// notReady is the IS refusal of an operation outside the Ready state.
func (w *Worker) notReady(op string) error {
	var msg string
	switch w.state.Load() {
	case stateNew:
		msg = "the worker is not initialized; call Init first"
	case stateOwed:
		msg = "the worker owes a device teardown; only Close reaches the context (C-OWED)"
	case stateClosed:
		msg = "the worker is closed (C-SINGLE)"
	default:
		msg = "the worker is initialized"
	}
	return refusal(op, abi.InvalidState, msg)
}

// onInitThread is the C-THREAD check of every native call but Launch: the
// calling thread is the one that ran Init (compared by kernel thread id, so a
// thread that reused a dead Init thread's identity is refused too).
func (w *Worker) onInitThread() bool { return w.anyThread || w.thread.IsExact() }

// onInitThreadFast is Launch's C-THREAD check, about 2 ns: it compares the
// cheap thread identity only, so it cannot tell the Init thread from a thread
// that reused its identity after the Init thread exited (a goroutine that
// exits while locked ends its thread). Every other entry uses onInitThread,
// and the runtime's own borrowed-device check (D-2) still guards the launch.
func (w *Worker) onInitThreadFast() bool { return w.anyThread || w.thread.Is() }

func wrongThread(op string) error {
	return refusal(op, abi.InvalidState, "called from an OS thread other than the one that ran Init (C-THREAD)")
}

func wrongMode(op string, want Mode) error {
	return refusal(op, abi.InvalidState, "requires a "+want.String()+"-mode worker (C-MODE)")
}

// Init opens the runtime and initializes a context on it, on the calling OS
// thread, which must have DeviceID current and must stay the thread of every
// later call (lock it with runtime.LockOSThread before setting the device).
//
// Program mode: Load → create_device_context → simpler_kernel_mode_supported
// on the fresh context (remembered for KernelModeSupported) → native-run
// storage → simpler_init. A failure destroys the context without
// finalize_device and unloads.
//
// Kernel mode: Load → create_device_context → simpler_kernel_mode_supported
// on the fresh context (0: destroy, unload, UNSUPPORTED) →
// simpler_kernel_mode_init with Generation or the next process generation
// (C-GEN). A failing status follows C-KINIT: INVALID_ARGUMENT and
// UNSUPPORTED destroy and unload without finalize_device; any other status
// calls finalize_device first, then destroys and unloads if it returned 0,
// and otherwise keeps the context, the runtime and its bindings and owes a
// teardown (C-OWED: Init refuses with INVALID_STATE, only Close reaches the
// context). The error carries the init status and names both codes.
//
// After a failure that left nothing behind the worker may Init again.
func (w *Worker) Init(cfg InitConfig) error {
	const op = "Worker.Init"
	w.mu.Lock()
	defer w.mu.Unlock()
	switch w.state.Load() {
	case stateReady:
		return refusal(op, abi.InvalidState, "the worker is already initialized")
	case stateOwed:
		return w.notReady(op)
	case stateClosed:
		return refusal(op, abi.InvalidState, "the worker is closed; make a new Worker (C-SINGLE)")
	}
	if w.mode != Program && w.mode != Kernel {
		return refusal(op, abi.InvalidArgument, "unknown execution mode "+w.mode.String())
	}
	if w.loader == nil {
		return refusal(op, abi.InvalidArgument, "Config.Loader is nil")
	}
	if w.device < 0 {
		return refusal(op, abi.InvalidArgument, "Config.DeviceID must be non-negative, got "+strconv.Itoa(int(w.device)))
	}
	if cfg.Config != nil {
		if err := checkRings(op, cfg.Config); err != nil {
			return err
		}
	}
	if w.mode == Kernel {
		return w.initKernel(cfg)
	}
	return w.initProgram(cfg)
}

// checkRings is the host-side part of a CallConfig check: the ring sizing
// rules every platform shares (a nonzero task window is a power of two in
// [4, 2^31-1], a nonzero heap is at least 1024, a nonzero dep pool is in
// [4, 2^31-1]). Platform-specific fields are left to the runtime.
func checkRings(op string, c *abi.CallConfig) error {
	for i := range abi.RuntimeEnvRingCount {
		if !validation.RingOK(c.RingTaskWindow[i], c.RingHeap[i], c.RingDepPool[i]) {
			return refusal(op, abi.InvalidArgument, fmt.Sprintf("CallConfig ring %d sizing is invalid (task window %d, heap %d, dep pool %d)",
				i, c.RingTaskWindow[i], c.RingHeap[i], c.RingDepPool[i]))
		}
	}
	return nil
}

// unload destroys ctx (if any) and closes rt after a failed Init; a close
// error is logged, since the init failure is what the caller needs.
func (w *Worker) unload(rt abi.LoadedRuntime, ctx abi.Ctx) {
	if ctx != 0 {
		rt.DestroyDeviceContext(ctx)
	}
	if err := rt.Close(); err != nil {
		w.log.Warn("lifecycle: unloading the runtime after a failed Init failed", "runtime", w.loader.String(), "err", err)
	}
}

func (w *Worker) newNative(rt abi.LoadedRuntime, ctx abi.Ctx) *native {
	return &native{rt: rt, ctx: ctx, mode: w.mode, device: w.device, runtimeName: w.loader.String(), log: w.log}
}

func (w *Worker) initKernel(cfg InitConfig) error {
	const op = "Worker.Init"
	if cfg.Config == nil {
		return refusal(op, abi.InvalidArgument, "kernel mode requires InitConfig.Config")
	}
	if cfg.EnableSDMA || len(cfg.SDMAWarmup) > 0 {
		return refusal(op, abi.InvalidArgument, "kernel mode takes no SDMA (EnableSDMA, SDMAWarmup)")
	}
	rt, err := w.loader.Load()
	if err != nil {
		return loadError(op, w.loader, err)
	}
	ctx := rt.CreateDeviceContext()
	if ctx == 0 {
		w.unload(rt, 0)
		return refusal(opCreate, abi.Internal, "returned NULL")
	}
	sup := rt.KernelModeSupported(ctx)
	if sup == 0 {
		w.unload(rt, ctx)
		return refusal(op, abi.Unsupported, w.loader.String()+" does not support kernel mode ("+opSupported+" returned 0)")
	}
	gen := cfg.Generation
	if gen == 0 {
		gen = NextGeneration()
	}
	cfgBytes := cfg.Config.Bytes()
	thread := osthread.Current()
	aicpu, aicpuN := abi.Span(cfg.Aicpu)
	aicore, aicoreN := abi.Span(cfg.Aicore)
	disp, dispN := abi.Span(cfg.Dispatcher)
	rc := rt.KernelModeInit(ctx, w.device, aicpu, aicpuN, aicore, aicoreN, disp, dispN, abi.Ptr(cfgBytes), gen)
	runtime.KeepAlive(cfg.Aicpu)
	runtime.KeepAlive(cfg.Aicore)
	runtime.KeepAlive(cfg.Dispatcher)
	runtime.KeepAlive(cfgBytes)
	if rc == abi.OK {
		n := w.newNative(rt, ctx)
		n.images = make(map[int32][]byte)
		w.publish(n, sup, thread)
		return nil
	}
	// C-KINIT: IA and UNSUP refuse before the runtime takes anything.
	if rc == abi.InvalidArgument || rc == abi.Unsupported {
		w.unload(rt, ctx)
		return entryError(opKernelInit, rc)
	}
	frc := rt.FinalizeDevice(ctx)
	if frc == abi.OK {
		w.unload(rt, ctx)
		return entryError(opKernelInit, rc)
	}
	// C-OWED: keep the context, the runtime and its bindings; arm nothing.
	n := w.newNative(rt, ctx)
	n.images = make(map[int32][]byte)
	w.native, w.rt, w.ctx, w.thread = n, rt, ctx, thread
	w.state.Store(stateOwed)
	return &StatusError{Op: opKernelInit, Code: rc, Msg: opFinalize + " failed with " + frc.String() +
		"; the context, the runtime and its bindings are kept and Close must be called (C-KINIT, C-OWED)"}
}

func (w *Worker) initProgram(cfg InitConfig) error {
	const op = "Worker.Init"
	rt, err := w.loader.Load()
	if err != nil {
		return loadError(op, w.loader, err)
	}
	ctx := rt.CreateDeviceContext()
	if ctx == 0 {
		w.unload(rt, 0)
		return refusal(opCreate, abi.Internal, "returned NULL")
	}
	// Asked on the fresh context, before simpler_init touches it.
	sup := rt.KernelModeSupported(ctx)
	size, align := rt.GetRuntimeSize(), rt.GetRuntimeAlignment()
	if size == 0 || size > 1<<30 || align < 8 || align > 1<<20 || align&(align-1) != 0 {
		w.unload(rt, ctx)
		return refusal(op, abi.Internal, fmt.Sprintf("unusable native-run storage: %s %d, %s %d", abi.EntryGetRuntimeSize, size, abi.EntryGetRuntimeAlignment, align))
	}
	n := w.newNative(rt, ctx)
	n.registered = make(map[int32][]byte)
	// One native-run storage per pipeline slot, as ChipWorker allocates them
	// (upstream src/common/worker/chip_worker.cpp:272-290).
	var depth uint32
	n.contract, depth = pipelineDepth(rt)
	n.slots = make([]runSlot, depth)
	for i := range n.slots {
		n.slots[i] = runSlot{
			storage: abi.AlignedBytes(int(size), int(align)),
			desc:    abi.AlignedBytes(abi.NativeRunDescSize, abi.NativeRunDescAlign),
			cfg:     make([]byte, abi.CallConfigSize),
		}
	}
	n.runStorage = n.slots[0].storage
	n.memInfo = abi.AlignedBytes(abi.DeviceMemoryInfoSize, 8)
	var prewarm []byte
	if cfg.Config != nil {
		prewarm = make([]byte, abi.CallConfigSize)
		packConfig(rt, cfg.Config, prewarm)
	}
	var sdma int32
	if cfg.EnableSDMA {
		sdma = 1
	}
	thread := osthread.Current()
	aicpu, aicpuN := abi.Span(cfg.Aicpu)
	aicore, aicoreN := abi.Span(cfg.Aicore)
	disp, dispN := abi.Span(cfg.Dispatcher)
	warm, warmN := abi.Span(cfg.SDMAWarmup)
	rc := rt.SimplerInit(ctx, w.device, aicpu, aicpuN, aicore, aicoreN, disp, dispN, abi.Ptr(prewarm), sdma, warm, uint64(warmN))
	runtime.KeepAlive(cfg.Aicpu)
	runtime.KeepAlive(cfg.Aicore)
	runtime.KeepAlive(cfg.Dispatcher)
	runtime.KeepAlive(cfg.SDMAWarmup)
	runtime.KeepAlive(prewarm)
	if rc != abi.OK {
		// No finalize_device: on a simulator it would release whatever device
		// the calling thread is bound to.
		w.unload(rt, ctx)
		return entryError(opSimplerInit, rc)
	}
	w.publish(n, sup, thread)
	return nil
}

// publish makes a successful Init visible and arms the C-LEAK cleanup.
func (w *Worker) publish(n *native, sup int32, thread osthread.Thread) {
	w.native, w.rt, w.ctx, w.thread, w.supported = n, n.rt, n.ctx, thread, sup
	w.probe.Store(probeAnswer(sup != 0))
	w.cleanup = runtime.AddCleanup(w, pinUnclosed, n)
	w.armed = true
	w.state.Store(stateReady)
}

// Close tears the worker down (C-FIN, C-OWED, C-GATE, C-THREAD, C-SINGLE).
//
// With a native context it must run on the OS thread that ran Init (else
// INVALID_STATE, nothing changes). It then publishes CLOSED, so no new
// prepare, launch or program operation starts, and takes the gate within
// the close budget; past the budget it returns an error matching
// ErrCloseTimeout (INVALID_STATE) and keeps everything, and a later Close
// retries. Holding the gate it calls finalize_device. A kernel teardown
// failure is returned with the finalize code and keeps the context, the
// images, the runtime and the C-LEAK pin for a retry; a program teardown
// failure is logged and the teardown goes on (the device is given up
// anyway). Then the context is destroyed, the runtime unloaded, the images
// released and the cleanup cancelled.
//
// After a successful Close every operation returns INVALID_STATE and Close
// returns nil. Close never calls the runtime for a worker without a native
// context.
func (w *Worker) Close() error {
	const op = "Worker.Close"
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.native
	if n == nil {
		w.state.Store(stateClosed)
		return nil
	}
	if !w.onInitThread() {
		return refusal(op, abi.InvalidState, "a worker with a native context must be closed on the OS thread that ran Init (C-THREAD)")
	}
	w.state.Store(stateClosed) // CLOSED before the gate (C-GATE)
	if !w.gate.lockWithin(w.budget) {
		return &StatusError{Op: op, Code: abi.InvalidState, err: ErrCloseTimeout,
			Msg: "an operation still holds the gate after " + w.budget.String() + "; the context is kept, call Close again (C-GATE)"}
	}
	defer w.gate.unlock()
	if n.mode == Program {
		w.finishRuns() // runs the caller left on their slots, before finalize_device (E-FIN)
	}
	if frc := n.rt.FinalizeDevice(n.ctx); frc != abi.OK {
		if n.mode == Kernel {
			return &StatusError{Op: opFinalize, Code: frc,
				Msg: "device teardown failed; the context, its images and the runtime are kept, call Close again (C-FIN)"}
		}
		w.log.Warn("lifecycle: program-mode device teardown failed; the device is given up anyway (C-FIN)",
			"runtime", n.runtimeName, "device", n.device, "code", frc.String())
	}
	n.rt.DestroyDeviceContext(n.ctx)
	uerr := n.rt.Close()
	w.native, w.rt, w.ctx = nil, nil, 0
	clear(w.minted[:])
	if w.armed {
		w.cleanup.Stop()
		w.armed = false
	}
	if uerr != nil {
		return &StatusError{Op: op, Code: abi.Internal, err: uerr,
			Msg: "the context was finalized and destroyed, but unloading " + n.runtimeName + " failed: " + uerr.Error()}
	}
	return nil
}
