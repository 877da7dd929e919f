// Package onboard binds a host-runtime shared library without cgo: an emitted
// fake runtime (sim/emit), upstream's simulator build, or silicon's
// libhost_runtime.so. It dlopens the library through purego, binds the
// process-owned host-log state, resolves every symbol of abi.Symbols into a
// private table and publishes it only when every required one resolved
// (C-BIND-1), checks the exported PipelineContract (C-BIND-2), and detects the
// ABI revision. *Library implements abi.Runtime (and abi.LoadedRuntime) with
// one method per C entry; the simulation hooks, when all four resolve, are
// reachable through Library.Hooks.
//
// # Loading
//
// Open runs these steps, and closes the library again on any failure:
//
//  1. each Options.Preloads path is dlopened RTLD_NOW|RTLD_GLOBAL once per
//     process (a simulator's companion library, upstream's
//     libcpu_sim_context.so) and never closed; a preload that exports
//     simpler_host_log_bind_state gets the host-log state too;
//  2. the runtime is dlopened RTLD_NOW|RTLD_LOCAL (every runtime exports the
//     same names);
//  3. every symbol is resolved with dlsym into a private table (resolving
//     calls nothing);
//  4. simpler_host_log_bind_state is called with the process-owned 16-byte
//     SimplerHostLogState before any other entry; nonzero fails the load;
//  5. when create_device_context, destroy_device_context and
//     simpler_kernel_mode_supported resolved, supported is asked once on a
//     fresh context, which is destroyed again (this decides whether the
//     kernel trio is required, C-BIND-1);
//  6. every missing required symbol is reported at once in a *BindError;
//  7. get_pipeline_contract() is decoded and checked with V-CONTRACT
//     (C-BIND-2);
//  8. the table is published into the returned *Library.
//
// dlopen of a path that is already loaded returns the same loaded copy (the
// dynamic loader counts references), so two Libraries of one path share one
// runtime instance: its contexts, claims and fault state. Close drops one
// reference; the copy is unloaded when the last one goes.
//
// # Profiles (Library.Profile, an abi.Profile)
//
// tmr: simpler_kernel_mode_supported returned nonzero on a fresh context;
// the kernel trio (init, prepare, launch) is required and bound.
// refusing: supported returned 0; the trio is optional and, by
// default, not bound: the kernel methods return UNSUPPORTED without calling
// anything (C-ERR's policy for a runtime whose supported is 0).
// Options.BindKernelWhenUnsupported binds the trio anyway when all three
// resolve, so a checker can drive a refusing build's structural checks.
// legacy: no simpler_kernel_mode_supported but a
// simpler_provision_dma_workspace: the legacy set is bound (program mode
// only), the kernel methods return UNSUPPORTED without calling anything, and
// Library.Translate maps the legacy codes (-1, -2, -3) for reports.
//
// # Calls and memory
//
// Every call goes through a function pointer resolved at Open and
// purego.SyscallN: no reflection and no allocation per call (SyscallN's
// variadic argument list would be heap-allocated on every call, so onboard
// hands it a pooled argument block, callargs.go). Every pointer argument
// (unsafe.Pointer, *int32, *uint64, *uintptr) must point to Go heap memory or
// C memory that stays alive and does not move for the duration of the call;
// it is passed as uintptr(unsafe.Pointer(p)) in the call expression of a
// helper marked go:uintptrescapes, which keeps the Go object alive (and
// places it on the heap: a caller's local variable whose address is passed
// escapes). A runtime must not keep such a pointer after the call returns,
// except where the ABI says it does (the host-log state, which onboard keeps
// alive for the process).
//
// # Threads
//
// ACL's current device, and the simulated one of the hooks, is per OS thread
// (D-2). A goroutine that drives a context must call runtime.LockOSThread
// before it sets a device (ACL.SetDevice, or the hook) and stay locked while
// it uses the context: a goroutine that migrates between OS threads sees
// another thread's device and gets INVALID_STATE.
//
// # cgo
//
// The package never imports "C". With CGO_ENABLED=0 purego supplies its
// fakecgo runtime on Linux; with CGO_ENABLED=1 (for example under -race) it
// calls through runtime/cgo. Both are tested.
//
// # Platforms
//
// onboard builds without cgo for linux/amd64, linux/arm64 and darwin/arm64
// (make build, make cross; darwin/amd64 has no file of its own). On darwin a shared library is a .dylib
// (SharedLibrarySuffix): ACLLibraryName is libascendcl.dylib there, and
// ACLPathFor looks for that name beside a runtime. The entries with stack
// arguments keep their layout under darwin/arm64's packed stack arguments
// (purego passes every argument in an 8-byte slot; the only argument
// narrower than 8 bytes on the stack, simpler_init's enable_sdma, is followed
// by an 8-byte-aligned pointer). The tests run on Linux: the fakes they load
// are built by sim/emit, which links with GNU ld options.
package onboard
