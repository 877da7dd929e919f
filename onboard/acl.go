package onboard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/simabi/simabi/abi"
)

// ACLLibraryName is the name OpenACL loads when given no path, and the file
// ACLPathFor looks for beside a runtime: libascendcl.so (libascendcl.dylib
// on darwin).
const ACLLibraryName = "libascendcl" + SharedLibrarySuffix

// ACL error codes onboard names.
const (
	// ACLSuccess is ACL_SUCCESS.
	ACLSuccess int32 = 0
	// ACLErrorInvalidParam is ACL_ERROR_INVALID_PARAM.
	ACLErrorInvalidParam int32 = 100000
	// ACLErrorRepeatInitialize is what aclInit returns when ACL is
	// initialized already; Init counts it as success.
	ACLErrorRepeatInitialize int32 = abi.ACLErrorRepeatInitialize
)

// MemcpyKind is aclrtMemcpyKind.
type MemcpyKind int32

// Memcpy kinds.
const (
	MemcpyHostToDevice MemcpyKind = 1
	MemcpyDeviceToHost MemcpyKind = 2
)

// ACLError is a nonzero aclError returned by an ACL call.
type ACLError struct {
	Func string
	Code int32
}

func (e *ACLError) Error() string {
	return fmt.Sprintf("onboard: %s returned aclError %d", e.Func, e.Code)
}

// ErrACLMissing is returned by an ACL method whose symbol the library does not
// export (aclrtMalloc, aclrtFree, aclrtMemcpy, aclrtResetDevice,
// aclrtSynchronizeDevice, simabi_acl_counters are optional).
var ErrACLMissing = errors.New("onboard: the ACL library does not export this function")

// ACLCounters are the call counters of the fake ACL (simabi_acl_counters),
// in semantics.md's order.
type ACLCounters = abi.ACLCounters

// aclCounterCount is the number of counters simabi_acl_counters writes.
const aclCounterCount = 9

// ACL is an ACL library loaded for a caller on silicon (or the fake ACL of an
// emitted runtime, which behaves the same): the caller owns ACL, the current
// device and its streams (D-1).
//
// The current device is per OS thread: lock the goroutine
// (runtime.LockOSThread) before SetDevice and keep it locked while it drives
// a context on that device.
type ACL struct {
	path   string
	handle uintptr

	init, finalize, setDevice, getDevice, resetDevice   uintptr
	createStream, destroyStream, syncStream, syncDevice uintptr
	malloc, free, memcpy, counters, resetCounters       uintptr
}

// ACLPathFor is the ACL library to use beside a runtime: runtimeDir's
// ACLLibraryName when it exists (an emitted runtime's fake ACL), else
// ACLLibraryName for the dynamic loader's search. runtimePath may name the
// runtime library or its directory.
func ACLPathFor(runtimePath string) string {
	dir := runtimePath
	if fi, err := os.Stat(runtimePath); err == nil && !fi.IsDir() {
		dir = filepath.Dir(runtimePath)
	}
	p := filepath.Join(dir, ACLLibraryName)
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		return p
	}
	return ACLLibraryName
}

// OpenACL loads the ACL library at path (ACLLibraryName when empty) RTLD_NOW |
// RTLD_GLOBAL, as a process linked against ACL has it, and resolves aclInit,
// aclFinalize, aclrtSetDevice, aclrtGetDevice, aclrtCreateStream,
// aclrtDestroyStream and aclrtSynchronizeStream (required) and aclrtResetDevice,
// aclrtSynchronizeDevice, aclrtMalloc, aclrtFree, aclrtMemcpy and
// simabi_acl_counters (optional). Opening the very file a runtime already
// loaded as its dependency yields that same copy; a simabi fake ACL is one
// per process whatever file is opened (docs/fake-runtime.md), so the caller
// and every fake runtime see one ACL.
func OpenACL(path string) (*ACL, error) {
	if path == "" {
		path = ACLLibraryName
	}
	h, err := dlopen(path, globalMode)
	if err != nil {
		return nil, &LoadError{Path: path, Step: "dlopen", Err: err}
	}
	a := &ACL{path: path, handle: h}
	required := []struct {
		name string
		p    *uintptr
	}{
		{"aclInit", &a.init}, {"aclFinalize", &a.finalize}, {"aclrtSetDevice", &a.setDevice},
		{"aclrtGetDevice", &a.getDevice}, {"aclrtCreateStream", &a.createStream},
		{"aclrtDestroyStream", &a.destroyStream}, {"aclrtSynchronizeStream", &a.syncStream},
	}
	var missing []string
	for _, s := range required {
		if *s.p = dlsym(h, s.name); *s.p == 0 {
			missing = append(missing, s.name)
		}
	}
	if len(missing) > 0 {
		_ = dlclose(h)
		return nil, &LoadError{Path: path, Step: "dlsym", Err: fmt.Errorf("missing ACL functions: %s", strings.Join(missing, ", "))}
	}
	a.resetDevice = dlsym(h, "aclrtResetDevice")
	a.syncDevice = dlsym(h, "aclrtSynchronizeDevice")
	a.malloc = dlsym(h, "aclrtMalloc")
	a.free = dlsym(h, "aclrtFree")
	a.memcpy = dlsym(h, "aclrtMemcpy")
	a.counters = dlsym(h, "simabi_acl_counters")
	a.resetCounters = dlsym(h, "simabi_acl_reset_counters")
	return a, nil
}

