package sim

import (
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
)

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

// sizedImage is a canonical no-op image of exactly n bytes (n >= 9376).
func sizedImage(t testing.TB, n int) []byte {
	t.Helper()
	return build(t, spec("test.sized", n-abi.ChipCallableSize))
}

// TestPrepareStructuralValidation is V-PREP-1 and V-PREP-2: -1 is written
// through a non-NULL out before any check; NULL ctx, image or out, a size one
// byte short of sizeof(ChipCallable) and an image one byte off 16-byte
// alignment → IA, in both profiles and every lifecycle state
// (PrepareCallableChecksOutputPointerAndImageSize).
func TestPrepareStructuralValidation(t *testing.T) {
	img := noopImage(t, 64)
	raw := make([]byte, len(img)+32)
	off := abi.AlignmentOffset(raw, 16) + 1 // one byte past 16-byte alignment
	misaligned := raw[off : off+len(img)]
	copy(misaligned, img)
	tests := []struct {
		name string
		run  func(r *Runtime, ctx abi.Ctx, out *int32) abi.Status
	}{
		{"NULL ctx", func(r *Runtime, _ abi.Ctx, out *int32) abi.Status {
			return r.KernelModePrepareCallable(0, abi.Ptr(img), uintptr(len(img)), out)
		}},
		{"NULL image", func(r *Runtime, ctx abi.Ctx, out *int32) abi.Status {
			return r.KernelModePrepareCallable(ctx, nil, uintptr(len(img)), out)
		}},
		{"size one short", func(r *Runtime, ctx abi.Ctx, out *int32) abi.Status {
			return r.KernelModePrepareCallable(ctx, abi.Ptr(img), abi.ChipCallableSize-1, out)
		}},
		{"misaligned", func(r *Runtime, ctx abi.Ctx, out *int32) abi.Status {
			return r.KernelModePrepareCallable(ctx, abi.Ptr(misaligned), uintptr(len(img)), out)
		}},
	}
	states := []struct {
		name  string
		setup func(t *testing.T, r *Runtime) abi.Ctx
	}{
		{"fresh", func(t *testing.T, r *Runtime) abi.Ctx { return r.CreateDeviceContext() }},
		{"kernel", func(t *testing.T, r *Runtime) abi.Ctx {
			if r.Profile() != TMR {
				return r.CreateDeviceContext()
			}
			return kernelCtx(t, r, 0)
		}},
		{"closed", func(t *testing.T, r *Runtime) abi.Ctx {
			if r.Profile() != TMR {
				return r.CreateDeviceContext()
			}
			ctx := kernelCtx(t, r, 0)
			want(t, "finalize", r.FinalizeDevice(ctx), okS)
			return ctx
		}},
	}
	for _, p := range []Profile{TMR, Refusing} {
		for _, s := range states {
			for _, tc := range tests {
				t.Run(string(p)+"/"+s.name+"/"+tc.name, func(t *testing.T) {
					r := New(p, Options{})
					setDevice(t, r, 0)
					ctx := s.setup(t, r)
					before := state(t, r, ctx)
					out := int32(77)
					want(t, "prepare", tc.run(r, ctx, &out), iaS)
					if out != -1 {
						t.Fatalf("V-PREP-1: out = %d, want -1", out)
					}
					if d := diffStates(before, state(t, r, ctx)); d != "" {
						t.Fatalf("a structural refusal changed the context:\n%s", d)
					}
				})
			}
			t.Run(string(p)+"/"+s.name+"/NULL out", func(t *testing.T) {
				r := New(p, Options{})
				setDevice(t, r, 0)
				ctx := s.setup(t, r)
				want(t, "prepare", r.KernelModePrepareCallable(ctx, abi.Ptr(img), uintptr(len(img)), nil), iaS)
			})
		}
	}
}

