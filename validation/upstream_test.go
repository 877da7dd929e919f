package validation_test

// The upstream acceptance tests of runtime-semantics.md §14.3
// (test_kernel_entry_validation.cpp, minted-ID era) and the validation half of
// §14.5 (test_kernel_mode_entry.cpp), one Go test per upstream case.

import (
	"math"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/validation"
)

// V-SPAN: (null, 0) and (ptr, n) are consistent; (null, n) and (ptr, 0) are not.
func TestUpstream_BinarySpanRequiresPointerAndSizeTogether(t *testing.T) {
	if !(validation.Span{}).Consistent() || !(validation.Span{Ptr: 0x1000, Size: 16}).Consistent() {
		t.Error("a consistent span was refused")
	}
	if (validation.Span{Size: 16}).Consistent() || (validation.Span{Ptr: 0x1000}).Consistent() {
		t.Error("an inconsistent span was accepted")
	}
}

// V-INIT: valid arguments with a null dispatcher pass.
func TestUpstream_InitAcceptsConsistentArgs(t *testing.T) {
	a := validInit()
	a.Dispatcher = validation.Span{}
	if got := validation.KernelInit(a); got != abi.OK {
		t.Errorf("V-INIT = %v", got)
	}
}

// V-INIT: NULL ctx, NULL config, device -1, generation 0 and each
// inconsistent span position are INVALID_ARGUMENT.
func TestUpstream_InitRejectsEachStructuralViolation(t *testing.T) {
	mods := map[string]func(*validation.KernelInitArgs){
		"NULL ctx":          func(a *validation.KernelInitArgs) { a.Ctx = 0 },
		"NULL config":       func(a *validation.KernelInitArgs) { a.Config = 0 },
		"device -1":         func(a *validation.KernelInitArgs) { a.DeviceID = -1 },
		"generation 0":      func(a *validation.KernelInitArgs) { a.Generation = 0 },
		"aicpu span":        func(a *validation.KernelInitArgs) { a.Aicpu.Ptr = 0 },
		"aicore span":       func(a *validation.KernelInitArgs) { a.Aicore.Size = 0 },
		"dispatcher span":   func(a *validation.KernelInitArgs) { a.Dispatcher = validation.Span{Ptr: 0x9000} },
		"dispatcher span 2": func(a *validation.KernelInitArgs) { a.Dispatcher = validation.Span{Size: 9} },
	}
	for name, mod := range mods {
		a := validInit()
		mod(&a)
		if got := validation.KernelInit(a); got != abi.InvalidArgument {
			t.Errorf("V-INIT %s = %v", name, got)
		}
	}
}

// V-PREP-2: NULL ctx, image or out; size one byte short; address one byte off.
func TestUpstream_PrepareCallableChecksOutputPointerAndImageSize(t *testing.T) {
	img := aligned(build(t, sampleSpec(0)))
	addr := uintptr(abi.Ptr(img))
	size := uint64(len(img))
	if validation.PrepareArgs(1, addr, size, true) != abi.OK {
		t.Fatal("valid prepare arguments refused")
	}
	for name, st := range map[string]abi.Status{
		"NULL ctx":             validation.PrepareArgs(0, addr, size, true),
		"NULL image":           validation.PrepareArgs(1, 0, size, true),
		"NULL out":             validation.PrepareArgs(1, addr, size, false),
		"size one byte short":  validation.PrepareArgs(1, addr, 9375, true),
		"address one byte off": validation.PrepareArgs(1, addr+1, size, true),
	} {
		if st != abi.InvalidArgument {
			t.Errorf("V-PREP-2 %s = %v", name, st)
		}
	}
}

// V-IMG step 6: a well-formed image validates; the same image one byte short
// is refused.
func TestUpstream_CallableImageRejectsTruncatedVariableTail(t *testing.T) {
	img := aligned(build(t, sampleSpec(2)))
	if validation.Image(img) != abi.OK {
		t.Fatal("well-formed image refused")
	}
	if got := validation.Image(aligned(img[:len(img)-1])); got != abi.InvalidArgument {
		t.Errorf("V-IMG one byte short = %v", got)
	}
}