// Path is the path the library was opened from.
func (a *ACL) Path() string { return a.path }

// Close drops the library reference (dlclose). It does not call aclFinalize.
func (a *ACL) Close() error {
	if a.handle == 0 {
		return ErrClosed
	}
	h := a.handle
	*a = ACL{path: a.path}
	if err := dlclose(h); err != nil {
		return &LoadError{Path: a.path, Step: "dlclose", Err: err}
	}
	return nil
}

func aclResult(fn string, r1 uintptr) error {
	if code := int32(r1); code != ACLSuccess {
		return &ACLError{Func: fn, Code: code}
	}
	return nil
}

func (a *ACL) call(name string, fn uintptr, args ...uintptr) error {
	if fn == 0 {
		if a.handle == 0 {
			return ErrClosed
		}
		return fmt.Errorf("%w: %s", ErrACLMissing, name)
	}
	r1, _, _ := purego.SyscallN(fn, args...)
	return aclResult(name, r1)
}

// Init calls aclInit(configPath), NULL when configPath is empty. A repeated
// initialization (ACL_ERROR_REPEAT_INITIALIZE, 100002) counts as success.
func (a *ACL) Init(configPath string) error {
	if a.init == 0 {
		return ErrClosed
	}
	var r1 uintptr
	if configPath == "" {
		r1 = call1(a.init, 0)
	} else {
		c := append([]byte(configPath), 0)
		r1 = call1(a.init, uintptr(unsafe.Pointer(&c[0])))
	}
	if int32(r1) == ACLErrorRepeatInitialize {
		return nil
	}
	return aclResult("aclInit", r1)
}

// Finalize calls aclFinalize.
func (a *ACL) Finalize() error { return a.call("aclFinalize", a.finalize) }

// SetDevice calls aclrtSetDevice(dev) for the calling OS thread: lock the
// goroutine to its thread first (runtime.LockOSThread).
func (a *ACL) SetDevice(dev int32) error {
	return a.call("aclrtSetDevice", a.setDevice, uintptr(dev))
}

// ResetDevice calls aclrtResetDevice(dev).
func (a *ACL) ResetDevice(dev int32) error {
	return a.call("aclrtResetDevice", a.resetDevice, uintptr(dev))
}

// GetDevice calls aclrtGetDevice: the calling OS thread's current device.
func (a *ACL) GetDevice() (int32, error) {
	if a.getDevice == 0 {
		return -1, ErrClosed
	}
	dev := new(int32)
	r1 := call1(a.getDevice, uintptr(unsafe.Pointer(dev)))
	if err := aclResult("aclrtGetDevice", r1); err != nil {
		return -1, err
	}
	return *dev, nil
}

// CreateStream calls aclrtCreateStream.
func (a *ACL) CreateStream() (abi.Stream, error) {
	if a.createStream == 0 {
		return 0, ErrClosed
	}
	s := new(uintptr)
	r1 := call1(a.createStream, uintptr(unsafe.Pointer(s)))
	if err := aclResult("aclrtCreateStream", r1); err != nil {
		return 0, err
	}
	return abi.Stream(*s), nil
}

// DestroyStream calls aclrtDestroyStream.
func (a *ACL) DestroyStream(s abi.Stream) error {
	return a.call("aclrtDestroyStream", a.destroyStream, uintptr(s))
}

// SynchronizeStream calls aclrtSynchronizeStream: it completes the stream's
// work and returns its first failure (an *ACLError carrying the code; the
// fake ACL forwards a launch's asynchronous device failure, E-LAUNCH-ASYNC).
func (a *ACL) SynchronizeStream(s abi.Stream) error {
	return a.call("aclrtSynchronizeStream", a.syncStream, uintptr(s))
}

