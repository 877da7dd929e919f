// Package latch holds the execution-mode latch (rules L-1..L-3) and the kernel
// phase machine (K-1..K-7) of docs/contract.md. The phase machine is an
// exported transition table (phase × event → next phase, result, effect) with a
// small interpreter, so sim/emit can emit the same table into C.
package latch

import (
	"sync"
	"sync/atomic"

	"github.com/simabi/simabi/abi"
)

// Mode is the execution mode a context is latched to.
type Mode uint32

// Modes. Unlatched is the zero value (L-1).
const (
	Unlatched Mode = iota
	Program
	Kernel
)

func (m Mode) String() string {
	switch m {
	case Program:
		return "PROGRAM"
	case Kernel:
		return "KERNEL"
	default:
		return "UNLATCHED"
	}
}

// Wire is the SimplerExecutionMode value (PROGRAM 0, KERNEL 1); -1 when
// unlatched.
func (m Mode) Wire() int32 {
	switch m {
	case Program:
		return abi.SimplerModeProgram
	case Kernel:
		return abi.SimplerModeKernel
	default:
		return -1
	}
}

// ModeLatch is the write-once mode of one context. The zero value is
// unlatched (L-1). It is safe for concurrent use: a latch is one
// compare-and-swap.
type ModeLatch struct{ v atomic.Uint32 }

// Latch latches m. Latching the held mode again succeeds; latching the other
// mode returns INVALID_STATE and changes nothing (L-2). Nothing unlatches
// (L-3). Latching Unlatched is refused with INVALID_ARGUMENT.
func (l *ModeLatch) Latch(m Mode) abi.Status {
	if m != Program && m != Kernel {
		return abi.InvalidArgument
	}
	if l.v.CompareAndSwap(uint32(Unlatched), uint32(m)) {
		return abi.OK
	}
	if Mode(l.v.Load()) == m {
		return abi.OK
	}
	return abi.InvalidState
}

// Mode is the latched mode.
func (l *ModeLatch) Mode() Mode { return Mode(l.v.Load()) }

// Latched reports whether any mode is held.
func (l *ModeLatch) Latched() bool { return l.Mode() != Unlatched }

// IsKernel reports whether KERNEL is held.
func (l *ModeLatch) IsKernel() bool { return l.Mode() == Kernel }

// IsProgram reports whether PROGRAM is held.
func (l *ModeLatch) IsProgram() bool { return l.Mode() == Program }

// ClaimRegistry holds the device claims of one loaded runtime (E-CLAIM): at
// most one live kernel context per device. It is safe for concurrent use
// . The zero value is empty.
type ClaimRegistry struct {
	mu     sync.Mutex
	owners map[int32]uintptr
}

// Claim gives device to owner unless another owner holds it; a repeated claim
// by the holder succeeds.
func (r *ClaimRegistry) Claim(device int32, owner uintptr) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur, ok := r.owners[device]; ok {
		return cur == owner
	}
	if r.owners == nil {
		r.owners = make(map[int32]uintptr)
	}
	r.owners[device] = owner
	return true
}

// Release drops owner's claim on device; it does nothing for another owner.
func (r *ClaimRegistry) Release(device int32, owner uintptr) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur, ok := r.owners[device]; ok && cur == owner {
		delete(r.owners, device)
	}
}

// Holder returns the owner of device's claim, if any.
func (r *ClaimRegistry) Holder(device int32) (uintptr, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.owners[device]
	return o, ok
}
