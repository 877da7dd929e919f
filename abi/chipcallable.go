package abi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

var le = binary.LittleEndian

// ChildKernel is one CoreCallable child of a ChipCallable image.
type ChildKernel struct {
	FuncID int32
	// Signature holds the child's signature entries (at most 32). Child
	// signature values are not validated (V-IMG does not inspect them).
	Signature []ArgDirection
	Binary    []byte
}

// ChipCallableSpec describes a ChipCallable image. Build produces the canonical
// image byte-exactly (docs/contract.md "ChipCallable"): a zero-filled 9376-byte header,
// the orchestration binary at storage offset 0, then each child (192-byte
// header + code) at align_up(running end, 64), nothing after the last piece.
type ChipCallableSpec struct {
	Signature  []ArgDirection
	FuncName   string
	ConfigName string
	Binary     []byte
	Children   []ChildKernel
	// OmitScalarCount stores 0 ("not recorded") at offset 9364 instead of the
	// number of SCALAR signature entries.
	OmitScalarCount bool
}

// ErrSpec reports a ChipCallableSpec that cannot be built into a canonical
// image.
var ErrSpec = errors.New("abi: invalid ChipCallable spec")

// ScalarCount is the number of SCALAR entries of the signature.
func (s *ChipCallableSpec) ScalarCount() int {
	n := 0
	for _, d := range s.Signature {
		if d == DirScalar {
			n++
		}
	}
	return n
}

// TensorCount is the number of tensor entries of the signature.
func (s *ChipCallableSpec) TensorCount() int { return len(s.Signature) - s.ScalarCount() }

// Size is the size of the canonical image: 9376 + the end of the last piece.
func (s *ChipCallableSpec) Size() (int, error) {
	if err := s.check(); err != nil {
		return 0, err
	}
	used := uint64(len(s.Binary))
	for _, c := range s.Children {
		used = AlignUp(used, CallableAlign) + CoreCodeOffset + uint64(len(c.Binary))
	}
	if used > 1<<32-1-ChipStorageOff {
		return 0, fmt.Errorf("%w: image of %d storage bytes does not fit uint32 offsets", ErrSpec, used)
	}
	return ChipStorageOff + int(used), nil
}

func (s *ChipCallableSpec) check() error {
	if len(s.Signature) > ChipMaxTensorArgs {
		return fmt.Errorf("%w: %d signature entries (max %d)", ErrSpec, len(s.Signature), ChipMaxTensorArgs)
	}
	seenScalar := false
	for i, d := range s.Signature {
		if !d.Valid() {
			return fmt.Errorf("%w: signature[%d] = %d", ErrSpec, i, d)
		}
		if d == DirScalar {
			seenScalar = true
		} else if seenScalar {
			return fmt.Errorf("%w: tensor entry %d follows a scalar", ErrSpec, i)
		}
	}
	if n := s.ScalarCount(); n > ChipMaxScalarArgs {
		return fmt.Errorf("%w: %d scalars (max %d)", ErrSpec, n, ChipMaxScalarArgs)
	}
	for _, n := range []struct{ what, v string }{{"func name", s.FuncName}, {"config name", s.ConfigName}} {
		if len(n.v) >= CallableFuncNameMax {
			return fmt.Errorf("%w: %s of %d bytes (max %d)", ErrSpec, n.what, len(n.v), CallableFuncNameMax-1)
		}
		if strings.IndexByte(n.v, 0) >= 0 {
			return fmt.Errorf("%w: %s contains a NUL byte", ErrSpec, n.what)
		}
	}
	if len(s.Children) > MaxChildren {
		return fmt.Errorf("%w: %d children (max %d)", ErrSpec, len(s.Children), MaxChildren)
	}
	var seen [KernelMaxFuncID]bool
	for i, c := range s.Children {
		if c.FuncID < 0 || c.FuncID >= KernelMaxFuncID {
			return fmt.Errorf("%w: child %d func id %d outside [0, %d)", ErrSpec, i, c.FuncID, KernelMaxFuncID)
		}
		if seen[c.FuncID] {
			return fmt.Errorf("%w: child %d repeats func id %d", ErrSpec, i, c.FuncID)
		}
		seen[c.FuncID] = true
		if len(c.Signature) > CoreMaxTensorArgs {
			return fmt.Errorf("%w: child %d has %d signature entries (max %d)", ErrSpec, i, len(c.Signature), CoreMaxTensorArgs)
		}
	}
	return nil
}

