package model

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/simabi/simabi/conformance/op"
)

var le = binary.LittleEndian

// Sizes restated from docs/contract.md: the model does not lean on the code it checks.
const (
	headerSize  = 9376    // sizeof(ChipCallable)
	childHeader = 192     // a child's code starts 192 bytes into it
	MaxIDs      = 8192    // MAX_REGISTERED_CALLABLE_IDS: the ids one context may hold (M-4)
	blockBytes  = 2 << 20 // M-5 shared block
	budgetBytes = 2 << 30 // M-5 budget
	chargeAlign = 64      // M-5 charge granularity
)

// docs/contract.md's ChipCallable layout, restated rather than taken from
// conformance/op, which builds the images: a wrong offset on one side shows.
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
		f.valid, f.t, f.s, f.defect = checkImage(f.passed(), false)
		if !f.valid {
			f.lenient, f.t, f.s, _ = checkImage(f.passed(), true)
		}
	} else {
		f.defect = "shorter than sizeof(ChipCallable)"
	}
	return f
}

// checkImage is V-IMG over an image of exactly len(img) bytes (>= 9376)
// at an address that does not wrap: the first clause it meets decides
// (V-IMG.7 left out with ignoreStoredScalars, the tolerated alternative).
// It returns the counts the signature derives.
func checkImage(img []byte, ignoreStoredScalars bool) (ok bool, tensors, scalars int32, defect string) {
	for _, h := range (imgSpan{b: img, size: uint64(len(img))}).hits() {
		if h.k != 7 || !ignoreStoredScalars {
			return false, 0, 0, h.why
		}
	}
	for i := range int(le.Uint32(img[offSigCount:])) {
		if le.Uint32(img[4*i:]) == 0 {
			scalars++
		} else {
			tensors++
		}
	}
	return true, tensors, scalars, ""
}

// V-IMG's clauses, each read on its own (Refusers): the text of each
// clause that refuses an image (V-IMG.2 to V-IMG.19), restated from
// docs/contract.md.
var imgClauseText = [20]string{
	2:  "the address plus the size wraps",
	3:  "sig_count outside [0, 256]",
	4:  "a signature value outside 0..3",
	5:  "a tensor entry after a scalar entry",
	6:  "more than 128 scalars",
	7:  "a stored scalar_count other than the scalars",
	8:  "a name length of 64 or more",
	9:  "no NUL at a name's length",
	10: "a NUL inside a name",
	11: "binary_size past the storage",
	12: "child_count outside [0, 1024]",
	13: "a child func_id outside [0, 1024)",
	14: "a child func_id repeated",
	15: "a child offset other than align_up(used, 64)",
	16: "a child header past the storage",
	17: "a child sig_count outside [0, 32]",
	18: "a child binary past the storage",
	19: "bytes after the last piece",
}

var imgClauseCache op.RecipeMemo[[]int]

// imageClauses are the V-IMG clauses that each alone refuse what recipe r
// passes, in the order V-IMG meets them (nil: none, or bytes not known). A
// clause alone is V-IMG with every other check left out; a read that would
// leave the span (which those guard) ends it without a refusal.
func imageClauses(r ImageRecipe) []int { return imgClauseCache.Get(r, buildImageClauses) }

func buildImageClauses(r ImageRecipe) []int {
	f := factsOf(r)
	switch {
	case f.wrap:
		return []int{2}
	case f.null, f.unknown, f.user, f.size < headerSize:
		return nil
	}
	sp := imgSpan{size: f.size}
	if !f.huge {
		sp.b = f.passed()
	} // a huge image is zero memory
	return sp.clauses()
}

// hits are where V-IMG meets each clause that alone refuses the span (at
// least a header long), in that order.
func (sp imgSpan) hits() []imgPos {
	var hs []imgPos
	for k := 3; k <= 19; k++ {
		if pos, ok := sp.refusesAlone(k); ok {
			hs = append(hs, pos)
		}
	}
	slices.SortStableFunc(hs, imgPos.cmp)
	return hs
}

// clauses are the V-IMG clauses of hits.
func (sp imgSpan) clauses() []int {
	var out []int
	for _, h := range sp.hits() {
		out = append(out, int(h.k))
	}
	return out
}

// imgPos is where V-IMG's walk is: the step, the entry, name or child of
// the step's loop (-1 before it, a large value after it), and the clause;
// why is the defect as a report words it.
type imgPos struct {
	step, at, k int64
	why         string
}

func (p imgPos) cmp(o imgPos) int {
	switch {
	case p.step != o.step:
		return cmp.Compare(p.step, o.step)
	case p.at != o.at:
		return cmp.Compare(p.at, o.at)
	}
	return cmp.Compare(p.k, o.k)
}

// afterLoop is imgPos.at past a step's loop.
const afterLoop = 1 << 40

// imgSpan is the span prepare passes: size bytes, b's (nil: all zero).
type imgSpan struct {
	b    []byte
	size uint64
}

