// Package conformance is the checker of simabi: it drives any abi.Runtime
// with sequences of ops, checks every call against an independent model of
// docs/contract.md, and reports per rule. cmd/abicheck is a thin
// main over it.
//
// # Pieces
//
//   - Op: one step, a comparable value with a one-line text form
//     (String / Parse, round-trip tested). Contexts are slots c0..c15,
//     streams names s0..s7, images and args recipes; no op holds a raw
//     handle or address.
//   - Model: the expected outcome of each call, written from docs/contract.md and
//     docs/contract.md only (never from sim): allowed statuses with the rule that
//     decides them, tolerated statuses (docs/contract.md "tolerated": reported as
//     warnings), the id prepare must leave in out, the direction of
//     committed memory, queried values, and whether ACL calls were allowed.
//   - Runner: executes a sequence on a Target on one goroutine locked to its
//     OS thread (the current device is per thread, D-2), checks each call,
//     returns a text History and Findings; Options.BeforeOp is called before
//     each op (a child process of the CLI streams its progress with it).
//     Diff compares two histories; RunDiff runs one sequence on two targets.
//   - Generate: seeded random sequences biased by a model of the sequence
//     so far. Catalogue: directed checks, one named sequence per rule,
//     each tagged with its rules and the mutants of docs/semantics.md §13
//     it kills.
//   - Shrink: delta debugging (chunks, single ops, then arguments).
//   - Executor / Outcome: one sequence on a fresh runtime instance, in this
//     process (FactoryExecutor) or a child's (conformance/isolate).
//
// Above the engine: conformance/suite runs the directed checks and random
// sequences over any Executor (ConformWith; Conform over a
// FactoryExecutor); conformance/report aggregates the runs per rule
// (verdicts pass, fail, warn, skip, crash, hang with a detail line and the
// shrunk op log of a failure; text, JSON and JUnit renderings; baselines);
// conformance/target adapts the backends (sim, onboard) to Target.
//
// # Op text grammar
//
// One op per line; `#` starts a comment in scripts (ParseScript). CTX is
// c0..c15 or null, STREAM s0..s7 or null. Arguments shown in brackets are
// optional and take their default (the zero value) when absent.
//
//	create cN
//	destroy CTX | supported CTX | finalize CTX | committed CTX
//	kinit CTX dev=D gen=G [cfg=CFG] [aicpu=SPAN] [aicore=SPAN] [disp=SPAN]
//	pinit CTX dev=D [aicpu=SPAN] [aicore=SPAN] [disp=SPAN] [sdma=SPAN] [prewarm=CFG]
//	acl CTX dev=D                             ensure_acl_ready_ctx
//	prepare CTX img=IMG [out=null] [rep=N]
//	launch CTX id=I [args=ARGS] stream=STREAM [rep=N]
//	prog CTX fn=FN                            a program-side entry with bad arguments
//	contract                                  get_pipeline_contract vs V-CONTRACT
//	setdev D | setdev none                    the calling thread's device
//	getdev                                    read it (hook)
//	sync STREAM                               synchronize a caller stream
//	inject site=S count=N code=C              simabi_inject
//	clobber img=IMG                           overwrite the caller's copy of an image (M-6)
//	holdlaunch cN ms=M img=IMG id=I [args=ARGS] stream=STREAM     X-2
//	holdprepare cN ms=M img=IMG img2=IMG                          X-2
//	racekinit cN cM dev=D gen=G                                   X-1
//	unload                                    U-1: unload the library, then the calling thread exits (last op)
//	register CTX id=I [img=IMG]               simpler_register_callable (img=prog: the target's program callable)
//	unregister CTX id=I
//	prepare_run CTX st=N id=I [args=ARGS]     on run storage N (0..3), a valid CallConfig, storage N's descriptor
//	launch_run CTX st=N | poll_run CTX st=N | wait_run CTX st=N | finalize_run CTX st=N
//	run CTX st=N id=I [args=ARGS]             simpler_run
//
//	SPAN := none | bytes | halfptr | halfsize      (NULL,0) (p,64) (p,0) (NULL,64)
//	CFG  := ok | FLAG{+FLAG}   FLAG := null | threads=N | swim=N | depgen | prefix |
//	        unterm | pmu | dump | scope | anchors | ring=RING
//	RING := good | badtask | badheap | baddep | badpow2 | bigdep | winonly   (ring 0)
//	        | badheap3 | badheap1 | baddep2 | good3                          (ring 3, 1, 2, 3)
//	IMG  := null | huge | prog | valid(t=,s=,c=,b=,x=,nosc){+MOD}
//	MOD  := defect(NAME) | mis(K) | short(K) | long(K) | byte(OFF,VAL) | u32(OFF,VAL)
//	ARGS := match | match(dt=,ds=,host,alien,hostlast,junk) | exact(t=,s=[,host][,alien][,hostlast][,junk]) | null
//	FN   := register | unregister | run | prepare_run | launch_run | poll_run |
//	        wait_run | finalize_run | meminfo | copy_to | copy_from | malloc | free |
//	        aicpu_dlopen | host_dlopen | stream_sets | concurrent_prepare |
//	        arena_base | retained_temp | comm_create | comm_destroy
//
// valid(t=T,s=S,c=C,b=B,x=X) is the canonical image (abi.ChipCallableSpec)
// with T IN entries then S SCALAR entries, C children, a B-byte
// orchestration binary and salt X (distinct bytes); nosc stores scalar_count
// 0. Modifiers deform it: a named V-IMG defect (sigcount, sigval, order,
// scalars, sccount, fname-len, fname-nul, fname-early, cname-len, binsize,
// childcount, fid-range, fid-dup, child-offset, child-header,
// child-sigcount, child-binary), a base address K bytes past 16-byte
// alignment, a size K short or K long (zero bytes appended), one corrupted
// byte or 32-bit field. null is a NULL callable; huge is 2 GiB + 64 bytes of
// never-committed zero memory (E-PREP's size-before-V-IMG step). args=match
// gives the counts of the callable the id names on that context (as the
// runner observed it minted), plus deltas; every tensor is DEVICE unless
// host puts tensor 0 in HOST space (hostlast the last of the first
// tensor_count, alien that one in address space 2); junk passes args 8
// bytes past their alignment with garbage in every field launch does not
// read.
//
// A history line is "#i op -> result": a status name (or, for a query, its
// value), "out=N" for prepare, "mem=0|up|same|down" for the committed memory
// of the op's context, "x N" run lengths for repeated ops. No addresses, so
// histories of different targets diff line by line. The line is canonical:
// it holds only what the rules determine. What the scheduler decides in the
// two-thread ops is an annotation in brackets after it, which History.Lines
// (a replay) shows and Diff does not compare: racekinit renders its two
// statuses as an unordered pair "{INVALID_STATE, OK}" [c0 OK, c1
// INVALID_STATE]; holdprepare its two outcomes as an unordered pair [with
// overlapped / sequential and which image got which id]; holdlaunch "A | B"
// (prepare | launch) [overlapped / sequential]. When the scheduler took
// different branches in the two runs (the other racer won, a held launch
// overlapped in one run only, two different images got their ids in the
// other order), Diff compares that op without the branch (for holdlaunch:
// its prepare) and stops there: the runs may legitimately go on differently.
//
// Run storage: four buffers of get_runtime_size() bytes at
// get_runtime_alignment(), zeroed at the start of every run, each with a
// NativeRunDescriptor whose accepted_state is a word of the runner's and
// whose accepted_value is AcceptedValue(N); a successful launch_run must
// publish it. args=match gives the counts of the callable the id names
// (as registered). img=prog is the program callable of the target: the
// ChipCallable a user gave (Options.Callable, abicheck -callable), else the
// canonical empty image, which only a simulated build registers and runs.
//
// # Targets
//
// A Target is a runtime instance plus what the checker may drive: Hooks
// (simabi_set_current_device, simabi_current_device, simabi_sync_stream,
// simabi_inject), an ACL (set device, create / synchronize streams) for
// targets without hooks, and ACL call Counters (D-1). Basic assembles one:
// conformance/target does, for sim (SimTarget: Basic{RT: rt, SimHooks: rt,
// CountersF: ...rt.ACL().Counters...}) and for onboard (LibraryTarget:
// Basic{RT: lib, SimHooks: hooks-if-any, ACLib or CountersF from
// onboard.OpenACL}). CapsOf derives the capabilities; an op that needs a
// missing one is not executed and is reported as a skip naming the rule it
// leaves undriven and why ("D-2: target exports no simabi_set_current_device
// and no ACL was given"); a directed check that needs one is skipped whole.
//
// A runtime instance keeps claims and fault sites across sequences. The
// runner starts each run by clearing the thread's device (hook) or setting
// device 0 (ACL), disarming every fault site, and ends it by draining the
// streams and finalizing and destroying every context it created (with the
// context's device current). A context whose finalize never returns 0
// (quarantined) keeps its claim; the runner seeds later runs' models with
// that claim. After the model lost track the runner calls nothing more on
// the contexts (a handle the runtime freed would abort an emitted runtime,
// F-3) and the instance is Dirty. suite.Conform takes a Factory and uses a
// fresh instance per run (sim.New, or a copy of an emitted .so).
//
// # The model
//
// For every call the model walks the rule chain of the entry (E-KINIT,
// E-PREP, E-LAUNCH, E-FIN, E-DESTROY, E-PINIT, E-ACL, E-PROG, S-3) over its
// state: per context the latch, phase, init-failed and quarantined flags,
// device, claim, published ids with their counts, blocks of the byte
// budget, the persistent region, the last launch's stream and serial; per
// runtime the claim registry, the thread's current device, the nine fault
// sites, each stream's enqueued and completed serials, and the profile
// (asked of supported(NULL) at the start of each run; legacy must be
// given). Where docs/contract.md allows several outcomes the model accepts each and
// follows the observed one (a tolerated alternative that continues, like
// unchecked ring sizing, is walked as its own branch). A status it did not
// predict is a failure; the model then stops predicting ("lost") and the
// rest of the sequence is not run unless Options.ContinueAfterLoss.
//
// Rule attribution. A surprise is reported under the rule of the step that
// decided the expectation and under every other rule it breaks, so that the
// report (and the kill of a mutant, cmd/abicheck mutants) names the rule at
// fault:
//
//   - S-1: a device-band code (-1..-999) where the rules want host codes
//     only (a refusal: IS, IA, NR, ...; not where success is due), on every
//     profile but legacy.
//   - S-2: a status that is not 0, a host code of abi.HostStatuses, a
//     device-band code, a documented positive (simpler_poll_run's 1) or a
//     code the checker injected, with the value in the detail; also where
//     the rules otherwise leave the outcome open ("any status").
//   - S-3: every entry called with a NULL context, the kernel four included
//     (their V-INIT / V-PREP-2 / V-LAUNCH IA has no tolerance; supported
//     follows E-SUP), besides the entry's own rule.
//   - M-5 with E-PREP: both byte-budget steps of E-PREP (size > 2 GiB
//     before V-IMG, and the budget after the count).
//   - L-5: a context whose kernel init was refused before the latch (V-INIT,
//     V-SPAN, V-CFG, capability) must still be unlatched: a later
//     simpler_init or ensure_acl_ready_ctx that finds it latched fails L-5,
//     a later kernel init or finalize fails L-5 besides E-KINIT (K-7) or
//     E-FIN. A later kernel init
//     that fails with the INVALID_STATE expected after the latch (claim,
//     D-2) is what a runtime that latched at the refusal answers too: a
//     failure on that context afterwards also names L-5.
//   - D-2's tolerated alternative ("the query's own code") is a code of a
//     lower layer in place of INVALID_STATE at the D-2 step: not a host code
//     of docs/contract.md and not a code the checker injected (a runtime that skipped
//     the check and failed at a later fault site fails D-2).
//
// Beyond statuses each call is checked for: the value left in out (-1 on
// every failure, V-PREP-1; the next dense id on success, M-1 / M-2 / M-3),
// the caller's image left untouched by prepare (M-6: patching happens only
// in the runtime's copy), the committed-memory direction of the op's
// context (M-7, M-5), queried values (E-SUP, S-3, E-PROG, V-CONTRACT, the
// current device), and, when the target exposes ACL counters, no ACL init,
// finalize, set-device, reset or synchronize on a kernel path (D-1, E-SUP).
//
// Points where docs/contract.md leaves the outcome open, and what the model does:
//
//   - Stream completion. docs/contract.md lets a checker with hooks drive completion
//     (simabi_sync_stream completes a stream; site 8 fires on "the next
//     synchronize of a stream with pending work"), so with hooks work is
//     pending until the stream is synchronized and an unsynchronized stream
//     switch must be PREPARED_INCOMPATIBLE. Without hooks (ACL on a device)
//     work completes on its own: the switch may be refused or not.
//   - Dispatch on a quarantined context (D-4 says only finalize and
//     destroy): any status; the model keeps checking finalize (IS forever),
//     destroy (refused) and the claim (kept). The finalize that quarantines
//     returns IS (E-FIN: "IS on this and every later finalize_device").
//   - The calling thread's device after a program finalize or the destroy
//     of an attached program context ("resets the device"): unknown until
//     the next setdev; a borrowed-device check in between loses the model.
//   - Failures nothing injected: resource creation, AICPU bring-up,
//     allocation, loading the binaries and program teardown are assumed to
//     succeed (a real build needs Options.Binaries for kinit/pinit spans).
//   - Simulated kernels: a synchronize with pending work and no site-8
//     fault should return 0; a device-band code (-1..-999) is a warning
//     (S-1), since docs/contract.md says nothing about what the checker's kernels
//     do on a device.
//   - E-PINIT's prewarm check uses V-CFG's thread, swimlane, prefix and
//     ring rules, not the kernel-only UNSUPPORTED step: a prewarm config
//     with enable_pmu is accepted.
//   - supports_concurrent_native_prepare_ctx(NULL) and the run-family and
//     program entries on a live program context: any result.
//   - Racing kernel inits with fault site 1 or 9 armed: a racer may
//     fail creation and release the claim while the other is refused, which
//     no serial order explains; the model accepts anything and stops.
//   - M-7: exact 0 for NULL, fresh and finalized contexts; after kernel
//     init 0 (nonzero C0 warned); otherwise directions: a prepare that opens
//     a block or commits the persistent region goes up, one that fits a
//     tail stays, a registration failure does not go down, a launch stays.
//
// # Concurrency ops
//
// holdlaunch / holdprepare arm site 7 (count 1, code = ms), run a prepare on
// the runner's thread and, a short delay later, a launch or a prepare on a
// second locked thread whose current device is set to the first's. The
// launch must return INVALID_STATE at once — one that takes half the
// hold waited; the second prepare must wait and succeed (ids in gate
// order). Whether the second call overlapped is measured and shown in the
// history's annotation; a call that started after the prepare returned is
// judged sequentially. racekinit starts two kernel inits of one device from a
// barrier: exactly one gets the claim (X-1, E-CLAIM).
//
// # Performance
//
// Images, configs and the args buffer are built once and reused (images
// per recipe; the model's image facts are cached per recipe process-wide),
// the observation is a runner field, histories are stored as values and
// rendered on demand. BenchmarkSimRandom and BenchmarkEmittedRandom report
// model-checked calls per second.
package conformance
