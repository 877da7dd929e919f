package sim

import (
	"sync/atomic"

	"github.com/simabi/simabi/abi"
)

// ACL status codes the simulated ACL returns (abi's).
const (
	ACLSuccess               int32 = abi.ACLSuccess
	ACLErrorInvalidParam     int32 = abi.ACLErrorInvalidParam
	ACLErrorRepeatInitialize int32 = abi.ACLErrorRepeatInitialize
	ACLErrorBadAlloc         int32 = abi.ACLErrorBadAlloc
)

// aclCall indexes the nine counted ACL calls, in the order of semantics §3.
type aclCall uint8

const (
	aclInit aclCall = iota
	aclFinalize
	aclSetDevice
	aclResetDevice
	aclSynchronizeStream
	aclSynchronizeDevice
	aclCreateStream
	aclDestroyStream
	aclGetDevice
	aclCalls
)

// ACLCounters counts every call of nine ACL functions (semantics §3), whoever
// made it: the caller through ACL, or the runtime's own program-mode paths
// (simpler_init: one SetDevice; ensure_acl_ready_ctx: one Init on the
// instance's first use, then one SetDevice per call; program finalize or
// destroy with a device: one ResetDevice). Kernel paths move none of them
// (D-1); the hooks count nothing.
type ACLCounters = abi.ACLCounters

// ACL is the simulated ACL of one runtime instance: the caller's side of the
// borrowed device (D-1..D-3). The current device is per OS thread: a
// goroutine must call runtime.LockOSThread before SetDevice and stay locked
// while it uses a kernel context; SetDevice from a goroutine that is not
// locked is counted and returns 0 but sets nothing (see the package doc).
type ACL struct {
	r               *Runtime
	calls           [aclCalls]atomic.Uint64
	initialized     atomic.Bool
	runtimeInitDone atomic.Bool // ensure_acl_ready_ctx's one aclInit per instance
}

func (a *ACL) count(c aclCall) { a.calls[c].Add(1) }

// Counters returns the nine call counters.
func (a *ACL) Counters() ACLCounters {
	return ACLCounters{
		Init:              a.calls[aclInit].Load(),
		Finalize:          a.calls[aclFinalize].Load(),
		SetDevice:         a.calls[aclSetDevice].Load(),
		ResetDevice:       a.calls[aclResetDevice].Load(),
		SynchronizeStream: a.calls[aclSynchronizeStream].Load(),
		SynchronizeDevice: a.calls[aclSynchronizeDevice].Load(),
		CreateStream:      a.calls[aclCreateStream].Load(),
		DestroyStream:     a.calls[aclDestroyStream].Load(),
		GetDevice:         a.calls[aclGetDevice].Load(),
	}
}

// Init is aclInit: 0 the first time, ACL_ERROR_REPEAT_INITIALIZE after.
func (a *ACL) Init() int32 {
	a.count(aclInit)
	if a.initialized.CompareAndSwap(false, true) {
		return ACLSuccess
	}
	return ACLErrorRepeatInitialize
}

// Finalize is aclFinalize: 0.
func (a *ACL) Finalize() int32 {
	a.count(aclFinalize)
	a.initialized.Store(false)
	return ACLSuccess
}

// SetDevice is aclrtSetDevice: makes dev current on the calling OS thread
// (the goroutine must be locked to it); dev < 0 → ACL_ERROR_INVALID_PARAM.
func (a *ACL) SetDevice(dev int32) int32 {
	a.count(aclSetDevice)
	if dev < 0 {
		return ACLErrorInvalidParam
	}
	a.r.setThreadDevice(dev)
	return ACLSuccess
}

// GetDevice is aclrtGetDevice: the calling thread's current device, or
// (-1, ACL_ERROR_INVALID_PARAM) when it has none.
func (a *ACL) GetDevice() (int32, int32) {
	a.count(aclGetDevice)
	d := a.r.currentDevice()
	if d < 0 {
		return -1, ACLErrorInvalidParam
	}
	return d, ACLSuccess
}

// ResetDevice is the caller's aclrtResetDevice: dev < 0 →
// ACL_ERROR_INVALID_PARAM; if dev is the calling thread's current device the
// thread has none afterwards (as the emitted fake ACL does). The runtime's
// own program-mode detach counts a ResetDevice without calling this: it
// changes no thread's device (semantics §3).
func (a *ACL) ResetDevice(dev int32) int32 {
	a.count(aclResetDevice)
	if dev < 0 {
		return ACLErrorInvalidParam
	}
	if a.r.currentDevice() == dev {
		a.r.setThreadDevice(-1)
	}
	return ACLSuccess
}

