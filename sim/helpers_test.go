package sim

import (
	"math"
	"runtime"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
	"github.com/simabi/simabi/validation"
)

// Codes, short.
const (
	okS    = abi.OK
	intS   = abi.Internal
	unsup  = abi.Unsupported
	piS    = abi.PreparedIncompatible
	isS    = abi.InvalidState
	iaS    = abi.InvalidArgument
	countS = abi.CallableCountExceeded
	bytesS = abi.CallableBytesExceeded
	nrS    = abi.CallableNotResident
)

const (
	// Caller streams are opaque nonzero values (D-3).
	streamA abi.Stream = 0xA000
	streamB abi.Stream = 0xB000
)

// lockThread pins the test goroutine to its OS thread for the rest of the
// test (the current device is per OS thread, D-2).
func lockThread(t testing.TB) {
	t.Helper()
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
}

// newTMR returns a tmr instance with the given faults armed.
func newTMR(t testing.TB, faults ...Fault) *Runtime {
	t.Helper()
	return New(TMR, Options{Faults: faults})
}

// setDevice locks the calling goroutine to its OS thread for the rest of
// the test (t.Run subtests run on goroutines of their own, so each locks its
// own) and makes dev current on that thread through ACL.
func setDevice(t testing.TB, r *Runtime, dev int32) {
	t.Helper()
	lockThread(t)
	if st := r.ACL().SetDevice(dev); st != 0 {
		t.Fatalf("ACL.SetDevice(%d) = %d", dev, st)
	}
	if got := r.SimCurrentDevice(); got != dev {
		t.Fatalf("current device after SetDevice(%d) = %d (is the goroutine locked?)", dev, got)
	}
}

func want(t testing.TB, what string, got, wantSt abi.Status) {
	t.Helper()
	if got != wantSt {
		t.Fatalf("%s = %v, want %v", what, got, wantSt)
	}
}

// configBytes is a valid kernel CallConfig (all zero: auto threads, no
// diagnostics, empty prefix, no ring sizing).
func configBytes() []byte {
	var c abi.CallConfig
	return c.Bytes()
}

// kinit calls kernel init with empty binary spans.
func kinit(r *Runtime, ctx abi.Ctx, dev int32, cfg []byte, gen uint64) abi.Status {
	return r.KernelModeInit(ctx, dev, nil, 0, nil, 0, nil, 0, abi.Ptr(cfg), gen)
}

// kernelCtx returns a context after a successful kernel init on dev, which
// the caller has made current.
func kernelCtx(t testing.TB, r *Runtime, dev int32) abi.Ctx {
	t.Helper()
	ctx := r.CreateDeviceContext()
	if ctx == 0 {
		t.Fatal("create_device_context returned NULL")
	}
	want(t, "kernel init", kinit(r, ctx, dev, configBytes(), 1), okS)
	return ctx
}

// spec returns a callable spec with a name and signature and a binary of n
// bytes.
func spec(name string, n int, sig ...abi.ArgDirection) abi.ChipCallableSpec {
	return abi.ChipCallableSpec{FuncName: name, Signature: sig, Binary: make([]byte, n)}
}

