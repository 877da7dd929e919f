package op

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"sync"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
)

var le = binary.LittleEndian

// Sizes of the canonical images, restated from docs/contract.md.
const (
	HugeSize     = budgetBytes + 64 // ImgHuge's: past the M-5 budget
	HeaderSize   = 9376             // sizeof(ChipCallable)
	budgetBytes  = 2 << 30          // M-5 budget
	wrapSize     = 2 * HeaderSize   // ImgWrap's size: past the top of the address space
	funcNameBase = "conformance.nop"
)

// Field offsets of docs/contract.md's ChipCallable layout, restated.
const (
	OffSigCount   = 1024
	OffBinarySize = 1028
	offFuncName   = 1032
	OffFuncLen    = 1096
	offChildIDs   = 1100
	OffChildOffs  = 5196
	OffChildCount = 9292
	offCfgName    = 9296
	OffCfgLen     = 9360
	OffScalarCnt  = 9364
	offCoreSigCnt = 128
	offCoreBinSz  = 132
)

// Image is what an image recipe passes to prepare.
type Image struct {
	Bytes []byte // with defect, poke and Long applied (nil: no bytes)
	// Size is the size passed: len(Bytes) less Short (at least 0), else
	// the base's size.
	Size      uint64
	Null      bool // a NULL callable
	Huge      bool // 2 GiB + 64 bytes of zero memory
	Wrap      bool // a span whose address plus size wraps (nothing is there)
	Aligned   bool // at a 16-byte boundary
	Truncated bool // a recording over the limit: only its size is known
}

var imageCache RecipeMemo[*Image]

// ImageOf is what recipe r passes, built once.
func ImageOf(r ImageRecipe) *Image { return imageCache.Get(r, buildImage) }

// RecipeMemo is a process-wide memo of what a recipe builds, safe for
// concurrent use; typed, as a sync.Map's interface hashing was a third of
// the model's prepare step (docs/performance.md).
type RecipeMemo[V any] struct {
	mu sync.RWMutex
	m  map[ImageRecipe]V
}

// Get returns the value for r, building it on first sight (when two
// callers build one, the first stored wins).
func (c *RecipeMemo[V]) Get(r ImageRecipe, build func(ImageRecipe) V) V {
	c.mu.RLock()
	v, ok := c.m[r]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = build(r)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[r]; ok {
		return old
	}
	if c.m == nil {
		c.m = make(map[ImageRecipe]V)
	}
	c.m[r] = v
	return v
}

func buildImage(r ImageRecipe) *Image {
	switch r.Base {
	case ImgNull:
		return &Image{Null: true, Size: HeaderSize, Aligned: true}
	case ImgHuge:
		return &Image{Huge: true, Size: HugeSize, Aligned: true}
	case ImgWrap:
		return &Image{Wrap: true, Size: wrapSize, Aligned: true}
	case ImgProgram: // a user's callable replaces it at the runner
		return buildImage(ImageRecipe{})
	case ImgRaw:
		b := rawBytes(r.Raw)
		return &Image{Bytes: b, Size: uint64(len(b)), Aligned: r.Mis == 0}
	case ImgRawTrunc:
		return &Image{Truncated: true, Size: r.Raw, Aligned: r.Mis == 0}
	}
	img := canonicalImage(r)
	if r.Defect == DefChildGap {
		img = withChildGap(img)
	}
	applyDefect(img, r)
	switch r.Poke {
	case PokeByte:
		if int(r.PokeOff) < len(img) {
			img[r.PokeOff] = byte(r.PokeVal)
		}
	case PokeU32:
		if int(r.PokeOff)+4 <= len(img) {
			le.PutUint32(img[r.PokeOff:], r.PokeVal)
		}
	}
	if r.Long != 0 {
		img = append(img, make([]byte, r.Long)...)
	}
	n := uint64(len(img))
	return &Image{Bytes: img, Size: n - min(n, uint64(r.Short)), Aligned: r.Mis == 0}
}

