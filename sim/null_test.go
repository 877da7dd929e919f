package sim

import (
	"strconv"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/validation"
)

// entryCall is one entry called with a chosen context handle and otherwise
// valid arguments; it returns the entry's result widened to int64 (statuses,
// sizes, pointers), or 0 for void entries.
type entryCall struct {
	name string
	call func(r *Runtime, ctx abi.Ctx) int64
	// want is the result for a NULL (or invalid) ctx; supported is the
	// build constant and is filled in per profile.
	want int64
}

// everyCtxEntry lists every abi.Runtime entry that takes a context (S-3).
func everyCtxEntry(t *testing.T) []entryCall {
	img := noopImage(t, 64)
	args := emptyArgs()
	cfg := configBytes()
	var info [abi.DeviceMemoryInfoSize]byte
	host := make([]byte, 64)
	desc := make([]byte, abi.NativeRunDescSize)
	rt := abi.RunHandle(0x1000)
	return []entryCall{
		{"destroy_device_context", func(r *Runtime, c abi.Ctx) int64 { r.DestroyDeviceContext(c); return 0 }, 0},
		{"simpler_init", func(r *Runtime, c abi.Ctx) int64 {
			return int64(r.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0))
		}, int64(intS)},
		{"finalize_device", func(r *Runtime, c abi.Ctx) int64 { return int64(r.FinalizeDevice(c)) }, int64(intS)},
		{"device_malloc_ctx", func(r *Runtime, c abi.Ctx) int64 { return int64(r.DeviceMalloc(c, 64)) }, 0},
		{"device_free_ctx", func(r *Runtime, c abi.Ctx) int64 { r.DeviceFree(c, firstDevAddr); return 0 }, 0},
		{"committed_device_memory_ctx", func(r *Runtime, c abi.Ctx) int64 { return int64(r.CommittedDeviceMemory(c)) }, 0},
		{"device_memory_info_ctx", func(r *Runtime, c abi.Ctx) int64 { return int64(r.DeviceMemoryInfo(c, ptrOf(&info))) }, int64(iaS)},
		{"copy_to_device_ctx", func(r *Runtime, c abi.Ctx) int64 {
			return int64(r.CopyToDevice(c, firstDevAddr, abi.Ptr(host), 64))
		}, int64(iaS)},
		{"copy_from_device_ctx", func(r *Runtime, c abi.Ctx) int64 {
			return int64(r.CopyFromDevice(c, abi.Ptr(host), firstDevAddr, 64))
		}, int64(iaS)},
		{"simpler_register_callable", func(r *Runtime, c abi.Ctx) int64 { return int64(r.RegisterCallable(c, 0, abi.Ptr(img))) }, int64(iaS)},
		{"simpler_unregister_callable", func(r *Runtime, c abi.Ctx) int64 { return int64(r.UnregisterCallable(c, 0)) }, int64(iaS)},
		{"simpler_run", func(r *Runtime, c abi.Ctx) int64 {
			return int64(r.Run(c, rt, 0, args.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)))
		}, int64(iaS)},
		{"simpler_prepare_run", func(r *Runtime, c abi.Ctx) int64 {
			return int64(r.PrepareRun(c, rt, 0, args.Pointer(), abi.Ptr(runCfg), abi.Ptr(desc)))
		}, int64(iaS)},
		{"simpler_launch_run", func(r *Runtime, c abi.Ctx) int64 { return int64(r.LaunchRun(c, rt)) }, int64(iaS)},
		{"simpler_poll_run", func(r *Runtime, c abi.Ctx) int64 { return int64(r.PollRun(c, rt)) }, int64(iaS)},
		{"simpler_wait_run", func(r *Runtime, c abi.Ctx) int64 { return int64(r.WaitRun(c, rt)) }, int64(iaS)},
		{"simpler_finalize_run", func(r *Runtime, c abi.Ctx) int64 { return int64(r.FinalizeRun(c, rt)) }, int64(iaS)},
		{"get_aicpu_dlopen_count", func(r *Runtime, c abi.Ctx) int64 { return int64(r.AicpuDlopenCount(c)) }, 0},
		{"get_host_dlopen_count", func(r *Runtime, c abi.Ctx) int64 { return int64(r.HostDlopenCount(c)) }, 0},
		{"get_run_stream_set_create_count", func(r *Runtime, c abi.Ctx) int64 { return int64(r.RunStreamSetCreateCount(c)) }, 0},
		{"simpler_kernel_mode_supported", func(r *Runtime, c abi.Ctx) int64 { return int64(r.KernelModeSupported(c)) }, -1},
		{"simpler_kernel_mode_init", func(r *Runtime, c abi.Ctx) int64 { return int64(kinit(r, c, 0, cfg, 1)) }, int64(iaS)},
		{"simpler_kernel_mode_prepare_callable", func(r *Runtime, c abi.Ctx) int64 {
			id, st := prepare(r, c, img)
			if id != -1 { // V-PREP-1: -1 on every failure
				return 1
			}
			return int64(st)
		}, int64(iaS)},
		{"simpler_kernel_mode_launch", func(r *Runtime, c abi.Ctx) int64 { return int64(launch(r, c, 0, args, streamA)) }, int64(iaS)},
		{"supports_concurrent_native_prepare_ctx", func(r *Runtime, c abi.Ctx) int64 { return int64(r.SupportsConcurrentNativePrepare(c)) }, 0},
		{"get_arena_bank_gm_heap_base_ctx", func(r *Runtime, c abi.Ctx) int64 { return int64(r.ArenaBankGMHeapBase(c, 0)) }, 0},
		{"get_retained_temp_addr_ctx", func(r *Runtime, c abi.Ctx) int64 { return int64(r.RetainedTempAddr(c, 0)) }, 0},
		{"ensure_acl_ready_ctx", func(r *Runtime, c abi.Ctx) int64 { return int64(r.EnsureACLReady(c, 0)) }, int64(iaS)},
		{"create_comm_stream_ctx", func(r *Runtime, c abi.Ctx) int64 { return int64(r.CreateCommStream(c)) }, 0},
		{"destroy_comm_stream_ctx", func(r *Runtime, c abi.Ctx) int64 { return int64(r.DestroyCommStream(c, streamA)) }, int64(iaS)},
	}
}