// CreateStream is aclrtCreateStream: a new stream value, never reused.
func (a *ACL) CreateStream() (abi.Stream, int32) {
	a.count(aclCreateStream)
	return a.r.streams.createACLStream(), ACLSuccess
}

// DestroyStream is aclrtDestroyStream: for a stream CreateStream returned and
// not yet destroyed, it first completes the stream's pending work, as a
// synchronize does (site 8 included), returns that synchronize's result and
// destroys the stream; ACL_ERROR_INVALID_PARAM for NULL or any other value.
func (a *ACL) DestroyStream(s abi.Stream) int32 {
	a.count(aclDestroyStream)
	if s == 0 {
		return ACLErrorInvalidParam
	}
	q, ok := a.r.streams.destroyACLStream(s)
	if !ok {
		return ACLErrorInvalidParam
	}
	return int32(a.r.syncStream(q))
}

// SynchronizeStream is aclrtSynchronizeStream: runs every launch enqueued on
// s so far and returns 0 or the first device failure (E-LAUNCH-ASYNC);
// ACL_ERROR_INVALID_PARAM for NULL.
func (a *ACL) SynchronizeStream(s abi.Stream) int32 {
	a.count(aclSynchronizeStream)
	if s == 0 {
		return ACLErrorInvalidParam
	}
	q := a.r.streams.lookup(s)
	if q == nil {
		return ACLSuccess
	}
	return int32(a.r.syncStream(q))
}

// SynchronizeDevice is aclrtSynchronizeDevice: synchronizes every stream of
// the instance, one after another in the order of each stream's first
// launch (so which item an armed site 8 fails is deterministic), and returns
// the first failure.
func (a *ACL) SynchronizeDevice() int32 {
	a.count(aclSynchronizeDevice)
	first := abi.OK
	for _, q := range a.r.streams.ordered() {
		if st := a.r.syncStream(q); st != abi.OK && first == abi.OK {
			first = st
		}
	}
	return int32(first)
}

// Malloc is aclrtMalloc: size bytes of simulated device memory, 64-byte
// aligned; ACL_ERROR_INVALID_PARAM for size 0, ACL_ERROR_BAD_ALLOC when the
// 32 GiB are exhausted.
func (a *ACL) Malloc(size uintptr) (abi.DevicePtr, int32) {
	if size == 0 {
		return 0, ACLErrorInvalidParam
	}
	p := a.r.mem.malloc(uint64(size), nil)
	if p == 0 {
		return 0, ACLErrorBadAlloc
	}
	return p, ACLSuccess
}

// Free is aclrtFree of a pointer Malloc returned; ACL_ERROR_INVALID_PARAM
// otherwise.
func (a *ACL) Free(p abi.DevicePtr) int32 {
	if _, ok := a.r.mem.free(p, nil); !ok {
		return ACLErrorInvalidParam
	}
	return ACLSuccess
}

// CopyToDevice is a host-to-device aclrtMemcpy: dst..dst+len(src) must lie
// inside one live allocation (any owner), else ACL_ERROR_INVALID_PARAM.
func (a *ACL) CopyToDevice(dst abi.DevicePtr, src []byte) int32 {
	if len(src) == 0 {
		return ACLSuccess
	}
	if !a.r.mem.copyTo(uint64(dst), src, nil, true) {
		return ACLErrorInvalidParam
	}
	return ACLSuccess
}

// CopyFromDevice is a device-to-host aclrtMemcpy of len(dst) bytes.
func (a *ACL) CopyFromDevice(dst []byte, src abi.DevicePtr) int32 {
	if len(dst) == 0 {
		return ACLSuccess
	}
	if !a.r.mem.copyFrom(dst, uint64(src), nil, true) {
		return ACLErrorInvalidParam
	}
	return ACLSuccess
}

// LiveDeviceBytes is the total size of live device allocations (ACL and
// program).
func (a *ACL) LiveDeviceBytes() uint64 { return a.r.mem.liveBytes() }

// SimSetCurrentDevice is the hook simabi_set_current_device: makes dev
// current on the calling OS thread (< 0 clears) and returns 0. Like
// ACL.SetDevice it takes effect only from a goroutine locked to its thread.
// It counts nothing.
func (r *Runtime) SimSetCurrentDevice(dev int32) abi.Status {
	r.setThreadDevice(dev)
	return abi.OK
}

// SimCurrentDevice is the hook simabi_current_device: the calling thread's
// current device, -1 when none. It counts nothing.
func (r *Runtime) SimCurrentDevice() int32 { return r.currentDevice() }
