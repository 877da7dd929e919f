package sim

import (
	"encoding/binary"
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
	KernelAddScalarF32 = "simabi.add_scalar_f32"
	// KernelCopyBytes takes tensors [in, out] and copies in.size bytes; it
	// needs out.size >= in.size and both ranges inside device memory.
	KernelCopyBytes = "simabi.copy_bytes"
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

// KernelNames lists the func names with a simulated kernel.
func KernelNames() []string { return []string{KernelAddScalarF32, KernelCopyBytes} }

// runKernel runs kernel k over a snapshot: nt tensor records (128 bytes each)
// followed by ns scalars (8 bytes each). m.mu is held.
func (m *deviceMemory) runKernelLocked(k kernelKind, snap []byte, nt, ns int32) abi.Status {
	switch k {
	case kernelAddScalarF32:
		return m.addScalarF32Locked(snap, nt, ns)
	case kernelCopyBytes:
		return m.copyBytesLocked(snap, nt)
	default:
		return abi.OK
	}
}

// runKernel takes the device lock and runs one kernel.
func (m *deviceMemory) runKernel(k kernelKind, snap []byte, nt, ns int32) abi.Status {
	if k == kernelNoop {
		return abi.OK
	}
	m.mu.Lock()
	st := m.runKernelLocked(k, snap, nt, ns)
	m.mu.Unlock()
	return st
}

func (m *deviceMemory) addScalarF32Locked(snap []byte, nt, ns int32) abi.Status {
	if nt < 2 || ns < 1 {
		return KernelFaultCode
	}
	in, err1 := abi.DecodeChipTensor(snap[0:abi.ChipTensorSize])
	out, err2 := abi.DecodeChipTensor(snap[abi.ChipTensorSize : 2*abi.ChipTensorSize])
	if err1 != nil || err2 != nil {
		return KernelFaultCode
	}
	if in.DType != abi.Float32 || out.DType != abi.Float32 || in.StartOffset != 0 || out.StartOffset != 0 {
		return KernelFaultCode
	}
	n := in.Elements()
	if out.Elements() < n || n > math.MaxUint64/4 {
		return KernelFaultCode
	}
	src := m.rangeLocked(in.Addr, 4*n, nil, true)
	dst := m.rangeLocked(out.Addr, 4*n, nil, true)
	if src == nil || dst == nil {
		return KernelFaultCode
	}
	s := math.Float32frombits(uint32(le.Uint64(snap[int(nt)*abi.ChipTensorSize:])))
	for i := uint64(0); i < n; i++ {
		v := math.Float32frombits(le.Uint32(src[4*i:]))
		le.PutUint32(dst[4*i:], math.Float32bits(v+s))
	}
	return abi.OK
}

func (m *deviceMemory) copyBytesLocked(snap []byte, nt int32) abi.Status {
	if nt < 2 {
		return KernelFaultCode
	}
	in, err1 := abi.DecodeChipTensor(snap[0:abi.ChipTensorSize])
	out, err2 := abi.DecodeChipTensor(snap[abi.ChipTensorSize : 2*abi.ChipTensorSize])
	if err1 != nil || err2 != nil || out.Size < in.Size {
		return KernelFaultCode
	}
	src := m.rangeLocked(in.Addr, in.Size, nil, true)
	dst := m.rangeLocked(out.Addr, in.Size, nil, true)
	if src == nil || dst == nil {
		return KernelFaultCode
	}
	copy(dst, src)
	return abi.OK
}
