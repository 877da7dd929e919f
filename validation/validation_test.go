package validation_test

import (
	"math"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/validation"
)

const (
	ok = abi.OK
	ia = abi.InvalidArgument
)

// V-SPAN: consistent iff both zero or both nonzero.
func TestVSPANAllFourCombinations(t *testing.T) {
	cases := []struct {
		span validation.Span
		want bool
	}{
		{validation.Span{Ptr: 0, Size: 0}, true},
		{validation.Span{Ptr: 0x1000, Size: 1}, true},
		{validation.Span{Ptr: 0, Size: 1}, false},
		{validation.Span{Ptr: 0x1000, Size: 0}, false},
		{validation.Span{Ptr: ^uintptr(0), Size: math.MaxUint64}, true},
	}
	for _, c := range cases {
		if got := c.span.Consistent(); got != c.want {
			t.Errorf("V-SPAN %+v: Consistent() = %v, want %v", c.span, got, c.want)
		}
	}
}

func validInit() validation.KernelInitArgs {
	return validation.KernelInitArgs{
		Ctx:        0x10,
		DeviceID:   0,
		Aicpu:      validation.Span{Ptr: 0x1000, Size: 64},
		Aicore:     validation.Span{Ptr: 0x2000, Size: 64},
		Dispatcher: validation.Span{},
		Config:     0x3000,
		Generation: 1,
	}
}

// V-INIT (and S-3's clause for the kernel entries: NULL ctx is IA, no
// tolerance): every structural violation alone, and the accepted shapes.
func TestVINIT(t *testing.T) {
	bad := validation.Span{Ptr: 0, Size: 8}
	bad2 := validation.Span{Ptr: 0x4000, Size: 0}
	cases := []struct {
		name string
		mod  func(*validation.KernelInitArgs)
		want abi.Status
	}{
		{"valid with NULL dispatcher span", func(*validation.KernelInitArgs) {}, ok},
		{"all spans empty", func(a *validation.KernelInitArgs) {
			a.Aicpu, a.Aicore, a.Dispatcher = validation.Span{}, validation.Span{}, validation.Span{}
		}, ok},
		{"all spans present", func(a *validation.KernelInitArgs) { a.Dispatcher = validation.Span{Ptr: 0x5000, Size: 1} }, ok},
		{"device 0", func(a *validation.KernelInitArgs) { a.DeviceID = 0 }, ok},
		{"device max", func(a *validation.KernelInitArgs) { a.DeviceID = math.MaxInt32 }, ok},
		{"generation max", func(a *validation.KernelInitArgs) { a.Generation = math.MaxUint64 }, ok},
		{"S-3 NULL ctx", func(a *validation.KernelInitArgs) { a.Ctx = 0 }, ia},
		{"NULL config", func(a *validation.KernelInitArgs) { a.Config = 0 }, ia},
		{"device -1", func(a *validation.KernelInitArgs) { a.DeviceID = -1 }, ia},
		{"device min", func(a *validation.KernelInitArgs) { a.DeviceID = math.MinInt32 }, ia},
		{"generation 0", func(a *validation.KernelInitArgs) { a.Generation = 0 }, ia},
		{"aicpu (NULL, n)", func(a *validation.KernelInitArgs) { a.Aicpu = bad }, ia},
		{"aicpu (p, 0)", func(a *validation.KernelInitArgs) { a.Aicpu = bad2 }, ia},
		{"aicore (NULL, n)", func(a *validation.KernelInitArgs) { a.Aicore = bad }, ia},
		{"aicore (p, 0)", func(a *validation.KernelInitArgs) { a.Aicore = bad2 }, ia},
		{"dispatcher (NULL, n)", func(a *validation.KernelInitArgs) { a.Dispatcher = bad }, ia},
		{"dispatcher (p, 0)", func(a *validation.KernelInitArgs) { a.Dispatcher = bad2 }, ia},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := validInit()
			c.mod(&a)
			if got := validation.KernelInit(a); got != c.want {
				t.Errorf("V-INIT %+v = %v, want %v", a, got, c.want)
			}
		})
	}
}

// V-PREP-1: -1 is written through a non-NULL out pointer before any check,
// so every failing return leaves -1 there; NULL is tolerated.
func TestVPREP1ResetOutID(t *testing.T) {
	validation.ResetOutID(nil) // must not panic
	for _, prior := range []int32{0, 5, 8191, math.MaxInt32, math.MinInt32, -1} {
		out := prior
		validation.ResetOutID(&out)
		if out != -1 {
			t.Errorf("V-PREP-1: out %d -> %d, want -1", prior, out)
		}
	}
	// The prepare prologue: reset, then V-PREP-2 refuses; -1 stays.
	out := int32(42)
	validation.ResetOutID(&out)
	if st := validation.PrepareArgs(0, 0x1000, 9376, true); st != ia || out != -1 {
		t.Errorf("V-PREP-1 after a V-PREP-2 refusal: status %v, out %d", st, out)
	}
}