// TestNullContextEveryEntry is S-3 over every entry that takes a context, in
// both profiles: NULL ctx → INTERNAL for simpler_init and finalize_device,
// INVALID_ARGUMENT for every other status entry (the kernel entries through
// V-INIT, V-PREP-2 and V-LAUNCH, prepare writing -1 first, V-PREP-1), 0 for
// queries, nothing for destroy and device_free, and the build constant for
// supported (E-SUP). A handle create_device_context never returned, or one
// destroy freed, is treated exactly like NULL and counted (semantics §2).
func TestNullContextEveryEntry(t *testing.T) {
	for _, p := range []Profile{TMR, Refusing} {
		for _, handle := range []string{"NULL", "never-returned", "destroyed"} {
			for _, e := range everyCtxEntry(t) {
				t.Run(string(p)+"/"+handle+"/"+e.name, func(t *testing.T) {
					r := New(p, Options{})
					var ctx abi.Ctx
					switch handle {
					case "never-returned":
						ctx = abi.Ctx(0xdead_beef)
					case "destroyed":
						ctx = r.CreateDeviceContext()
						r.DestroyDeviceContext(ctx)
					}
					wantV := e.want
					if e.name == "simpler_kernel_mode_supported" {
						wantV = int64(r.KernelModeSupported(0))
					}
					before := r.InvalidHandleCalls()
					if got := e.call(r, ctx); got != wantV {
						t.Fatalf("%s(%s) = %d, want %d", e.name, handle, got, wantV)
					}
					wantInvalid := uint64(1)
					if handle == "NULL" {
						wantInvalid = 0
					}
					if got := r.InvalidHandleCalls() - before; got != wantInvalid {
						t.Fatalf("InvalidHandleCalls moved by %d, want %d", got, wantInvalid)
					}
					if r.LiveContexts() != 0 {
						t.Fatalf("a context is alive after %s", e.name)
					}
				})
			}
		}
	}
}