// TestPrepareRefusingBuild: a refusing build runs V-PREP-1 and V-PREP-2, then
// returns IS with -1 written (EntriesRefuseOnBorrowedStreamPerContract).
func TestPrepareRefusingBuild(t *testing.T) {
	r := New(Refusing, Options{})
	setDevice(t, r, 0)
	ctx := r.CreateDeviceContext()
	want(t, "init", kinit(r, ctx, 0, configBytes(), 1), unsup)
	id, st := prepare(r, ctx, noopImage(t, 0))
	want(t, "prepare", st, isS)
	if id != -1 {
		t.Fatalf("out = %d, want -1", id)
	}
	want(t, "launch", launch(r, ctx, 0, emptyArgs(), streamA), isS)
	want(t, "launch id 8192", launch(r, ctx, 8192, emptyArgs(), streamA), iaS)
	want(t, "simpler_init after UNSUPPORTED", r.SimplerInit(ctx, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0), okS)
}

// TestPrepareStateRefusals is E-PREP's state step: not a kernel context, or
// not accepting dispatch (K-1) → IS with -1 written and nothing changed.
func TestPrepareStateRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, r *Runtime) abi.Ctx
	}{
		{"fresh", func(t *testing.T, r *Runtime) abi.Ctx { return r.CreateDeviceContext() }},
		{"program", func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := r.CreateDeviceContext()
			want(t, "simpler_init", r.SimplerInit(ctx, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0), okS)
			return ctx
		}},
		{"kernel Closed", func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := kernelCtx(t, r, 0)
			want(t, "finalize", r.FinalizeDevice(ctx), okS)
			return ctx
		}},
		{"kernel Poisoned", func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := kernelCtx(t, r, 0)
			want(t, "inject", r.SimInject(abi.SitePrepareRegister, 1, -1040), okS)
			_, st := prepare(r, ctx, noopImage(t, 0))
			want(t, "prepare", st, -1040)
			return ctx
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTMR(t)
			setDevice(t, r, 0)
			ctx := tc.setup(t, r)
			before := state(t, r, ctx)
			id, st := prepare(r, ctx, noopImage(t, 0))
			if st != isS || id != -1 {
				t.Fatalf("prepare = (%d, %v), want (-1, INVALID_STATE)", id, st)
			}
			if d := diffStates(before, state(t, r, ctx)); d != "" {
				t.Fatalf("changed:\n%s", d)
			}
		})
	}
}

