package validation_test

import (
	"bytes"
	"encoding/binary"

	"github.com/simabi/simabi/abi"
)

var le = binary.LittleEndian

// Offsets of docs/contract.md "Layouts", typed as literals so the V-IMG tests do not
// lean on the constants of the package under test.
const (
	offSig         = 0
	offSigCount    = 1024
	offBinarySize  = 1028
	offFuncName    = 1032
	offFuncNameLen = 1096
	offChildIDs    = 1100
	offChildOffs   = 5196
	offChildCount  = 9292
	offConfigName  = 9296
	offConfigLen   = 9360
	offScalarCount = 9364
	headerSize     = 9376
	childHeader    = 192 // sizeof(CoreCallable) 144 + 48 zero bytes
	cSigCount      = 128
	cBinarySize    = 132
	cResolvedAddr  = 136
)

// aligned copies b into a fresh 16-byte-aligned buffer with cap == len, so
// any read past the span panics.
func aligned(b []byte) []byte {
	out := abi.AlignedBytes(len(b), 16)
	copy(out, b)
	return out
}

func put32(b []byte, off int, v int64) { le.PutUint32(b[off:], uint32(v)) }

// childSpec returns n children with func ids 0..n-1 and binaries of varied
// lengths (0, 1, 63, 64, 65, ...), so child offsets exercise align_up.
func children(n int) []abi.ChildKernel {
	lens := []int{0, 1, 63, 64, 65, 130, 7}
	c := make([]abi.ChildKernel, n)
	for i := range c {
		bin := bytes.Repeat([]byte{byte(i + 1)}, lens[i%len(lens)])
		c[i] = abi.ChildKernel{FuncID: int32(i), Signature: []abi.ArgDirection{abi.DirIn, abi.DirOut}, Binary: bin}
	}
	return c
}

// sampleSpec is a small, valid spec: 2 tensors + 1 scalar, names, a 37-byte
// orchestration binary and n children.
func sampleSpec(n int) abi.ChipCallableSpec {
	return abi.ChipCallableSpec{
		Signature:  []abi.ArgDirection{abi.DirIn, abi.DirOut, abi.DirScalar},
		FuncName:   "simabi.add_scalar_f32",
		ConfigName: "default",
		Binary:     bytes.Repeat([]byte{0x7F}, 37),
		Children:   children(n),
	}
}

func build(t interface {
	Helper()
	Fatalf(string, ...any)
}, s abi.ChipCallableSpec) []byte {
	t.Helper()
	img, err := s.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return img
}

// childAt is the absolute offset of child i's header, from its stored offset.
func childAt(img []byte, i int) int { return headerSize + int(le.Uint32(img[offChildOffs+4*i:])) }

// refImage is V-IMG written again from docs/contract.md, independently of
// validation.CheckImageAt, as the oracle of the mutation and fuzz tests.
func refImage(addr uint64, img []byte) bool {
	size := uint64(len(img))
	if addr+size < addr { // step 1
		return false
	}
	if size < headerSize {
		return false
	}
	i32 := func(off int) int64 { return int64(int32(le.Uint32(img[off:]))) }
	u32 := func(off int) uint64 { return uint64(le.Uint32(img[off:])) }
	// step 2
	sc := i32(offSigCount)
	if sc < 0 || sc > 256 {
		return false
	}
	tensors, scalars := int64(0), int64(0)
	for i := 0; i < int(sc); i++ {
		switch i32(offSig + 4*i) {
		case 0:
			scalars++
		case 1, 2, 3:
			if scalars > 0 {
				return false
			}
			tensors++
		default:
			return false
		}
	}
	if scalars > 128 || tensors+scalars > 256 {
		return false
	}
	if st := i32(offScalarCount); st != 0 && st != scalars {
		return false
	}
	// step 3
	for _, n := range [][2]int{{offFuncName, offFuncNameLen}, {offConfigName, offConfigLen}} {
		l := u32(n[1])
		if l >= 64 || img[n[0]+int(l)] != 0 || bytes.IndexByte(img[n[0]:n[0]+int(l)], 0) >= 0 {
			return false
		}
	}
	// step 4
	storage := size - headerSize
	if u32(offBinarySize) > storage {
		return false
	}
	cc := i32(offChildCount)
	if cc < 0 || cc > 1024 {
		return false
	}
	// step 5
	used := u32(offBinarySize)
	seen := map[int64]bool{}
	for i := 0; i < int(cc); i++ {
		fid := i32(offChildIDs + 4*i)
		if fid < 0 || fid >= 1024 || seen[fid] {
			return false
		}
		seen[fid] = true
		off := u32(offChildOffs + 4*i)
		if off != (used+63)/64*64 {
			return false
		}
		if off+childHeader > storage {
			return false
		}
		h := headerSize + int(off)
		if csc := i32(h + cSigCount); csc < 0 || csc > 32 {
			return false
		}
		cb := u32(h + cBinarySize)
		if off+childHeader+cb > storage {
			return false
		}
		used = off + childHeader + cb
	}
	// step 6
	return used == storage
}

// uninspected lists the byte ranges of a valid image that V-IMG does not look
// at (docs/contract.md V-IMG): signature entries past sig_count, bytes after each
// name's NUL, unused child table entries, the header padding, gaps between
// pieces, and in each child the signature values past its sig_count, its
// resolved_addr and the 48 bytes before its code.
func uninspected(img []byte) [][2]int {
	var r [][2]int
	add := func(from, to int) {
		if to > from {
			r = append(r, [2]int{from, to})
		}
	}
	sc := int(le.Uint32(img[offSigCount:]))
	add(offSig+4*sc, offSigCount)
	add(offFuncName+int(le.Uint32(img[offFuncNameLen:]))+1, offFuncName+64)
	add(offConfigName+int(le.Uint32(img[offConfigLen:]))+1, offConfigName+64)
	cc := int(le.Uint32(img[offChildCount:]))
	add(offChildIDs+4*cc, offChildIDs+4*1024)
	add(offChildOffs+4*cc, offChildOffs+4*1024)
	add(offScalarCount+4, headerSize)
	used := int(le.Uint32(img[offBinarySize:]))
	for i := range cc {
		off := int(le.Uint32(img[offChildOffs+4*i:]))
		add(headerSize+used, headerSize+off)
		h := headerSize + off
		add(h+4*int(le.Uint32(img[h+cSigCount:])), h+cSigCount)
		add(h+cResolvedAddr, h+childHeader)
		used = off + childHeader + int(le.Uint32(img[h+cBinarySize:]))
	}
	return r
}

// masked returns a copy of a valid image with every uninspected byte zeroed.
func masked(img []byte) []byte {
	out := append([]byte(nil), img...)
	for _, rg := range uninspected(img) {
		clear(out[rg[0]:rg[1]])
	}
	return out
}

// scrambled returns a copy of a valid image with every uninspected byte set
// to a nonzero pattern, the child signature values inside each child's
// sig_count included (docs/contract.md: child signature values are not inspected).
func scrambled(img []byte, seed byte) []byte {
	out := aligned(img)
	ranges := uninspected(img)
	cc := int(le.Uint32(img[offChildCount:]))
	for i := range cc {
		h := childAt(img, i)
		ranges = append(ranges, [2]int{h, h + 4*int(le.Uint32(img[h+cSigCount:]))})
	}
	for _, rg := range ranges {
		for i := rg[0]; i < rg[1]; i++ {
			out[i] = byte(i)*31 + seed | 1
		}
	}
	return out
}
