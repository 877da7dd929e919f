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

// Observation is what one op answered (one repetition of a repeated op): what
// the runner saw, or what a trace recorded.
type Observation struct {
	Call   CallObs
	Second CallObs // hold and race ops: the call on the second thread
	// Hold ops: Overlap, the second call started while the first prepare
	// held the gate; SecondLate, it waited for the gate; Parked, the
	// prepare was parked through simabi_hold_gate, not fault site 7.
	Overlap, SecondLate, Parked bool
	// Committed memory of the op's context after the op, and before it.
	MemProbed    bool
	Mem, MemPrev uint64
	// MemPrevUnknown: only Mem is known (a recorded committed_device_memory_ctx
	// call), so only an exact expectation (0) is judged, not a direction.
	MemPrevUnknown bool
	ACLProbed      bool
	ACLForbidden   string // D-1: the forbidden ACL calls the op made, "" when none
	Contract       []byte // contract: the 144 bytes, nil when the pointer was NULL
	HandleCreated  bool   // create: a non-NULL handle came back
	ImageWritten   bool   // prepare wrote into the caller's image (M-6)
	// Accepted is the word at the storage's accepted_state after a
	// launch_run (the runner sets it to -1 before the call).
	Accepted int32
	// Comm is what a comm op left in the caller's memory (nil for other
	// ops).
	Comm *CommObs
	// Holds: for a dev_read, what the model said the allocation held
	// (DevHolds; 0: not known), for the history's result beside Call.Value;
	// the model judges from its own state, not from it.
	Holds uint64
	// Unmade says why the runner did not make the call ("": it made it);
	// the model records a skip of UnmadeRule (a model.Rule) for it.
	Unmade     string
	UnmadeRule uint8
}

// CommObs is what a comm op (E-COMM) left in the caller's memory.
type CommObs struct {
	// Out, Base: what the out pointer and local_window_base_out hold after
	// the call (CommUnwritten: nothing written).
	Out, Base uint64
	// Ctx: the CommContext Out points at after a call that returned 0,
	// read through the simulation hooks (nil without them, or Unreadable).
	Ctx        []byte
	Unreadable bool
	// Desc is gprep's descriptor_out after the call (abi.CommDescSize
	// bytes, CommUnwrittenByte before it).
	Desc []byte
	// Word is what a cmem read found.
	Word uint64
	// Early: the call was parked (it waits for its peers) and returned
	// before the call that releases it was made.
	Early bool
}

// What the runner leaves in the comm family's out pointers before a call:
// a value that still holds it was not written.
const (
	CommUnwritten     uint64 = 0x3C3C3C3C3C3C3C3C
	CommUnwrittenByte byte   = 0x3C
)

// OutSentinel is what out_callable_id holds before a prepare: a call that
// left it there wrote nothing (a prepare given out=null reads as one).
const OutSentinel int32 = 0x3C3C3C3C

// AcceptedValue is the accepted_value of run storage st's descriptor: what
// launch_run must publish through accepted_state.
func AcceptedValue(st int8) int32 { return 0x5A0 + int32(st) }

// StatusName renders a status for histories and findings: its bare name
// when docs/contract.md names it, else its value.
func StatusName(s abi.Status) string {
	if n := s.Name(); n != "" {
		return n
	}
	return strconv.Itoa(int(s))
}
