package validation_test

import (
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/validation"
)

var sinkStatus abi.Status

func image1024(tb interface {
	Helper()
	Fatalf(string, ...any)
}) []byte {
	img := aligned(build(tb, sampleSpec(1024)))
	if validation.Image(img) != abi.OK {
		tb.Fatalf("1024-children image refused")
	}
	return img
}

// V-IMG, V-LAUNCH and V-PREP-2 allocate nothing, on accepted and refused
// inputs alike (docs/contract.md V-IMG: nothing is hashed, allocated or copied
// before the image passes).
func TestValidationAllocatesNothing(t *testing.T) {
	img := image1024(t)
	bad := aligned(img[:len(img)-1])
	cfg := (&abi.CallConfig{AicpuThreadNum: 4}).Bytes()
	addr := uintptr(abi.Ptr(img))
	checks := map[string]func(){
		"V-IMG accepted":   func() { sinkStatus = validation.Image(img) },
		"V-IMG refused":    func() { sinkStatus = validation.Image(bad) },
		"V-IMG ImageAt":    func() { sinkStatus = validation.ImageAt(addr, img) },
		"V-LAUNCH":         func() { sinkStatus = validation.LaunchArgs(1, 8191, 0x40, 0x99) },
		"V-LAUNCH refused": func() { sinkStatus = validation.LaunchArgs(1, 8192, 0x40, 0x99) },
		"V-PREP-2":         func() { sinkStatus = validation.PrepareArgs(1, addr, uint64(len(img)), true) },
		"V-PREP-2 refused": func() { sinkStatus = validation.PrepareArgs(1, addr+1, uint64(len(img)), true) },
		"V-INIT":           func() { sinkStatus = validation.KernelInit(validInit()) },
		"V-CFG":            func() { sinkStatus = validation.KernelCallConfig(cfg) },
	}
	for name, f := range checks {
		if n := testing.AllocsPerRun(20, f); n != 0 {
			t.Errorf("%s: %v allocs per run, want 0", name, n)
		}
	}
}

func BenchmarkImage1024Children(b *testing.B) {
	img := image1024(b)
	b.SetBytes(int64(len(img)))
	b.ReportAllocs()
	for b.Loop() {
		sinkStatus = validation.Image(img)
	}
	if sinkStatus != abi.OK {
		b.Fatal(sinkStatus)
	}
}

func BenchmarkImage3Children(b *testing.B) {
	img := aligned(build(b, sampleSpec(3)))
	b.SetBytes(int64(len(img)))
	b.ReportAllocs()
	for b.Loop() {
		sinkStatus = validation.Image(img)
	}
}

func BenchmarkLaunchArgs(b *testing.B) {
	b.ReportAllocs()
	id := int32(0)
	for b.Loop() {
		sinkStatus = validation.LaunchArgs(1, id&8191, 0x40, 0x99)
		id++
	}
}

func BenchmarkPrepareArgs(b *testing.B) {
	img := aligned(build(b, sampleSpec(0)))
	addr := uintptr(abi.Ptr(img))
	b.ReportAllocs()
	for b.Loop() {
		sinkStatus = validation.PrepareArgs(1, addr, uint64(len(img)), true)
	}
}

func BenchmarkKernelCallConfig(b *testing.B) {
	var c abi.CallConfig
	c.AicpuThreadNum = 4
	c.EnableChipSwimlane = 2
	_ = c.SetOutputPrefix("/tmp/simabi/run")
	for r := range 4 {
		c.RingTaskWindow[r], c.RingHeap[r], c.RingDepPool[r] = 1024, 1<<20, 4096
	}
	cfg := c.Bytes()
	b.ReportAllocs()
	for b.Loop() {
		sinkStatus = validation.KernelCallConfig(cfg)
	}
	if sinkStatus != abi.OK {
		b.Fatal(sinkStatus)
	}
}

func BenchmarkProgramCallConfig(b *testing.B) {
	cfg := (&abi.CallConfig{}).Bytes()
	b.ReportAllocs()
	for b.Loop() {
		sinkStatus = validation.ProgramCallConfig(cfg)
	}
}
