package abi

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"unsafe"
)

// DataType is ChipTensor.dtype.
type DataType uint8

// Data types of docs/contract.md.
const (
	Float32   DataType = 0
	Float16   DataType = 1
	Int32     DataType = 2
	Int16     DataType = 3
	Int8      DataType = 4
	Uint8     DataType = 5
	BFloat16  DataType = 6
	Int64     DataType = 7
	Uint64    DataType = 8
	Uint16    DataType = 9
	Uint32    DataType = 10
	Bool      DataType = 11
	FP8E4M3FN DataType = 12
	FP8E8M0   DataType = 13
	FP4E2M1   DataType = 14
)

var dtypeBits = [...]uint64{32, 16, 32, 16, 8, 8, 16, 64, 64, 16, 32, 8, 8, 8, 4}

// Bits is the storage width of one element in bits (FP4E2M1 packs two per
// byte); 0 for an undefined type.
func (d DataType) Bits() uint64 {
	if int(d) < len(dtypeBits) {
		return dtypeBits[d]
	}
	return 0
}

// Bytes returns the storage size of n elements of d (rounded up to a whole
// byte). It is exact whenever the size fits in a uint64; see bytesFit.
func (d DataType) Bytes(n uint64) uint64 {
	sz, _ := d.bytesFit(n)
	return sz
}

// bytesFit computes ceil(n * Bits / 8) without an intermediate overflow and
// reports whether the result fits in a uint64.
func (d DataType) bytesFit(n uint64) (uint64, bool) {
	b := d.Bits()
	hi, whole := bits.Mul64(n/8, b)
	sz, carry := bits.Add64(whole, ((n%8)*b+7)/8, 0)
	return sz, hi == 0 && carry == 0
}

// AddressSpace is ChipTensor.address_space.
type AddressSpace uint8

// Address spaces.
const (
	HostSpace   AddressSpace = 0
	DeviceSpace AddressSpace = 1
)

// ExternalOwner is owner_task_id of a tensor no task produced.
const ExternalOwner = ^uint64(0)

// ChipTensor is the 128-byte tensor record of ChipStorageTaskArgs.
type ChipTensor struct {
	Addr            uint64
	Size            uint64
	OwnerTaskID     uint64
	StartOffset     uint64 // in elements
	Version         int32
	NDims           uint32
	DType           DataType
	ManualDep       bool
	IsContiguous    bool
	AddressSpace    AddressSpace
	Shapes          [MaxTensorDims]uint32
	ExtentElemCache uint64
	Strides         [MaxTensorDims]uint32
}

// ContiguousTensor describes an external, contiguous, row-major tensor at a
// device address.
func ContiguousTensor(addr uint64, dtype DataType, shape ...uint32) (ChipTensor, error) {
	if len(shape) == 0 || len(shape) > MaxTensorDims {
		return ChipTensor{}, fmt.Errorf("abi: tensor of %d dims (1..%d)", len(shape), MaxTensorDims)
	}
	t := ChipTensor{Addr: addr, OwnerTaskID: ExternalOwner, NDims: uint32(len(shape)), DType: dtype,
		IsContiguous: true, AddressSpace: DeviceSpace}
	// n counts elements; stride runs over max(dim, 1) so that a tensor with
	// an empty dimension still has strides > 0 (docs/contract.md).
	n, stride := uint64(1), uint64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		t.Shapes[i] = shape[i]
		if stride > math.MaxUint32 {
			return ChipTensor{}, fmt.Errorf("abi: stride of dim %d overflows uint32", i)
		}
		t.Strides[i] = uint32(stride)
		n *= uint64(shape[i])
		stride *= max(uint64(shape[i]), 1)
	}
	t.ExtentElemCache = n
	size, ok := dtype.bytesFit(n)
	if !ok {
		return ChipTensor{}, fmt.Errorf("abi: tensor of %d elements overflows a uint64 byte size", n)
	}
	t.Size = size
	return t, nil
}

// Elements is the element count described by the shape.
func (t ChipTensor) Elements() uint64 {
	n := uint64(1)
	for i := 0; i < int(min(t.NDims, MaxTensorDims)); i++ {
		n *= uint64(t.Shapes[i])
	}
	return n
}