func build(t testing.TB, s abi.ChipCallableSpec) []byte {
	t.Helper()
	img, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// addImage is the add-scalar callable: [IN, OUT, SCALAR].
func addImage(t testing.TB) []byte {
	return build(t, spec(KernelAddScalarF32, 64, abi.DirIn, abi.DirOut, abi.DirScalar))
}

// noopImage has an empty signature and a name with no simulated kernel.
func noopImage(t testing.TB, binary int) []byte {
	return build(t, spec("test.noop", binary))
}

// prepare calls prepare over the whole of img.
func prepare(r *Runtime, ctx abi.Ctx, img []byte) (int32, abi.Status) {
	id := int32(12345)
	st := r.KernelModePrepareCallable(ctx, abi.Ptr(img), uintptr(len(img)), &id)
	return id, st
}

// mustPrepare prepares img and checks the minted id.
func mustPrepare(t testing.TB, r *Runtime, ctx abi.Ctx, img []byte, wantID int32) {
	t.Helper()
	id, st := prepare(r, ctx, img)
	if st != okS || id != wantID {
		_, live := r.Inspect(ctx)
		t.Fatalf("prepare = (%d, %v), want (%d, OK) [image %d bytes at %p: %v; context live %v; device %d]",
			id, st, wantID, len(img), abi.Ptr(img), validation.CheckImageAt(uintptr(abi.Ptr(img)), img), live, r.SimCurrentDevice())
	}
}

// emptyArgs are task args with no tensors and no scalars.
func emptyArgs() *abi.TaskArgs { return abi.NewTaskArgs() }

// addArgs builds [in, out, s] args over n float32 elements.
func addArgs(t testing.TB, in, out abi.DevicePtr, n uint32, s float32) *abi.TaskArgs {
	t.Helper()
	a := abi.NewTaskArgs()
	for _, p := range []abi.DevicePtr{in, out} {
		tn, err := abi.ContiguousTensor(uint64(p), abi.Float32, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.AddTensor(tn); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.AddScalarFloat32(s); err != nil {
		t.Fatal(err)
	}
	return a
}

func launch(r *Runtime, ctx abi.Ctx, id int32, a *abi.TaskArgs, s abi.Stream) abi.Status {
	return r.KernelModeLaunch(ctx, id, a.Pointer(), s)
}

// state inspects ctx or fails.
func state(t testing.TB, r *Runtime, ctx abi.Ctx) ContextState {
	t.Helper()
	s, ok := r.Inspect(ctx)
	if !ok {
		t.Fatalf("Inspect(%#x): no such context", ctx)
	}
	return s
}

// wantState compares the listed fields of ctx's state with w, using the
// field names of ContextState; fields not listed are ignored.
func wantState(t testing.TB, r *Runtime, ctx abi.Ctx, w ContextState, fields ...string) {
	t.Helper()
	got := state(t, r, ctx)
	if diff := cmp.Diff(pick(w, fields), pick(got, fields)); diff != "" {
		t.Fatalf("context state (-want +got):\n%s", diff)
	}
}

// pick keeps the named fields of s in a map for cmp.
func pick(s ContextState, fields []string) map[string]any {
	all := map[string]any{
		"Mode": s.Mode, "Phase": s.Phase, "InitFailed": s.InitFailed, "Quarantined": s.Quarantined,
		"Finalized": s.Finalized, "DeviceID": s.DeviceID, "Generation": s.Generation, "ClaimHeld": s.ClaimHeld,
		"LiveStreams": s.LiveStreams, "LiveEvents": s.LiveEvents, "DeviceResourcesHeld": s.DeviceResourcesHeld,
		"Residents": s.Residents, "AllocatedBlockBytes": s.AllocatedBlockBytes, "Blocks": s.Blocks,
		"RegionCommitted": s.RegionCommitted, "Committed": s.Committed, "PoisonCause": s.PoisonCause,
		"TeardownError": s.TeardownError, "ConfigKept": s.ConfigKept, "LastStream": s.LastStream,
		"Attached": s.Attached, "ProgramCallables": s.ProgramCallables, "ProgramAllocations": s.ProgramAllocations,
		"ProgramRuns": s.ProgramRuns, "OutstandingRun": s.OutstandingRun, "AicpuDlopens": s.AicpuDlopens,
	}
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		v, ok := all[f]
		if !ok {
			panic("unknown ContextState field " + f)
		}
		out[f] = v
	}
	return out
}

// freshKernelState is what a successfully initialized kernel context looks
// like before any prepare.
func freshKernelState(dev int32) ContextState {
	return ContextState{Mode: latch.Kernel, Phase: latch.Collecting, DeviceID: dev, ClaimHeld: true,
		LiveStreams: kernelStreams, LiveEvents: kernelEvents, Generation: 1, ConfigKept: true}
}

var kernelFields = []string{"Mode", "Phase", "InitFailed", "Quarantined", "Finalized", "DeviceID", "ClaimHeld",
	"LiveStreams", "LiveEvents", "DeviceResourcesHeld", "Residents", "AllocatedBlockBytes", "Committed",
	"PoisonCause", "TeardownError"}

// f32 encodes float32 values as little-endian bytes.
func f32(vals []float32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		le.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// fromF32 decodes little-endian float32 values.
func fromF32(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(le.Uint32(b[4*i:]))
	}
	return out
}

// devAlloc allocates device memory through ACL and fills it with data.
func devAlloc(t testing.TB, r *Runtime, data []byte) abi.DevicePtr {
	t.Helper()
	p, st := r.ACL().Malloc(uintptr(len(data)))
	if st != 0 {
		t.Fatalf("ACL.Malloc(%d) = %d", len(data), st)
	}
	if st := r.ACL().CopyToDevice(p, data); st != 0 {
		t.Fatalf("ACL.CopyToDevice = %d", st)
	}
	return p
}

func devRead(t testing.TB, r *Runtime, p abi.DevicePtr, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if st := r.ACL().CopyFromDevice(b, p); st != 0 {
		t.Fatalf("ACL.CopyFromDevice = %d", st)
	}
	return b
}

// ptrOf is an unsafe.Pointer to v.
func ptrOf[T any](v *T) unsafe.Pointer { return unsafe.Pointer(v) }

// unsafeBytes views n bytes at p.
func unsafeBytes(p unsafe.Pointer, n int) []byte { return unsafe.Slice((*byte)(p), n) }

func cmpDiff(a, b any) string { return cmp.Diff(a, b) }

// Variables, not constants, so the tests compile on 32-bit targets too (the
// simulator itself models an LP64 host, docs/contract.md).
var (
	deviceBaseVar = deviceBase
	firstDevAddr  = abi.DevicePtr(deviceBaseVar) // the first allocation of an instance
	hbmBytes      = uint64(DeviceMemoryTotal)
)
