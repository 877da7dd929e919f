package abi_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/simabi/simabi/abi"
)

var le = binary.LittleEndian

func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

func alignUp(x, a int) int { return (x + a - 1) / a * a }

// The byte offsets below are docs/contract.md's, typed as literals, so this test does
// not lean on the package's constants.
func TestChipCallableHandCheckedImage(t *testing.T) {
	spec := abi.ChipCallableSpec{
		Signature:  []abi.ArgDirection{abi.DirIn, abi.DirOut, abi.DirScalar},
		FuncName:   "f",
		ConfigName: "cfg",
		Binary:     []byte{0xA1, 0xA2, 0xA3},
		Children: []abi.ChildKernel{
			{FuncID: 7, Signature: []abi.ArgDirection{abi.DirInOut}, Binary: []byte{1, 2, 3, 4, 5}},
			{FuncID: 1023, Binary: nil},
		},
	}
	// storage: binary [0,3); child 0 at 64: header [64,256) code [256,261);
	// child 1 at align_up(261,64)=320: header [320,512), no code. Size 9376+512.
	want := make([]byte, 9376+512)
	put := func(off int, v uint32) { le.PutUint32(want[off:], v) }
	put(0, 1)
	put(4, 2)
	put(8, 0)
	put(1024, 3) // sig_count
	put(1028, 3) // binary_size
	want[1032] = 'f'
	put(1096, 1)    // func_name_len
	put(1100, 7)    // child_func_ids[0]
	put(1104, 1023) // child_func_ids[1]
	put(5196, 64)   // child_offsets[0]
	put(5200, 320)  // child_offsets[1]
	put(9292, 2)    // child_count
	copy(want[9296:], "cfg")
	put(9360, 3) // config_name_len
	put(9364, 1) // scalar_count
	copy(want[9376:], []byte{0xA1, 0xA2, 0xA3})
	c0 := 9376 + 64
	put(c0+0, 3)   // child signature[0] = INOUT
	put(c0+128, 1) // child sig_count
	put(c0+132, 5) // child binary_size
	copy(want[c0+192:], []byte{1, 2, 3, 4, 5})
	c1 := 9376 + 320
	put(c1+128, 0)
	put(c1+132, 0)

	n, err := spec.Size()
	if err != nil || n != len(want) {
		t.Fatalf("Size() = %d, %v; want %d", n, err, len(want))
	}
	img, err := spec.Build()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(img, want) {
		for i := range want {
			if i < len(img) && img[i] != want[i] {
				t.Fatalf("image differs first at byte %d: got %#x want %#x (len %d vs %d)", i, img[i], want[i], len(img), len(want))
			}
		}
		t.Fatalf("image length %d, want %d", len(img), len(want))
	}
	if addrOf(img)%16 != 0 {
		t.Errorf("Build returned an image at %#x, not 16-byte aligned", addrOf(img))
	}
	// EncodeTo writes the same bytes into a dirty buffer of the right size.
	dst := bytes.Repeat([]byte{0xEE}, len(want))
	if err := spec.EncodeTo(dst); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, want) {
		t.Error("EncodeTo into a dirty buffer differs from the hand-built image")
	}
	if err := spec.EncodeTo(make([]byte, len(want)+1)); !errors.Is(err, abi.ErrSpec) {
		t.Errorf("EncodeTo into a buffer one byte long: %v, want ErrSpec", err)
	}
	if err := spec.EncodeTo(make([]byte, len(want)-1)); !errors.Is(err, abi.ErrSpec) {
		t.Errorf("EncodeTo into a buffer one byte short: %v, want ErrSpec", err)
	}

	// OmitScalarCount stores 0 at 9364 and changes nothing else.
	spec.OmitScalarCount = true
	img2, err := spec.Build()
	if err != nil {
		t.Fatal(err)
	}
	put(9364, 0)
	if !bytes.Equal(img2, want) {
		t.Error("OmitScalarCount image differs beyond offset 9364")
	}

	// The reader reads the same fields back.
	r, err := abi.NewChipCallableReader(img)
	if err != nil {
		t.Fatal(err)
	}
	if r.SigCount() != 3 || r.Signature(1) != abi.DirOut || r.Signature(-1) != -1 || r.Signature(256) != -1 ||
		r.BinarySize() != 3 || r.FuncName() != "f" || r.ConfigName() != "cfg" || r.FuncNameLen() != 1 ||
		r.ConfigNameLen() != 3 || r.ChildCount() != 2 || r.ChildFuncID(1) != 1023 || r.ChildOffset(1) != 320 ||
		r.ChildFuncID(1024) != -1 || r.ChildOffset(-1) != 0 || r.StoredScalarCount() != 1 || len(r.Storage()) != 512 ||
		len(r.Bytes()) != len(img) {
		t.Error("reader accessors disagree with the image")
	}
	bin, err := r.OrchestrationBinary()
	if err != nil || !bytes.Equal(bin, []byte{0xA1, 0xA2, 0xA3}) {
		t.Errorf("OrchestrationBinary = %x, %v", bin, err)
	}
	cv, err := r.Child(0)
	if err != nil {
		t.Fatal(err)
	}
	if cv.SigCount() != 1 || cv.Signature(0) != abi.DirInOut || cv.Signature(32) != -1 || cv.BinarySize() != 5 ||
		cv.ResolvedAddr() != 0 || !bytes.Equal(cv.Code(), []byte{1, 2, 3, 4, 5}) {
		t.Error("child 0 view disagrees with the image")
	}
	if _, err := r.Child(2); !errors.Is(err, abi.ErrImage) {
		t.Errorf("Child(2) of 2 children: %v", err)
	}
	if _, err := r.Child(-1); !errors.Is(err, abi.ErrImage) {
		t.Errorf("Child(-1): %v", err)
	}
}