// Encode writes t into dst[:128]; the reserved bytes are zeroed.
func (t ChipTensor) Encode(dst []byte) error {
	if len(dst) < ChipTensorSize {
		return fmt.Errorf("abi: ChipTensor needs %d bytes, have %d", ChipTensorSize, len(dst))
	}
	d := dst[:ChipTensorSize]
	clear(d)
	le.PutUint64(d[TensorAddrOff:], t.Addr)
	le.PutUint64(d[TensorBufSizeOff:], t.Size)
	le.PutUint64(d[TensorOwnerTaskIDOff:], t.OwnerTaskID)
	le.PutUint64(d[TensorStartOffsetOff:], t.StartOffset)
	le.PutUint32(d[TensorVersionOff:], uint32(t.Version))
	le.PutUint32(d[TensorNDimsOff:], t.NDims)
	d[TensorDTypeOff] = byte(t.DType)
	d[TensorManualDepOff] = b2u(t.ManualDep)
	d[TensorIsContiguousOff] = b2u(t.IsContiguous)
	d[TensorAddressSpaceOff] = byte(t.AddressSpace)
	for i := range MaxTensorDims {
		le.PutUint32(d[TensorShapesOff+4*i:], t.Shapes[i])
		le.PutUint32(d[TensorStridesOff+4*i:], t.Strides[i])
	}
	le.PutUint64(d[TensorExtentElemCacheOff:], t.ExtentElemCache)
	return nil
}

// DecodeChipTensor reads a ChipTensor from src[:128].
func DecodeChipTensor(src []byte) (ChipTensor, error) {
	if len(src) < ChipTensorSize {
		return ChipTensor{}, fmt.Errorf("abi: ChipTensor needs %d bytes, have %d", ChipTensorSize, len(src))
	}
	t := ChipTensor{
		Addr:            le.Uint64(src[TensorAddrOff:]),
		Size:            le.Uint64(src[TensorBufSizeOff:]),
		OwnerTaskID:     le.Uint64(src[TensorOwnerTaskIDOff:]),
		StartOffset:     le.Uint64(src[TensorStartOffsetOff:]),
		Version:         int32(le.Uint32(src[TensorVersionOff:])),
		NDims:           le.Uint32(src[TensorNDimsOff:]),
		DType:           DataType(src[TensorDTypeOff]),
		ManualDep:       src[TensorManualDepOff] != 0,
		IsContiguous:    src[TensorIsContiguousOff] != 0,
		AddressSpace:    AddressSpace(src[TensorAddressSpaceOff]),
		ExtentElemCache: le.Uint64(src[TensorExtentElemCacheOff:]),
	}
	for i := range MaxTensorDims {
		t.Shapes[i] = le.Uint32(src[TensorShapesOff+4*i:])
		t.Strides[i] = le.Uint32(src[TensorStridesOff+4*i:])
	}
	return t, nil
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// TaskArgs builds a ChipStorageTaskArgs in a 64-byte-aligned 33856-byte
// buffer. Tensors precede scalars: AddTensor after AddScalar is refused, as is
// going past 256 tensors, 128 scalars or 256 entries in all.
type TaskArgs struct {
	buf              []byte
	tensors, scalars int
}

// ErrTaskArgs reports a refused TaskArgs operation.
var ErrTaskArgs = errors.New("abi: invalid ChipStorageTaskArgs")

// NewTaskArgs returns empty task args.
func NewTaskArgs() *TaskArgs { return &TaskArgs{buf: AlignedBytes(TaskArgsSize, TaskArgsAlign)} }

// AddTensor appends a tensor record.
func (a *TaskArgs) AddTensor(t ChipTensor) error {
	if a.scalars > 0 {
		return fmt.Errorf("%w: a tensor cannot follow a scalar", ErrTaskArgs)
	}
	if a.tensors >= ChipMaxTensorArgs {
		return fmt.Errorf("%w: more than %d tensors", ErrTaskArgs, ChipMaxTensorArgs)
	}
	if err := t.Encode(a.buf[TaskArgsTensorsOff+ChipTensorSize*a.tensors:]); err != nil {
		return err
	}
	a.tensors++
	le.PutUint32(a.buf[TaskArgsTensorCountOff:], uint32(a.tensors))
	return nil
}

// AddScalar appends a scalar slot holding the raw bits v.
func (a *TaskArgs) AddScalar(v uint64) error {
	if a.scalars >= ChipMaxScalarArgs {
		return fmt.Errorf("%w: more than %d scalars", ErrTaskArgs, ChipMaxScalarArgs)
	}
	if a.tensors+a.scalars >= ChipMaxTensorArgs {
		return fmt.Errorf("%w: more than %d arguments", ErrTaskArgs, ChipMaxTensorArgs)
	}
	le.PutUint64(a.buf[TaskArgsScalarsOff+8*a.scalars:], v)
	a.scalars++
	le.PutUint32(a.buf[TaskArgsScalarCountOff:], uint32(a.scalars))
	return nil
}

// AddScalarFloat32 appends a float32 scalar, zero-extended by bit pattern.
func (a *TaskArgs) AddScalarFloat32(f float32) error { return a.AddScalar(uint64(math.Float32bits(f))) }

// SetCounts overwrites the stored counts without touching the records, to
// express a malformed call (E-LAUNCH count mismatch).
func (a *TaskArgs) SetCounts(tensors, scalars int32) {
	le.PutUint32(a.buf[TaskArgsTensorCountOff:], uint32(tensors))
	le.PutUint32(a.buf[TaskArgsScalarCountOff:], uint32(scalars))
}

// Bytes is the 33856-byte buffer.
func (a *TaskArgs) Bytes() []byte { return a.buf }

// Pointer is the address to pass as `args`.
func (a *TaskArgs) Pointer() unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(a.buf)) }

