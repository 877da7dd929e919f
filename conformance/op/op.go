package op

import (
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi/tracevocab"
)

// Kind is what an Op does.
type Kind uint8

// Op kinds. Entry ops call one C entry of docs/contract.md; environment
// ops act on the caller's side through the simulation hooks or ACL;
// concurrency ops run two calls on two OS threads.
const (
	KindInvalid     Kind = iota
	KindCreate           // create_device_context into a slot
	KindDestroy          // destroy_device_context
	KindSupported        // simpler_kernel_mode_supported
	KindKInit            // simpler_kernel_mode_init
	KindPInit            // simpler_init
	KindACL              // ensure_acl_ready_ctx
	KindPrepare          // simpler_kernel_mode_prepare_callable
	KindLaunch           // simpler_kernel_mode_launch
	KindFinalize         // finalize_device
	KindCommitted        // committed_device_memory_ctx
	KindProg             // a program-only or query entry, called with deliberately bad arguments
	KindContract         // get_pipeline_contract, checked against V-CONTRACT
	KindSetDev           // set the calling thread's current device (hook or ACL)
	KindGetDev           // read the calling thread's current device (hook)
	KindSync             // synchronize a caller stream (hook or ACL)
	KindInject           // simabi_inject
	KindClobber          // overwrite the caller's copy of an image (M-6)
	KindHoldLaunch       // a launch while a prepare holds the gate (site 7)
	KindHoldPrepare      // a prepare while a prepare holds the gate (site 7)
	KindRaceKInit        // two contexts race kernel init for one device
	KindUnload           // U-1: unload the library, then end the thread that called it
	// The run family with valid arguments, on run storage the runner owns.
	KindRegister    // simpler_register_callable
	KindUnregister  // simpler_unregister_callable
	KindPrepareRun  // simpler_prepare_run
	KindLaunchRun   // simpler_launch_run
	KindPollRun     // simpler_poll_run
	KindWaitRun     // simpler_wait_run
	KindFinalizeRun // simpler_finalize_run
	KindRun         // simpler_run
	KindHostLog     // simpler_host_log_bind_state with a chosen state (S-2)
	// The comm family (E-COMM, ops_comm.go).
	KindCommInit          // comm_init into a handle slot
	KindCommAlloc         // comm_alloc_windows
	KindCommBase          // comm_get_local_window_base
	KindCommSize          // comm_get_window_size
	KindCommDerive        // comm_derive_context
	KindCommBarrier       // comm_barrier
	KindCommDestroy       // comm_destroy
	KindCommDomainAlloc   // comm_alloc_domain_windows
	KindCommDomainRelease // comm_release_domain_windows
	KindCommGlobalPrepare // comm_global_domain_prepare
	KindCommGlobalImport  // comm_global_domain_import
	KindCommGlobalRelease // comm_global_domain_release
	KindCommMem           // a word of a comm window, read or written through the simulation hooks
	// Device memory of a program context with valid arguments, in
	// allocation slots the runner owns (ops_devmem.go).
	KindDevAlloc // device_malloc_ctx into an allocation slot
	KindDevWrite // copy_to_device_ctx of a pattern into a slot's allocation
	KindDevRead  // copy_from_device_ctx of a slot's allocation, compared with what it holds
	KindDevFree  // device_free_ctx of a slot's allocation
	// A word of a comm window copied through a program context (E-PROG.28,
	// ops_comm.go).
	KindCommCopy // copy_to_device_ctx or copy_from_device_ctx of a word of a comm window
	// The comm family's timeout (E-COMM.9, .21, .29, .34, .59), set
	// through the hook simabi_comm_timeout_ms (ops_comm.go).
	KindCommTimeout // simabi_comm_timeout_ms: the bound of the comm waits that start later
	NumKinds        // the number of kinds (KindInvalid included)
)

func (k Kind) String() string {
	if k.Defined() {
		return defOf(k).name
	}
	if k == KindInvalid {
		return "invalid"
	}
	return "kind" + strconv.Itoa(int(k))
}

// Limits of the op language.
const (
	MaxSlots    = 16 // contexts c0..c15
	MaxStreams  = 8  // streams s0..s7
	MaxStorages = 4  // run storage st0..st3
	MaxAllocs   = 4  // device allocation slots a0..a3
	NullRef     = -1 // a NULL context or stream reference
)

// SpanRecipe is how a binary span (pointer, size) argument is formed (V-SPAN).
type SpanRecipe uint8

// Span recipes.
const (
	SpanNone     SpanRecipe = iota // (NULL, 0): empty and consistent
	SpanBytes                      // (ptr, 64): consistent
	SpanHalfPtr                    // (ptr, 0): inconsistent
	SpanHalfSize                   // (NULL, 64): inconsistent
	NumSpans                       // the number of span recipes
)

