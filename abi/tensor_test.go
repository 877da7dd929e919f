package abi_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/simabi/simabi/abi"
)

// DataType widths of docs/contract.md ("ChipTensor"), in bits.
func TestDataTypeWidths(t *testing.T) {
	want := map[abi.DataType]uint64{
		abi.Float32: 32, abi.Float16: 16, abi.Int32: 32, abi.Int16: 16, abi.Int8: 8, abi.Uint8: 8,
		abi.BFloat16: 16, abi.Int64: 64, abi.Uint64: 64, abi.Uint16: 16, abi.Uint32: 32, abi.Bool: 8,
		abi.FP8E4M3FN: 8, abi.FP8E8M0: 8, abi.FP4E2M1: 4,
	}
	values := map[abi.DataType]uint8{
		abi.Float32: 0, abi.Float16: 1, abi.Int32: 2, abi.Int16: 3, abi.Int8: 4, abi.Uint8: 5, abi.BFloat16: 6,
		abi.Int64: 7, abi.Uint64: 8, abi.Uint16: 9, abi.Uint32: 10, abi.Bool: 11, abi.FP8E4M3FN: 12,
		abi.FP8E8M0: 13, abi.FP4E2M1: 14,
	}
	for d, v := range values {
		if uint8(d) != v {
			t.Errorf("DataType %d, docs/contract.md value %d", d, v)
		}
	}
	for d, bits := range want {
		if d.Bits() != bits {
			t.Errorf("DataType(%d).Bits() = %d, want %d", d, d.Bits(), bits)
		}
	}
	if abi.DataType(15).Bits() != 0 || abi.DataType(255).Bits() != 0 {
		t.Error("undefined data types have a width")
	}
	// FP4E2M1 packs two per byte: 3 elements need 2 bytes.
	for _, c := range []struct {
		d    abi.DataType
		n    uint64
		want uint64
	}{{abi.FP4E2M1, 3, 2}, {abi.FP4E2M1, 4, 2}, {abi.Float32, 3, 12}, {abi.Int64, 2, 16}, {abi.Bool, 5, 5}, {abi.Float16, 0, 0},
		// Exact also where n * bits overflows: the byte size still fits.
		{abi.Uint8, math.MaxUint64, math.MaxUint64}, {abi.FP4E2M1, math.MaxUint64, 1 << 63}, {abi.Float16, 1 << 62, 1 << 63}} {
		if got := c.d.Bytes(c.n); got != c.want {
			t.Errorf("DataType(%d).Bytes(%d) = %d, want %d", c.d, c.n, got, c.want)
		}
	}
	if abi.HostSpace != 0 || abi.DeviceSpace != 1 || abi.ExternalOwner != math.MaxUint64 {
		t.Error("address space or external owner constants differ from docs/contract.md")
	}
}