// childrenFor is the recipe's child count, raised to what the defect needs.
func childrenFor(r ImageRecipe) int {
	c := int(r.C)
	switch r.Defect {
	case DefFuncIDRange, DefChildOffset, DefChildSigCount, DefChildBinary, DefFuncIDNeg, DefChildGap, DefChildSigCountNeg:
		c = max(c, 1)
	case DefFuncIDDup:
		c = max(c, 2)
	case DefChildHeader:
		c = min(c, 1023)
	}
	return c
}

func canonicalImage(r ImageRecipe) []byte {
	spec := abi.ChipCallableSpec{FuncName: funcNameBase, ConfigName: "conf", OmitScalarCount: r.NoSC}
	if r.X != 0 {
		spec.FuncName += "." + strconv.Itoa(int(r.X))
	}
	for i := 0; i < int(r.T); i++ {
		d := abi.DirIn
		if r.IO {
			d = [3]abi.ArgDirection{abi.DirIn, abi.DirOut, abi.DirInOut}[i%3]
		}
		spec.Signature = append(spec.Signature, d)
	}
	for i := 0; i < int(r.S); i++ {
		spec.Signature = append(spec.Signature, abi.DirScalar)
	}
	spec.Binary = make([]byte, r.B)
	for i := range spec.Binary {
		spec.Binary[i] = byte(i*7 + int(r.X))
	}
	for i := 0; i < childrenFor(r); i++ {
		spec.Children = append(spec.Children, abi.ChildKernel{FuncID: int32(i), Signature: []abi.ArgDirection{abi.DirIn},
			Binary: []byte{byte(i), 0xC0, 0xDE, byte(r.X), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}})
	}
	img, err := spec.Build()
	if err != nil {
		panic("op: recipe " + r.String() + ": " + err.Error())
	}
	return append([]byte(nil), img...)
}

// fieldDefects are the defects that set one field of the header.
var fieldDefects = map[ImgDefect][2]uint32{
	DefSigCount: {OffSigCount, 257}, DefFuncNameLen: {OffFuncLen, 64}, DefConfigNameLen: {OffCfgLen, 64},
	DefChildCount: {OffChildCount, 1025}, DefFuncIDRange: {offChildIDs, 1024}, DefSigCountNeg: {OffSigCount, 0xFFFFFFFF},
	DefChildCountNeg: {OffChildCount, 0xFFFFFFFF}, DefFuncIDNeg: {offChildIDs, 0xFFFFFFFF},
}

func applyDefect(img []byte, r ImageRecipe) {
	u32 := func(off int, v uint32) { le.PutUint32(img[off:], v) }
	get := func(off int) uint32 { return le.Uint32(img[off:]) }
	storage := uint32(len(img) - HeaderSize)
	if f, ok := fieldDefects[r.Defect]; ok {
		u32(int(f[0]), f[1])
	}
	neg := map[bool]uint32{true: 0xFFFFFFFF}[r.Defect == DefSigValueNeg || r.Defect == DefChildSigCountNeg] // -1
	switch r.Defect {
	case DefSigValue, DefSigValueNeg:
		if get(OffSigCount) == 0 {
			u32(OffSigCount, 1)
		}
		u32(0, max(4, neg)) // 4: the first value past INOUT
	case DefOrder:
		u32(OffSigCount, 2)
		u32(0, 0)
		u32(4, 1)
		u32(OffScalarCnt, 1)
	case DefScalars:
		u32(OffSigCount, 129)
		for i := 0; i < 129; i++ {
			u32(4*i, 0)
		}
		u32(OffScalarCnt, 129)
	case DefScalarCount:
		u32(OffScalarCnt, uint32(r.S)+1)
	case DefFuncNameNUL:
		img[offFuncName+int(get(OffFuncLen))] = 'z'
	case DefFuncNameEarly:
		img[offFuncName+1] = 0
	case DefBinarySize:
		u32(OffBinarySize, storage+1)
	case DefFuncIDDup:
		u32(offChildIDs+4, get(offChildIDs))
	case DefChildOffset:
		u32(OffChildOffs, get(OffChildOffs)+64)
	case DefChildHeader:
		n := get(OffChildCount)
		u32(offChildIDs+4*int(n), n)
		u32(OffChildOffs+4*int(n), (storage+63)&^63)
		u32(OffChildCount, n+1)
	case DefChildSigCount, DefChildSigCountNeg:
		u32(HeaderSize+int(get(OffChildOffs))+offCoreSigCnt, max(33, neg))
	case DefChildBinary:
		off := HeaderSize + int(get(OffChildOffs)) + offCoreBinSz
		u32(off, get(off)+1<<20)
	case DefConfigNameNUL:
		img[offCfgName+int(get(OffCfgLen))] = 'z'
	case DefFuncNameLong:
		// The byte at length 65 is func_name_len's own second byte, 0, and
		// none before it is NUL: only the length check (V-IMG.8) refuses.
		for i := 0; i < 64; i++ {
			img[offFuncName+i] = 'n'
		}
		u32(OffFuncLen, 65)
	case DefFuncNameFar:
		// The byte at func_name_len is the first byte after the span: only
		// a check of the length before that byte is read keeps it unread.
		u32(OffFuncLen, uint32(len(img)-offFuncName))
	}
}

