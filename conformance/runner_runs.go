package conformance

import (
	"encoding/binary"
	"strconv"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/validation"
)

// The run family on real run storage (program mode).

// maxRunStorage bounds what get_runtime_size may ask of the runner.
const maxRunStorage = 64 << 20

// runReady prepares what run ops need and says why op cannot run, or "".
func (r *Runner) runReady(o op.Op) string {
	if o.Kind == op.KindRegister && o.Img.Base == op.ImgProgram && r.opt.Callable != nil && r.userImg == nil {
		r.userImg = abi.AlignedBytes(len(r.opt.Callable), abi.CallableChildAlign)
		copy(r.userImg, r.opt.Callable)
		if validation.Image(r.opt.Callable) != abi.OK {
			return "the callable given with -callable fails V-IMG: not a ChipCallable image"
		}
		t, s := validation.SignatureCounts(r.userImg)
		r.userCount = [2]int32{t, s}
	}
	if o.Kind == op.KindRegister || o.Kind == op.KindUnregister {
		return ""
	}
	if r.storeErr != "" {
		return r.storeErr
	}
	if r.storage[0] == nil {
		size, align := r.rt.GetRuntimeSize(), r.rt.GetRuntimeAlignment()
		if size == 0 || size > maxRunStorage || align < 8 || align > 4096 || align&(align-1) != 0 {
			r.storeErr = "get_runtime_size " + strconv.FormatUint(uint64(size), 10) + " / get_runtime_alignment " + strconv.FormatUint(uint64(align), 10) +
				" is no run storage the runner can make (docs/contract.md: alignment a power of two >= 8)"
			return r.storeErr
		}
		r.accepted = make([]int32, op.MaxStorages)
		for i := range r.storage {
			r.storage[i] = abi.AlignedBytes(int(size), int(align))
			r.desc[i] = abi.AlignedBytes(abi.NativeRunDescSize, 8)
			// st0..st3 carry pipeline slots 0, 1, 0, 1: st0 and st1 are
			// a depth-2 consumer's two (E-PROG.29).
			d := abi.NativeRunDescriptor{PipelineSlot: uint32(i % abi.PipelineMaxDepth), RunID: uint64(i + 1), Generation: 1,
				DispatchID: uint64(i + 1), RunEpoch: 1,
				AcceptedState: uintptr(unsafe.Pointer(&r.accepted[i])), AcceptedValue: op.AcceptedValue(int8(i))}
			_ = d.Encode(r.desc[i])
		}
		r.runArgs = abi.AlignedBytes(abi.TaskArgsSize, abi.TaskArgsAlign)
		r.runCfg = make([]byte, abi.CallConfigSize)
	}
	return ""
}

// resetStorage zeroes the run storage at the start of a run.
func (r *Runner) resetStorage() {
	for i := range r.storage {
		clear(r.storage[i])
	}
	r.progIDs = [op.MaxSlots]map[int32][2]int32{}
}

// progCounts are the counts of the callable a context registered as id.
func (r *Runner) progCounts(c int8, id int32) (int32, int32) {
	if c < 0 {
		return 0, 0
	}
	n := r.progIDs[c][id]
	return n[0], n[1]
}

// formRunArgs writes the counts of op's args into the run args buffer.
func (r *Runner) formRunArgs(o op.Op) (unsafe.Pointer, int32, int32) {
	t, s := r.progCounts(o.C, o.ID)
	switch o.Args.Mode {
	case op.ArgsNull:
		return nil, 0, 0
	case op.ArgsExact:
		t, s = int32(o.Args.T), int32(o.Args.S)
	default:
		t += int32(o.Args.T)
		s += int32(o.Args.S)
	}
	binary.LittleEndian.PutUint32(r.runArgs[abi.TaskArgsTensorCountOff:], uint32(t))
	binary.LittleEndian.PutUint32(r.runArgs[abi.TaskArgsScalarCountOff:], uint32(s))
	return unsafe.Pointer(unsafe.SliceData(r.runArgs)), t, s
}
