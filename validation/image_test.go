package validation_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/validation"
)

type imgCase struct {
	name   string
	spec   abi.ChipCallableSpec
	mutate func(img []byte) []byte // may return a different span
	want   abi.Status
	defect validation.ImageDefect // expected first defect when refused
	child  int                    // expected child index of a step-5 defect, else -1
}

func runImageCases(t *testing.T, cases []imgCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img := build(t, c.spec)
			if c.mutate != nil {
				img = c.mutate(img)
			}
			img = aligned(img)
			if got := validation.Image(img); got != c.want {
				t.Fatalf("V-IMG Image = %v, want %v", got, c.want)
			}
			if ref := refImage(uint64(uintptr(abi.Ptr(img))), img); ref != (c.want == ok) {
				t.Fatalf("test oracle disagrees: refImage = %v", ref)
			}
			r := validation.CheckImageAt(uintptr(abi.Ptr(img)), img)
			wantDefect, wantChild := c.defect, c.child
			if c.want == ok {
				wantDefect, wantChild = validation.DefectNone, -1
			}
			if r.Defect != wantDefect || r.Child != wantChild {
				t.Errorf("CheckImageAt = %v (defect %d, child %d), want defect %d (%v) child %d", r, r.Defect, r.Child, wantDefect, wantDefect, wantChild)
			}
		})
	}
}

func specWith(mod func(*abi.ChipCallableSpec)) abi.ChipCallableSpec {
	s := sampleSpec(3)
	mod(&s)
	return s
}

// V-IMG step 1: address + size must not wrap. ImageAt takes the address, so
// a span near 2^64 is expressible without owning that memory.
func TestVIMGStep1Wrap(t *testing.T) {
	img := aligned(build(t, sampleSpec(1)))
	n := uintptr(len(img))
	top := ^uintptr(0)
	cases := []struct {
		addr uintptr
		want abi.Status
	}{
		{top - n + 2, ia},  // ends 1 past 2^64
		{top - n + 1, ia},  // addr + size == 2^64: the end pointer wraps to 0
		{top, ia},          // starts at the last byte
		{top - n, ok},      // ends at 2^64 - 1
		{top - n - 15, ok}, // 16-byte aligned-ish, no wrap
		{0x10000, ok},
	}
	for _, c := range cases {
		if got := validation.ImageAt(c.addr, img); got != c.want {
			t.Errorf("V-IMG ImageAt(%#x, %d bytes) = %v, want %v", c.addr, n, got, c.want)
		}
		if got := validation.CheckImageAt(c.addr, img); (got.Defect == validation.DefectWraps) != (c.want == ia) {
			t.Errorf("CheckImageAt(%#x) defect %v", c.addr, got.Defect)
		}
	}
	if !validation.ImageSpanWraps(top, 1) || !validation.ImageSpanWraps(1, math.MaxUint64) ||
		validation.ImageSpanWraps(top, 0) || validation.ImageSpanWraps(top-9375, 9375) || validation.ImageSpanWraps(0, math.MaxUint64) {
		t.Error("ImageSpanWraps boundaries")
	}
	// A span shorter than the header is refused before anything is read.
	for _, n := range []int{0, 1, 9375} {
		if got := validation.Image(aligned(make([]byte, n))); got != ia {
			t.Errorf("V-IMG %d-byte span = %v", n, got)
		}
	}
	if validation.Image(nil) != ia {
		t.Error("V-IMG nil span accepted")
	}
}