// TestPreparePrecedence sets up two simultaneous defects and checks which one
// E-PREP reports: state → gate → site 7 → D-2 → size > 2 GiB → V-IMG → COUNT
// → budget → allocate/copy (site 2) → registration (site 3).
func TestPreparePrecedence(t *testing.T) {
	good := noopImage(t, 64)
	bad := append([]byte(nil), good...)
	bad = bad[:len(bad)-1] // V-IMG: truncated tail
	badImg := abi.AlignedBytes(len(bad), 16)
	copy(badImg, bad)
	tests := []struct {
		name   string
		faults []Fault
		setup  func(t *testing.T, r *Runtime) abi.Ctx
		img    []byte
		size   uintptr // 0: len(img)
		want   abi.Status
		check  func(t *testing.T, r *Runtime, ctx abi.Ctx)
	}{
		{name: "not kernel beats V-IMG", setup: func(t *testing.T, r *Runtime) abi.Ctx { return r.CreateDeviceContext() },
			img: badImg, want: isS},
		{name: "D-2 beats V-IMG", setup: func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := kernelCtx(t, r, 0)
			setDevice(t, r, 1)
			return ctx
		}, img: badImg, want: isS},
		{name: "D-2 beats size over budget", setup: func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := kernelCtx(t, r, 0)
			setDevice(t, r, 1)
			return ctx
		}, img: good, size: 3 * gib, want: isS},
		{name: "size over budget beats V-IMG", setup: func(t *testing.T, r *Runtime) abi.Ctx { return kernelCtx(t, r, 0) },
			img: good, size: 2*gib + 1, want: bytesS},
		{name: "site 7 passes before D-2", faults: []Fault{{abi.SitePrepareHoldGate, 1, 0}},
			setup: func(t *testing.T, r *Runtime) abi.Ctx {
				ctx := kernelCtx(t, r, 0)
				setDevice(t, r, 1)
				return ctx
			}, img: good, want: isS,
			check: func(t *testing.T, r *Runtime, ctx abi.Ctx) {
				if n := r.FaultsRemaining()[abi.SitePrepareHoldGate]; n != 0 {
					t.Fatalf("site 7 has %d passes left; the prepare did not reach it", n)
				}
			}},
		{name: "V-IMG beats budget and site 2", faults: []Fault{{abi.SitePrepareCopy, 1, -1041}},
			setup: func(t *testing.T, r *Runtime) abi.Ctx { return kernelCtx(t, r, 0) },
			img:   badImg, want: iaS,
			check: func(t *testing.T, r *Runtime, ctx abi.Ctx) {
				if n := r.FaultsRemaining()[abi.SitePrepareCopy]; n != 1 {
					t.Fatal("site 2 was reached")
				}
			}},
		{name: "site 2 beats site 3 (clean)", faults: []Fault{{abi.SitePrepareCopy, 1, -1042}, {abi.SitePrepareRegister, 1, -1043}},
			setup: func(t *testing.T, r *Runtime) abi.Ctx { return kernelCtx(t, r, 0) },
			img:   good, want: -1042,
			check: func(t *testing.T, r *Runtime, ctx abi.Ctx) {
				wantState(t, r, ctx, freshKernelState(0), kernelFields...)
				if n := r.FaultsRemaining()[abi.SitePrepareRegister]; n != 1 {
					t.Fatal("site 3 was reached")
				}
			}},
		{name: "poisoned beats D-2", setup: func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := kernelCtx(t, r, 0)
			want(t, "inject", r.SimInject(abi.SitePrepareRegister, 1, -1044), okS)
			_, st := prepare(r, ctx, good)
			want(t, "poisoning prepare", st, -1044)
			setDevice(t, r, 1)
			return ctx
		}, img: good, want: isS},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTMR(t, tc.faults...)
			setDevice(t, r, 0)
			ctx := tc.setup(t, r)
			before := state(t, r, ctx)
			size := tc.size
			if size == 0 {
				size = uintptr(len(tc.img))
			}
			id := int32(5)
			want(t, "prepare", r.KernelModePrepareCallable(ctx, abi.Ptr(tc.img), size, &id), tc.want)
			if id != -1 {
				t.Fatalf("V-PREP-1: out = %d", id)
			}
			if tc.want == isS || tc.want == iaS || tc.want == bytesS {
				if d := diffStates(before, state(t, r, ctx)); d != "" {
					t.Fatalf("a clean refusal changed the context:\n%s", d)
				}
			}
			if tc.check != nil {
				tc.check(t, r, ctx)
			}
		})
	}
}