// Wipe zeroes the whole buffer and the builder's counters (a caller may wipe
// args as soon as launch returns, E-LAUNCH-ASYNC).
func (a *TaskArgs) Wipe() { clear(a.buf); a.tensors, a.scalars = 0, 0 }

// TaskArgsView reads a ChipStorageTaskArgs with bounds checks.
type TaskArgsView struct{ b []byte }

// NewTaskArgsView wraps b, which must hold at least 33856 bytes.
func NewTaskArgsView(b []byte) (TaskArgsView, error) {
	if len(b) < TaskArgsSize {
		return TaskArgsView{}, fmt.Errorf("abi: ChipStorageTaskArgs needs %d bytes, have %d", TaskArgsSize, len(b))
	}
	return TaskArgsView{b: b}, nil
}

// TensorCount is the stored tensor_count.
func (v TaskArgsView) TensorCount() int32 { return int32(le.Uint32(v.b[TaskArgsTensorCountOff:])) }

// ScalarCount is the stored scalar_count.
func (v TaskArgsView) ScalarCount() int32 { return int32(le.Uint32(v.b[TaskArgsScalarCountOff:])) }

// TensorBytes is the 128-byte record of tensor i (0 <= i < 256), or nil.
func (v TaskArgsView) TensorBytes(i int) []byte {
	if i < 0 || i >= ChipMaxTensorArgs {
		return nil
	}
	o := TaskArgsTensorsOff + ChipTensorSize*i
	return v.b[o : o+ChipTensorSize]
}

// Tensor decodes tensor i.
func (v TaskArgsView) Tensor(i int) (ChipTensor, error) {
	tb := v.TensorBytes(i)
	if tb == nil {
		return ChipTensor{}, fmt.Errorf("abi: tensor index %d outside [0, %d)", i, ChipMaxTensorArgs)
	}
	return DecodeChipTensor(tb)
}

// AddressSpace is the address_space byte of tensor i (HostSpace when i is out
// of range).
func (v TaskArgsView) AddressSpace(i int) AddressSpace {
	if i < 0 || i >= ChipMaxTensorArgs {
		return HostSpace
	}
	return AddressSpace(v.b[TaskArgsTensorsOff+ChipTensorSize*i+TensorAddressSpaceOff])
}

// Scalar is scalar slot i (0 <= i < 128), or 0.
func (v TaskArgsView) Scalar(i int) uint64 {
	if i < 0 || i >= ChipMaxScalarArgs {
		return 0
	}
	return le.Uint64(v.b[TaskArgsScalarsOff+8*i:])
}