// V-IMG step 2: the signature.
func TestVIMGStep2Signature(t *testing.T) {
	base := sampleSpec(1)
	tensorsThenScalars := func(tn, sn int) []abi.ArgDirection {
		s := make([]abi.ArgDirection, 0, tn+sn)
		for i := range tn {
			s = append(s, abi.ArgDirection(1+i%3))
		}
		for range sn {
			s = append(s, abi.DirScalar)
		}
		return s
	}
	cases := []imgCase{
		{name: "canonical", spec: base, want: ok},
		{name: "sig_count 0", spec: specWith(func(s *abi.ChipCallableSpec) { s.Signature = nil }), want: ok},
		{name: "sig_count 256 tensors", spec: specWith(func(s *abi.ChipCallableSpec) { s.Signature = tensorsThenScalars(256, 0) }), want: ok},
		{name: "128 tensors + 128 scalars", spec: specWith(func(s *abi.ChipCallableSpec) { s.Signature = tensorsThenScalars(128, 128) }), want: ok},
		{name: "128 scalars", spec: specWith(func(s *abi.ChipCallableSpec) { s.Signature = tensorsThenScalars(0, 128) }), want: ok},
		{name: "sig_count -1", spec: base, mutate: func(b []byte) []byte { put32(b, offSigCount, -1); return b }, want: ia, defect: validation.DefectSigCount, child: -1},
		{name: "sig_count 257", spec: base, mutate: func(b []byte) []byte { put32(b, offSigCount, 257); return b }, want: ia, defect: validation.DefectSigCount, child: -1},
		{name: "sig_count min int32", spec: base, mutate: func(b []byte) []byte { put32(b, offSigCount, math.MinInt32); return b }, want: ia, defect: validation.DefectSigCount, child: -1},
		{name: "signature value 4", spec: base, mutate: func(b []byte) []byte { put32(b, offSig+4, 4); return b }, want: ia, defect: validation.DefectSigValue, child: -1},
		{name: "signature value -1", spec: base, mutate: func(b []byte) []byte { put32(b, offSig, -1); return b }, want: ia, defect: validation.DefectSigValue, child: -1},
		{name: "signature value 4 in the last entry", spec: base, mutate: func(b []byte) []byte { put32(b, offSig+8, 4); return b }, want: ia, defect: validation.DefectSigValue, child: -1},
		{name: "signature entries past sig_count are not inspected", spec: base, mutate: func(b []byte) []byte {
			put32(b, offSig+12, 77)
			put32(b, offSig+4*255, -5)
			return b
		}, want: ok},
		{name: "tensor after scalar", spec: base, mutate: func(b []byte) []byte {
			put32(b, offSig+4, 0) // IN, SCALAR, SCALAR -> still fine
			put32(b, offSig+8, 2) // IN, SCALAR, OUT
			put32(b, offScalarCount, 0)
			return b
		}, want: ia, defect: validation.DefectTensorAfterScalar, child: -1},
		{name: "129 scalars", spec: specWith(func(s *abi.ChipCallableSpec) { s.Signature = tensorsThenScalars(0, 128) }),
			mutate: func(b []byte) []byte {
				put32(b, offSigCount, 129)
				put32(b, offSig+4*128, 0)
				put32(b, offScalarCount, 129)
				return b
			}, want: ia, defect: validation.DefectTooManyScalars, child: -1},
		{name: "stored scalar_count mismatch", spec: base, mutate: func(b []byte) []byte { put32(b, offScalarCount, 2); return b }, want: ia, defect: validation.DefectScalarCountMismatch, child: -1},
		{name: "stored scalar_count -1", spec: base, mutate: func(b []byte) []byte { put32(b, offScalarCount, -1); return b }, want: ia, defect: validation.DefectScalarCountMismatch, child: -1},
		{name: "stored scalar_count nonzero with no scalars", spec: specWith(func(s *abi.ChipCallableSpec) { s.Signature = tensorsThenScalars(3, 0) }),
			mutate: func(b []byte) []byte { put32(b, offScalarCount, 1); return b }, want: ia, defect: validation.DefectScalarCountMismatch, child: -1},
		{name: "stored scalar_count 0 (not recorded)", spec: base, mutate: func(b []byte) []byte { put32(b, offScalarCount, 0); return b }, want: ok},
		{name: "stored scalar_count equal", spec: base, mutate: func(b []byte) []byte { put32(b, offScalarCount, 1); return b }, want: ok},
	}
	runImageCases(t, cases)
}