// TestPrepareImageValidation is V-IMG at its place in E-PREP: a well-formed
// image passes, and each defect → IA with nothing charged, copied or
// published (CallableImageRejectsTruncatedVariableTail,
// CallableImageRejectsOutOfRangeChildMetadata,
// CallableImageRejectsInvalidAndDuplicateChildFunctionIds,
// RejectsMalformedSpansBeforeHashOrDeviceOperations).
func TestPrepareImageValidation(t *testing.T) {
	withKids := func(ids ...int32) abi.ChipCallableSpec {
		s := spec("test.kids", 40, abi.DirIn)
		for _, id := range ids {
			s.Children = append(s.Children, abi.ChildKernel{FuncID: id, Binary: make([]byte, 24)})
		}
		return s
	}
	mut := func(s abi.ChipCallableSpec, f func(b []byte) []byte) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			b := f(build(t, s))
			out := abi.AlignedBytes(len(b), 16)
			copy(out, b)
			return out
		}
	}
	tests := []struct {
		name string
		img  func(t *testing.T) []byte
		want abi.Status
	}{
		{"well formed with children", mut(withKids(0, 1023), func(b []byte) []byte { return b }), okS},
		{"one byte short", mut(withKids(0), func(b []byte) []byte { return b[:len(b)-1] }), iaS},
		{"trailing byte", mut(withKids(0), func(b []byte) []byte { return append(b, 0) }), iaS},
		{"child offset at the end", mut(withKids(0), func(b []byte) []byte {
			le.PutUint32(b[abi.ChipChildOffsetsOff:], uint32(len(b)-abi.ChipStorageOff))
			return b
		}), iaS},
		{"child func id 1024", mut(withKids(0), func(b []byte) []byte {
			le.PutUint32(b[abi.ChipChildFuncIDsOff:], 1024)
			return b
		}), iaS},
		{"child func id -1", mut(withKids(0), func(b []byte) []byte {
			le.PutUint32(b[abi.ChipChildFuncIDsOff:], 0xFFFFFFFF)
			return b
		}), iaS},
		{"duplicate child func id", mut(withKids(3, 4), func(b []byte) []byte {
			le.PutUint32(b[abi.ChipChildFuncIDsOff+4:], 3)
			return b
		}), iaS},
		{"child count 1025", mut(withKids(0), func(b []byte) []byte {
			le.PutUint32(b[abi.ChipChildCountOff:], 1025)
			return b
		}), iaS},
		{"binary size past storage", mut(withKids(), func(b []byte) []byte {
			le.PutUint32(b[abi.ChipBinarySizeOff:], uint32(len(b)))
			return b
		}), iaS},
		{"func name of 64 bytes", mut(withKids(), func(b []byte) []byte {
			le.PutUint32(b[abi.ChipFuncNameLenOff:], 64)
			return b
		}), iaS},
		{"signature value 4", mut(withKids(), func(b []byte) []byte {
			le.PutUint32(b[abi.ChipSignatureOff:], 4)
			return b
		}), iaS},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTMR(t, Fault{abi.SitePrepareCopy, 0, 0})
			setDevice(t, r, 0)
			ctx := kernelCtx(t, r, 0)
			id, st := prepare(r, ctx, tc.img(t))
			want(t, "prepare", st, tc.want)
			if tc.want != okS {
				if id != -1 {
					t.Fatalf("out = %d", id)
				}
				wantState(t, r, ctx, freshKernelState(0), kernelFields...)
				if r.Images().Distinct != 0 {
					t.Fatal("a refused image was copied")
				}
			}
		})
	}
}

// TestPrepareMintsIDs is M-1, M-2 and M-3: the k-th successful prepare
// returns k-1; identical bytes get new ids, new uploads and new charges
// (EveryRegistrationUploadsANewImageAndReturnsANewId); a failure consumes no
// id (AllocationAndCopyFailuresAreRetryable); ids are valid only on their
// context.
func TestPrepareMintsIDs(t *testing.T) {
	r := newTMR(t)
	setDevice(t, r, 0)
	ctx := kernelCtx(t, r, 0)
	img := noopImage(t, 100) // size 9476 → charge 9536
	charge := abi.KernelCharge(uint64(len(img)))
	mustPrepare(t, r, ctx, img, 0)
	mustPrepare(t, r, ctx, img, 1)
	b0, o0, _ := r.ResidentPlacement(ctx, 0)
	b1, o1, _ := r.ResidentPlacement(ctx, 1)
	if b0 != 0 || b1 != 0 || o0 != 0 || o1 != charge {
		t.Fatalf("M-2: placements (%d,%d) (%d,%d), want (0,0) (0,%d)", b0, o0, b1, o1, charge)
	}
	// M-3: allocation/copy failure (site 2) and a V-IMG refusal consume no id.
	want(t, "inject", r.SimInject(abi.SitePrepareCopy, 2, int32(abi.Internal)), okS)
	for i := 0; i < 2; i++ {
		_, st := prepare(r, ctx, img)
		want(t, "prepare with allocation failure", st, intS)
	}
	_, st := prepare(r, ctx, img[:len(img)-64])
	want(t, "prepare of a truncated image", st, iaS)
	mustPrepare(t, r, ctx, img, 2)
	wantState(t, r, ctx, ContextState{Residents: 3, Blocks: []Block{{Size: 2 * mib, Used: 3 * charge}}}, "Residents", "Blocks")
	if s := r.Images(); s.Distinct != 1 {
		t.Fatalf("identical content interned %d times, want once", s.Distinct)
	}
	// Ids belong to their context: another context's id 2 is not resident here.
	setDevice(t, r, 1)
	other := kernelCtx(t, r, 1)
	mustPrepare(t, r, other, img, 0)
	want(t, "launch of a foreign id", launch(r, other, 2, emptyArgs(), streamA), nrS)
	want(t, "launch of own id", launch(r, other, 0, emptyArgs(), streamA), okS)
}