// Build returns the canonical image in a fresh buffer whose first byte sits at
// a 16-byte-aligned address, as prepare requires.
func (s *ChipCallableSpec) Build() ([]byte, error) {
	n, err := s.Size()
	if err != nil {
		return nil, err
	}
	img := AlignedBytes(n, ChipCallableAlign)
	if err := s.encode(img); err != nil {
		return nil, err
	}
	return img, nil
}

// EncodeTo writes the canonical image into dst, which must be exactly Size()
// bytes; bytes of dst the image leaves as padding are zeroed.
func (s *ChipCallableSpec) EncodeTo(dst []byte) error {
	n, err := s.Size()
	if err != nil {
		return err
	}
	if len(dst) != n {
		return fmt.Errorf("%w: destination holds %d bytes, image needs %d", ErrSpec, len(dst), n)
	}
	clear(dst)
	return s.encode(dst)
}

func (s *ChipCallableSpec) encode(img []byte) error {
	for i, d := range s.Signature {
		le.PutUint32(img[ChipSignatureOff+4*i:], uint32(d))
	}
	le.PutUint32(img[ChipSigCountOff:], uint32(len(s.Signature)))
	le.PutUint32(img[ChipBinarySizeOff:], uint32(len(s.Binary)))
	copy(img[ChipFuncNameOff:ChipFuncNameOff+CallableFuncNameMax], s.FuncName)
	le.PutUint32(img[ChipFuncNameLenOff:], uint32(len(s.FuncName)))
	copy(img[ChipConfigNameOff:ChipConfigNameOff+CallableFuncNameMax], s.ConfigName)
	le.PutUint32(img[ChipConfigNameLenOff:], uint32(len(s.ConfigName)))
	le.PutUint32(img[ChipChildCountOff:], uint32(len(s.Children)))
	if !s.OmitScalarCount {
		le.PutUint32(img[ChipScalarCountOff:], uint32(s.ScalarCount()))
	}
	storage := img[ChipStorageOff:]
	copy(storage, s.Binary)
	used := uint64(len(s.Binary))
	for i, c := range s.Children {
		off := AlignUp(used, CallableAlign)
		le.PutUint32(img[ChipChildFuncIDsOff+4*i:], uint32(c.FuncID))
		le.PutUint32(img[ChipChildOffsetsOff+4*i:], uint32(off))
		child := storage[off:]
		for j, d := range c.Signature {
			le.PutUint32(child[CoreSignatureOff+4*j:], uint32(d))
		}
		le.PutUint32(child[CoreSigCountOff:], uint32(len(c.Signature)))
		le.PutUint32(child[CoreBinarySizeOff:], uint32(len(c.Binary)))
		copy(child[CoreCodeOffset:], c.Binary)
		used = off + CoreCodeOffset + uint64(len(c.Binary))
	}
	return nil
}

// ChipCallableReader reads the fields of a ChipCallable image with bounds
// checks: an accessor whose bytes lie outside the span returns an error (or a
// zero value from the unchecked header accessors, which need only the 9376-byte
// header). It never trusts the image: NewChipCallableReader checks only that
// the header fits, and Spec walks the image with V-IMG's arithmetic.
type ChipCallableReader struct{ img []byte }

// ErrImage reports an image that is too short for what was asked of it.
var ErrImage = errors.New("abi: malformed ChipCallable image")

// NewChipCallableReader wraps img; it fails when img cannot hold the header.
func NewChipCallableReader(img []byte) (ChipCallableReader, error) {
	if len(img) < ChipCallableSize {
		return ChipCallableReader{}, fmt.Errorf("%w: %d bytes, header needs %d", ErrImage, len(img), ChipCallableSize)
	}
	return ChipCallableReader{img: img}, nil
}

// Bytes is the whole span the reader wraps.
func (r ChipCallableReader) Bytes() []byte { return r.img }

// SigCount is the stored sig_count.
func (r ChipCallableReader) SigCount() int32 { return int32(le.Uint32(r.img[ChipSigCountOff:])) }

// Signature returns entry i of the signature array (0 <= i < 256).
func (r ChipCallableReader) Signature(i int) ArgDirection {
	if i < 0 || i >= ChipMaxTensorArgs {
		return -1
	}
	return ArgDirection(int32(le.Uint32(r.img[ChipSignatureOff+4*i:])))
}