// u32 reads the little-endian word at off, false when it leaves the span.
func (s imgSpan) u32(off uint64) (uint32, bool) {
	if off+4 > s.size || off+4 < off {
		return 0, false
	}
	if s.b == nil {
		return 0, true
	}
	return le.Uint32(s.b[off:]), true
}

// at reads the byte at off, false when it leaves the span.
func (s imgSpan) at(off uint64) (byte, bool) {
	if off >= s.size {
		return 0, false
	}
	if s.b == nil {
		return 0, true
	}
	return s.b[off], true
}

// namesAlone is refusesAlone of V-IMG.8 to V-IMG.10, step 3: the names
// (no clause past step 2 refuses a span whose clauses 3 to 10 pass).
func (s imgSpan) namesAlone(k int) (imgPos, bool) {
	for i, nm := range [2][2]uint64{{offFuncName, offFuncLen}, {offCfgName, offCfgLen}} {
		l, _ := s.u32(nm[1])
		if b, ok := s.at(nm[0] + uint64(l)); k == 8 && l >= 64 || k == 9 && ok && b != 0 {
			return imgPos{3, int64(i), int64(k), "name length or terminator"}, true
		}
		for j := uint64(0); k == 10 && j < uint64(l); j++ {
			c, ok := s.at(nm[0] + j)
			if !ok {
				return imgPos{}, false
			}
			if c == 0 {
				return imgPos{3, int64(i), int64(k), "NUL inside a name"}, true
			}
		}
	}
	return imgPos{}, false
}

// refusesAlone reports whether V-IMG with only clause k checked refuses
// the span, and where (V-IMG.3 to V-IMG.19; the span is at least a header
// long).
func (s imgSpan) refusesAlone(k int) (imgPos, bool) {
	kk := int64(k)
	at := func(step, i int64, why string) (imgPos, bool) { return imgPos{step, i, kk, why}, true }
	itoa := func(v int64) string { return strconv.FormatInt(v, 10) }
	storage := s.size - headerSize
	// Step 2: the signature.
	v, ok := s.u32(offSigCount)
	if !ok {
		return imgPos{}, false
	}
	n := int64(int32(v))
	if k == 3 && (n < 0 || n > 256) {
		return at(2, -1, "sig_count "+itoa(n))
	}
	var scalars int64
	for i := int64(0); i < n; i++ {
		w, ok := s.u32(uint64(4 * i))
		d := int32(w)
		switch {
		case !ok:
			return imgPos{}, false
		case k == 4 && (d < 0 || d > 3):
			return at(2, i, "signature value "+itoa(int64(d)))
		case d == 0:
			scalars++
		case scalars > 0 && k == 5:
			return at(2, i, "tensor entry after a scalar entry")
		}
	}
	if k == 6 && scalars > 128 {
		return at(2, afterLoop, "more than 128 scalars")
	}
	if v, ok = s.u32(offScalarCnt); !ok {
		return imgPos{}, false
	}
	if stored := int64(int32(v)); k == 7 && stored != 0 && stored != scalars {
		return at(2, afterLoop, "stored scalar_count "+itoa(stored)+" != "+itoa(scalars))
	}
	if k <= 10 {
		return s.namesAlone(k)
	}
	// Step 4.
	v, _ = s.u32(offBinarySize)
	used := uint64(v)
	if k == 11 && used > storage {
		return at(4, 0, "binary_size exceeds storage")
	}
	v, _ = s.u32(offChildCount)
	cc := int64(int32(v))
	if k == 12 && (cc < 0 || cc > 1024) {
		return at(4, 0, "child_count "+itoa(cc))
	}
	// Step 5.
	seen := map[int32]bool{}
	for i := int64(0); i < cc; i++ {
		w, ok1 := s.u32(offChildIDs + uint64(4*i))
		o, ok2 := s.u32(offChildOffs + uint64(4*i))
		if !ok1 || !ok2 {
			return imgPos{}, false
		}
		fid, off := int32(w), uint64(o)
		switch {
		case k == 13 && (fid < 0 || fid >= 1024), k == 14 && seen[fid]:
			return at(5, i, "child func_id out of range or repeated")
		case k == 15 && off != (used+63)&^63:
			return at(5, i, "child offset not align_up(used, 64)")
		case k == 16 && off+childHeader > storage:
			return at(5, i, "child header does not fit")
		}
		seen[fid] = true
		sc, ok1 := s.u32(headerSize + off + offCoreSigCnt)
		bin, ok2 := s.u32(headerSize + off + offCoreBinSz)
		if !ok1 || !ok2 {
			return imgPos{}, false
		}
		switch {
		case k == 17 && (int32(sc) < 0 || int32(sc) > 32):
			return at(5, i, "child sig_count "+itoa(int64(int32(sc))))
		case k == 18 && off+childHeader+uint64(bin) > storage:
			return at(5, i, "child binary does not fit")
		}
		used = off + childHeader + uint64(bin)
	}
	// Step 6.
	if k == 19 && used != storage {
		return at(6, 0, "trailing bytes after the last piece")
	}
	return imgPos{}, false
}