// TestPrepareKeepsImage is M-6: changing the caller's image after prepare
// changes nothing; the runtime's copy is byte-identical to what was prepared
// (HostBackingIsImmutableAndResolveDoesNotAllocateOrUpload).
func TestPrepareKeepsImage(t *testing.T) {
	r := newTMR(t)
	setDevice(t, r, 0)
	ctx := kernelCtx(t, r, 0)
	img := addImage(t)
	orig := append([]byte(nil), img...)
	mustPrepare(t, r, ctx, img, 0)
	// Rename it and change its signature in the caller's buffer.
	copy(img[abi.ChipFuncNameOff:], "zzzzzz")
	le.PutUint32(img[abi.ChipSigCountOff:], 0)
	kept, ok := r.ResidentImage(ctx, 0)
	if !ok || string(kept) != string(orig) {
		t.Fatal("the runtime's copy changed with the caller's buffer")
	}
	// The launch still checks the signature prepared: [IN, OUT, SCALAR].
	want(t, "launch with 0 counts", launch(r, ctx, 0, emptyArgs(), streamA), iaS)
	in := devAlloc(t, r, f32([]float32{1, 2}))
	out := devAlloc(t, r, make([]byte, 8))
	want(t, "launch", launch(r, ctx, 0, addArgs(t, in, out, 2, 0.5), streamA), okS)
	want(t, "sync", r.SimSyncStream(streamA), okS)
	if got := fromF32(devRead(t, r, out, 8)); got[0] != 1.5 || got[1] != 2.5 {
		t.Fatalf("kernel chosen at prepare did not run: %v", got)
	}
}

// TestResidentCount is M-4: 8192 residents succeed with ids 0..8191; any
// prepare that passes V-IMG then returns COUNT, identical content or not;
// V-IMG still wins over COUNT; and every earlier id still launches
// (Supports8192ResidentsWithoutMovingPublishedAddresses).
func TestResidentCount(t *testing.T) {
	r := newTMR(t)
	setDevice(t, r, 0)
	ctx := kernelCtx(t, r, 0)
	img := noopImage(t, 0)
	for i := int32(0); i < abi.MaxRegisteredCallableIDs; i++ {
		mustPrepare(t, r, ctx, img, i)
	}
	b100, o100, _ := r.ResidentPlacement(ctx, 100)
	before := state(t, r, ctx)
	want(t, "inject site 2", r.SimInject(abi.SitePrepareCopy, 1, -1050), okS)
	for _, tc := range []struct {
		name string
		img  []byte
		want abi.Status
	}{
		{"identical", img, countS},
		{"different", noopImage(t, 64), countS},
		{"malformed", img[:len(img)-1], iaS},
	} {
		id, st := prepare(r, ctx, tc.img)
		if st != tc.want || id != -1 {
			t.Fatalf("%s: prepare at 8192 = (%d, %v), want (-1, %v)", tc.name, id, st, tc.want)
		}
	}
	if d := diffStates(before, state(t, r, ctx)); d != "" {
		t.Fatalf("COUNT changed the context:\n%s", d)
	}
	if n := r.FaultsRemaining()[abi.SitePrepareCopy]; n != 1 {
		t.Fatal("site 2 reached past COUNT")
	}
	if b, o, _ := r.ResidentPlacement(ctx, 100); b != b100 || o != o100 {
		t.Fatal("a published placement moved")
	}
	args := emptyArgs()
	for id := int32(0); id < abi.MaxRegisteredCallableIDs; id++ {
		if st := launch(r, ctx, id, args, streamA); st != okS {
			t.Fatalf("launch of resident %d = %v", id, st)
		}
	}
	want(t, "sync", r.SimSyncStream(streamA), okS)
	if r.Images().Distinct != 1 {
		t.Fatal("8192 identical images were not interned once")
	}
}