// V-IMG step 3: the names.
func TestVIMGStep3Names(t *testing.T) {
	var cases []imgCase
	for _, n := range []struct {
		what        string
		off, lenOff int
		defect      validation.ImageDefect
	}{{"func_name", offFuncName, offFuncNameLen, validation.DefectFuncName}, {"config_name", offConfigName, offConfigLen, validation.DefectConfigName}} {
		name63 := strings.Repeat("n", 63)
		spec63 := specWith(func(s *abi.ChipCallableSpec) {
			if n.what == "func_name" {
				s.FuncName = name63
			} else {
				s.ConfigName = name63
			}
		})
		cases = append(cases,
			imgCase{name: n.what + " of 63 bytes", spec: spec63, want: ok},
			imgCase{name: n.what + " empty", spec: specWith(func(s *abi.ChipCallableSpec) { s.FuncName, s.ConfigName = "", "" }), want: ok},
			imgCase{name: n.what + " of 64 bytes", spec: spec63, mutate: func(b []byte) []byte {
				// Length 64 points past the array: refused by the length alone.
				put32(b, n.lenOff, 64)
				return b
			}, want: ia, defect: n.defect, child: -1},
			imgCase{name: n.what + " length max uint32", spec: spec63, mutate: func(b []byte) []byte {
				put32(b, n.lenOff, -1)
				return b
			}, want: ia, defect: n.defect, child: -1},
			imgCase{name: n.what + " missing NUL at its length", spec: sampleSpec(1), mutate: func(b []byte) []byte {
				l := int(le.Uint32(b[n.lenOff:]))
				b[n.off+l] = 'x'
				return b
			}, want: ia, defect: n.defect, child: -1},
			imgCase{name: n.what + " 63 bytes without NUL at 63", spec: spec63, mutate: func(b []byte) []byte {
				b[n.off+63] = 'x'
				return b
			}, want: ia, defect: n.defect, child: -1},
			imgCase{name: n.what + " embedded NUL", spec: sampleSpec(1), mutate: func(b []byte) []byte {
				b[n.off+2] = 0
				return b
			}, want: ia, defect: n.defect, child: -1},
			imgCase{name: n.what + " NUL at byte 0 with length 1", spec: specWith(func(s *abi.ChipCallableSpec) { s.FuncName, s.ConfigName = "", "" }),
				mutate: func(b []byte) []byte { put32(b, n.lenOff, 1); return b }, want: ia, defect: n.defect, child: -1},
			imgCase{name: n.what + " bytes after the NUL are not inspected", spec: sampleSpec(1), mutate: func(b []byte) []byte {
				l := int(le.Uint32(b[n.lenOff:]))
				for i := l + 1; i < 64; i++ {
					b[n.off+i] = 0xFF
				}
				return b
			}, want: ok},
		)
	}
	runImageCases(t, cases)
}

// V-IMG step 4: binary size and child count.
func TestVIMGStep4(t *testing.T) {
	noKids := specWith(func(s *abi.ChipCallableSpec) { s.Children = nil })
	cases := []imgCase{
		{name: "binary fills storage (0 children)", spec: noKids, want: ok},
		{name: "empty binary, 0 children", spec: abi.ChipCallableSpec{}, want: ok},
		{name: "binary_size storage+1", spec: noKids, mutate: func(b []byte) []byte { put32(b, offBinarySize, int64(len(b)-headerSize+1)); return b }, want: ia, defect: validation.DefectBinarySize, child: -1},
		{name: "binary_size max uint32", spec: noKids, mutate: func(b []byte) []byte { put32(b, offBinarySize, -1); return b }, want: ia, defect: validation.DefectBinarySize, child: -1},
		{name: "child_count -1", spec: noKids, mutate: func(b []byte) []byte { put32(b, offChildCount, -1); return b }, want: ia, defect: validation.DefectChildCount, child: -1},
		{name: "child_count 1025", spec: noKids, mutate: func(b []byte) []byte { put32(b, offChildCount, 1025); return b }, want: ia, defect: validation.DefectChildCount, child: -1},
		{name: "child_count min int32", spec: noKids, mutate: func(b []byte) []byte { put32(b, offChildCount, math.MinInt32); return b }, want: ia, defect: validation.DefectChildCount, child: -1},
	}
	runImageCases(t, cases)
}