// V-IMG step 5: a child offset at the end of the image is refused.
func TestUpstream_CallableImageRejectsOutOfRangeChildMetadata(t *testing.T) {
	// One child whose offset is the end of the image: align the binary to
	// 64 so the canonical offset equals the storage size.
	spec := sampleSpec(0)
	spec.Binary = make([]byte, 128)
	img := build(t, spec)
	put32(img, offChildCount, 1)
	put32(img, offChildOffs, int64(len(img)-headerSize))
	img = aligned(img)
	if got := validation.Image(img); got != abi.InvalidArgument {
		t.Errorf("V-IMG child at the end of the image = %v", got)
	}
	if r := validation.CheckImageAt(uintptr(abi.Ptr(img)), img); r.Defect != validation.DefectChildHeader {
		t.Errorf("defect %v, want child header", r)
	}
}

// V-LAUNCH: ids 0 and 8191 pass; 8192, -1 and MAX fail; NULL ctx, args or
// stream fail.
func TestUpstream_LaunchChecksPointersAndIdRange(t *testing.T) {
	for _, id := range []int32{0, 8191} {
		if got := validation.LaunchArgs(1, id, 0x40, 0x99); got != abi.OK {
			t.Errorf("V-LAUNCH id %d = %v", id, got)
		}
	}
	for _, id := range []int32{8192, -1, math.MaxInt32} {
		if got := validation.LaunchArgs(1, id, 0x40, 0x99); got != abi.InvalidArgument {
			t.Errorf("V-LAUNCH id %d = %v", id, got)
		}
	}
	if validation.LaunchArgs(0, 0, 0x40, 0x99) != abi.InvalidArgument ||
		validation.LaunchArgs(1, 0, 0, 0x99) != abi.InvalidArgument ||
		validation.LaunchArgs(1, 0, 0x40, 0) != abi.InvalidArgument {
		t.Error("V-LAUNCH NULL pointer accepted")
	}
}

// V-IMG step 5: func_id -1, 1024 or 8191 refused; a duplicate refused; 1023
// accepted.
func TestUpstream_CallableImageRejectsInvalidAndDuplicateChildFunctionIds(t *testing.T) {
	img := build(t, sampleSpec(2))
	for _, id := range []int64{-1, 1024, 8191} {
		b := append([]byte(nil), img...)
		put32(b, offChildIDs+4, id)
		if got := validation.Image(aligned(b)); got != abi.InvalidArgument {
			t.Errorf("V-IMG func id %d = %v", id, got)
		}
	}
	b := append([]byte(nil), img...)
	put32(b, offChildIDs+4, int64(le.Uint32(b[offChildIDs:])))
	if got := validation.Image(aligned(b)); got != abi.InvalidArgument {
		t.Errorf("V-IMG duplicate func id = %v", got)
	}
	put32(b, offChildIDs+4, 1023)
	if got := validation.Image(aligned(b)); got != abi.OK {
		t.Errorf("V-IMG func id 1023 = %v", got)
	}
}

// §14.5 MalformedArgumentsAreRejectedBeforeTheStateCheck, the structural
// half: generation 0, an inconsistent span or device -1 → IA; prepare with a
// NULL image, a short size or a NULL out → IA with out = -1 when non-NULL
// (V-PREP-1); launch with a NULL stream or id -1 → IA.
func TestUpstream_MalformedArgumentsAreRejectedBeforeTheStateCheck(t *testing.T) {
	for _, mod := range []func(*validation.KernelInitArgs){
		func(a *validation.KernelInitArgs) { a.Generation = 0 },
		func(a *validation.KernelInitArgs) { a.Aicore = validation.Span{Ptr: 1} },
		func(a *validation.KernelInitArgs) { a.DeviceID = -1 },
	} {
		a := validInit()
		mod(&a)
		if validation.KernelInit(a) != abi.InvalidArgument {
			t.Errorf("V-INIT accepted %+v", a)
		}
	}
	for _, c := range []struct {
		callable uintptr
		size     uint64
	}{{0, 9376}, {0x40, 9375}} {
		out := int32(7)
		validation.ResetOutID(&out)
		if validation.PrepareArgs(1, c.callable, c.size, true) != abi.InvalidArgument || out != -1 {
			t.Errorf("V-PREP-1/V-PREP-2 %+v: out %d", c, out)
		}
	}
	if validation.PrepareArgs(1, 0x40, 9376, false) != abi.InvalidArgument {
		t.Error("V-PREP-2 NULL out accepted")
	}
	if validation.LaunchArgs(1, 0, 0x40, 0) != abi.InvalidArgument || validation.LaunchArgs(1, -1, 0x40, 0x99) != abi.InvalidArgument {
		t.Error("V-LAUNCH malformed call accepted")
	}
}