// TestByteBudget is M-5 with the block cases of the upstream cache tests.
func TestByteBudget(t *testing.T) {
	t.Run("SmallImagesShareTwoMiBBlocks", func(t *testing.T) {
		r := newTMR(t)
		setDevice(t, r, 0)
		ctx := kernelCtx(t, r, 0)
		half := sizedImage(t, 1*mib)
		for i := int32(0); i < 3; i++ {
			mustPrepare(t, r, ctx, half, i)
		}
		wantState(t, r, ctx, ContextState{AllocatedBlockBytes: 4 * mib,
			Blocks: []Block{{2 * mib, 2 * mib}, {2 * mib, 1 * mib}}}, "AllocatedBlockBytes", "Blocks")
		for id, w := range [][2]uint64{{0, 0}, {0, mib}, {1, 0}} {
			b, o, _ := r.ResidentPlacement(ctx, int32(id))
			if uint64(b) != w[0] || o != w[1] {
				t.Fatalf("resident %d at (%d, %d), want %v", id, b, o, w)
			}
		}
	})
	t.Run("LargeImageUsesExactAlignedAllocationAndKeepsSmallBlockTail", func(t *testing.T) {
		r := newTMR(t)
		setDevice(t, r, 0)
		ctx := kernelCtx(t, r, 0)
		small := sizedImage(t, 10000) // charge 10048
		large := sizedImage(t, 2*mib+100)
		mustPrepare(t, r, ctx, small, 0)
		mustPrepare(t, r, ctx, large, 1)
		mustPrepare(t, r, ctx, small, 2)
		lc := abi.AlignUp(2*mib+100, 64)
		wantState(t, r, ctx, ContextState{AllocatedBlockBytes: 2*mib + lc,
			Blocks: []Block{{2 * mib, 2 * 10048}, {lc, lc}}}, "AllocatedBlockBytes", "Blocks")
		if b, o, _ := r.ResidentPlacement(ctx, 2); b != 0 || o != 10048 {
			t.Fatalf("the small image after the large one went to (%d, %d), want the first block's tail", b, o)
		}
	})
	t.Run("AlignmentPaddingConsumesBudgetAndIdenticalRegistrationStillCharges", func(t *testing.T) {
		r := newTMR(t)
		setDevice(t, r, 0)
		ctx := kernelCtx(t, r, 0)
		img := sizedImage(t, abi.ChipCallableSize+1) // 9377 bytes → 9408
		mustPrepare(t, r, ctx, img, 0)
		mustPrepare(t, r, ctx, img, 1)
		wantState(t, r, ctx, ContextState{Blocks: []Block{{2 * mib, 2 * 9408}}}, "Blocks")
	})
	t.Run("ExactByteBoundaryAndOneByteOver", func(t *testing.T) {
		r := newTMR(t)
		setDevice(t, r, 0)
		ctx := kernelCtx(t, r, 0)
		big := sizedImage(t, 64*mib)
		for i := int32(0); i < 32; i++ {
			mustPrepare(t, r, ctx, big, i)
		}
		wantState(t, r, ctx, ContextState{AllocatedBlockBytes: 2 * gib, Committed: 2*gib + PersistentLaunchRegionBytes, Residents: 32},
			"AllocatedBlockBytes", "Committed", "Residents")
		before := state(t, r, ctx)
		for _, img := range [][]byte{big, noopImage(t, 0)} {
			if id, st := prepare(r, ctx, img); st != bytesS || id != -1 {
				t.Fatalf("prepare past 2 GiB = (%d, %v), want BYTES", id, st)
			}
		}
		if d := diffStates(before, state(t, r, ctx)); d != "" {
			t.Fatalf("BYTES changed the context:\n%s", d)
		}
		if s := r.Images(); s.Distinct != 1 || s.HeldBytes > 64*kib {
			t.Fatalf("2 GiB of charges hold %+v; want one copy of a few pages", s)
		}
	})
	t.Run("BlockSlackCountsTowardCapacityAndExistingTailRemainsUsable", func(t *testing.T) {
		r := newTMR(t)
		setDevice(t, r, 0)
		ctx := kernelCtx(t, r, 0)
		small := sizedImage(t, 10000)
		mustPrepare(t, r, ctx, small, 0) // block 0: 2 MiB, used 10048
		big := sizedImage(t, 64*mib)
		for i := int32(1); i <= 31; i++ {
			mustPrepare(t, r, ctx, big, i)
		}
		// 2 MiB + 31 × 64 MiB allocated: 62 MiB left.
		_, st := prepare(r, ctx, big)
		want(t, "64 MiB over the budget", st, bytesS)
		mustPrepare(t, r, ctx, sizedImage(t, 62*mib), 32) // exactly fills the budget
		mustPrepare(t, r, ctx, small, 33)                 // fits block 0's tail
		wantState(t, r, ctx, ContextState{AllocatedBlockBytes: 2 * gib}, "AllocatedBlockBytes")
		_, st = prepare(r, ctx, sizedImage(t, 2*mib-2*10048+64)) // tail too short: needs a new block
		want(t, "a small image that needs a new block", st, bytesS)
		if b, o, _ := r.ResidentPlacement(ctx, 33); b != 0 || o != 10048 {
			t.Fatalf("tail placement (%d, %d)", b, o)
		}
	})
	t.Run("FailedGrowthPreservesBudgetAndResidents", func(t *testing.T) {
		r := newTMR(t)
		setDevice(t, r, 0)
		ctx := kernelCtx(t, r, 0)
		half := sizedImage(t, 1*mib+64)
		mustPrepare(t, r, ctx, half, 0)
		before := state(t, r, ctx)
		// Site 2 counts every prepare reaching it, whether or not it opens a
		// block: here it would open one. Nothing is charged or added.
		want(t, "inject", r.SimInject(abi.SitePrepareCopy, 1, -1051), okS)
		_, st := prepare(r, ctx, half)
		want(t, "prepare", st, -1051)
		if d := diffStates(before, state(t, r, ctx)); d != "" {
			t.Fatalf("a failed allocation changed the context:\n%s", d)
		}
		mustPrepare(t, r, ctx, half, 1)
		wantState(t, r, ctx, ContextState{Blocks: []Block{{2 * mib, 1*mib + 64}, {2 * mib, 1*mib + 64}}}, "Blocks")
	})
}