// V-IMG step 5: each child.
func TestVIMGStep5Children(t *testing.T) {
	three := sampleSpec(3)
	withIDs := func(ids ...int32) abi.ChipCallableSpec {
		s := sampleSpec(len(ids))
		for i, id := range ids {
			s.Children[i].FuncID = id
		}
		return s
	}
	setID := func(i int, id int64) func([]byte) []byte {
		return func(b []byte) []byte { put32(b, offChildIDs+4*i, id); return b }
	}
	cases := []imgCase{
		{name: "func id 1023 accepted", spec: withIDs(1023, 0, 512), want: ok},
		{name: "func id -1", spec: three, mutate: setID(1, -1), want: ia, defect: validation.DefectChildFuncID, child: 1},
		{name: "func id 1024", spec: three, mutate: setID(2, 1024), want: ia, defect: validation.DefectChildFuncID, child: 2},
		{name: "func id 8191", spec: three, mutate: setID(0, 8191), want: ia, defect: validation.DefectChildFuncID, child: 0},
		{name: "duplicate func id", spec: three, mutate: setID(2, 0), want: ia, defect: validation.DefectChildFuncIDRepeated, child: 2},
		{name: "duplicate func id 1023", spec: withIDs(1023, 7, 9), mutate: setID(2, 1023), want: ia, defect: validation.DefectChildFuncIDRepeated, child: 2},
		{name: "child offset +1", spec: three, mutate: func(b []byte) []byte {
			put32(b, offChildOffs+4, int64(le.Uint32(b[offChildOffs+4:]))+1)
			return b
		}, want: ia, defect: validation.DefectChildOffset, child: 1},
		{name: "child offset -1", spec: three, mutate: func(b []byte) []byte {
			put32(b, offChildOffs, int64(le.Uint32(b[offChildOffs:]))-1)
			return b
		}, want: ia, defect: validation.DefectChildOffset, child: 0},
		{name: "child offset +64", spec: three, mutate: func(b []byte) []byte {
			put32(b, offChildOffs+8, int64(le.Uint32(b[offChildOffs+8:]))+64)
			return b
		}, want: ia, defect: validation.DefectChildOffset, child: 2},
		{name: "child offset -64", spec: three, mutate: func(b []byte) []byte {
			put32(b, offChildOffs+8, int64(le.Uint32(b[offChildOffs+8:]))-64)
			return b
		}, want: ia, defect: validation.DefectChildOffset, child: 2},
		{name: "child header does not fit", spec: sampleSpec(1), mutate: func(b []byte) []byte {
			// Cut the span 100 bytes into the only child's header and give it
			// no binary: everything before the header is untouched.
			h := childAt(b, 0)
			put32(b, h+cBinarySize, 0)
			return b[:h+100]
		}, want: ia, defect: validation.DefectChildHeader, child: 0},
		{name: "child header one byte short", spec: specWith(func(s *abi.ChipCallableSpec) { s.Children = children(1)[:1]; s.Children[0].Binary = nil }),
			mutate: func(b []byte) []byte { return b[:len(b)-1] }, want: ia, defect: validation.DefectChildHeader, child: 0},
		{name: "child sig_count 33", spec: three, mutate: func(b []byte) []byte { put32(b, childAt(b, 1)+cSigCount, 33); return b }, want: ia, defect: validation.DefectChildSigCount, child: 1},
		{name: "child sig_count -1", spec: three, mutate: func(b []byte) []byte { put32(b, childAt(b, 0)+cSigCount, -1); return b }, want: ia, defect: validation.DefectChildSigCount, child: 0},
		{name: "child sig_count 32", spec: three, mutate: func(b []byte) []byte { put32(b, childAt(b, 0)+cSigCount, 32); return b }, want: ok},
		{name: "child sig_count 0", spec: three, mutate: func(b []byte) []byte { put32(b, childAt(b, 2)+cSigCount, 0); return b }, want: ok},
		{name: "child binary overrun (last child)", spec: three, mutate: func(b []byte) []byte {
			h := childAt(b, 2)
			put32(b, h+cBinarySize, int64(le.Uint32(b[h+cBinarySize:]))+1)
			return b
		}, want: ia, defect: validation.DefectChildBinary, child: 2},
		{name: "child binary max uint32", spec: three, mutate: func(b []byte) []byte { put32(b, childAt(b, 0)+cBinarySize, -1); return b }, want: ia, defect: validation.DefectChildBinary, child: 0},
		{name: "child signature values are not inspected", spec: three, mutate: func(b []byte) []byte {
			h := childAt(b, 0)
			put32(b, h, 99)
			put32(b, h+4, -7)
			put32(b, h+4*31, 1234)
			return b
		}, want: ok},
		{name: "child resolved_addr and the 48 bytes before code are not inspected", spec: three, mutate: func(b []byte) []byte {
			h := childAt(b, 1)
			for i := h + cResolvedAddr; i < h+childHeader; i++ {
				b[i] = 0xEE
			}
			return b
		}, want: ok},
		{name: "padding between pieces is not inspected", spec: three, mutate: func(b []byte) []byte {
			// The 37-byte binary is followed by 27 bytes of padding.
			for i := headerSize + 37; i < childAt(b, 0); i++ {
				b[i] = 0xDD
			}
			return b
		}, want: ok},
		{name: "unused child table entries are not inspected", spec: three, mutate: func(b []byte) []byte {
			put32(b, offChildIDs+4*3, -1)
			put32(b, offChildIDs+4*1023, 0)
			put32(b, offChildOffs+4*3, 12345)
			put32(b, offChildOffs+4*1023, -1)
			return b
		}, want: ok},
		{name: "header padding 9368..9375 is not inspected", spec: three, mutate: func(b []byte) []byte {
			for i := 9368; i < headerSize; i++ {
				b[i] = 0xCC
			}
			return b
		}, want: ok},
	}
	runImageCases(t, cases)
}

