// Package lifecycle is the consumer of the host-runtime C ABI: Worker drives
// one device context of one runtime through Init, its operations and Close,
// keeping rules C-* of docs/contract.md. It is upstream's ChipWorker
// and Python Worker (kernel and program mode) in Go.
//
// # Construction and backends
//
// New(Config{Mode, DeviceID, Loader, CloseBudget, Logger}) makes a worker
// with a fixed execution mode (Program or Kernel, C-MODE) and touches nothing
// native: no load, no context, no probe. The backend is an abi.Loader:
// onboard.Loader{Path, Options{Preloads}} opens a shared library (the
// emitted fake, upstream's simulator build, silicon's libhost_runtime.so) and
// sim.Loader{Profile, Options} makes an in-process sim runtime. This package
// imports neither; it only calls Load, LoadProbe and the abi.Runtime
// methods. New never fails: an unknown mode, a nil Loader or a negative
// DeviceID is refused by Init with INVALID_ARGUMENT.
//
// # Threads and the current device (C-THREAD)
//
// The caller's current device is per OS thread (D-2), so a worker records the
// OS thread that ran Init and refuses every native call from another thread
// with INVALID_STATE, Launch included, before calling the runtime. Launch
// compares a cheap thread identity (internal/osthread, about 2 ns), which a
// new thread may inherit after the Init thread exited; every other call also
// compares the kernel thread id. Close from another thread is refused while
// a native context exists. A caller therefore calls
// runtime.LockOSThread, makes DeviceID current on that thread (ACL
// aclrtSetDevice, or a simulator's hook), then calls Init, and keeps the
// goroutine locked for every later call and for Close. A Close, prepare or
// launch from another goroutine is refused, never run on a thread whose
// device is wrong.
//
// Config.AnyThread turns the check off for callers that drive one worker from
// several goroutines, each locked to its own OS thread with DeviceID current
// there: the runtime's borrowed-device check still runs on every call, and the
// gate orders prepare, launch and the native finalize (C-GATE).
//
// # Init
//
// Init(InitConfig{Aicpu, Aicore, Dispatcher, Config, Generation, EnableSDMA,
// SDMAWarmup}) first refuses bad arguments with INVALID_ARGUMENT and loads
// nothing: kernel mode requires Config and takes no SDMA; a CallConfig whose
// ring sizing breaks the platform-independent rules (a task window that is
// not a power of two in [4, 2^31-1], a heap below 1024, a dep pool outside
// [4, 2^31-1]) is refused in both modes. The platform-specific V-CFG fields
// are left to the runtime.
//
// Kernel mode: Loader.Load (a shared library is bound by onboard, C-BIND-1,
// C-BIND-2) → create_device_context (NULL: INTERNAL) →
// simpler_kernel_mode_supported on that fresh context (0: destroy, unload,
// and an error matching ErrUnsupported, C-ERR) →
// simpler_kernel_mode_init with InitConfig.Generation, or NextGeneration()
// when it is 0 (C-GEN: 1, 2, 3, ... per process). A failing status follows
// C-KINIT exactly: INVALID_ARGUMENT and UNSUPPORTED destroy and unload
// without finalize_device; any other status calls finalize_device first and
// destroys and unloads only if it returned 0; otherwise the context, the
// runtime and its bindings are kept and a teardown is owed (C-OWED: Init
// refuses with INVALID_STATE and only Close reaches the context, retrying the
// finalize each time). The error carries the init status and its message
// names both codes.
//
// Program mode: Load → create_device_context →
// simpler_kernel_mode_supported on the fresh context (remembered; asked
// before simpler_init touches the context) → native-run storage of
// get_runtime_size bytes at get_runtime_alignment, allocated once →
// simpler_init with Config as the optional prewarm config. A failing status
// destroys the context without finalize_device (on a simulator it would
// release the calling thread's device) and unloads.
//
// An Init that failed and left nothing behind may be retried on the same
// worker (a fixed device, a fixed library). After a successful Close, Init
// refuses (C-SINGLE).
//
// # Kernel-mode support: two queries
//
// KernelModeSupported is C-SUPPORTED: true only while the worker is
// initialized and the runtime's supported answered nonzero on the fresh
// context Init made; false before Init, after a failed Init, while a
// teardown is owed, after a failed teardown and after Close; it never calls
// the runtime. ProbeKernelMode is C-PROBE: it asks before any Init through
// ProbeKernelModeSupported (LoadProbe → create → supported → destroy →
// unload; no device, no context left). A kernel worker that is initialized
// answers true without probing; an answer is cached, an error is not; a
// successful Init seeds the cache with the answer it got.
//
// # Prepare, launch and the gate (C-ID, C-GATE, C-IMG)
//
// One gate linearizes PrepareCallable, Launch, the program operations and
// the native finalize of Close. PrepareCallable waits for it; Launch only
// tries it and fails at once with INVALID_STATE when it is held; Close
// publishes CLOSED (an atomic state) before it waits, with its budget
// (Config.CloseBudget, DefaultCloseBudget 10 s). So a launch either finishes
// before finalize_device runs or sees CLOSED; a prepare that waited through
// a Close sees CLOSED and refuses.
//
// Launch(id, args, stream) checks, before any native call and in this order:
// mode (IS) → stream 0 (IA) → args nil (IA) → gate held (IS) → not
// initialized or closed (IS) → an id this worker's PrepareCallable did not
// return (IA, a bitmap over the id space) → the OS thread (IS). It allocates
// nothing and adds about a dozen nanoseconds to the runtime's launch.
//
// PrepareCallable(image) returns the id the runtime minted. An image whose
// first byte is not 16-byte aligned is copied into an aligned buffer (an
// aligned image is passed as is, so its owner must not change it while the
// worker lives). The buffer passed to the runtime is kept until a successful
// Close (C-IMG). A status of 0 without an id in [0, 8192) is INTERNAL (C-ERR);
// that buffer is kept too, and no id becomes launchable.
//
// # Close (C-FIN, C-GATE, C-OWED, C-THREAD, C-SINGLE)
//
// Close on a worker without a native context only marks it closed. With one
// it checks the thread, publishes CLOSED, and takes the gate within the
// budget; past it, it returns an error matching ErrCloseTimeout (a
// *StatusError with INVALID_STATE) and keeps everything, and Close may be
// called again. Holding the gate it calls finalize_device: a kernel
// teardown failure is returned with the finalize code and keeps the
// context, the images, the runtime and the C-LEAK pin for a retry; a program
// teardown failure is logged and the teardown goes on (the device is given
// up anyway). Then destroy_device_context, unload, release. After a
// successful Close every operation returns INVALID_STATE and Close returns
// nil.
//
// # Unclosed workers (C-LEAK)
//
// A successful Init arms runtime.AddCleanup on the Worker with a separate
// object holding the native state (runtime, context, images), never the
// Worker. If the Worker is collected without a successful Close, the cleanup
// appends that object to a process-wide list (PinnedWorkers counts it) and
// logs a warning; it never calls the runtime, because it would run on an
// arbitrary thread without the caller's quiescence. A successful Close
// cancels it. A failed Init arms nothing, including one that left a teardown
// owed (upstream parity).
//
// # Program mode (C-MODE)
//
// RegisterCallable (after a host-side V-IMG, since simpler_register_callable
// derives the size from the header and has no size argument; misaligned
// images are copied; the buffer is kept until UnregisterCallable or Close),
// UnregisterCallable, Run, the native-run phases, DeviceMalloc, DeviceFree
// (any address, 0 included, is passed on), CopyToDevice, CopyFromDevice and
// DeviceMemoryInfo. A kernel worker refuses each of them, and a program
// worker refuses PrepareCallable and Launch, with INVALID_STATE before any
// native call, whatever the lifecycle state. CommittedDeviceMemory works in
// both modes.
//
// # Runs, as upstream's ChipWorker makes them
//
// Init allocates one native-run storage (get_runtime_size bytes at
// get_runtime_alignment) per pipeline slot of the runtime's
// PipelineContract, as ChipWorker does. Run makes the native calls
// ChipWorker's run lane makes for a direct run (never simpler_run):
// simpler_prepare_run on slot 0 with a NativeRunDescriptor {slot 0, the
// slot's arena bank, run_id 0, the worker's next direct generation 1, 2,
// ..., dispatch_id 0, a run_epoch from a process counter} → simpler_launch_run
// → simpler_poll_run → simpler_wait_run when the run was not complete →
// simpler_finalize_run. Its CallConfig (nil: the zero config) is checked
// first as upstream's CallConfig::validate checks it (a diagnostic without
// an output prefix, a ring sizing override out of range: INVALID_ARGUMENT).
// A failed launch is finalized (after a poll decides whether it completed);
// a failed poll is waited for and finalized; the first failing entry's code
// is returned. A failure after the launch poisons Run: every later Run is
// refused with INVALID_STATE until Close, as ChipWorker's run lane refuses.
//
// PrepareNativeRun(id, args, cfg, NativeRunLease{Slot, Generation}),
// LaunchNativeRun, PollNativeRun, WaitNativeRun and FinalizeNativeRun are
// ChipWorker's native-run phases over a NativeRun token, with its checks
// before any native call: a lease of generation 0 or a slot past the
// pipeline depth (IA), a generation older than the newest admitted on the
// slot, a slot or another slot holding an unfinished run, a stale token or
// one in the wrong phase (IS). Above depth 1 every prepare first asks
// supports_concurrent_native_prepare_ctx, as ChipWorker does; only when it
// answers above 0 (upstream's simulator and the fake answer 0) is a
// successor staged on the other slot beside a launched or reaped run whose
// prepare was granted the same, neither enabling a diagnostic, and never a
// third run. A failed launch leaves the token live (it must
// still be finalized); WaitNativeRun keeps the wait's code for
// FinalizeNativeRun, which returns finalize_run's code, else the wait's.
// Close first finishes the runs a caller left (waits for a launched one,
// finalizes each, whatever the codes), since finalize_device refuses while
// a native run is outstanding (E-FIN). lanes/consumer/chipdiff holds all of
// this to ChipWorker's own traces (docs/upstream.md, "ChipWorker and
// lifecycle, action by action").
//
// # Errors (C-ERR)
//
// Every failure is a *StatusError{Op, Code, Msg}: Op is the C entry that
// returned Code (forwarded unchanged, for example
// "simpler_kernel_mode_launch failed with STATUS(-93)") or the method that
// refused ("Worker.Launch failed with INVALID_ARGUMENT(-1004): caller stream
// must not be 0"). Host-side refusals use INVALID_STATE (not initialized,
// already initialized, teardown owed, wrong mode, wrong thread, closed, gate
// busy, close budget) or INVALID_ARGUMENT; "prepare returned 0 without an
// id" and failures without a status of their own (a load error, wrapped and
// reachable with errors.As/Is; a NULL context) are INTERNAL. ErrUnsupported
// is itself a *StatusError and errors.Is(err, ErrUnsupported) holds for every
// UNSUPPORTED StatusError; ErrInvalidState, ErrInvalidArgument and
// ErrInternal are the same kind of class.
package lifecycle
