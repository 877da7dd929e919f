package conformance

import (
	"errors"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/catalogue"
)

// ACL is what a checker needs of an ACL library when a target exports no
// simulation hooks; calls act on the calling thread, statuses are ACL's.
type ACL interface {
	SetDevice(dev int32) int32
	CreateStream() (abi.Stream, int32)
	SynchronizeStream(s abi.Stream) int32
	DestroyStream(s abi.Stream) int32
}

// ACLCounts counts ACL calls a target's runtime made (D-1).
type ACLCounts = abi.ACLCounters

// Target is one runtime instance under test (its claims and fault sites
// shared by every sequence run on it) and the means to drive its
// environment: the simulation hooks, or an ACL library, and the ACL call
// counters (D-1), each when present.
type Target interface {
	Runtime() abi.Runtime
	Hooks() (abi.SimHooks, bool)
	ACL() (ACL, bool)
	Counters() (ACLCounts, bool)
}

// DeviceMemory is device memory a caller allocates and fills through ACL,
// to hand a kernel real tensors; statuses are ACL's. sim.ACL is one.
type DeviceMemory interface {
	Malloc(size uintptr) (abi.DevicePtr, int32)
	Free(p abi.DevicePtr) int32
	CopyToDevice(dst abi.DevicePtr, src []byte) int32
	CopyFromDevice(dst []byte, src abi.DevicePtr) int32
}

// MemoryTarget is a Target whose caller can allocate device memory.
type MemoryTarget interface {
	Memory() (DeviceMemory, bool)
}

// Unloader is a Target whose library the runner may unload (U-1).
type Unloader interface {
	CanUnload() bool
	Unload() error
}

// ControlTarget is a Target with the simulation control hooks (F-1).
type ControlTarget interface {
	Control() (abi.SimControl, bool)
}

// CommTimeoutTarget is a Target with the comm timeout hook (F-1).
type CommTimeoutTarget interface {
	CommTimeout() (abi.SimCommTimeout, bool)
}

// Basic is a Target assembled from parts; nil parts are absent. Its methods
// implement Target, Unloader, ControlTarget, CommTimeoutTarget and
// MemoryTarget.
type Basic struct {
	RT         abi.Runtime
	SimHooks   abi.SimHooks
	SimCtl     abi.SimControl
	SimTimeout abi.SimCommTimeout // makes it a CommTimeoutTarget
	ACLib      ACL
	CountersF  func() ACLCounts
	Mem        DeviceMemory // makes it a MemoryTarget
	UnloadF    func() error // unloads a private copy: makes it an Unloader
}

func (b *Basic) CanUnload() bool { return b.UnloadF != nil }

func (b *Basic) Unload() error {
	if b.UnloadF == nil {
		return errors.New("conformance: this target cannot be unloaded")
	}
	return b.UnloadF()
}

func (b *Basic) Runtime() abi.Runtime { return b.RT }

func (b *Basic) Hooks() (abi.SimHooks, bool) { return b.SimHooks, b.SimHooks != nil }

func (b *Basic) ACL() (ACL, bool) { return b.ACLib, b.ACLib != nil }

func (b *Basic) Counters() (ACLCounts, bool) {
	if b.CountersF == nil {
		return ACLCounts{}, false
	}
	return b.CountersF(), true
}

func (b *Basic) Control() (abi.SimControl, bool) { return b.SimCtl, b.SimCtl != nil }

func (b *Basic) CommTimeout() (abi.SimCommTimeout, bool) { return b.SimTimeout, b.SimTimeout != nil }

func (b *Basic) Memory() (DeviceMemory, bool) { return b.Mem, b.Mem != nil }

// CapsOf derives a target's capabilities.
func CapsOf(t Target) catalogue.Caps {
	var c catalogue.Caps
	_, hooks := t.Hooks()
	_, acl := t.ACL()
	_, counters := t.Counters()
	switch {
	case hooks:
		c |= catalogue.CapSetDevice | catalogue.CapClearDevice | catalogue.CapGetDevice | catalogue.CapSync | catalogue.CapInject | catalogue.CapDriven | catalogue.CapComm | catalogue.CapPeek
	case acl:
		c |= catalogue.CapSetDevice | catalogue.CapSync
	default:
		c |= catalogue.CapComm
	}
	if counters {
		c |= catalogue.CapCounters
	}
	if u, ok := t.(Unloader); ok && u.CanUnload() {
		c |= catalogue.CapUnload
	}
	if tt, ok := t.(CommTimeoutTarget); ok && c.Has(catalogue.CapComm) {
		if _, ok := tt.CommTimeout(); ok {
			c |= catalogue.CapCommTimeout
		}
	}
	if ct, ok := t.(ControlTarget); ok && hooks {
		if _, ok := ct.Control(); ok {
			c |= catalogue.CapGate | catalogue.CapReset
		}
	}
	return c
}

// Factory opens a target for one run and a function that releases it.
type Factory func() (Target, func(), error)