func TestContiguousTensor(t *testing.T) {
	tt, err := abi.ContiguousTensor(0x1000, abi.Float16, 2, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := abi.ChipTensor{
		Addr: 0x1000, Size: 2 * 3 * 4 * 2, OwnerTaskID: abi.ExternalOwner, NDims: 3, DType: abi.Float16,
		IsContiguous: true, AddressSpace: abi.DeviceSpace,
		Shapes: [5]uint32{2, 3, 4}, Strides: [5]uint32{12, 4, 1}, ExtentElemCache: 24,
	}
	if d := cmp.Diff(want, tt); d != "" {
		t.Errorf("ContiguousTensor (-want +got):\n%s", d)
	}
	if tt.Elements() != 24 {
		t.Errorf("Elements() = %d", tt.Elements())
	}
	one, err := abi.ContiguousTensor(8, abi.Float32, 7)
	if err != nil || one.Strides != [5]uint32{1} || one.Size != 28 || one.NDims != 1 {
		t.Errorf("1-d tensor: %+v, %v", one, err)
	}
	five, err := abi.ContiguousTensor(0, abi.Uint8, 2, 2, 2, 2, 2)
	if err != nil || five.Strides != [5]uint32{16, 8, 4, 2, 1} || five.Size != 32 {
		t.Errorf("5-d tensor: %+v, %v", five, err)
	}
	if _, err := abi.ContiguousTensor(0, abi.Float32); err == nil {
		t.Error("0 dims accepted")
	}
	if _, err := abi.ContiguousTensor(0, abi.Float32, 1, 1, 1, 1, 1, 1); err == nil {
		t.Error("6 dims accepted")
	}
	// A stride that does not fit uint32 is refused.
	if _, err := abi.ContiguousTensor(0, abi.Uint8, 2, 1<<16, 1<<16); err == nil {
		t.Error("stride 2^32 accepted")
	}
	// A byte size that does not fit uint64 is refused rather than wrapped.
	if big, err := abi.ContiguousTensor(0, abi.Int64, 1<<32-1, 1<<32-1); err == nil {
		t.Errorf("2^64-element int64 tensor accepted with size %d", big.Size)
	}
	if big, err := abi.ContiguousTensor(0, abi.Uint8, 1<<32-1, 1<<32-1); err != nil || big.Size != (1<<32-1)*(1<<32-1) {
		t.Errorf("largest uint8 tensor: %+v, %v", big, err)
	}
	// docs/contract.md: strides are in elements and > 0, also for an empty tensor.
	for _, shape := range [][]uint32{{4, 0}, {0, 4}, {3, 0, 5}, {0}} {
		e, err := abi.ContiguousTensor(0, abi.Float32, shape...)
		if err != nil {
			t.Fatalf("shape %v: %v", shape, err)
		}
		for i := range shape {
			if e.Strides[i] == 0 {
				t.Errorf("shape %v: stride[%d] = 0, docs/contract.md requires > 0 (strides %v)", shape, i, e.Strides)
			}
		}
		if e.Elements() != 0 || e.Size != 0 || e.ExtentElemCache != 0 {
			t.Errorf("shape %v: elements %d size %d extent %d", shape, e.Elements(), e.Size, e.ExtentElemCache)
		}
	}
}

func genTensor() *rapid.Generator[abi.ChipTensor] {
	return rapid.Custom(func(t *rapid.T) abi.ChipTensor {
		var c abi.ChipTensor
		c.Addr = rapid.Uint64().Draw(t, "addr")
		c.Size = rapid.Uint64().Draw(t, "size")
		c.OwnerTaskID = rapid.Uint64().Draw(t, "owner")
		c.StartOffset = rapid.Uint64().Draw(t, "start")
		c.Version = rapid.Int32().Draw(t, "version")
		c.NDims = rapid.Uint32().Draw(t, "ndims")
		c.DType = abi.DataType(rapid.Byte().Draw(t, "dtype"))
		c.ManualDep = rapid.Bool().Draw(t, "manual")
		c.IsContiguous = rapid.Bool().Draw(t, "contig")
		c.AddressSpace = abi.AddressSpace(rapid.Byte().Draw(t, "space"))
		for i := range c.Shapes {
			c.Shapes[i] = rapid.Uint32().Draw(t, "shape")
			c.Strides[i] = rapid.Uint32().Draw(t, "stride")
		}
		c.ExtentElemCache = rapid.Uint64().Draw(t, "extent")
		return c
	})
}

// ChipTensor encode/decode round trip, with every field at its docs/contract.md offset.
func TestChipTensorRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genTensor().Draw(t, "tensor")
		buf := bytes.Repeat([]byte{0xFF}, 130)
		if err := c.Encode(buf); err != nil {
			t.Fatal(err)
		}
		if buf[128] != 0xFF || buf[129] != 0xFF {
			t.Fatal("Encode wrote past 128 bytes")
		}
		if !bytes.Equal(buf[92:128], make([]byte, 36)) {
			t.Fatal("reserved bytes 92..127 not zeroed")
		}
		if le.Uint64(buf[0:]) != c.Addr || le.Uint64(buf[8:]) != c.Size || le.Uint64(buf[16:]) != c.OwnerTaskID ||
			le.Uint64(buf[24:]) != c.StartOffset || int32(le.Uint32(buf[32:])) != c.Version || le.Uint32(buf[36:]) != c.NDims ||
			buf[40] != byte(c.DType) || (buf[41] != 0) != c.ManualDep || (buf[42] != 0) != c.IsContiguous ||
			buf[43] != byte(c.AddressSpace) || le.Uint64(buf[64:]) != c.ExtentElemCache {
			t.Fatal("a scalar field is not at its docs/contract.md offset")
		}
		for i := range 5 {
			if le.Uint32(buf[44+4*i:]) != c.Shapes[i] || le.Uint32(buf[72+4*i:]) != c.Strides[i] {
				t.Fatalf("shape/stride %d misplaced", i)
			}
		}
		back, err := abi.DecodeChipTensor(buf)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(c, back); d != "" {
			t.Fatalf("round trip (-in +out):\n%s", d)
		}
	})
	var c abi.ChipTensor
	if err := c.Encode(make([]byte, 127)); err == nil {
		t.Error("Encode into 127 bytes succeeded")
	}
	if _, err := abi.DecodeChipTensor(make([]byte, 127)); err == nil {
		t.Error("Decode of 127 bytes succeeded")
	}
}

