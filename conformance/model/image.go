package model

import (
	"encoding/binary"
	"strconv"

	"github.com/simabi/simabi/conformance/op"
)

var le = binary.LittleEndian

// Sizes the model uses, restated from docs/contract.md so that the model does not lean
// on the code it checks.
const (
	headerSize  = 9376    // sizeof(ChipCallable)
	childHeader = 192     // a child's code starts 192 bytes into it
	MaxIDs      = 8192    // MAX_REGISTERED_CALLABLE_IDS: the ids one context may hold (M-4)
	blockBytes  = 2 << 20 // M-5 shared block
	budgetBytes = 2 << 30 // M-5 budget
	chargeAlign = 64      // M-5 charge granularity
)

// Field offsets of docs/contract.md's ChipCallable layout, restated here
// rather than taken from conformance/op, which builds the images: the model
// reads an image on its own, so a wrong offset on one side shows.
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

// passed is the span the call hands over.
func (f *imageFacts) passed() []byte { return f.image[:f.size] }

var imageCache op.RecipeMemo[*imageFacts]

// factsOf builds (once) and returns the facts of a recipe.
func factsOf(r ImageRecipe) *imageFacts { return imageCache.Get(r, buildFacts) }

// buildFacts is the model's reading of what recipe r passes.
func buildFacts(r ImageRecipe) *imageFacts {
	im := op.ImageOf(r)
	switch {
	case im.Null:
		return &imageFacts{null: true, size: im.Size, aligned: true, defect: "NULL callable"}
	case im.Huge:
		return &imageFacts{huge: true, size: im.Size, aligned: true, charge: im.Size, defect: "size exceeds the budget"}
	case im.Wrap:
		return &imageFacts{wrap: true, size: im.Size, aligned: true, charge: im.Size, defect: "the address plus the size wraps"}
	case im.Truncated && im.Size > budgetBytes:
		// Not recorded, but its size alone decides: E-PREP's first budget
		// step comes before V-IMG.
		return &imageFacts{huge: true, size: im.Size, aligned: im.Aligned, charge: im.Size, defect: "size exceeds the budget"}
	case im.Truncated:
		// Not recorded: only its size is known (the call is not judged).
		return &imageFacts{size: im.Size, aligned: im.Aligned, unknown: true, defect: "not recorded"}
	}
	f := &imageFacts{image: im.Bytes, size: im.Size, aligned: im.Aligned}
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
