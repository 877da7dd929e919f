package sim

import (
	"encoding/binary"
	"github.com/simabi/simabi/sim/semantics"
	"math"

	"github.com/simabi/simabi/abi"
)

var le = binary.LittleEndian

// Simulated kernels, chosen at prepare (and at program registration) by the
// callable's func_name (semantics §7). Any other name selects a kernel that
// does nothing and succeeds.
const (
	// KernelAddScalarF32 takes tensors [in, out] and one scalar s (float32
	// bits in the low 32 bits) and computes out[i] = in[i] + s for
	// i < in.Elements(). It needs float32 on both tensors, out.Elements() >=
	// in.Elements(), start_offset 0 on both, and both ranges inside device
	// memory.
	KernelAddScalarF32 = semantics.KernelAddScalarF32
	// KernelCopyBytes takes tensors [in, out] and copies in.size bytes; it
	// needs out.size >= in.size and both ranges inside device memory.
	KernelCopyBytes = semantics.KernelCopyBytes
)

// KernelFaultCode is what a kernel whose requirements fail reports at
// synchronize: the device code INVALID_ARGS (5), negated. It writes nothing.
const KernelFaultCode abi.Status = -5

// kernelKind is a simulated kernel.
type kernelKind uint8

const (
	kernelNoop kernelKind = iota
	kernelAddScalarF32
	kernelCopyBytes
)

var kernelsByName = map[string]kernelKind{
	KernelAddScalarF32: kernelAddScalarF32,
	KernelCopyBytes:    kernelCopyBytes,
}

// kernelFor selects the kernel of a func_name (the bytes of the name, no NUL).
func kernelFor(name []byte) kernelKind { return kernelsByName[string(name)] }

// tensorSnap is what a simulated kernel reads of one tensor record, the
// emitted runtime's tensor_snap.
type tensorSnap struct {
	addr, size, startOffset uint64
	shapes                  [abi.MaxTensorDims]uint32
	ndims                   uint32
	dtype                   abi.DataType
}

// elements is the product of the first min(ndims, 5) shapes
// (abi.ChipTensor.Elements).
func (t *tensorSnap) elements() uint64 {
	n := uint64(1)
	for i := 0; i < int(min(t.ndims, abi.MaxTensorDims)); i++ {
		n *= uint64(t.shapes[i])
	}
	return n
}

// kernelWork is one launch (or program run) as its kernel will run it: the
// kernel, the counts, and a snapshot of what the simulated kernels read —
// the first two tensor records and the first scalar — exactly as the emitted
// runtime's kernel_work (E-LAUNCH-ASYNC: the caller may wipe args once
// launch returns). Its size does not depend on the counts.
type kernelWork struct {
	t       [2]tensorSnap
	scalar0 uint64
	nt, ns  int32
	kernel  kernelKind
}

// snapshot fills w from args (a whole ChipStorageTaskArgs) with nt tensors
// and ns scalars. A kernel that does nothing reads nothing, so for it only
// the kernel and the counts are kept.
func (w *kernelWork) snapshot(k kernelKind, args *[abi.TaskArgsSize]byte, nt, ns int32) {
	w.kernel, w.nt, w.ns = k, nt, ns
	if k == kernelNoop {
		return
	}
	w.t = [2]tensorSnap{}
	for i := 0; i < 2 && i < int(nt); i++ {
		rec := args[i*abi.ChipTensorSize : (i+1)*abi.ChipTensorSize]
		t := &w.t[i]
		t.addr = le.Uint64(rec[abi.TensorAddrOff:])
		t.size = le.Uint64(rec[abi.TensorBufSizeOff:])
		t.startOffset = le.Uint64(rec[abi.TensorStartOffsetOff:])
		t.ndims = le.Uint32(rec[abi.TensorNDimsOff:])
		t.dtype = abi.DataType(rec[abi.TensorDTypeOff])
		for d := range abi.MaxTensorDims {
			t.shapes[d] = le.Uint32(rec[abi.TensorShapesOff+4*d:])
		}
	}
	w.scalar0 = 0
	if ns > 0 {
		w.scalar0 = le.Uint64(args[abi.TaskArgsScalarsOff:])
	}
}

// runKernel takes the device lock and runs one kernel over its snapshot.
func (m *deviceMemory) runKernel(w *kernelWork) abi.Status {
	switch w.kernel {
	case kernelAddScalarF32, kernelCopyBytes:
	default:
		return abi.OK
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if w.kernel == kernelAddScalarF32 {
		return m.addScalarF32Locked(w)
	}
	return m.copyBytesLocked(w)
}

func (m *deviceMemory) addScalarF32Locked(w *kernelWork) abi.Status {
	if w.nt < 2 || w.ns < 1 {
		return KernelFaultCode
	}
	in, out := &w.t[0], &w.t[1]
	if in.dtype != abi.Float32 || out.dtype != abi.Float32 || in.startOffset != 0 || out.startOffset != 0 {
		return KernelFaultCode
	}
	n := in.elements()
	if out.elements() < n || n > math.MaxUint64/4 {
		return KernelFaultCode
	}
	src := m.rangeLocked(in.addr, 4*n, nil, true)
	dst := m.rangeLocked(out.addr, 4*n, nil, true)
	if src == nil || dst == nil {
		return KernelFaultCode
	}
	s := math.Float32frombits(uint32(w.scalar0))
	for i := uint64(0); i < n; i++ {
		v := math.Float32frombits(le.Uint32(src[4*i:]))
		le.PutUint32(dst[4*i:], math.Float32bits(v+s))
	}
	return abi.OK
}

func (m *deviceMemory) copyBytesLocked(w *kernelWork) abi.Status {
	if w.nt < 2 {
		return KernelFaultCode
	}
	in, out := &w.t[0], &w.t[1]
	if out.size < in.size {
		return KernelFaultCode
	}
	src := m.rangeLocked(in.addr, in.size, nil, true)
	dst := m.rangeLocked(out.addr, in.size, nil, true)
	if src == nil || dst == nil {
		return KernelFaultCode
	}
	copy(dst, src)
	return abi.OK
}
