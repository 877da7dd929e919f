package sim

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/simabi/simabi/abi"
)

// E-PROG.30-34 on the simulator: a span past an allocation's end (by one
// byte, by 2^62, from the end, into the next allocation) is refused with IA
// and no byte of either allocation changes; a span ending at the end copies;
// 0 bytes copy nothing anywhere; a free of no allocation's start frees
// nothing; malloc(0) is a pointer of its own charging nothing; malloc(2^62)
// is NULL and charges nothing.
func TestDeviceMemoryArguments_EPROG(t *testing.T) {
	r := newTMR(t)
	ctx := programCtx(t, r, 0)
	other := programCtx(t, r, 0)
	p, q := r.DeviceMalloc(ctx, 64), r.DeviceMalloc(ctx, 100)
	foreign := r.DeviceMalloc(other, 8)
	fill := func(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }
	want(t, "fill p", r.CopyToDevice(ctx, p, unsafe.Pointer(&fill(1, 64)[0]), 64), okS)
	want(t, "fill q", r.CopyToDevice(ctx, q, unsafe.Pointer(&fill(2, 100)[0]), 100), okS)
	src := fill(9, 4096)
	host := unsafe.Pointer(&src[0])
	lo, hi := p, q
	if hi < lo {
		lo, hi = hi, lo
	}
	for _, tc := range []struct {
		name string
		dev  abi.DevicePtr
		n    uintptr
		want abi.Status
	}{
		{"E-PROG.30 past the end by one byte", p, 65, iaS},
		{"E-PROG.30 2^62 bytes", q + 8, 1 << 62, iaS},
		{"E-PROG.30 from the end", q + 100, 8, iaS},
		{"E-PROG.30 into the next allocation", lo + 56, uintptr(hi + 8 - (lo + 56)), iaS},
		{"E-PROG.31 0 bytes at the end", p + 64, 0, okS},
		{"E-PROG.31 0 bytes nowhere", 0x7777, 0, okS},
	} {
		want(t, tc.name+" (to)", r.CopyToDevice(ctx, tc.dev, host, tc.n), tc.want)
		want(t, tc.name+" (from)", r.CopyFromDevice(ctx, host, tc.dev, tc.n), tc.want)
	}
	if !bytes.Equal(src, fill(9, 4096)) {
		t.Error("a refused copy_from_device_ctx wrote into the host buffer")
	}
	committed := r.CommittedDeviceMemory(ctx)
	for _, f := range []struct {
		name string
		ptr  abi.DevicePtr
	}{{"inside", p + 8}, {"unknown", abi.DevicePtr(uintptr(host))}, {"another context's", foreign}} {
		r.DeviceFree(ctx, f.ptr)
		if got := r.CommittedDeviceMemory(ctx); got != committed {
			t.Errorf("E-PROG.32 free of a pointer %s: committed %d, want %d", f.name, got, committed)
		}
	}
	back := make([]byte, 100)
	want(t, "read p", r.CopyFromDevice(ctx, unsafe.Pointer(&back[0]), p, 64), okS)
	want(t, "read q, ending at the end", r.CopyFromDevice(ctx, unsafe.Pointer(&back[64]), q+64, 36), okS)
	if !bytes.Equal(back[:64], fill(1, 64)) || !bytes.Equal(back[64:], fill(2, 36)) {
		t.Errorf("E-PROG.30, .32: the allocations changed: %v", back)
	}
	if got := r.CommittedDeviceMemory(other); got != 8 {
		t.Errorf("E-PROG.32: the other context's committed is %d after a free of its allocation by ctx, want 8", got)
	}
	z := r.DeviceMalloc(ctx, 0)
	if z == 0 || z == p || z == q || r.CommittedDeviceMemory(ctx) != committed {
		t.Errorf("E-PROG.33: malloc(0) = %#x (p %#x, q %#x), committed %d; want a pointer of its own, committed %d", z, p, q, r.CommittedDeviceMemory(ctx), committed)
	}
	want(t, "E-PROG.30 1 byte into a 0-byte allocation", r.CopyToDevice(ctx, z, host, 1), iaS)
	r.DeviceFree(ctx, z)
	if h := r.DeviceMalloc(ctx, 1<<62); h != 0 || r.CommittedDeviceMemory(ctx) != committed {
		t.Errorf("E-PROG.34: malloc(2^62) = %#x, committed %d; want NULL, %d", h, r.CommittedDeviceMemory(ctx), committed)
	}
}