// V-IMG step 6: the pieces end exactly at the end of the span.
func TestVIMGStep6Tail(t *testing.T) {
	var cases []imgCase
	for _, n := range []int{0, 1, 3} {
		s := sampleSpec(n)
		cases = append(cases,
			imgCase{name: "canonical, children " + string(rune('0'+n)), spec: s, want: ok},
			imgCase{name: "one byte long, children " + string(rune('0'+n)), spec: s, mutate: func(b []byte) []byte { return append(b, 0) }, want: ia, defect: validation.DefectTrailingBytes, child: -1},
			imgCase{name: "64 bytes long, children " + string(rune('0'+n)), spec: s, mutate: func(b []byte) []byte { return append(b, make([]byte, 64)...) }, want: ia, defect: validation.DefectTrailingBytes, child: -1},
		)
	}
	// One byte short: the last piece no longer fits (step 4 without
	// children, step 5 with).
	cases = append(cases,
		imgCase{name: "one byte short, children 0", spec: sampleSpec(0), mutate: func(b []byte) []byte { return b[:len(b)-1] }, want: ia, defect: validation.DefectBinarySize, child: -1},
		imgCase{name: "one byte short, children 3", spec: sampleSpec(3), mutate: func(b []byte) []byte { return b[:len(b)-1] }, want: ia, defect: validation.DefectChildBinary, child: 2},
		imgCase{name: "binary_size one less than storage", spec: sampleSpec(0), mutate: func(b []byte) []byte {
			put32(b, offBinarySize, int64(len(b)-headerSize-1))
			return b
		}, want: ia, defect: validation.DefectTrailingBytes, child: -1},
		imgCase{name: "last child binary one byte short of the end", spec: sampleSpec(3), mutate: func(b []byte) []byte {
			h := childAt(b, 2)
			put32(b, h+cBinarySize, int64(le.Uint32(b[h+cBinarySize:]))-1)
			return b
		}, want: ia, defect: validation.DefectTrailingBytes, child: -1},
	)
	runImageCases(t, cases)
}