// checkCanonical verifies, from docs/contract.md alone, that img is the canonical image
// of spec: the header fields, each child at align_up(running end, 64), size =
// 9376 + end of the last piece, every other byte zero, names NUL-terminated.
func checkCanonical(t interface {
	Helper()
	Fatalf(string, ...any)
}, spec abi.ChipCallableSpec, img []byte) {
	t.Helper()
	covered := make([]bool, len(img)) // bytes that may be nonzero
	mark := func(off, n int) {
		for i := off; i < off+n; i++ {
			covered[i] = true
		}
	}
	u32 := func(off int) uint32 { return le.Uint32(img[off:]) }
	for i, d := range spec.Signature {
		if int32(u32(4*i)) != int32(d) {
			t.Fatalf("signature[%d] = %d, want %d", i, int32(u32(4*i)), d)
		}
	}
	mark(0, 4*len(spec.Signature))
	if int(u32(1024)) != len(spec.Signature) || int(u32(1028)) != len(spec.Binary) {
		t.Fatalf("sig_count/binary_size %d/%d", u32(1024), u32(1028))
	}
	mark(1024, 8)
	for _, n := range []struct {
		off, lenOff int
		s           string
	}{{1032, 1096, spec.FuncName}, {9296, 9360, spec.ConfigName}} {
		if int(u32(n.lenOff)) != len(n.s) || string(img[n.off:n.off+len(n.s)]) != n.s || img[n.off+len(n.s)] != 0 {
			t.Fatalf("name %q at %d not stored NUL-terminated with its length", n.s, n.off)
		}
		mark(n.off, len(n.s))
		mark(n.lenOff, 4)
	}
	scalars := 0
	for _, d := range spec.Signature {
		if d == abi.DirScalar {
			scalars++
		}
	}
	wantSC := uint32(scalars)
	if spec.OmitScalarCount {
		wantSC = 0
	}
	if u32(9364) != wantSC {
		t.Fatalf("scalar_count = %d, want %d", u32(9364), wantSC)
	}
	mark(9364, 4)
	if int(u32(9292)) != len(spec.Children) {
		t.Fatalf("child_count = %d", u32(9292))
	}
	mark(9292, 4)
	if !bytes.Equal(img[9376:9376+len(spec.Binary)], spec.Binary) {
		t.Fatalf("orchestration binary differs")
	}
	mark(9376, len(spec.Binary))
	used := len(spec.Binary)
	for i, c := range spec.Children {
		off := alignUp(used, 64)
		if int32(u32(1100+4*i)) != c.FuncID || int(u32(5196+4*i)) != off {
			t.Fatalf("child %d: func id %d offset %d, want %d %d", i, int32(u32(1100+4*i)), u32(5196+4*i), c.FuncID, off)
		}
		mark(1100+4*i, 4)
		mark(5196+4*i, 4)
		h := 9376 + off
		for j, d := range c.Signature {
			if int32(u32(h+4*j)) != int32(d) {
				t.Fatalf("child %d signature[%d]", i, j)
			}
		}
		mark(h, 4*len(c.Signature))
		if int(u32(h+128)) != len(c.Signature) || int(u32(h+132)) != len(c.Binary) {
			t.Fatalf("child %d sig_count/binary_size %d/%d", i, u32(h+128), u32(h+132))
		}
		mark(h+128, 8)
		if !bytes.Equal(img[h+192:h+192+len(c.Binary)], c.Binary) {
			t.Fatalf("child %d code differs", i)
		}
		mark(h+192, len(c.Binary))
		used = off + 192 + len(c.Binary)
	}
	if len(img) != 9376+used {
		t.Fatalf("image of %d bytes, canonical size %d", len(img), 9376+used)
	}
	for i, b := range img {
		if b != 0 && !covered[i] {
			t.Fatalf("byte %d = %#x is padding and must be zero", i, b)
		}
	}
}

