// Package op is the checker's op language: what a call to the runtime is
// (Kind, Op and the recipes of its arguments), its text form (Parse and
// String: one op a line, the form of scripts, repros and baselines), and
// its trace grammar (ParseTrace: a recorded session, in abi/tracevocab's
// words, read as ops with what the runtime answered). Every kind is one
// define in the ops_*.go file of its family; nothing here switches on the
// kind. It imports abi and abi/tracevocab only.
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
//	hostlog threshold=T [version=V] [size=N] | hostlog null
//	                                          simpler_host_log_bind_state with that state (version 1 and
//	                                          size 16 by default) or NULL (S-2)
//	unload                                    U-1: unload the library, then the calling thread exits (last op)
//	register CTX id=I [img=IMG]               simpler_register_callable (img=prog: the target's program callable)
//	unregister CTX id=I
//	prepare_run CTX st=N id=I [args=ARGS] [cfg=null] [desc=null]
//	                                          on run storage N (0..3), a valid CallConfig (cfg=null: NULL),
//	                                          storage N's descriptor (desc=null: NULL)
//	launch_run CTX st=N | poll_run CTX st=N | wait_run CTX st=N | finalize_run CTX st=N
//	run CTX st=N id=I [args=ARGS] [cfg=null] [desc=null]   simpler_run
//	dev_alloc cN a=A size=B|huge              device_malloc_ctx of B bytes (0..2^20, huge: 2^62) into allocation slot A (0..3)
//	dev_write cN a=A seed=S [SPAN] [host=null] copy_to_device_ctx of the pattern of (A, S) into slot A's allocation
//	dev_read cN a=A [SPAN] [host=null]        copy_from_device_ctx of slot A's allocation
//	                                          SPAN: off=K len=N (N or huge) of the allocation, or cross=B
//	                                          (its last 8 bytes through the first 8 of slot B's, lower first)
//	dev_free cN a=A [at=K|ptr=unknown|freed|foreign] device_free_ctx of slot A's allocation, or of a pointer
//	                                          K bytes into it, one no allocation had, the one it had before
//	                                          it was freed, or another context's
//	cinit hN rank=R nranks=K path=pP|null [stream=S] ... cmem REF idx=I  the comm family (ops_comm.go)
//	ccopy cN REF idx=I [off=K] [put=V]        a word of a comm window through cN's copies (ops_comm.go)
//	ctimeout ms=M                             simabi_comm_timeout_ms: the comm waits that start later give up after M ms
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
// 0. Modifiers deform it: a named V-IMG defect (defectNames in op.go:
// sigcount, fid-dup, child-gap, ...), a base address K bytes past 16-byte
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
// Allocation slots a0..a3 and what a dev_read answers: docs/abicheck.md,
// "Device memory".
package op
