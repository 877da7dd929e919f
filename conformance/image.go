package conformance

import (
	"encoding/binary"
	"strconv"
	"sync"

	"github.com/simabi/simabi/abi"
)

var le = binary.LittleEndian

// Sizes the model uses, restated from docs/contract.md so that the model does not lean
// on the code it checks.
const (
	headerSize   = 9376    // sizeof(ChipCallable)
	childHeader  = 192     // a child's code starts 192 bytes into it
	maxIDs       = 8192    // MAX_REGISTERED_CALLABLE_IDS
	blockBytes   = 2 << 20 // M-5 shared block
	budgetBytes  = 2 << 30 // M-5 budget
	chargeAlign  = 64      // M-5 charge granularity
	hugeSize     = budgetBytes + 64
	wrapSize     = 2 * headerSize // ImgWrap's size: past the top of the address space
	funcNameBase = "conformance.nop"
)

// Field offsets of docs/contract.md's ChipCallable layout, restated.
const (
	offSigCount   = 1024
	offBinarySize = 1028
	offFuncName   = 1032
	offFuncLen    = 1096
	offChildIDs   = 1100
	offChildOffs  = 5196
	offChildCount = 9292
	offCfgName    = 9296
	offCfgLen     = 9360
	offScalarCnt  = 9364
	offCoreSigCnt = 128
	offCoreBinSz  = 132
)

// imageFacts is what the model knows about a recipe: the bytes passed and
// what V-PREP-2 and V-IMG (the model's own reading of docs/contract.md) make of them.
type imageFacts struct {
	image   []byte // the canonical image with the defect and poke applied, Long zero bytes appended
	size    uint64 // the size passed
	null    bool
	huge    bool
	wrap    bool // the span wraps past the top of the address space (ImgWrap)
	aligned bool
	valid   bool   // V-IMG
	lenient bool   // V-IMG with the stored scalar_count ignored (docs/contract.md: tolerated)
	t, s    int32  // counts derived from the signature, when valid or lenient
	charge  uint64 // M-5: align_up(size, 64)
	defect  string // V-IMG's first defect, for reports
	user    bool   // the user's callable (its bytes are the runner's)
	unknown bool   // the bytes are not known (an image over a trace's recording limit)
}

// rawFacts are the facts of recorded image bytes.
func rawFacts(img []byte, aligned bool) *imageFacts {
	f := &imageFacts{image: img, size: uint64(len(img)), aligned: aligned}
	f.charge = (f.size + chargeAlign - 1) &^ (chargeAlign - 1)
	if f.size >= headerSize {
		f.valid, f.t, f.s, f.defect = checkImage(f.passed(), false)
		if !f.valid {
			f.lenient, f.t, f.s, _ = checkImage(f.passed(), true)
		}
	} else {
		f.defect = "shorter than sizeof(ChipCallable)"
	}
	return f
}

// passed is the span the call hands over.
func (f *imageFacts) passed() []byte { return f.image[:f.size] }

var imageCache sync.Map // ImageRecipe → *imageFacts

// factsOf builds (once) and returns the facts of a recipe.
func factsOf(r ImageRecipe) *imageFacts {
	if f, ok := imageCache.Load(r); ok {
		return f.(*imageFacts)
	}
	f := buildFacts(r)
	actual, _ := imageCache.LoadOrStore(r, f)
	return actual.(*imageFacts)
}

