package validation

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/simabi/simabi/abi"
)

var le = binary.LittleEndian

// ImageStep is the V-IMG step (1..6) a defect belongs to; 0 means no defect.
type ImageStep uint8

// ImageDefect says which check of V-IMG refused an image.
type ImageDefect uint8

// Defects, in V-IMG order.
const (
	DefectNone                ImageDefect = iota
	DefectWraps                           // 1: address + size wraps
	DefectShort                           // 1: the span cannot hold the 9376-byte header
	DefectSigCount                        // 2: sig_count outside [0, 256]
	DefectSigValue                        // 2: a signature entry outside {0,1,2,3}
	DefectTensorAfterScalar               // 2: a tensor entry follows a scalar
	DefectTooManyScalars                  // 2: more than 128 scalars
	DefectScalarCountMismatch             // 2: nonzero stored scalar_count != SCALAR entries
	DefectFuncName                        // 3: func_name_len >= 64, no NUL at the length, or a NUL before it
	DefectConfigName                      // 3: the same for config_name
	DefectBinarySize                      // 4: binary_size > storage_size
	DefectChildCount                      // 4: child_count outside [0, 1024]
	DefectChildFuncID                     // 5: func_id outside [0, 1024)
	DefectChildFuncIDRepeated             // 5: func_id repeated in the image
	DefectChildOffset                     // 5: child offset != align_up(used, 64)
	DefectChildHeader                     // 5: the 192-byte child header does not fit
	DefectChildSigCount                   // 5: child sig_count outside [0, 32]
	DefectChildBinary                     // 5: the child binary does not fit
	DefectTrailingBytes                   // 6: the pieces end before the span does
)

var defectText = [...]string{
	DefectNone:                "none",
	DefectWraps:               "address + size wraps",
	DefectShort:               "span shorter than the 9376-byte header",
	DefectSigCount:            "sig_count outside [0, 256]",
	DefectSigValue:            "signature entry outside {SCALAR, IN, OUT, INOUT}",
	DefectTensorAfterScalar:   "tensor entry after a scalar entry",
	DefectTooManyScalars:      "more than 128 scalar entries",
	DefectScalarCountMismatch: "stored scalar_count differs from the SCALAR entries",
	DefectFuncName:            "func_name length or NUL placement",
	DefectConfigName:          "config_name length or NUL placement",
	DefectBinarySize:          "binary_size exceeds storage",
	DefectChildCount:          "child_count outside [0, 1024]",
	DefectChildFuncID:         "child func_id outside [0, 1024)",
	DefectChildFuncIDRepeated: "child func_id repeated",
	DefectChildOffset:         "child offset is not align_up(running end, 64)",
	DefectChildHeader:         "child header does not fit",
	DefectChildSigCount:       "child sig_count outside [0, 32]",
	DefectChildBinary:         "child binary does not fit",
	DefectTrailingBytes:       "trailing bytes after the last piece",
}

var defectStep = [...]ImageStep{0, 1, 1, 2, 2, 2, 2, 2, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5, 6}

func (d ImageDefect) String() string {
	if int(d) < len(defectText) {
		return defectText[d]
	}
	return "unknown defect"
}

// Step is the V-IMG step the defect belongs to.
func (d ImageDefect) Step() ImageStep {
	if int(d) < len(defectStep) {
		return defectStep[d]
	}
	return 0
}

// ImageReport locates the first defect of an image: which check, and for the
// per-child checks which child.
type ImageReport struct {
	Defect ImageDefect
	Child  int // the child index for step-5 defects, else -1
}

func (r ImageReport) Error() string {
	if r.Child >= 0 {
		return fmt.Sprintf("V-IMG step %d: child %d: %s", r.Defect.Step(), r.Child, r.Defect)
	}
	return fmt.Sprintf("V-IMG step %d: %s", r.Defect.Step(), r.Defect)
}

// Image is V-IMG over img, the whole span of exactly callable_size bytes, at
// the address img occupies: INVALID_ARGUMENT on any defect, OK otherwise.
// Nothing outside img is read and nothing is allocated.
func Image(img []byte) abi.Status {
	var addr uintptr
	if len(img) > 0 {
		addr = uintptr(unsafe.Pointer(unsafe.SliceData(img)))
	}
	return ImageAt(addr, img)
}

// ImageAt is V-IMG for an image whose bytes are img and whose C address is
// addr (step 1 checks addr + len(img) for wrap-around).
func ImageAt(addr uintptr, img []byte) abi.Status {
	if r := CheckImageAt(addr, img); r.Defect != DefectNone {
		return abi.InvalidArgument
	}
	return abi.OK
}

// ImageSpanWraps is V-IMG step 1 alone, for callers that must refuse a span
// before they can form a slice over it.
func ImageSpanWraps(addr uintptr, size uint64) bool {
	return uint64(addr)+size < uint64(addr)
}