var spanNames = [NumSpans]string{"none", "bytes", "halfptr", "halfsize"}

func (s SpanRecipe) String() string { return nameOf(spanNames[:], s, "span?") }

// Consistent is V-SPAN for the recipe.
func (s SpanRecipe) Consistent() bool { return s == SpanNone || s == SpanBytes }

// Span argument positions in Op.Spans.
const (
	SpanAicpu = iota
	SpanAicore
	SpanDispatcher
	SpanSDMA
)

var spanKeys = [4]string{"aicpu", "aicore", "disp", "sdma"}

// SpanKey is the text key of span argument i (SpanAicpu..SpanSDMA).
func SpanKey(i int) string { return spanKeys[i] }

// RingRecipe fills ring 0 of a CallConfig.
type RingRecipe uint8

// Ring recipes.
const (
	RingNone     RingRecipe = iota // all zero (unset)
	RingGood                       // window 16, heap 4096, dep pool 64
	RingBadTask                    // window 3 (not a power of two >= 4)
	RingBadHeap                    // heap 100 (< 1024)
	RingBadDep                     // dep pool 2 (< 4)
	RingBadPow2                    // window 12: in range, not a power of two
	RingBigDep                     // dep pool 2^31 (> 2^31-1)
	RingBadHeap3                   // ring 3's heap 100 (ring 0 unset)
	RingWinOnly                    // ring 0: window 16, heap and dep pool unset (valid)
	// Rings other than ring 0 (V-CFG holds every ring); never generated.
	RingBadHeap1 // ring 1's heap 1000 (< 1024)
	RingBadDep2  // ring 2's dep pool 2 (< 4)
	RingGood3    // ring 3: window 1024, heap 4096, dep pool 64 (valid)
	NumRings     // the number of ring recipes
)

// NumGenRings bounds the recipes the generator draws, so the rings after
// it leave a seed's sequences unchanged.
const NumGenRings = RingWinOnly + 1

var ringNames = [NumRings]string{"none", "good", "badtask", "badheap", "baddep", "badpow2", "bigdep", "badheap3", "winonly",
	"badheap1", "baddep2", "good3"}

// CfgRecipe describes a CallConfig (kinit's, pinit's prewarm); the zero
// value is a valid all-zero config.
type CfgRecipe struct {
	Null    bool // pass NULL instead of a config
	Threads int8 // aicpu_thread_num
	Swim    int8 // enable_chip_swimlane
	DepGen  bool // enable_dep_gen = 1
	Prefix  bool // output_prefix = "conf" (NUL-terminated)
	Unterm  bool // output_prefix = 1024 non-NUL bytes
	PMU     bool // enable_pmu = 1
	Dump    bool // enable_dump_args = 1
	Scope   bool // enable_scope_stats = 1
	Anchors bool // capture_clock_anchors = 1
	Ring    RingRecipe
}

func (c CfgRecipe) String() string {
	if c == (CfgRecipe{}) {
		return "ok"
	}
	return formatParts(cfgParts, c, "+")
}

// ImgBase is the base of an image recipe.
type ImgBase uint8

// Image bases.
const (
	ImgValid    ImgBase = iota // a canonical image built with abi.ChipCallableSpec
	ImgNull                    // a NULL pointer with size 9376
	ImgHuge                    // 2 GiB + 64 bytes of zero memory (E-PREP's size > budget step)
	ImgProgram                 // register: the user's -callable, else the canonical empty image
	ImgRaw                     // recorded bytes (RawImage), Raw naming them
	ImgRawTrunc                // an image over the recording limit, Raw its size
	ImgWrap                    // a span whose address plus size wraps (V-IMG step 1)
)

// ImgDefect is a named V-IMG defect written into a canonical image.
type ImgDefect uint8