// TestCommittedMemory is M-7: 0 for NULL and a fresh context; after the first
// prepare it is the block bytes plus the persistent region; prepares that
// fail before registration leave it unchanged; launches never change it; a
// registration failure keeps the charged block (and the region); after a
// successful finalize it is 0.
func TestCommittedMemory(t *testing.T) {
	r := newTMR(t)
	setDevice(t, r, 0)
	if r.CommittedDeviceMemory(0) != 0 {
		t.Fatal("committed(NULL) != 0")
	}
	ctx := r.CreateDeviceContext()
	if r.CommittedDeviceMemory(ctx) != 0 {
		t.Fatal("committed(fresh) != 0")
	}
	want(t, "init", kinit(r, ctx, 0, configBytes(), 1), okS)
	img := noopImage(t, 0)
	wantC := func(what string, v uint64) {
		t.Helper()
		if got := uint64(r.CommittedDeviceMemory(ctx)); got != v {
			t.Fatalf("%s: committed = %d, want %d", what, got, v)
		}
	}
	wantC("after init", 0)
	// Failures before registration change nothing, even the first time.
	want(t, "inject", r.SimInject(abi.SitePrepareCopy, 1, -1052), okS)
	_, st := prepare(r, ctx, img)
	want(t, "prepare with copy failure", st, -1052)
	wantC("after a failed first prepare", 0)
	mustPrepare(t, r, ctx, img, 0)
	base := uint64(2*mib + PersistentLaunchRegionBytes)
	wantC("after the first prepare", base)
	mustPrepare(t, r, ctx, img, 1)
	wantC("after a prepare into the same block", base)
	for i := 0; i < 10; i++ {
		want(t, "launch", launch(r, ctx, 0, emptyArgs(), streamA), okS)
	}
	want(t, "sync", r.SimSyncStream(streamA), okS)
	wantC("after launches", base)
	// A registration failure keeps what it charged.
	want(t, "inject", r.SimInject(abi.SitePrepareRegister, 1, -1053), okS)
	_, st = prepare(r, ctx, sizedImage(t, 2*mib))
	want(t, "prepare with registration failure", st, -1053)
	wantC("after a registration failure", base+2*mib)
	wantState(t, r, ctx, ContextState{Phase: latch.Poisoned, PoisonCause: -1053, Residents: 2}, "Phase", "PoisonCause", "Residents")
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
	wantC("after finalize", 0)
}

