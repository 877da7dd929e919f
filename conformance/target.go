package conformance

import (
	"errors"

	"github.com/simabi/simabi/abi"
)

// ACL is the part of an ACL library a checker needs on the caller's side
// when a target exports no simulation hooks (docs/contract.md: aclrtSetDevice,
// aclrtCreateStream, aclrtSynchronizeStream). Calls act on the calling OS
// thread. Statuses are ACL's own codes (0 = success).
type ACL interface {
	SetDevice(dev int32) int32
	CreateStream() (abi.Stream, int32)
	SynchronizeStream(s abi.Stream) int32
	DestroyStream(s abi.Stream) int32
}

// ACLCounts counts ACL calls a target's runtime made (sim: ACL.Counters;
// the emitted fake ACL: simabi_acl_counters). D-1 forbids the first six on a
// kernel context's path.
type ACLCounts = abi.ACLCounters

// Target is one runtime instance under test and the means a checker has to
// drive its environment. Adapters are thin: sim.Runtime is both an
// abi.Runtime and an abi.SimHooks; onboard.Library is an abi.Runtime whose
// Hooks() reports whether the library exports the hooks.
type Target interface {
	// Runtime is the runtime instance. Its claim registry and fault sites
	// are shared by every sequence run on it.
	Runtime() abi.Runtime
	// Hooks are the simulation hooks of docs/contract.md, when the target exports
	// them.
	Hooks() (abi.SimHooks, bool)
	// ACL is an ACL library in the process, for targets without hooks.
	ACL() (ACL, bool)
	// Counters reads the ACL call counters, when the target exposes them
	// (D-1).
	Counters() (ACLCounts, bool)
}

// DeviceMemory is device memory a caller allocates and fills through ACL
// (aclrtMalloc, aclrtMemcpy, aclrtFree), in the memory the runtime's kernels
// read and write: how a caller hands a kernel real tensors. Statuses are
// ACL's own codes (0 = success). sim.ACL is one.
type DeviceMemory interface {
	Malloc(size uintptr) (abi.DevicePtr, int32)
	Free(p abi.DevicePtr) int32
	CopyToDevice(dst abi.DevicePtr, src []byte) int32
	CopyFromDevice(dst []byte, src abi.DevicePtr) int32
}

// MemoryTarget is a Target whose caller can allocate device memory. It is
// optional: only a caller that hands a kernel real tensors needs it (the
// numeric-add-scalar scenario).
type MemoryTarget interface {
	Memory() (DeviceMemory, bool)
}

// Unloader is a Target whose runtime library the runner may unload (U-1):
// Unload dlcloses the instance; nothing of it may be called afterwards.
type Unloader interface {
	CanUnload() bool
	Unload() error
}

// ControlTarget is a Target whose runtime exports the simulation control
// hooks (docs/contract.md F-1: simabi_hold_gate, simabi_gate_state,
// simabi_reset).
type ControlTarget interface {
	Control() (abi.SimControl, bool)
}

// CommTimeoutTarget is a Target whose runtime exports the comm timeout
// hook (docs/contract.md F-1: simabi_comm_timeout_ms).
type CommTimeoutTarget interface {
	CommTimeout() (abi.SimCommTimeout, bool)
}

// Basic is a Target assembled from parts; nil parts are absent.
type Basic struct {
	RT       abi.Runtime
	SimHooks abi.SimHooks
	SimCtl   abi.SimControl
	// SimTimeout is the comm timeout hook, making the target a
	// CommTimeoutTarget.
	SimTimeout abi.SimCommTimeout
	ACLib      ACL
	CountersF  func() ACLCounts
	// Mem is caller-side device memory, making the target a MemoryTarget.
	Mem DeviceMemory
	// UnloadF unloads the instance (a private copy of a library), making
	// the target an Unloader.
	UnloadF func() error
}

// CanUnload implements Unloader: the target unloads when UnloadF is set.
func (b *Basic) CanUnload() bool { return b.UnloadF != nil }