// CheckImageAt runs V-IMG and reports its first defect.
func CheckImageAt(addr uintptr, img []byte) ImageReport {
	size := uint64(len(img))
	if ImageSpanWraps(addr, size) {
		return ImageReport{DefectWraps, -1}
	}
	if size < abi.ChipCallableSize {
		return ImageReport{DefectShort, -1}
	}

	// Step 2: the signature.
	sigCount := int32(le.Uint32(img[abi.ChipSigCountOff:]))
	if sigCount < 0 || sigCount > abi.ChipMaxTensorArgs {
		return ImageReport{DefectSigCount, -1}
	}
	scalars, seenScalar := 0, false
	for i := 0; i < int(sigCount); i++ {
		d := abi.ArgDirection(int32(le.Uint32(img[abi.ChipSignatureOff+4*i:])))
		switch {
		case !d.Valid():
			return ImageReport{DefectSigValue, -1}
		case d == abi.DirScalar:
			seenScalar = true
			scalars++
		case seenScalar:
			return ImageReport{DefectTensorAfterScalar, -1}
		}
	}
	if scalars > abi.ChipMaxScalarArgs {
		return ImageReport{DefectTooManyScalars, -1}
	}
	if stored := int32(le.Uint32(img[abi.ChipScalarCountOff:])); stored != 0 && stored != int32(scalars) {
		return ImageReport{DefectScalarCountMismatch, -1}
	}

	// Step 3: the names.
	if !nameOK(img[abi.ChipFuncNameOff:abi.ChipFuncNameOff+abi.CallableFuncNameMax], le.Uint32(img[abi.ChipFuncNameLenOff:])) {
		return ImageReport{DefectFuncName, -1}
	}
	if !nameOK(img[abi.ChipConfigNameOff:abi.ChipConfigNameOff+abi.CallableFuncNameMax], le.Uint32(img[abi.ChipConfigNameLenOff:])) {
		return ImageReport{DefectConfigName, -1}
	}

	// Step 4: the orchestration binary and the child count.
	storage := size - abi.ChipStorageOff
	binSize := uint64(le.Uint32(img[abi.ChipBinarySizeOff:]))
	if binSize > storage {
		return ImageReport{DefectBinarySize, -1}
	}
	childCount := int32(le.Uint32(img[abi.ChipChildCountOff:]))
	if childCount < 0 || childCount > abi.MaxChildren {
		return ImageReport{DefectChildCount, -1}
	}

	// Step 5: each child, with a running end. Every subtraction below is of a
	// value already proven not to exceed the minuend.
	var seen [abi.KernelMaxFuncID / 64]uint64
	used := binSize
	for i := 0; i < int(childCount); i++ {
		fid := int32(le.Uint32(img[abi.ChipChildFuncIDsOff+4*i:]))
		if fid < 0 || fid >= abi.KernelMaxFuncID {
			return ImageReport{DefectChildFuncID, i}
		}
		if seen[fid/64]&(1<<(fid%64)) != 0 {
			return ImageReport{DefectChildFuncIDRepeated, i}
		}
		seen[fid/64] |= 1 << (fid % 64)
		off := uint64(le.Uint32(img[abi.ChipChildOffsetsOff+4*i:]))
		if off != abi.AlignUp(used, abi.CallableAlign) {
			return ImageReport{DefectChildOffset, i}
		}
		if off > storage || storage-off < abi.CoreCodeOffset {
			return ImageReport{DefectChildHeader, i}
		}
		child := img[abi.ChipStorageOff+off:]
		csc := int32(le.Uint32(child[abi.CoreSigCountOff:]))
		if csc < 0 || csc > abi.CoreMaxTensorArgs {
			return ImageReport{DefectChildSigCount, i}
		}
		cbin := uint64(le.Uint32(child[abi.CoreBinarySizeOff:]))
		if cbin > storage-off-abi.CoreCodeOffset {
			return ImageReport{DefectChildBinary, i}
		}
		used = off + abi.CoreCodeOffset + cbin
	}

	// Step 6: nothing after the last piece.
	if used != storage {
		return ImageReport{DefectTrailingBytes, -1}
	}
	return ImageReport{DefectNone, -1}
}

// nameOK is V-IMG step 3 for one 64-byte name array.
func nameOK(arr []byte, n uint32) bool {
	if n >= abi.CallableFuncNameMax || arr[n] != 0 {
		return false
	}
	for _, c := range arr[:n] {
		if c == 0 {
			return false
		}
	}
	return true
}

// SignatureCounts derives (tensors, scalars) from an image's signature, as
// launch compares them with args (E-LAUNCH). It assumes img passed V-IMG.
func SignatureCounts(img []byte) (tensors, scalars int32) {
	n := int32(le.Uint32(img[abi.ChipSigCountOff:]))
	for i := 0; i < int(n); i++ {
		if abi.ArgDirection(int32(le.Uint32(img[abi.ChipSignatureOff+4*i:]))) == abi.DirScalar {
			scalars++
		} else {
			tensors++
		}
	}
	return tensors, scalars
}
