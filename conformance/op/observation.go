package op

import (
	"strconv"

	"github.com/simabi/simabi/abi"
)

// CallObs is what one call returned.
type CallObs struct {
	Status abi.Status
	Out    int32  // prepare: the value left in out_callable_id
	Value  uint64 // queries: the value returned (pointers as 0 / 1)
	// Launch: the counts and the host flag the args actually carried.
	ArgT, ArgS int32
	ArgHost    bool
}

// Observation is what one op (one repetition) answered, seen by the runner
// or recorded in a trace.
type Observation struct {
	Call   CallObs
	Second CallObs // hold and race ops: the call on the second thread
	// Hold ops: Overlap, the second call started while the prepare held
	// the gate; SecondLate, it waited; Parked, the prepare was parked by
	// simabi_hold_gate, not fault site 7.
	Overlap, SecondLate, Parked bool
	// Committed memory of the op's context after the op, and before it
	// (MemPrevUnknown: a recorded call, judged only when exact).
	MemProbed      bool
	Mem, MemPrev   uint64
	MemPrevUnknown bool
	ACLProbed      bool
	ACLForbidden   string   // D-1: the forbidden ACL calls the op made, "" when none
	Contract       []byte   // contract: the 144 bytes, nil when the pointer was NULL
	HandleCreated  bool     // create: a non-NULL handle came back
	ImageWritten   bool     // prepare wrote into the caller's image (M-6)
	Accepted       int32    // the storage's accepted_state after a launch_run (-1 before)
	Comm           *CommObs // what a comm op left in the caller's memory
	// Holds: a dev_read's DevHolds as the model said, for the history only.
	Holds uint64
	// Unmade says why the runner did not make the call; the model records
	// a skip of UnmadeRule (a model.Rule) for it.
	Unmade     string
	UnmadeRule uint8
}

// CommObs is what a comm op (E-COMM) left in the caller's memory.
type CommObs struct {
	// Out, Base: the out pointer and local_window_base_out after the call
	// (CommUnwritten: nothing written).
	Out, Base uint64
	// Ctx: the CommContext Out points at after a 0, read through the hooks
	// (nil without them, or Unreadable).
	Ctx        []byte
	Unreadable bool
	Desc       []byte // gprep's descriptor_out (CommUnwrittenByte before)
	Word       uint64 // what a cmem read found
	// Early: a parked call returned before the call that releases it.
	Early bool
}

// What the runner leaves in the comm family's out pointers before a call.
const (
	CommUnwritten     uint64 = 0x3C3C3C3C3C3C3C3C
	CommUnwrittenByte byte   = 0x3C
)

// OutSentinel is what out_callable_id holds before a prepare (out=null
// reads as it).
const OutSentinel int32 = 0x3C3C3C3C

// AcceptedValue is run storage st's descriptor's accepted_value, which
// launch_run must publish.
func AcceptedValue(st int8) int32 { return 0x5A0 + int32(st) }

// StatusName is a status's bare name when docs/contract.md names it, else
// its value.
func StatusName(s abi.Status) string {
	if n := s.Name(); n != "" {
		return n
	}
	return strconv.Itoa(int(s))
}