// Unload implements Unloader.
func (b *Basic) Unload() error {
	if b.UnloadF == nil {
		return errors.New("conformance: this target cannot be unloaded")
	}
	return b.UnloadF()
}

// Runtime implements Target.
func (b *Basic) Runtime() abi.Runtime { return b.RT }

// Hooks implements Target.
func (b *Basic) Hooks() (abi.SimHooks, bool) { return b.SimHooks, b.SimHooks != nil }

// ACL implements Target.
func (b *Basic) ACL() (ACL, bool) { return b.ACLib, b.ACLib != nil }

// Counters implements Target.
func (b *Basic) Counters() (ACLCounts, bool) {
	if b.CountersF == nil {
		return ACLCounts{}, false
	}
	return b.CountersF(), true
}

// Control implements ControlTarget.
func (b *Basic) Control() (abi.SimControl, bool) { return b.SimCtl, b.SimCtl != nil }

// CommTimeout implements CommTimeoutTarget.
func (b *Basic) CommTimeout() (abi.SimCommTimeout, bool) { return b.SimTimeout, b.SimTimeout != nil }

// Memory implements MemoryTarget.
func (b *Basic) Memory() (DeviceMemory, bool) { return b.Mem, b.Mem != nil }

// Caps is what a target lets a checker drive.
type Caps uint16

// Capabilities.
const (
	CapSetDevice   Caps = 1 << iota // set the calling thread's device (hook or ACL)
	CapClearDevice                  // leave the thread with no device (hook only)
	CapGetDevice                    // read the thread's device (hook)
	CapSync                         // synchronize a stream (hook or ACL)
	CapInject                       // fault injection (hook)
	CapCounters                     // ACL call counters (D-1)
	CapDriven                       // stream completion is driven by the checker (hooks)
	CapUnload                       // the instance can be unloaded (a private copy of a library; U-1)
	CapGate                         // park a prepare holding its gate and see who waits (control hooks)
	CapReset                        // return the instance to a fresh load's state (control hooks)
	// CapComm: the target's comm family is the simulated backend E-COMM
	// describes: a target with the simulation hooks, or one run without an
	// ACL (upstream's simulator builds); a build on silicon (no hooks, an
	// ACL given) links HCCL's.
	CapComm
	// CapPeek: what a comm entry's pointer points at may be read (the
	// simulation hooks: on silicon a CommContext is device memory).
	CapPeek
	// CapCommTimeout: the comm family's timeout can be shortened
	// (simabi_comm_timeout_ms), so a call whose peers never come is made
	// and times out in milliseconds (E-COMM.9, .21, .29, .34, .59).
	CapCommTimeout
)

// CapsOf derives a target's capabilities.
func CapsOf(t Target) Caps {
	var c Caps
	_, hooks := t.Hooks()
	_, acl := t.ACL()
	_, counters := t.Counters()
	switch {
	case hooks:
		c |= CapSetDevice | CapClearDevice | CapGetDevice | CapSync | CapInject | CapDriven | CapComm | CapPeek
	case acl:
		c |= CapSetDevice | CapSync
	default:
		c |= CapComm
	}
	if counters {
		c |= CapCounters
	}
	if u, ok := t.(Unloader); ok && u.CanUnload() {
		c |= CapUnload
	}
	if tt, ok := t.(CommTimeoutTarget); ok && c.Has(CapComm) {
		if _, ok := tt.CommTimeout(); ok {
			c |= CapCommTimeout
		}
	}
	if ct, ok := t.(ControlTarget); ok && hooks {
		if _, ok := ct.Control(); ok {
			c |= CapGate | CapReset
		}
	}
	return c
}

// Has reports whether every capability of need is present.
func (c Caps) Has(need Caps) bool { return c&need == need }

// Factory opens a target for one run: a fresh runtime instance when the
// backend can make one (sim), or the one loaded library (onboard), and a
// function that releases it.
type Factory func() (Target, func(), error)