func buildFacts(r ImageRecipe) *imageFacts {
	switch r.Base {
	case ImgNull:
		return &imageFacts{null: true, size: headerSize, aligned: true, defect: "NULL callable"}
	case ImgHuge:
		return &imageFacts{huge: true, size: hugeSize, aligned: true, charge: hugeSize, defect: "size exceeds the budget"}
	case ImgWrap:
		return &imageFacts{wrap: true, size: wrapSize, aligned: true, charge: wrapSize, defect: "the address plus the size wraps"}
	case ImgProgram:
		// The synthetic program callable; a user's callable replaces it at
		// the runner (Model.programFacts).
		return buildFacts(ImageRecipe{})
	case ImgRaw:
		return rawFacts(rawBytes(r), r.Mis == 0)
	case ImgRawTrunc:
		if r.Raw > budgetBytes {
			// Not recorded, but its size alone decides: E-PREP's first
			// budget step comes before V-IMG.
			return &imageFacts{huge: true, size: r.Raw, aligned: r.Mis == 0, charge: r.Raw, defect: "size exceeds the budget"}
		}
		// Not recorded: only its size is known (the call is not judged).
		return &imageFacts{size: r.Raw, aligned: r.Mis == 0, unknown: true, defect: "not recorded"}
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
	f := &imageFacts{image: img, size: uint64(len(img)), aligned: r.Mis == 0}
	if uint64(r.Short) >= f.size {
		f.size = 0
	} else {
		f.size -= uint64(r.Short)
	}
	f.charge = (f.size + chargeAlign - 1) &^ (chargeAlign - 1)
	if f.size >= headerSize {
		var d string
		f.valid, f.t, f.s, d = checkImage(f.passed(), false)
		f.defect = d
		if !f.valid {
			f.lenient, f.t, f.s, _ = checkImage(f.passed(), true)
		}
	} else {
		f.defect = "shorter than sizeof(ChipCallable)"
	}
	return f
}

// childrenFor is the child count the builder uses: the recipe's, raised to
// what the defect needs.
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
		panic("conformance: recipe " + r.String() + ": " + err.Error())
	}
	// Build's buffer is aligned; the runner copies into its own.
	return append([]byte(nil), img...)
}

func applyDefect(img []byte, r ImageRecipe) {
	u32 := func(off int, v uint32) { le.PutUint32(img[off:], v) }
	get := func(off int) uint32 { return le.Uint32(img[off:]) }
	storage := uint32(len(img) - headerSize)
	switch r.Defect {
	case DefSigCount:
		u32(offSigCount, 257)
	case DefSigValue:
		if get(offSigCount) == 0 {
			u32(offSigCount, 1)
		}
		u32(0, 4) // the first value past INOUT
	case DefOrder:
		u32(offSigCount, 2)
		u32(0, 0)
		u32(4, 1)
		u32(offScalarCnt, 1)
	case DefScalars:
		u32(offSigCount, 129)
		for i := 0; i < 129; i++ {
			u32(4*i, 0)
		}
		u32(offScalarCnt, 129)
	case DefScalarCount:
		u32(offScalarCnt, uint32(r.S)+1)
	case DefFuncNameLen:
		u32(offFuncLen, 64)
	case DefFuncNameNUL:
		img[offFuncName+int(get(offFuncLen))] = 'z'
	case DefFuncNameEarly:
		img[offFuncName+1] = 0
	case DefConfigNameLen:
		u32(offCfgLen, 64)
	case DefBinarySize:
		u32(offBinarySize, storage+1)
	case DefChildCount:
		u32(offChildCount, 1025)
	case DefFuncIDRange:
		u32(offChildIDs, 1024)
	case DefFuncIDDup:
		u32(offChildIDs+4, get(offChildIDs))
	case DefChildOffset:
		u32(offChildOffs, get(offChildOffs)+64)
	case DefChildHeader:
		n := get(offChildCount)
		u32(offChildIDs+4*int(n), n)
		u32(offChildOffs+4*int(n), (storage+63)&^63)
		u32(offChildCount, n+1)
	case DefChildSigCount:
		u32(headerSize+int(get(offChildOffs))+offCoreSigCnt, 33)
	case DefChildBinary:
		off := headerSize + int(get(offChildOffs)) + offCoreBinSz
		u32(off, get(off)+1<<20)
	case DefSigCountNeg:
		u32(offSigCount, 0xFFFFFFFF)
	case DefSigValueNeg:
		if get(offSigCount) == 0 {
			u32(offSigCount, 1)
		}
		u32(0, 0xFFFFFFFF)
	case DefConfigNameNUL:
		img[offCfgName+int(get(offCfgLen))] = 'z'
	case DefChildCountNeg:
		u32(offChildCount, 0xFFFFFFFF)
	case DefFuncIDNeg:
		u32(offChildIDs, 0xFFFFFFFF)
	case DefChildSigCountNeg:
		u32(headerSize+int(get(offChildOffs))+offCoreSigCnt, 0xFFFFFFFF)
	case DefFuncNameFar:
		// The byte at func_name_len is the first byte after the span: only
		// a check of the length before that byte is read keeps it unread.
		u32(offFuncLen, uint32(len(img)-offFuncName))
	}
}