// withChildGap inserts 64 zero bytes before child 0 and moves every child
// offset past them: the pieces still end where the storage does, and only
// child 0's offset breaks V-IMG step 5 (it is past align_up(used, 64)).
func withChildGap(img []byte) []byte {
	off := int(le.Uint32(img[OffChildOffs:]))
	at := HeaderSize + off
	out := make([]byte, 0, len(img)+64)
	out = append(out, img[:at]...)
	out = append(out, make([]byte, 64)...)
	out = append(out, img[at:]...)
	n := int(le.Uint32(out[OffChildCount:]))
	for i := 0; i < n; i++ {
		p := OffChildOffs + 4*i
		le.PutUint32(out[p:], le.Uint32(out[p:])+64)
	}
	return out
}

// Recorded bytes (an image, rank_ids, descriptor fields), kept
// process-wide by content so that a recipe naming them stays a comparable
// value.
var rawTable sync.Map // uint64 → []byte

// rawKey is the key of recorded bytes b (never 0: a zero key is no bytes).
func rawKey(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	k := h.Sum64()&^(0xFF<<56) | uint64(len(b)%251)<<56 | 1
	rawTable.LoadOrStore(k, append([]byte(nil), b...))
	return k
}

// rawBytes are the recorded bytes of key k.
func rawBytes(k uint64) []byte {
	if b, ok := rawTable.Load(k); ok {
		return b.([]byte)
	}
	return nil
}

// RawImage is the recipe of recorded image bytes b at an address mis bytes
// past a 16-byte boundary.
func RawImage(b []byte, mis int) ImageRecipe {
	return ImageRecipe{Base: ImgRaw, Raw: rawKey(b), Mis: uint8(mis % 16)}
}

// traceImage reads an IMG.
func traceImage(v tracevocab.Value) (ImageRecipe, error) {
	switch v.Variant {
	case "null":
		return ImageRecipe{Base: ImgNull}, nil
	case "trunc":
		var n uint64
		a := v.Uint(len(v.Fields) - 1)
		if len(v.Fields) == 2 {
			n = min(v.Uint(0), math.MaxUint32)
		}
		return ImageRecipe{Base: ImgRawTrunc, Raw: n, Mis: uint8(a % 16)}, nil
	case "raw":
		n := v.Uint(0)
		if uint64(len(v.Text(2))) != 2*n {
			return ImageRecipe{}, fmt.Errorf("bad img \"raw(%d,%d,%s)\": the hex is not N bytes", n, v.Uint(1), truncate(v.Text(2)))
		}
		return RawImage(hexBytes(v, 2), int(v.Uint(1)%64)), nil
	}
	return ImageRecipe{}, fmt.Errorf("img: %s: a variant this parser does not read", v.Variant)
}
