// Package sim is the reference host runtime of simabi, in Go: a simulated
// "simpler" host runtime that implements every entry of the host-runtime C
// ABI (abi.Runtime) and the simulation hooks (abi.SimHooks), for the rules of
// docs/contract.md. Every point the rules leave open is pinned in
// docs/semantics.md; this package follows it call for call, because the C
// runtime that sim/emit writes follows the same document and the two are
// diffed. Read that document for what each entry does; the doc comment of
// each method gives its precedence chain in one line.
//
// # Instances and profiles
//
// New(profile, options) returns one runtime instance: it owns its contexts,
// the device-claim registry (E-CLAIM), the fault-injection state, the stream
// queues, simulated device memory, the interned callable images and a
// simulated ACL. Two instances share nothing (like two loaded copies of a
// library). Profiles:
//
//   - TMR ("tmr"): simpler_kernel_mode_supported is 1 and the kernel
//     lifecycle is complete: init (E-KINIT, K-2, K-7, L-5), prepare (E-PREP,
//     M-1..M-7), launch (E-LAUNCH, E-LAUNCH-ASYNC), finalize_device (E-FIN,
//     K-5, K-6, D-4) and destroy_device_context (E-DESTROY).
//   - Refusing ("refusing"): supported is 0; kernel init validates (V-INIT,
//     V-CFG) and returns UNSUPPORTED unlatched; prepare writes -1, validates
//     and returns INVALID_STATE; launch validates and returns INVALID_STATE;
//     simabi_inject returns UNSUPPORTED. Program mode is the same as TMR.
//
// Both profiles implement program mode with the simple phase model of
// semantics §10 (simpler_init, finalize_device, device memory, callable
// registration and the run family), and the E-PROG refusals on contexts
// without a live program init. Loader adapts New to abi.Loader.
//
// No entry panics on any argument that a C caller could pass to a C runtime
// without crashing it: NULL pointers, inconsistent spans, misaligned images,
// out-of-range ids, sizes of any value (a copy's device range is checked
// before the host memory is viewed), and handles that were never returned
// or already freed (treated like NULL for that entry and counted by
// InvalidHandleCalls). Pointers that are non-NULL must point at memory of
// the size the C ABI implies, exactly as for a C runtime; a span that would
// wrap past the top of the address space is refused with the entry's
// argument code rather than viewed.
//
// # The current device is per OS thread: lock your goroutine
//
// The borrowed-device rules (D-2) compare a kernel context's device with the
// calling OS thread's current device, which the caller sets with
// ACL.SetDevice (aclrtSetDevice) or the hook SimSetCurrentDevice. A goroutine
// migrates between OS threads unless it calls runtime.LockOSThread, so a Go
// caller must lock its goroutine before setting a device and keep it locked
// while it initializes, prepares, launches and finalizes. The simulator makes
// forgetting deterministic: a device set from a goroutine that is not locked
// to its thread is ignored (the call is counted and returns 0 but sets
// nothing), so every later device check of that goroutine returns
// INVALID_STATE, never "sometimes". A goroutine that never set a device sees
// none. (A goroutine that locks, sets, unlocks and goes on using the context
// is still at the scheduler's mercy: keep it locked.)
//
// The thread key is the kernel thread id from internal/osthread (gettid on
// Linux, one system call per device check; pthread_threadid_np on darwin),
// unique among live threads; the device table is read without locks (an
// atomic array indexed by thread id), and an entry is removed when its
// thread sets device none. Entries of threads that exited are dropped by a
// sweep (osthread.Alive: tgkill(pid, tid, 0) on Linux) whenever the table
// doubles. Options.ThreadIdentity = ThreadIdentityFSBase opts in to the FS
// base register read with RDFSBASE on linux/amd64 when the kernel enables
// FSGSBASE (about 1 ns instead of about 100), which is wrong once a thread
// that set a device exits: a goroutine that exits while locked ends its
// thread, and a new thread often gets the same FS base (reused runtime or
// glibc thread memory) and so inherits the dead thread's device. Elsewhere
// the opt-in is the kernel thread id. On a platform other than Linux and
// darwin every goroutine shares one pseudo-thread.
//
// # The simulated ACL
//
// Runtime.ACL returns the caller's side of the borrowed device: SetDevice,
// GetDevice, CreateStream, DestroyStream, SynchronizeStream,
// SynchronizeDevice, Init, Finalize, ResetDevice, Malloc, Free, CopyToDevice
// and CopyFromDevice. Counters returns the nine call counters of semantics §3
// (Init, Finalize, SetDevice, ResetDevice, SynchronizeStream,
// SynchronizeDevice, CreateStream, DestroyStream, GetDevice). Only the
// caller's ACL calls and the program-mode paths move them; no kernel-context
// path does (D-1), so a test asserts they moved exactly by its own calls. The
// kernel device check uses an internal, uncounted query. The hooks count
// nothing. A kernel context's own 2 streams and 5 events are internal
// resources (Inspect reports them), not ACL streams, and are not counted.
//
// # Streams and execution
//
// A caller stream is any nonzero value. Each value has one FIFO in the
// instance, created on first use and shared by every context. A launch that
// returns 0 appends one work item — the callable's simulated kernel and a
// snapshot of what the simulated kernels read of args, the first two tensor
// records and the first scalar, as the emitted runtime keeps (the caller may
// wipe args at once) — and returns. Synchronizing the stream
// (ACL.SynchronizeStream, the hook SimSyncStream) runs every pending item in
// FIFO order and returns 0 or the first failure; an injected asynchronous
// failure (site 8) fails the first pending item, which does not run, while
// the others still run; no context state changes (E-LAUNCH-ASYNC). A launch
// on another stream while the stream of the context's previous successful
// launch has not completed that launch returns PREPARED_INCOMPATIBLE, clean;
// synchronizing that stream clears it (E-LAUNCH). The runtime never
// synchronizes or destroys a caller stream (D-3). ACL.SynchronizeDevice
// synchronizes the streams in the order of their first launch. Work items
// are fixed-size and live in chunks recycled through the instance's free
// list, so launch allocates nothing once the free list holds the working
// set, and a new stream value costs O(1).
//
// # Device memory and simulated kernels
//
// One simulated device address space per instance (DeviceMemoryTotal, 32
// GiB) holds the caller's ACL allocations and program allocations
// (device_malloc_ctx); a range is valid iff it lies inside one live
// allocation. On Linux an allocation of 1 MiB or more is an anonymous
// MAP_NORESERVE mapping, committed page by page when touched (as in the
// emitted fake ACL), so any size up to the 32 GiB can be allocated. Kernels are chosen at prepare by the callable's func_name:
// KernelAddScalarF32 (out = in + scalar over float32) and KernelCopyBytes;
// any other name runs a kernel that does nothing and succeeds. A kernel whose
// requirements fail reports KernelFaultCode (-5) at synchronize and writes
// nothing.
//
// # Kernel code budget and images
//
// Prepare charges align_up(size, 64) into 2 MiB blocks, first fit, or a
// block of its own for an image over 2 MiB, against a 2 GiB budget (M-5), as
// accounting only: no block memory is held. The image is copied once per
// distinct content per instance (interned by hash and equality, with
// all-zero 512-byte pages elided), so 8192 residents or 2 GiB of charges of
// the same bytes hold one copy. The caller's image is never read after
// prepare returns (M-6). committed_device_memory_ctx is the allocated block
// bytes plus PersistentLaunchRegionBytes once the first prepare reached
// device registration (M-7).
//
// # Faults
//
// Options.Faults sets, and SimInject (simabi_inject) changes, a per-site
// count and code: the next count passes through a site fail with its code
// (semantics §5). Sites: 1 kernel-init resource creation (rolled back to New,
// init failed; K-7); 9 that rollback failing too (lands in Closing holding
// everything); 2 prepare allocate-and-copy (clean); 3 prepare device
// registration (poison, K-4); 4 launch enqueue (poison); 5 each release step
// of a kernel finalize (stays Closing; a retry releases only what is left,
// K-5); 6 a fatal device at finalize (quarantine: finalize IS forever,
// destroy refused forever, claim kept, D-4); 7 prepare holds the submission
// gate code milliseconds longer; 8 an asynchronous device failure
// delivered by the next synchronize of a stream with pending work. The D-2
// fault is the caller's: switch the thread's device and prepare, launch and
// finalize return INVALID_STATE without changing anything until it is
// switched back.
//
// # Concurrency
//
// The mode latch, the phase machine and the claim registry are atomic.
// Each kernel context has a submission gate: prepare, init and finalize take
// it blocking; launch try-locks it and returns INVALID_STATE at once when it
// is held. Init and finalize racing other calls on the same context is
// the caller's error; the simulator stays memory-safe and race-free.
//
// # Test inspection
//
// Inspect snapshots a context (mode, phase, flags, device, claim, resources,
// residents, blocks, committed bytes, poison cause, teardown error, program
// state); ResidentPlacement, ResidentImage and KernelConfig expose what a
// prepare or init kept; InvalidHandleCalls and RefusedDestroys count the
// calls the C runtime would abort on or log.
package sim