// TestEveryCtxEntryListed keeps the S-3 table complete: every method of
// abi.Runtime whose first parameter is a context appears in it.
func TestEveryCtxEntryListed(t *testing.T) {
	if got, wantN := len(everyCtxEntry(t)), 30; got != wantN {
		t.Fatalf("S-3 table has %d entries, want %d (every ctx-taking entry of docs/contract.md)", got, wantN)
	}
}

// TestHandlesNeverReused: create_device_context returns fresh nonzero
// handles, never reused within the instance even when a slot is (semantics
// §2), and a freed handle stays invalid.
func TestHandlesNeverReused(t *testing.T) {
	r := newTMR(t)
	seen := map[abi.Ctx]bool{}
	for i := 0; i < 3000; i++ {
		ctx := r.CreateDeviceContext()
		if ctx == 0 || seen[ctx] {
			t.Fatalf("create %d returned %#x (0 or reused)", i, ctx)
		}
		seen[ctx] = true
		if i%3 != 0 {
			r.DestroyDeviceContext(ctx)
			if _, ok := r.Inspect(ctx); ok {
				t.Fatalf("destroyed handle %#x still resolves", ctx)
			}
		}
	}
	if got := r.LiveContexts(); got != 1000 {
		t.Fatalf("LiveContexts = %d, want 1000", got)
	}
}

// TestHandleFreeEntries: entries that take no context answer constants
// (semantics §10).
func TestHandleFreeEntries(t *testing.T) {
	r := newTMR(t)
	if r.GetRuntimeSize() != 64 || r.GetRuntimeAlignment() != 64 {
		t.Fatalf("runtime size/alignment = %d/%d, want 64/64", r.GetRuntimeSize(), r.GetRuntimeAlignment())
	}
	p := r.GetPipelineContract()
	if p == nil || uintptr(p)%8 != 0 {
		t.Fatalf("pipeline contract at %p", p)
	}
	got, err := abi.DecodePipelineContract(unsafeBytes(p, abi.PipelineContractSize))
	if err != nil {
		t.Fatal(err)
	}
	if got != abi.SimulatedProgramContract() || validation.Contract(got) != okS {
		t.Fatalf("contract = %+v, want the simulated program contract (admissible, V-CONTRACT)", got)
	}
	// The comm family (E-COMM): a NULL handle, or one comm_init never
	// returned (treated like NULL, semantics §14), is the comm backend's -1.
	var u64 uint64
	var uptr uintptr
	tests := []struct {
		name string
		got  abi.Status
	}{
		{"comm_alloc_windows(NULL)", r.CommAllocWindows(0, 64, &u64)},
		{"comm_alloc_windows(h, NULL)", r.CommAllocWindows(1, 64, nil)},
		{"comm_alloc_windows(h)", r.CommAllocWindows(1, 64, &u64)},
		{"comm_get_local_window_base(NULL)", r.CommGetLocalWindowBase(0, &u64)},
		{"comm_get_local_window_base(h)", r.CommGetLocalWindowBase(1, &u64)},
		{"comm_get_window_size(NULL)", r.CommGetWindowSize(0, &uptr)},
		{"comm_get_window_size(h)", r.CommGetWindowSize(1, &uptr)},
		{"comm_barrier(NULL)", r.CommBarrier(0)},
		{"comm_barrier(h)", r.CommBarrier(1)},
		{"comm_destroy(NULL)", r.CommDestroy(0)},
		{"comm_destroy(h)", r.CommDestroy(1)},
	}
	for _, tc := range tests {
		if tc.got != -1 {
			t.Errorf("%s = %v, want -1 (E-COMM)", tc.name, tc.got)
		}
	}
	if n := r.CommInvalidHandleCalls(); n != 6 {
		t.Errorf("CommInvalidHandleCalls = %d, want 6 (the calls with handle 1)", n)
	}
	if h := r.CommInit(0, 1, streamA, nil); h != 0 {
		t.Errorf("comm_init(NULL path) = %#x, want 0 (E-COMM.1)", h)
	}
}