// Image defects; each breaks exactly one V-IMG check.
const (
	DefNone             ImgDefect = iota
	DefSigCount                   // sig_count = 257
	DefSigValue                   // signature[0] = 7
	DefOrder                      // a tensor entry after a scalar entry
	DefScalars                    // 129 SCALAR entries
	DefScalarCount                // stored scalar_count = SCALAR entries + 1 (tolerated: ignored)
	DefFuncNameLen                // func_name_len = 64
	DefFuncNameNUL                // no NUL at func_name_len
	DefFuncNameEarly              // a NUL before func_name_len
	DefConfigNameLen              // config_name_len = 64
	DefBinarySize                 // binary_size = storage + 1
	DefChildCount                 // child_count = 1025
	DefFuncIDRange                // child 0 func_id = 1024
	DefFuncIDDup                  // child 1 repeats child 0's func_id
	DefChildOffset                // child_offsets[0] off by 64
	DefChildHeader                // one more child whose header does not fit
	DefChildSigCount              // child 0 sig_count = 33
	DefChildBinary                // child 0 binary_size overruns the image
	DefSigCountNeg                // sig_count = -1
	DefSigValueNeg                // signature[0] = -1
	DefConfigNameNUL              // no NUL at config_name_len
	DefChildCountNeg              // child_count = -1
	DefFuncIDNeg                  // child 0 func_id = -1
	DefChildGap                   // 64 bytes before child 0, its offset past align_up(used, 64), the size grown to match
	DefChildSigCountNeg           // child 0 sig_count = -1
	DefFuncNameFar                // func_name_len reaches the first byte after the span, every name byte non-NUL
	// Past NumGenDefects: the directed checks' only (a seed's sequences
	// stay what they were).
	DefFuncNameLong // func_name_len 65 over 64 non-NUL name bytes: the byte at 65 is the length's own 0 (V-IMG.8 alone)
	NumDefects      // the number of defects (DefNone included)
)

// NumGenDefects bounds the defects the generator draws.
const NumGenDefects = DefFuncNameFar + 1

var defectNames = [NumDefects]string{"none", "sigcount", "sigval", "order", "scalars", "sccount",
	"fname-len", "fname-nul", "fname-early", "cname-len", "binsize", "childcount", "fid-range",
	"fid-dup", "child-offset", "child-header", "child-sigcount", "child-binary", "sigcount-neg",
	"sigval-neg", "cname-nul", "childcount-neg", "fid-neg", "child-gap", "child-sigcount-neg", "fname-far",
	"fname-long"}

func (d ImgDefect) String() string { return nameOf(defectNames[:], d, "defect?") }

// PokeKind is a raw corruption of an image.
type PokeKind uint8

// Pokes.
const (
	PokeNone PokeKind = iota
	PokeByte          // img[off] = val
	PokeU32           // little-endian uint32 at off = val
)

// ImageRecipe describes prepare's callable: a canonical image and how the
// call deforms it.
type ImageRecipe struct {
	Base    ImgBase
	T, S    uint16 // signature: T tensor entries (IN) then S SCALAR entries
	C       uint16 // children
	B       uint32 // orchestration binary bytes
	X       uint16 // salt: recipes differing only in X have different bytes
	NoSC    bool   // store 0 ("not recorded") as scalar_count
	IO      bool   // tensor entries cycle IN, OUT, INOUT (else all IN)
	Defect  ImgDefect
	Mis     uint8  // pass base+Mis (1..15): misaligned
	Short   uint32 // pass size-Short
	Long    uint32 // append Long zero bytes and pass them
	Poke    PokeKind
	PokeOff uint32
	PokeVal uint32
	Raw     uint64 // ImgRaw: the recorded bytes' key; ImgRawTrunc: their size
	// Edge ends the span just before a page no access is allowed to, so
	// a read past it faults (V-IMG: nothing outside the span is read).
	Edge bool
}

func (r ImageRecipe) String() string {
	for name, base := range bareImages {
		if r.Base == base {
			return name
		}
	}
	switch r.Base {
	case ImgRaw:
		raw := rawBytes(r.Raw)
		s, _ := tracevocab.Img.Spell("raw", uint64(len(raw)), uint64(r.Mis), raw)
		return s
	case ImgRawTrunc:
		s, _ := tracevocab.Img.Spell("trunc", r.Raw, uint64(r.Mis))
		return s
	}
	v := "valid(" + formatParts(imgParams, r, ",") + ")"
	if m := formatParts(imgMods, r, "+"); m != "" {
		v += "+" + m
	}
	return v
}

// ArgsMode is how launch's args are formed.
type ArgsMode uint8

// Args modes.
const (
	ArgsMatch ArgsMode = iota // counts of the callable the id names on that context, plus deltas
	ArgsNull                  // NULL args
	ArgsExact                 // the given counts
)

// ArgsRecipe describes a launch's ChipStorageTaskArgs; every tensor is in
// DEVICE space unless a flag says otherwise.
type ArgsRecipe struct {
	Mode ArgsMode
	T, S int16 // ArgsExact: the counts; ArgsMatch: deltas added to the callable's counts
	Host bool  // tensor 0 in HOST space
	// Alien, HostLast: the last of the first tensor_count tensors in
	// address space 2 (E-LAUNCH.6), in HOST space (every tensor checked).
	Alien, HostLast bool
	// Junk passes args 8 bytes past 64-byte alignment with garbage in every
	// field launch does not read (E-LAUNCH).
	Junk bool
}

func (a ArgsRecipe) String() string {
	switch a.Mode {
	case ArgsNull:
		return "null"
	case ArgsExact:
		return "exact(" + formatParts(exactParts, a, ",") + ")"
	}
	if m := formatParts(matchParts, a, ","); m != "" {
		return "match(" + m + ")"
	}
	return "match"
}