// Canonical images of 0, 1, many and 1024 children are accepted, also with
// every uninspected byte scrambled.
func TestVIMGCanonicalAccepted(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 64, 1023, 1024} {
		img := aligned(build(t, sampleSpec(n)))
		if got := validation.Image(img); got != ok {
			t.Errorf("V-IMG canonical image with %d children = %v", n, got)
		}
		if got := validation.Image(scrambled(img, byte(n))); got != ok {
			t.Errorf("V-IMG canonical image with %d children, uninspected bytes scrambled = %v", n, got)
		}
	}
	// Children with large binaries and unaligned ends.
	var s abi.ChipCallableSpec
	s.Binary = make([]byte, 4097)
	for i := range 5 {
		s.Children = append(s.Children, abi.ChildKernel{FuncID: int32(1000 + i), Binary: make([]byte, 100000+i*13)})
	}
	if got := validation.Image(aligned(build(t, s))); got != ok {
		t.Errorf("V-IMG large children = %v", got)
	}
	if got := validation.Image(aligned(build(t, abi.ChipCallableSpec{OmitScalarCount: true, Signature: []abi.ArgDirection{1, 0}}))); got != ok {
		t.Errorf("V-IMG with scalar_count not recorded = %v", got)
	}
}

// Random valid specs build to images V-IMG accepts; random header edits are
// judged exactly like the docs/contract.md oracle judges them.
func TestVIMGMatchesOracleUnderMutation(t *testing.T) {
	fields := []int{offSigCount, offBinarySize, offFuncNameLen, offChildCount, offConfigLen, offScalarCount,
		offSig, offSig + 4, offSig + 8, offChildIDs, offChildIDs + 4, offChildOffs, offChildOffs + 4, offChildOffs + 8}
	values := []int64{0, 1, 2, 3, 4, -1, 31, 32, 33, 63, 64, 128, 129, 191, 192, 255, 256, 257, 1023, 1024, 1025, math.MinInt32, math.MaxInt32}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 5).Draw(t, "children")
		s := sampleSpec(n)
		s.Signature = rapid.SliceOfN(rapid.SampledFrom([]abi.ArgDirection{1, 2, 3}), 0, 4).Draw(t, "tensors")
		for range rapid.IntRange(0, 3).Draw(t, "scalars") {
			s.Signature = append(s.Signature, abi.DirScalar)
		}
		s.OmitScalarCount = rapid.Bool().Draw(t, "omit")
		img := build(t, s)
		if validation.Image(aligned(img)) != ok {
			t.Fatalf("canonical image refused")
		}
		for range rapid.IntRange(1, 3).Draw(t, "edits") {
			var off int
			switch rapid.IntRange(0, 3).Draw(t, "where") {
			case 0:
				off = rapid.SampledFrom(fields).Draw(t, "field")
			case 1:
				if n == 0 {
					continue
				}
				off = childAt(img, rapid.IntRange(0, n-1).Draw(t, "child")) + rapid.SampledFrom([]int{0, cSigCount, cBinarySize}).Draw(t, "cfield")
			case 2:
				off = rapid.SampledFrom([]int{offFuncName, offConfigName}).Draw(t, "name") + rapid.IntRange(0, 63).Draw(t, "at")
				if b := rapid.SampledFrom([]byte{0, 'a'}).Draw(t, "byte"); off < len(img) { // an earlier cut may have shortened it
					img[off] = b
				}
				continue
			case 3:
				img = img[:len(img)-rapid.IntRange(0, 70).Draw(t, "cut")]
				continue
			}
			if off+4 <= len(img) {
				put32(img, off, rapid.SampledFrom(values).Draw(t, "value"))
			}
		}
		img = aligned(img)
		got := validation.Image(img)
		if want := refImage(uint64(uintptr(abi.Ptr(img))), img); (got == ok) != want || (got != ok && got != ia) {
			t.Fatalf("V-IMG = %v, oracle accepts = %v (%v)", got, want, validation.CheckImageAt(uintptr(abi.Ptr(img)), img))
		}
	})
}