// TestHostLogBindState: NULL, abi_version ≠ 1, struct_size < 16 or a
// threshold that is not one of docs/contract.md's six levels → -1, as upstream's
// binder (docs/contract.md "SimplerHostLogState").
func TestHostLogBindState(t *testing.T) {
	r := newTMR(t)
	enc := func(s abi.HostLogState) []byte {
		b := make([]byte, abi.HostLogStateSize)
		_ = s.Encode(b)
		return b
	}
	good := abi.DefaultHostLogState()
	with := func(f func(*abi.HostLogState)) []byte {
		s := good
		f(&s)
		return enc(s)
	}
	cases := []struct {
		name string
		b    []byte
		want abi.Status
	}{
		{"default (threshold 25)", enc(good), okS},
		{"version 2", with(func(s *abi.HostLogState) { s.ABIVersion = 2 }), abi.HostBindRefused},
		{"size 15", with(func(s *abi.HostLogState) { s.StructSize = 15 }), abi.HostBindRefused},
		{"size 32", with(func(s *abi.HostLogState) { s.StructSize = 32 }), okS},
		{"NULL", nil, abi.HostBindRefused},
	}
	for _, l := range abi.LogLevels() {
		cases = append(cases, struct {
			name string
			b    []byte
			want abi.Status
		}{"threshold " + l.String(), with(func(s *abi.HostLogState) { s.Threshold = int32(l) }), okS})
	}
	for _, th := range []int32{0, -1, 15, 26, 50, 61, 100} {
		cases = append(cases, struct {
			name string
			b    []byte
			want abi.Status
		}{"threshold " + strconv.Itoa(int(th)), with(func(s *abi.HostLogState) { s.Threshold = th }), abi.HostBindRefused})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { want(t, "host_log_bind_state", r.HostLogBindState(abi.Ptr(tc.b)), tc.want) })
	}
}

// queryEntries return sizes, counts, addresses or nothing, not statuses.
var queryEntries = map[string]bool{
	"destroy_device_context": true, "device_malloc_ctx": true, "device_free_ctx": true,
	"committed_device_memory_ctx": true, "get_aicpu_dlopen_count": true, "get_host_dlopen_count": true,
	"get_run_stream_set_create_count": true, "simpler_kernel_mode_supported": true,
	"supports_concurrent_native_prepare_ctx": true, "get_arena_bank_gm_heap_base_ctx": true,
	"get_retained_temp_addr_ctx": true, "create_comm_stream_ctx": true,
}

// TestStatusCodesAreDocumented is S-1 and S-2: on contexts in every
// lifecycle state, each status-returning entry answers 0 (1 for a completed
// poll) or one of the host codes of docs/contract.md, never a value in the device band
// or an undocumented one, when no fault is injected.
func TestStatusCodesAreDocumented(t *testing.T) {
	setups := map[string]func(t *testing.T, r *Runtime) abi.Ctx{
		"fresh":   func(t *testing.T, r *Runtime) abi.Ctx { return r.CreateDeviceContext() },
		"program": func(t *testing.T, r *Runtime) abi.Ctx { return programCtx(t, r, 0) },
		"kernel":  func(t *testing.T, r *Runtime) abi.Ctx { return readyCtx(t, r) },
		"closed": func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := readyCtx(t, r)
			want(t, "finalize", r.FinalizeDevice(ctx), okS)
			return ctx
		},
	}
	for _, p := range []Profile{TMR, Refusing} {
		for name, setup := range setups {
			if p == Refusing && (name == "kernel" || name == "closed") {
				continue
			}
			for _, e := range everyCtxEntry(t) {
				if queryEntries[e.name] {
					continue
				}
				t.Run(string(p)+"/"+name+"/"+e.name, func(t *testing.T) {
					r := New(p, Options{})
					setDevice(t, r, 0)
					ctx := setup(t, r)
					st := abi.Status(e.call(r, ctx))
					if st != okS && st != abi.PollComplete && !st.IsDefinedHost() {
						t.Fatalf("%s = %v: not a documented code", e.name, st)
					}
				})
			}
		}
	}
}