// TestRegistrationFailurePoisons is K-4 through E-PREP: a failed device
// registration returns its code, poisons the context (first cause kept),
// publishes no id, and refuses later dispatch with IS while close still
// works; a first prepare that fails there still commits the region.
func TestRegistrationFailurePoisons(t *testing.T) {
	r := newTMR(t, Fault{abi.SitePrepareRegister, 1, -1060})
	setDevice(t, r, 0)
	ctx := kernelCtx(t, r, 0)
	img := noopImage(t, 0)
	id, st := prepare(r, ctx, img)
	if st != -1060 || id != -1 {
		t.Fatalf("prepare = (%d, %v)", id, st)
	}
	wantState(t, r, ctx, ContextState{Mode: latch.Kernel, Phase: latch.Poisoned, DeviceID: 0, ClaimHeld: true,
		LiveStreams: 2, LiveEvents: 5, DeviceResourcesHeld: true, AllocatedBlockBytes: 2 * mib,
		Committed: 2*mib + PersistentLaunchRegionBytes, PoisonCause: -1060}, kernelFields...)
	_, st = prepare(r, ctx, img)
	want(t, "prepare when poisoned", st, isS)
	want(t, "launch when poisoned", launch(r, ctx, 0, emptyArgs(), streamA), isS)
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
	wantState(t, r, ctx, ContextState{Mode: latch.Kernel, Phase: latch.Closed, Finalized: true, DeviceID: 0, PoisonCause: -1060}, kernelFields...)
	if r.Images().Distinct != 0 {
		t.Fatal("images still interned after finalize")
	}
}

// TestSimResetDropsInternedImages is F-1 for the image store: after
// SimReset, preparing the image the instance held before interns it anew,
// as on a new instance (one distinct image, held bytes those of one copy),
// and a finalize releases it to zero. The store's shortcut to the image it
// interned last must not survive the reset.
func TestSimResetDropsInternedImages(t *testing.T) {
	img := noopImage(t, 100)
	fresh := newTMR(t)
	setDevice(t, fresh, 0)
	mustPrepare(t, fresh, kernelCtx(t, fresh, 0), img, 0)
	want1 := fresh.Images()

	r := newTMR(t)
	setDevice(t, r, 0)
	mustPrepare(t, r, kernelCtx(t, r, 0), img, 0)
	want(t, "SimReset", r.SimReset(), okS)
	if s := r.Images(); s != (ImageStats{}) {
		t.Fatalf("after SimReset the store holds %+v, want nothing", s)
	}
	setDevice(t, r, 0)
	ctx := kernelCtx(t, r, 0)
	mustPrepare(t, r, ctx, img, 0)
	if s := r.Images(); s != want1 {
		t.Fatalf("after SimReset a prepare left %+v in the store, a new instance %+v", s, want1)
	}
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
	if s := r.Images(); s != (ImageStats{}) {
		t.Fatalf("after finalize the store holds %+v, want nothing", s)
	}
}

// TestSimResetMintsAFreshInstancesHandles (F-1): SimReset keeps the context
// table's storage but not its contents. After a reset the handles minted
// are a new instance's, one by one, and a handle of before the reset that
// was not minted again names no context (INTERNAL, as for any unknown
// handle). The table is filled past its first chunk of 1024 slots, with a
// destroyed slot on the free list, before the reset.
func TestSimResetMintsAFreshInstancesHandles(t *testing.T) {
	r := newTMR(t)
	var before []abi.Ctx
	for i := 0; i < 1100; i++ {
		before = append(before, r.CreateDeviceContext())
	}
	r.DestroyDeviceContext(before[3])
	want(t, "SimReset", r.SimReset(), okS)

	fresh := newTMR(t)
	const n = 5
	for i := 0; i < n; i++ {
		got, wantH := r.CreateDeviceContext(), fresh.CreateDeviceContext()
		if got != wantH {
			t.Fatalf("create #%d after SimReset = %#x, a new instance's = %#x", i, got, wantH)
		}
	}
	for _, h := range before[n:] {
		if h == before[3] {
			continue
		}
		want(t, "finalize of a handle from before SimReset", r.FinalizeDevice(h), abi.Internal)
	}
}