func TestTaskArgsBuilder(t *testing.T) {
	a := abi.NewTaskArgs()
	if len(a.Bytes()) != 33856 {
		t.Fatalf("buffer of %d bytes", len(a.Bytes()))
	}
	if uintptr(a.Pointer())%64 != 0 || addrOf(a.Bytes())%64 != 0 || uintptr(a.Pointer()) != addrOf(a.Bytes()) {
		t.Errorf("args at %p, not 64-byte aligned", a.Pointer())
	}
	t0, _ := abi.ContiguousTensor(0x100, abi.Float32, 4)
	t1, _ := abi.ContiguousTensor(0x200, abi.Int8, 2, 2)
	if err := a.AddTensor(t0); err != nil {
		t.Fatal(err)
	}
	if err := a.AddTensor(t1); err != nil {
		t.Fatal(err)
	}
	if err := a.AddScalar(0xDEADBEEFCAFEF00D); err != nil {
		t.Fatal(err)
	}
	if err := a.AddScalarFloat32(1.5); err != nil {
		t.Fatal(err)
	}
	b := a.Bytes()
	var rec [128]byte
	_ = t1.Encode(rec[:])
	if !bytes.Equal(b[128:256], rec[:]) {
		t.Error("tensor 1 is not at offset 128")
	}
	if le.Uint64(b[32768:]) != 0xDEADBEEFCAFEF00D || le.Uint64(b[32776:]) != uint64(math.Float32bits(1.5)) {
		t.Error("scalars not at 32768 / zero-extended")
	}
	if le.Uint32(b[33792:]) != 2 || le.Uint32(b[33796:]) != 1+1 {
		t.Errorf("counts %d/%d", le.Uint32(b[33792:]), le.Uint32(b[33796:]))
	}
	v, err := abi.NewTaskArgsView(b)
	if err != nil {
		t.Fatal(err)
	}
	got1, err := v.Tensor(1)
	if err != nil || got1 != t1 || v.TensorCount() != 2 || v.ScalarCount() != 2 || v.Scalar(1) != uint64(math.Float32bits(1.5)) ||
		v.AddressSpace(0) != abi.DeviceSpace || v.AddressSpace(2) != abi.HostSpace || v.AddressSpace(-1) != abi.HostSpace ||
		v.AddressSpace(256) != abi.HostSpace || v.Scalar(128) != 0 || v.Scalar(-1) != 0 || v.TensorBytes(256) != nil {
		t.Error("view disagrees with the builder")
	}
	if _, err := v.Tensor(256); err == nil {
		t.Error("Tensor(256) succeeded")
	}
	if _, err := abi.NewTaskArgsView(make([]byte, 33855)); err == nil {
		t.Error("view over 33855 bytes")
	}

	// Tensors precede scalars.
	if err := a.AddTensor(t0); !errors.Is(err, abi.ErrTaskArgs) {
		t.Errorf("tensor after scalar: %v", err)
	}

	// SetCounts overwrites only the counts.
	before := append([]byte(nil), b[:33792]...)
	a.SetCounts(7, -1)
	if int32(le.Uint32(b[33792:])) != 7 || int32(le.Uint32(b[33796:])) != -1 || !bytes.Equal(before, b[:33792]) {
		t.Error("SetCounts touched more than the counts")
	}

	// Wipe zeroes everything and restarts the builder.
	a.Wipe()
	if !bytes.Equal(a.Bytes(), make([]byte, 33856)) {
		t.Error("Wipe left nonzero bytes")
	}
	if err := a.AddTensor(t0); err != nil {
		t.Errorf("AddTensor after Wipe: %v", err)
	}
	if le.Uint32(b[33792:]) != 1 {
		t.Error("tensor_count after Wipe + AddTensor != 1")
	}
}