// ProgFn names the entry a prog op calls, always with deliberately bad
// arguments (NULL pointers, id -1, run handle 0), so that no call can
// create state on any runtime (E-PROG, S-3).
type ProgFn uint8

// Program-side entries.
const (
	FnRegister ProgFn = iota
	FnUnregister
	FnRun
	FnPrepareRun
	FnLaunchRun
	FnPollRun
	FnWaitRun
	FnFinalizeRun
	FnMemInfo
	FnCopyTo
	FnCopyFrom
	FnMalloc // device_malloc_ctx(64), freed again at once when non-NULL
	FnFree   // device_free_ctx(NULL)
	FnAicpuDlopen
	FnHostDlopen
	FnStreamSets
	FnConcurrentPrepare
	FnArenaBase
	FnRetainedTemp
	FnCommCreate // create_comm_stream_ctx, destroyed again at once when non-NULL
	FnCommDestroy
	NumFns // the number of program-side entries
)

var fnNames = [NumFns]string{"register", "unregister", "run", "prepare_run", "launch_run", "poll_run",
	"wait_run", "finalize_run", "meminfo", "copy_to", "copy_from", "malloc", "free", "aicpu_dlopen",
	"host_dlopen", "stream_sets", "concurrent_prepare", "arena_base", "retained_temp", "comm_create",
	"comm_destroy"}

func (f ProgFn) String() string { return nameOf(fnNames[:], f, "fn?") }

// nameOf is names[i], or bad past them.
func nameOf[T ~uint8](names []string, i T, bad string) string {
	if int(i) < len(names) {
		return names[i]
	}
	return bad
}

// ProgOnly reports whether E-PROG names the entry (IS without a live program
// init).
func (f ProgFn) ProgOnly() bool { return f <= FnCopyFrom }

// StatusEntry reports whether the entry returns a status (S-3: IA for NULL).
func (f ProgFn) StatusEntry() bool { return f <= FnCopyFrom || f == FnCommDestroy }

// Op is one step of a sequence: a comparable value (slots, names and
// recipes, never handles or addresses) whose text (String) Parse reads back.
type Op struct {
	Kind    Kind
	C, C2   int8  // context slots; NullRef for NULL
	Dev     int32 // device id (setdev: -1 = none)
	Gen     uint64
	Cfg     CfgRecipe // kinit's config; pinit's prewarm config when Prewarm
	Prewarm bool
	Spans   [4]SpanRecipe
	Img     ImageRecipe
	Img2    ImageRecipe
	OutNull bool
	Rep     uint32 // prepare / launch: repeat the call Rep times (0 = once)
	ID      int32
	Args    ArgsRecipe
	Stream  int8 // NullRef for NULL
	Site    int32
	Count   int32
	Code    int32
	Ms      int32 // hold ops: how long the first prepare holds the gate; ctimeout: the bound
	Fn      ProgFn
	St      int8 // run ops: the run storage (st0..st3)
	Comm    CommRecipe
	// Device memory ops: the allocation slot, dev_alloc's size, dev_write's
	// seed, and the arguments beyond the whole allocation.
	A    int8
	Size uint32
	Seed uint8
	Mem  DevArgs
}

// Reps is how many calls the op makes.
func (op Op) Reps() int {
	if op.Rep == 0 {
		return 1
	}
	return int(op.Rep)
}

// CtxText is the text form of context slot c.
func CtxText(c int8) string { return refText("c", c) }

// String is the one-line text form of op; Parse(op.String()) == op.
func (op Op) String() string {
	var b strings.Builder
	b.WriteString(op.Kind.String())
	defOf(op.Kind).format(&b, op)
	return b.String()
}

// FormatOps renders a sequence one op per line.
func FormatOps(ops []Op) string {
	var b strings.Builder
	for _, op := range ops {
		b.WriteString(op.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Abbreviate shortens, for a reader, every raw(...) in s with more than 32
// hex digits to its first 16 and last 8 (repro files and JSON keep them).
func Abbreviate(s string) string {
	var b strings.Builder
	for {
		before, rest, ok := strings.Cut(s, "raw(")
		inner, after, closed := strings.Cut(rest, ")")
		if !ok || !closed {
			b.WriteString(s)
			return b.String()
		}
		k := strings.LastIndexByte(inner, ',') + 1
		hx := inner[k:]
		if len(hx) > 32 && strings.Trim(hx, "0123456789abcdef") == "" {
			hx = hx[:16] + "…" + hx[len(hx)-8:]
		}
		b.WriteString(before + "raw(" + inner[:k] + hx + ")")
		s = after
	}
}