func genName() *rapid.Generator[string] {
	return rapid.Map(rapid.SliceOfN(rapid.ByteRange(1, 255), 0, 63), func(b []byte) string { return string(b) })
}

func genSpec(maxChildren int) *rapid.Generator[abi.ChipCallableSpec] {
	return rapid.Custom(func(t *rapid.T) abi.ChipCallableSpec {
		tensors := rapid.IntRange(0, 256).Draw(t, "tensors")
		scalars := rapid.IntRange(0, min(128, 256-tensors)).Draw(t, "scalars")
		var s abi.ChipCallableSpec
		for range tensors {
			s.Signature = append(s.Signature, rapid.SampledFrom([]abi.ArgDirection{abi.DirIn, abi.DirOut, abi.DirInOut}).Draw(t, "dir"))
		}
		for range scalars {
			s.Signature = append(s.Signature, abi.DirScalar)
		}
		s.FuncName = genName().Draw(t, "func")
		s.ConfigName = genName().Draw(t, "config")
		s.Binary = rapid.SliceOfN(rapid.Byte(), 0, 300).Draw(t, "binary")
		ids := rapid.SliceOfNDistinct(rapid.Int32Range(0, 1023), 0, maxChildren, rapid.ID[int32]).Draw(t, "ids")
		for _, id := range ids {
			s.Children = append(s.Children, abi.ChildKernel{
				FuncID:    id,
				Signature: rapid.SliceOfN(rapid.SampledFrom([]abi.ArgDirection{0, 1, 2, 3}), 0, 32).Draw(t, "csig"),
				Binary:    rapid.SliceOfN(rapid.Byte(), 0, 200).Draw(t, "cbin"),
			})
		}
		s.OmitScalarCount = rapid.Bool().Draw(t, "omit")
		return s
	})
}

// Build is canonical and 16-byte aligned, and Spec round-trips it.
func TestChipCallableBuildIsCanonical(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		spec := genSpec(12).Draw(t, "spec")
		img, err := spec.Build()
		if err != nil {
			t.Fatalf("Build: %v", err)
		}
		if addrOf(img)%16 != 0 {
			t.Fatalf("image at %#x not 16-byte aligned", addrOf(img))
		}
		checkCanonical(t, spec, img)
		r, err := abi.NewChipCallableReader(img)
		if err != nil {
			t.Fatal(err)
		}
		back, err := r.Spec()
		if err != nil {
			t.Fatalf("Spec: %v", err)
		}
		if spec.ScalarCount() == 0 {
			// With no scalars, 0 is both "not recorded" and the count.
			back.OmitScalarCount = spec.OmitScalarCount
		}
		if d := cmp.Diff(spec, back, cmp.Comparer(func(a, b []byte) bool { return bytes.Equal(a, b) }),
			cmp.Comparer(func(a, b []abi.ArgDirection) bool { return len(a) == len(b) && (len(a) == 0 || cmp.Equal(a, b)) })); d != "" {
			t.Fatalf("Spec(Build(s)) != s (-s +back):\n%s", d)
		}
		img2, err := back.Build()
		if err != nil || !bytes.Equal(img, img2) {
			t.Fatalf("Build(Spec(img)) differs from img (%v)", err)
		}
	})
}

func TestChipCallableSpecCounts(t *testing.T) {
	s := abi.ChipCallableSpec{Signature: []abi.ArgDirection{1, 2, 3, 1, 0, 0}}
	if s.TensorCount() != 4 || s.ScalarCount() != 2 {
		t.Errorf("counts %d/%d, want 4/2", s.TensorCount(), s.ScalarCount())
	}
}