// withChildGap inserts 64 zero bytes before child 0 and moves every child
// offset past them: the pieces still end where the storage does, and only
// child 0's offset breaks V-IMG step 5 (it is past align_up(used, 64)).
func withChildGap(img []byte) []byte {
	off := int(le.Uint32(img[offChildOffs:]))
	at := headerSize + off
	out := make([]byte, 0, len(img)+64)
	out = append(out, img[:at]...)
	out = append(out, make([]byte, 64)...)
	out = append(out, img[at:]...)
	n := int(le.Uint32(out[offChildCount:]))
	for i := 0; i < n; i++ {
		p := offChildOffs + 4*i
		le.PutUint32(out[p:], le.Uint32(out[p:])+64)
	}
	return out
}

// checkImage is V-IMG as docs/contract.md states it, over an image of exactly
// len(img) bytes (>= 9376) at an address that does not wrap. With
// ignoreStoredScalars the stored scalar_count is not compared (the tolerated
// alternative). It returns the derived counts.
func checkImage(img []byte, ignoreStoredScalars bool) (ok bool, tensors, scalars int32, defect string) {
	u32 := func(off int) uint32 { return le.Uint32(img[off:]) }
	// Step 2: the signature.
	n := int32(u32(offSigCount))
	if n < 0 || n > 256 {
		return false, 0, 0, "sig_count " + strconv.Itoa(int(n))
	}
	for i := 0; i < int(n); i++ {
		switch d := int32(u32(4 * i)); {
		case d < 0 || d > 3:
			return false, 0, 0, "signature value " + strconv.Itoa(int(d))
		case d == 0:
			scalars++
		case scalars > 0:
			return false, 0, 0, "tensor entry after a scalar entry"
		default:
			tensors++
		}
	}
	if scalars > 128 {
		return false, 0, 0, "more than 128 scalars"
	}
	if stored := int32(u32(offScalarCnt)); !ignoreStoredScalars && stored != 0 && stored != scalars {
		return false, 0, 0, "stored scalar_count " + strconv.Itoa(int(stored)) + " != " + strconv.Itoa(int(scalars))
	}
	// Step 3: the names.
	for _, nm := range [2][2]int{{offFuncName, offFuncLen}, {offCfgName, offCfgLen}} {
		l := u32(nm[1])
		if l >= 64 || img[nm[0]+int(l)] != 0 {
			return false, 0, 0, "name length or terminator"
		}
		for _, c := range img[nm[0] : nm[0]+int(l)] {
			if c == 0 {
				return false, 0, 0, "NUL inside a name"
			}
		}
	}
	// Step 4.
	storage := uint64(len(img) - headerSize)
	used := uint64(u32(offBinarySize))
	if used > storage {
		return false, 0, 0, "binary_size exceeds storage"
	}
	cc := int32(u32(offChildCount))
	if cc < 0 || cc > 1024 {
		return false, 0, 0, "child_count " + strconv.Itoa(int(cc))
	}
	// Step 5.
	var seen [1024]bool
	for i := 0; i < int(cc); i++ {
		fid := int32(u32(offChildIDs + 4*i))
		if fid < 0 || fid >= 1024 || seen[fid] {
			return false, 0, 0, "child func_id out of range or repeated"
		}
		seen[fid] = true
		off := uint64(u32(offChildOffs + 4*i))
		if off != (used+63)&^63 {
			return false, 0, 0, "child offset not align_up(used, 64)"
		}
		if off+childHeader > storage {
			return false, 0, 0, "child header does not fit"
		}
		child := img[headerSize+off:]
		if sc := int32(le.Uint32(child[offCoreSigCnt:])); sc < 0 || sc > 32 {
			return false, 0, 0, "child sig_count " + strconv.Itoa(int(sc))
		}
		bin := uint64(le.Uint32(child[offCoreBinSz:]))
		if bin > storage-off-childHeader {
			return false, 0, 0, "child binary does not fit"
		}
		used = off + childHeader + bin
	}
	// Step 6.
	if used != storage {
		return false, 0, 0, "trailing bytes after the last piece"
	}
	return true, tensors, scalars, ""
}