// BinarySize is the stored orchestration binary size.
func (r ChipCallableReader) BinarySize() uint32 { return le.Uint32(r.img[ChipBinarySizeOff:]) }

// FuncNameLen is the stored func_name_len.
func (r ChipCallableReader) FuncNameLen() uint32 { return le.Uint32(r.img[ChipFuncNameLenOff:]) }

// ConfigNameLen is the stored config_name_len.
func (r ChipCallableReader) ConfigNameLen() uint32 { return le.Uint32(r.img[ChipConfigNameLenOff:]) }

// FuncNameBytes is the 64-byte func_name array.
func (r ChipCallableReader) FuncNameBytes() []byte {
	return r.img[ChipFuncNameOff : ChipFuncNameOff+CallableFuncNameMax]
}

// ConfigNameBytes is the 64-byte config_name array.
func (r ChipCallableReader) ConfigNameBytes() []byte {
	return r.img[ChipConfigNameOff : ChipConfigNameOff+CallableFuncNameMax]
}

// FuncName is func_name up to func_name_len (clamped to 63 bytes).
func (r ChipCallableReader) FuncName() string {
	return string(r.FuncNameBytes()[:min(r.FuncNameLen(), CallableFuncNameMax-1)])
}

// ConfigName is config_name up to config_name_len (clamped to 63 bytes).
func (r ChipCallableReader) ConfigName() string {
	return string(r.ConfigNameBytes()[:min(r.ConfigNameLen(), CallableFuncNameMax-1)])
}

// ChildCount is the stored child_count.
func (r ChipCallableReader) ChildCount() int32 { return int32(le.Uint32(r.img[ChipChildCountOff:])) }

// ChildFuncID is child_func_ids[i] (0 <= i < 1024).
func (r ChipCallableReader) ChildFuncID(i int) int32 {
	if i < 0 || i >= MaxChildren {
		return -1
	}
	return int32(le.Uint32(r.img[ChipChildFuncIDsOff+4*i:]))
}

// ChildOffset is child_offsets[i] (0 <= i < 1024), relative to storage.
func (r ChipCallableReader) ChildOffset(i int) uint32 {
	if i < 0 || i >= MaxChildren {
		return 0
	}
	return le.Uint32(r.img[ChipChildOffsetsOff+4*i:])
}

// StoredScalarCount is the value at offset 9364 (0 = not recorded).
func (r ChipCallableReader) StoredScalarCount() int32 {
	return int32(le.Uint32(r.img[ChipScalarCountOff:]))
}

// Storage is everything after the header.
func (r ChipCallableReader) Storage() []byte { return r.img[ChipStorageOff:] }

// OrchestrationBinary returns the first binary_size bytes of storage.
func (r ChipCallableReader) OrchestrationBinary() ([]byte, error) {
	st := r.Storage()
	if uint64(r.BinarySize()) > uint64(len(st)) {
		return nil, fmt.Errorf("%w: binary_size %d exceeds storage of %d bytes", ErrImage, r.BinarySize(), len(st))
	}
	return st[:r.BinarySize()], nil
}

// Child returns the CoreCallable header and code of child i, bounds-checked
// against the span.
func (r ChipCallableReader) Child(i int) (CoreCallableView, error) {
	if i < 0 || i >= MaxChildren || int32(i) >= r.ChildCount() {
		return CoreCallableView{}, fmt.Errorf("%w: no child %d (child_count %d)", ErrImage, i, r.ChildCount())
	}
	st := r.Storage()
	off := uint64(r.ChildOffset(i))
	if off > uint64(len(st)) || uint64(len(st))-off < CoreCodeOffset {
		return CoreCallableView{}, fmt.Errorf("%w: child %d header at %d does not fit storage of %d bytes", ErrImage, i, off, len(st))
	}
	child := st[off:]
	bs := uint64(le.Uint32(child[CoreBinarySizeOff:]))
	if bs > uint64(len(child))-CoreCodeOffset {
		return CoreCallableView{}, fmt.Errorf("%w: child %d binary of %d bytes overruns the image", ErrImage, i, bs)
	}
	return CoreCallableView{b: child[:CoreCodeOffset+bs]}, nil
}