// V-PREP-2 (and S-3 for prepare: NULL ctx is IA).
func TestVPREP2(t *testing.T) {
	const a16 = uintptr(0x10000)
	cases := []struct {
		name     string
		ctx      abi.Ctx
		callable uintptr
		size     uint64
		out      bool
		want     abi.Status
	}{
		{"valid, size 9376", 1, a16, 9376, true, ok},
		{"valid, large size", 1, a16, 1 << 40, true, ok},
		{"valid, size max", 1, a16, math.MaxUint64, true, ok},
		{"valid, 32-byte aligned", 1, 0x20, 9376, true, ok},
		{"S-3 NULL ctx", 0, a16, 9376, true, ia},
		{"NULL callable", 1, 0, 9376, true, ia},
		{"NULL out", 1, a16, 9376, false, ia},
		{"size 9375", 1, a16, 9375, true, ia},
		{"size 0", 1, a16, 0, true, ia},
		{"address one byte off", 1, a16 + 1, 9376, true, ia},
		{"address 8-aligned only", 1, a16 + 8, 9376, true, ia},
		{"address 15 off", 1, a16 + 15, 9376, true, ia},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := validation.PrepareArgs(c.ctx, c.callable, c.size, c.out); got != c.want {
				t.Errorf("V-PREP-2 PrepareArgs(%#x, %#x, %d, %v) = %v, want %v", c.ctx, c.callable, c.size, c.out, got, c.want)
			}
		})
	}
}

// V-LAUNCH (and S-3 for launch: NULL ctx is IA).
func TestVLAUNCH(t *testing.T) {
	cases := []struct {
		name   string
		ctx    abi.Ctx
		id     int32
		args   uintptr
		stream abi.Stream
		want   abi.Status
	}{
		{"id 0", 1, 0, 0x40, 0x99, ok},
		{"id 8191", 1, 8191, 0x40, 0x99, ok},
		{"unaligned args (alignment is not checked)", 1, 1, 0x41, 0x99, ok},
		{"id 8192", 1, 8192, 0x40, 0x99, ia},
		{"id -1", 1, -1, 0x40, 0x99, ia},
		{"id max", 1, math.MaxInt32, 0x40, 0x99, ia},
		{"id min", 1, math.MinInt32, 0x40, 0x99, ia},
		{"S-3 NULL ctx", 0, 0, 0x40, 0x99, ia},
		{"NULL args", 1, 0, 0, 0x99, ia},
		{"NULL stream", 1, 0, 0x40, 0, ia},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := validation.LaunchArgs(c.ctx, c.id, c.args, c.stream); got != c.want {
				t.Errorf("V-LAUNCH LaunchArgs(%#x, %d, %#x, %#x) = %v, want %v", c.ctx, c.id, c.args, c.stream, got, c.want)
			}
		})
	}
}

// E-PINIT's argument step: V-SPAN on the three binaries and the SDMA warm-up
// span, device_id, and the program CallConfig (V-CFG minus UNSUPPORTED).
func TestProgramInitArgs(t *testing.T) {
	pmu := abi.CallConfig{EnablePMU: 1}
	swim := abi.CallConfig{EnableChipSwimlane: 1}
	good := validation.ProgramInitArgs{DeviceID: 0, Aicpu: validation.Span{Ptr: 1, Size: 1}}
	bad := validation.Span{Ptr: 0, Size: 3}
	cases := []struct {
		name string
		mod  func(*validation.ProgramInitArgs)
		want abi.Status
	}{
		{"valid, no prewarm", func(*validation.ProgramInitArgs) {}, ok},
		{"valid, empty spans", func(a *validation.ProgramInitArgs) { a.Aicpu = validation.Span{} }, ok},
		{"prewarm zero config", func(a *validation.ProgramInitArgs) { a.Prewarm = make([]byte, 1148) }, ok},
		{"prewarm with pmu (no UNSUPPORTED in program mode)", func(a *validation.ProgramInitArgs) { a.Prewarm = pmu.Bytes() }, ok},
		{"device -1", func(a *validation.ProgramInitArgs) { a.DeviceID = -1 }, ia},
		{"V-SPAN aicpu", func(a *validation.ProgramInitArgs) { a.Aicpu = bad }, ia},
		{"V-SPAN aicore", func(a *validation.ProgramInitArgs) { a.Aicore = bad }, ia},
		{"V-SPAN dispatcher", func(a *validation.ProgramInitArgs) { a.Dispatcher = validation.Span{Ptr: 8} }, ia},
		{"V-SPAN sdma warm-up", func(a *validation.ProgramInitArgs) { a.SDMAWarmup = validation.Span{Ptr: 8} }, ia},
		{"V-CFG prewarm swimlane without prefix", func(a *validation.ProgramInitArgs) { a.Prewarm = swim.Bytes() }, ia},
		{"prewarm shorter than 1148", func(a *validation.ProgramInitArgs) { a.Prewarm = make([]byte, 10) }, ia},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := good
			c.mod(&a)
			if got := validation.ProgramInit(a); got != c.want {
				t.Errorf("ProgramInit = %v, want %v", got, c.want)
			}
		})
	}
}