// SignatureCounts derives (tensors, scalars) from an accepted image.
func TestSignatureCounts(t *testing.T) {
	for _, c := range []struct {
		sig            []abi.ArgDirection
		tensors, scals int32
	}{{nil, 0, 0}, {[]abi.ArgDirection{1, 2, 3, 0}, 3, 1}, {[]abi.ArgDirection{0, 0}, 0, 2}} {
		img := build(t, abi.ChipCallableSpec{Signature: c.sig})
		tn, sn := validation.SignatureCounts(img)
		if tn != c.tensors || sn != c.scals {
			t.Errorf("SignatureCounts(%v) = %d, %d", c.sig, tn, sn)
		}
	}
}

func TestImageDefectText(t *testing.T) {
	for d := validation.DefectNone; d <= validation.DefectTrailingBytes; d++ {
		if d.String() == "" || d.String() == "unknown defect" {
			t.Errorf("defect %d has no text", d)
		}
	}
	steps := map[validation.ImageDefect]validation.ImageStep{
		validation.DefectNone: 0, validation.DefectWraps: 1, validation.DefectShort: 1, validation.DefectSigCount: 2,
		validation.DefectSigValue: 2, validation.DefectTensorAfterScalar: 2, validation.DefectTooManyScalars: 2,
		validation.DefectScalarCountMismatch: 2, validation.DefectFuncName: 3, validation.DefectConfigName: 3,
		validation.DefectBinarySize: 4, validation.DefectChildCount: 4, validation.DefectChildFuncID: 5,
		validation.DefectChildFuncIDRepeated: 5, validation.DefectChildOffset: 5, validation.DefectChildHeader: 5,
		validation.DefectChildSigCount: 5, validation.DefectChildBinary: 5, validation.DefectTrailingBytes: 6,
	}
	for d, s := range steps {
		if d.Step() != s {
			t.Errorf("%v: step %d, want %d", d, d.Step(), s)
		}
	}
	if validation.ImageDefect(200).Step() != 0 || validation.ImageDefect(200).String() != "unknown defect" {
		t.Error("out-of-range defect")
	}
	r := validation.ImageReport{Defect: validation.DefectChildOffset, Child: 4}
	if !strings.Contains(r.Error(), "step 5") || !strings.Contains(r.Error(), "child 4") {
		t.Errorf("report text %q", r.Error())
	}
	if r := (validation.ImageReport{Defect: validation.DefectTrailingBytes, Child: -1}); !strings.Contains(r.Error(), "step 6") {
		t.Errorf("report text %q", r.Error())
	}
}

// V-IMG reads nothing outside the span: an image whose header claims far
// more than the span holds is judged without a read past len (the spans
// here have cap == len, so such a read would panic).
func TestVIMGNoReadOutsideSpan(t *testing.T) {
	img := aligned(build(t, sampleSpec(3)))
	for _, cut := range []int{1, 60, 191, 192, 193, 300} {
		span := aligned(img[:len(img)-cut])
		if validation.Image(span) != ia {
			t.Errorf("cut %d accepted", cut)
		}
	}
	hostile := aligned(make([]byte, headerSize))
	put32(hostile, offChildCount, 1024)
	for i := range 1024 {
		put32(hostile, offChildOffs+4*i, -1)
	}
	if validation.Image(hostile) != ia {
		t.Error("hostile header accepted")
	}
	if !bytes.Equal(hostile[:4], []byte{0, 0, 0, 0}) {
		t.Error("V-IMG wrote to the image")
	}
}