// Spec decodes the image into a spec whose Build reproduces every byte V-IMG
// inspects. It refuses an image that is not canonical; use it on images that
// passed validation.
func (r ChipCallableReader) Spec() (ChipCallableSpec, error) {
	var s ChipCallableSpec
	sc := r.SigCount()
	if sc < 0 || sc > ChipMaxTensorArgs {
		return s, fmt.Errorf("%w: sig_count %d", ErrImage, sc)
	}
	for i := 0; i < int(sc); i++ {
		s.Signature = append(s.Signature, r.Signature(i))
	}
	s.OmitScalarCount = r.StoredScalarCount() == 0
	for _, n := range []struct {
		ln  uint32
		arr []byte
		dst *string
	}{{r.FuncNameLen(), r.FuncNameBytes(), &s.FuncName}, {r.ConfigNameLen(), r.ConfigNameBytes(), &s.ConfigName}} {
		if n.ln >= CallableFuncNameMax {
			return s, fmt.Errorf("%w: name length %d", ErrImage, n.ln)
		}
		*n.dst = string(n.arr[:n.ln])
	}
	bin, err := r.OrchestrationBinary()
	if err != nil {
		return s, err
	}
	s.Binary = append([]byte(nil), bin...)
	cc := r.ChildCount()
	if cc < 0 || cc > MaxChildren {
		return s, fmt.Errorf("%w: child_count %d", ErrImage, cc)
	}
	used := uint64(len(bin))
	for i := 0; i < int(cc); i++ {
		if uint64(r.ChildOffset(i)) != AlignUp(used, CallableAlign) {
			return s, fmt.Errorf("%w: child %d at offset %d, canonical offset is %d", ErrImage, i, r.ChildOffset(i), AlignUp(used, CallableAlign))
		}
		cv, err := r.Child(i)
		if err != nil {
			return s, err
		}
		n := cv.SigCount()
		if n < 0 || n > CoreMaxTensorArgs {
			return s, fmt.Errorf("%w: child %d sig_count %d", ErrImage, i, n)
		}
		ck := ChildKernel{FuncID: r.ChildFuncID(i), Binary: append([]byte(nil), cv.Code()...)}
		for j := 0; j < int(n); j++ {
			ck.Signature = append(ck.Signature, cv.Signature(j))
		}
		s.Children = append(s.Children, ck)
		used = uint64(r.ChildOffset(i)) + CoreCodeOffset + uint64(len(ck.Binary))
	}
	if used != uint64(len(r.Storage())) {
		return s, fmt.Errorf("%w: pieces end at %d, storage holds %d bytes", ErrImage, used, len(r.Storage()))
	}
	return s, nil
}

// CoreCallableView reads one child (header + code) of an image.
type CoreCallableView struct{ b []byte }

// SigCount is the child's stored sig_count.
func (c CoreCallableView) SigCount() int32 { return int32(le.Uint32(c.b[CoreSigCountOff:])) }

// Signature returns entry i (0 <= i < 32) of the child's signature.
func (c CoreCallableView) Signature(i int) ArgDirection {
	if i < 0 || i >= CoreMaxTensorArgs {
		return -1
	}
	return ArgDirection(int32(le.Uint32(c.b[CoreSignatureOff+4*i:])))
}

// BinarySize is the child's stored binary size.
func (c CoreCallableView) BinarySize() uint32 { return le.Uint32(c.b[CoreBinarySizeOff:]) }

// ResolvedAddr is the child's resolved_addr (0 in a canonical image).
func (c CoreCallableView) ResolvedAddr() uint64 { return le.Uint64(c.b[CoreResolvedAddrOff:]) }

// Code is the child's binary.
func (c CoreCallableView) Code() []byte { return c.b[CoreCodeOffset:] }

// EncodeCoreCallable writes a standalone child image (192-byte header + code).
func EncodeCoreCallable(c ChildKernel) ([]byte, error) {
	if len(c.Signature) > CoreMaxTensorArgs {
		return nil, fmt.Errorf("%w: %d child signature entries (max %d)", ErrSpec, len(c.Signature), CoreMaxTensorArgs)
	}
	b := make([]byte, CoreCodeOffset+len(c.Binary))
	for j, d := range c.Signature {
		le.PutUint32(b[CoreSignatureOff+4*j:], uint32(d))
	}
	le.PutUint32(b[CoreSigCountOff:], uint32(len(c.Signature)))
	le.PutUint32(b[CoreBinarySizeOff:], uint32(len(c.Binary)))
	copy(b[CoreCodeOffset:], c.Binary)
	return b, nil
}