func TestChipCallableEmptyAndManyChildren(t *testing.T) {
	empty := abi.ChipCallableSpec{}
	img, err := empty.Build()
	if err != nil || len(img) != 9376 {
		t.Fatalf("empty spec: %d bytes, %v", len(img), err)
	}
	if !bytes.Equal(img, make([]byte, 9376)) {
		t.Error("empty spec image is not all zero")
	}
	var many abi.ChipCallableSpec
	for i := range 1024 {
		many.Children = append(many.Children, abi.ChildKernel{FuncID: int32(1023 - i), Binary: []byte{byte(i)}})
	}
	img, err = many.Build()
	if err != nil {
		t.Fatal(err)
	}
	// Each child: 192 + 1 byte, next at align_up(.., 64) = +256.
	if want := 9376 + 1023*256 + 193; len(img) != want {
		t.Fatalf("1024 children: %d bytes, want %d", len(img), want)
	}
	checkCanonical(t, many, img)
}

type specCase struct {
	name string
	mod  func(*abi.ChipCallableSpec)
}

func childN(n int) []abi.ChildKernel {
	c := make([]abi.ChildKernel, n)
	for i := range c {
		c[i].FuncID = int32(i % 1024)
	}
	return c
}

func TestChipCallableBuilderRefusesInvalidSpecs(t *testing.T) {
	refused := []specCase{
		{"tensor after scalar", func(s *abi.ChipCallableSpec) { s.Signature = []abi.ArgDirection{1, 0, 2} }},
		{"129 scalars", func(s *abi.ChipCallableSpec) { s.Signature = make([]abi.ArgDirection, 129) }},
		{"257 entries", func(s *abi.ChipCallableSpec) { s.Signature = make([]abi.ArgDirection, 257); fill(s.Signature, 1) }},
		{"signature value 4", func(s *abi.ChipCallableSpec) { s.Signature = []abi.ArgDirection{4} }},
		{"signature value -1", func(s *abi.ChipCallableSpec) { s.Signature = []abi.ArgDirection{-1} }},
		{"func name of 64 bytes", func(s *abi.ChipCallableSpec) { s.FuncName = strings.Repeat("a", 64) }},
		{"config name of 64 bytes", func(s *abi.ChipCallableSpec) { s.ConfigName = strings.Repeat("a", 64) }},
		{"func name with NUL", func(s *abi.ChipCallableSpec) { s.FuncName = "a\x00b" }},
		{"config name with NUL", func(s *abi.ChipCallableSpec) { s.ConfigName = "\x00" }},
		{"func id -1", func(s *abi.ChipCallableSpec) { s.Children = []abi.ChildKernel{{FuncID: -1}} }},
		{"func id 1024", func(s *abi.ChipCallableSpec) { s.Children = []abi.ChildKernel{{FuncID: 1024}} }},
		{"duplicate func id", func(s *abi.ChipCallableSpec) { s.Children = []abi.ChildKernel{{FuncID: 5}, {FuncID: 6}, {FuncID: 5}} }},
		{"1025 children", func(s *abi.ChipCallableSpec) {
			s.Children = childN(1025)
		}},
		{"child signature of 33", func(s *abi.ChipCallableSpec) {
			s.Children = []abi.ChildKernel{{FuncID: 0, Signature: make([]abi.ArgDirection, 33)}}
		}},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			var s abi.ChipCallableSpec
			c.mod(&s)
			if _, err := s.Build(); !errors.Is(err, abi.ErrSpec) {
				t.Errorf("Build: %v, want ErrSpec", err)
			}
			if _, err := s.Size(); !errors.Is(err, abi.ErrSpec) {
				t.Errorf("Size: %v, want ErrSpec", err)
			}
			if err := s.EncodeTo(make([]byte, 1<<16)); !errors.Is(err, abi.ErrSpec) {
				t.Errorf("EncodeTo: %v, want ErrSpec", err)
			}
		})
	}
	accepted := []specCase{
		{"63-byte names", func(s *abi.ChipCallableSpec) {
			s.FuncName = strings.Repeat("f", 63)
			s.ConfigName = strings.Repeat("c", 63)
		}},
		{"func id 1023 and 0", func(s *abi.ChipCallableSpec) { s.Children = []abi.ChildKernel{{FuncID: 1023}, {FuncID: 0}} }},
		{"1024 children", func(s *abi.ChipCallableSpec) { s.Children = childN(1024) }},
		{"128 scalars after 128 tensors", func(s *abi.ChipCallableSpec) {
			s.Signature = make([]abi.ArgDirection, 256)
			fill(s.Signature[:128], abi.DirInOut)
		}},
		{"256 tensors", func(s *abi.ChipCallableSpec) {
			s.Signature = make([]abi.ArgDirection, 256)
			fill(s.Signature, abi.DirIn)
		}},
		{"child signature of 32 with any values", func(s *abi.ChipCallableSpec) {
			s.Children = []abi.ChildKernel{{FuncID: 3, Signature: make([]abi.ArgDirection, 32)}}
		}},
	}
	for _, c := range accepted {
		t.Run(c.name, func(t *testing.T) {
			var s abi.ChipCallableSpec
			c.mod(&s)
			img, err := s.Build()
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			checkCanonical(t, s, img)
		})
	}
}