// SynchronizeDevice calls aclrtSynchronizeDevice.
func (a *ACL) SynchronizeDevice() error {
	return a.call("aclrtSynchronizeDevice", a.syncDevice)
}

// HasMemory reports whether aclrtMalloc, aclrtFree and aclrtMemcpy resolved.
func (a *ACL) HasMemory() bool { return a.malloc != 0 && a.free != 0 && a.memcpy != 0 }

// Malloc calls aclrtMalloc(&p, size, policy).
func (a *ACL) Malloc(size uintptr, policy int32) (abi.DevicePtr, error) {
	if a.malloc == 0 {
		return 0, a.call("aclrtMalloc", 0)
	}
	p := new(uintptr)
	r1 := call3(a.malloc, uintptr(unsafe.Pointer(p)), size, uintptr(policy))
	if err := aclResult("aclrtMalloc", r1); err != nil {
		return 0, err
	}
	return abi.DevicePtr(*p), nil
}

// Free calls aclrtFree(p).
func (a *ACL) Free(p abi.DevicePtr) error { return a.call("aclrtFree", a.free, uintptr(p)) }

// Memcpy calls aclrtMemcpy(dst, destMax, src, count, kind) with raw
// addresses (device addresses or C memory: a Go object named only by a
// uintptr is not kept alive); use CopyToDevice and CopyFromDevice for Go
// memory.
func (a *ACL) Memcpy(dst uintptr, destMax uintptr, src uintptr, count uintptr, kind MemcpyKind) error {
	return a.call("aclrtMemcpy", a.memcpy, dst, destMax, src, count, uintptr(kind))
}

// CopyToDevice copies src to device memory at dst, whose capacity is dstMax
// bytes (aclrtMemcpy host to device, destMax = dstMax: ACL refuses a copy
// larger than the destination). The fake ACL checks only count <= destMax,
// so dstMax must be the true capacity.
func (a *ACL) CopyToDevice(dst abi.DevicePtr, dstMax uintptr, src []byte) error {
	if a.memcpy == 0 {
		return a.call("aclrtMemcpy", 0)
	}
	if len(src) == 0 {
		return nil
	}
	r1 := call5(a.memcpy, uintptr(dst), dstMax, uintptr(unsafe.Pointer(&src[0])), uintptr(len(src)), uintptr(MemcpyHostToDevice))
	return aclResult("aclrtMemcpy", r1)
}

// CopyFromDevice copies len(dst) bytes of device memory at src into dst
// (aclrtMemcpy device to host).
func (a *ACL) CopyFromDevice(dst []byte, src abi.DevicePtr) error {
	if a.memcpy == 0 {
		return a.call("aclrtMemcpy", 0)
	}
	if len(dst) == 0 {
		return nil
	}
	r1 := call5(a.memcpy, uintptr(unsafe.Pointer(&dst[0])), uintptr(len(dst)), uintptr(src), uintptr(len(dst)), uintptr(MemcpyDeviceToHost))
	return aclResult("aclrtMemcpy", r1)
}

// HasCounters reports whether the library exports simabi_acl_counters (the
// fake ACL does; a real one does not).
func (a *ACL) HasCounters() bool { return a.counters != 0 }

// Counters reads the fake ACL's call counters: int
// simabi_acl_counters(uint64_t *out, int32_t n) writes min(n, its count)
// counters and returns how many it wrote.
func (a *ACL) Counters() (ACLCounters, error) {
	if a.counters == 0 {
		if a.handle == 0 {
			return ACLCounters{}, ErrClosed
		}
		return ACLCounters{}, fmt.Errorf("%w: simabi_acl_counters", ErrACLMissing)
	}
	out := new([aclCounterCount]uint64)
	if n := int32(call2(a.counters, uintptr(unsafe.Pointer(out)), aclCounterCount)); n != aclCounterCount {
		return ACLCounters{}, fmt.Errorf("onboard: simabi_acl_counters wrote %d counters, want %d", n, aclCounterCount)
	}
	return ACLCounters{
		Init: out[0], Finalize: out[1], SetDevice: out[2], ResetDevice: out[3],
		SynchronizeStream: out[4], SynchronizeDevice: out[5], CreateStream: out[6],
		DestroyStream: out[7], GetDevice: out[8],
	}, nil
}

// ResetCounters zeroes the fake ACL's call counters
// (simabi_acl_reset_counters, when exported).
func (a *ACL) ResetCounters() error {
	if a.resetCounters == 0 {
		if a.handle == 0 {
			return ErrClosed
		}
		return fmt.Errorf("%w: simabi_acl_reset_counters", ErrACLMissing)
	}
	call0(a.resetCounters)
	return nil
}