func TestTaskArgsLimits(t *testing.T) {
	tt, _ := abi.ContiguousTensor(0x100, abi.Float32, 4)

	a := abi.NewTaskArgs()
	for i := range 256 {
		if err := a.AddTensor(tt); err != nil {
			t.Fatalf("tensor %d: %v", i, err)
		}
	}
	if err := a.AddTensor(tt); !errors.Is(err, abi.ErrTaskArgs) {
		t.Errorf("257th tensor: %v", err)
	}
	if err := a.AddScalar(1); !errors.Is(err, abi.ErrTaskArgs) {
		t.Errorf("scalar after 256 tensors: %v", err)
	}

	a = abi.NewTaskArgs()
	for i := range 128 {
		if err := a.AddScalar(uint64(i)); err != nil {
			t.Fatalf("scalar %d: %v", i, err)
		}
	}
	if err := a.AddScalar(1); !errors.Is(err, abi.ErrTaskArgs) {
		t.Errorf("129th scalar: %v", err)
	}
	if le.Uint32(a.Bytes()[33796:]) != 128 {
		t.Error("refused scalar changed the count")
	}

	// 200 tensors + 56 scalars = 256 entries; one more scalar is refused
	// although only 57 scalars would be held.
	a = abi.NewTaskArgs()
	for range 200 {
		if err := a.AddTensor(tt); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 56 {
		if err := a.AddScalar(uint64(i)); err != nil {
			t.Fatalf("scalar %d: %v", i, err)
		}
	}
	if err := a.AddScalar(1); !errors.Is(err, abi.ErrTaskArgs) {
		t.Errorf("257th entry: %v", err)
	}
}

// AlignedBytes: zeroed, the requested length, cap == len, and aligned.
func TestAlignedBytes(t *testing.T) {
	for _, align := range []int{1, 2, 8, 16, 64, 4096} {
		for _, n := range []int{0, 1, 15, 16, 9376, 33856} {
			b := abi.AlignedBytes(n, align)
			if len(b) != n {
				t.Errorf("AlignedBytes(%d, %d): len %d", n, align, len(b))
			}
			if n > 0 && cap(b) != n {
				t.Errorf("AlignedBytes(%d, %d): cap %d", n, align, cap(b))
			}
			if n > 0 && addrOf(b)%uintptr(align) != 0 {
				t.Errorf("AlignedBytes(%d, %d) at %#x", n, align, addrOf(b))
			}
			if !bytes.Equal(b, make([]byte, n)) {
				t.Errorf("AlignedBytes(%d, %d) not zeroed", n, align)
			}
		}
	}
	b := make([]byte, 64)
	for off := range 16 {
		s := b[off:]
		if got := abi.AlignmentOffset(s, 16); (addrOf(s)+uintptr(got))%16 != 0 || got >= 16 {
			t.Errorf("AlignmentOffset = %d for address %#x", got, addrOf(s))
		}
	}
	if abi.AlignmentOffset(nil, 16) != 0 {
		t.Error("AlignmentOffset(nil) != 0")
	}
	if abi.Ptr(nil) != nil || abi.Ptr(b[:0]) != nil || uintptr(abi.Ptr(b)) != addrOf(b) {
		t.Error("Ptr")
	}
	if p, n := abi.Span(b[:5]); uintptr(p) != addrOf(b) || n != 5 {
		t.Error("Span")
	}
	if p, n := abi.Span(nil); p != nil || n != 0 {
		t.Error("Span(nil) is not (NULL, 0)")
	}
}