func fill[T any](s []T, v T) {
	for i := range s {
		s[i] = v
	}
}

func TestChipCallableReaderRefusesShortAndNonCanonical(t *testing.T) {
	if _, err := abi.NewChipCallableReader(make([]byte, 9375)); !errors.Is(err, abi.ErrImage) {
		t.Errorf("9375-byte image: %v", err)
	}
	spec := abi.ChipCallableSpec{Binary: []byte{1, 2, 3}, Children: []abi.ChildKernel{{FuncID: 1, Binary: []byte{9}}}}
	good, _ := spec.Build()
	cases := []struct {
		name string
		mod  func([]byte) []byte
	}{
		{"child offset off by one", func(b []byte) []byte { le.PutUint32(b[5196:], 65); return b }},
		{"binary_size past storage", func(b []byte) []byte { le.PutUint32(b[1028:], 1<<20); return b }},
		{"trailing byte", func(b []byte) []byte { return append(b, 0) }},
		{"one byte short", func(b []byte) []byte { return b[:len(b)-1] }},
		{"sig_count 257", func(b []byte) []byte { le.PutUint32(b[1024:], 257); return b }},
		{"child_count 1025", func(b []byte) []byte { le.PutUint32(b[9292:], 1025); return b }},
		{"name length 64", func(b []byte) []byte { le.PutUint32(b[1096:], 64); return b }},
		{"child sig_count 33", func(b []byte) []byte { le.PutUint32(b[9376+64+128:], 33); return b }},
		{"child binary overrun", func(b []byte) []byte { le.PutUint32(b[9376+64+132:], 2); return b }},
	}
	for _, c := range cases {
		img := c.mod(append([]byte(nil), good...))
		r, err := abi.NewChipCallableReader(img)
		if err != nil {
			t.Fatalf("%s: reader: %v", c.name, err)
		}
		if _, err := r.Spec(); !errors.Is(err, abi.ErrImage) {
			t.Errorf("%s: Spec() = %v, want ErrImage", c.name, err)
		}
	}
}

// CoreCallable: 192-byte header (sizeof 144 + 48 zero bytes) then the code.
func TestEncodeCoreCallable(t *testing.T) {
	b, err := abi.EncodeCoreCallable(abi.ChildKernel{FuncID: 9, Signature: []abi.ArgDirection{1, 0, 7}, Binary: []byte{0xC0, 0xDE}})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 194)
	le.PutUint32(want[0:], 1)
	le.PutUint32(want[4:], 0)
	le.PutUint32(want[8:], 7)
	le.PutUint32(want[128:], 3)
	le.PutUint32(want[132:], 2)
	want[192], want[193] = 0xC0, 0xDE
	if !bytes.Equal(b, want) {
		t.Errorf("EncodeCoreCallable = %x\nwant %x", b, want)
	}
	if _, err := abi.EncodeCoreCallable(abi.ChildKernel{Signature: make([]abi.ArgDirection, 33)}); !errors.Is(err, abi.ErrSpec) {
		t.Errorf("33 child signature entries: %v", err)
	}
	b, err = abi.EncodeCoreCallable(abi.ChildKernel{})
	if err != nil || !bytes.Equal(b, make([]byte, 192)) {
		t.Errorf("empty child: %x, %v", b, err)
	}
}
