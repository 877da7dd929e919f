// Package abi describes the host-runtime C ABI of simpler as data: status codes,
// constants, byte layouts with bounds-checked encoders and decoders, the symbol
// table, and the Runtime interface that every backend implements.
//
// Rule IDs (S-1, V-PREP-1, ...) refer to docs/contract.md; entries, codes
// and layouts to docs/contract.md.
package abi

import "strconv"

// Status is the int returned by a status-returning C entry. 0 is success.
type Status int32

// Host-side status codes (docs/contract.md "Status codes"). Runtimes originate these for
// host failures; they lie at or below -1000 (S-1).
const (
	OK                    Status = 0
	Internal              Status = -1000 // PTO_RUNTIME_ERR_INTERNAL
	Unsupported           Status = -1001 // PTO_RUNTIME_ERR_UNSUPPORTED
	PreparedIncompatible  Status = -1002 // PTO_RUNTIME_ERR_PREPARED_INCOMPATIBLE
	InvalidState          Status = -1003 // PTO_RUNTIME_ERR_INVALID_STATE
	InvalidArgument       Status = -1004 // PTO_RUNTIME_ERR_INVALID_ARGUMENT
	CallableCountExceeded Status = -1005 // PTO_RUNTIME_ERR_CALLABLE_COUNT_EXCEEDED
	CallableBytesExceeded Status = -1006 // PTO_RUNTIME_ERR_CALLABLE_BYTES_EXCEEDED
	CallableNotResident   Status = -1007 // PTO_RUNTIME_ERR_CALLABLE_NOT_RESIDENT
	CapacityExceeded      Status = -1008 // PTO_RUNTIME_ERR_CAPACITY_EXCEEDED
)

// The bounds of the two negative bands (S-1).
const (
	// HostBandMax is the largest value of the host band (PTO_RUNTIME_ERR_BASE).
	HostBandMax Status = -1000
	// HostBandMin is the smallest host code docs/contract.md defines.
	HostBandMin Status = CapacityExceeded
	// LatchedCodeMax is PTO_RUNTIME_LATCHED_CODE_MAX: device codes 1..999 are
	// reported negated, in -1..-999.
	LatchedCodeMax = 999
)

// Poll values of simpler_poll_run.
const (
	PollError    Status = Internal
	PollNotReady Status = 0
	PollComplete Status = 1
)

// Legacy (pre-kernel-ABI) codes. A legacy build reports every generic host
// failure as -1, which collides with the device band; reports translate them.
const (
	LegacyGeneric              Status = -1
	LegacyUnsupported          Status = -2
	LegacyPreparedIncompatible Status = -3
	LegacyPollError            Status = -1
)

// ACLErrorRepeatInitialize is what aclInit answers when ACL is already
// initialized; callers count it as success.
const ACLErrorRepeatInitialize = 100002

var hostNames = map[Status]string{
	Internal:              "INTERNAL",
	Unsupported:           "UNSUPPORTED",
	PreparedIncompatible:  "PREPARED_INCOMPATIBLE",
	InvalidState:          "INVALID_STATE",
	InvalidArgument:       "INVALID_ARGUMENT",
	CallableCountExceeded: "CALLABLE_COUNT_EXCEEDED",
	CallableBytesExceeded: "CALLABLE_BYTES_EXCEEDED",
	CallableNotResident:   "CALLABLE_NOT_RESIDENT",
	CapacityExceeded:      "CAPACITY_EXCEEDED",
}

// DeviceLatchedNames names the device-latched runtime codes (positive values;
// a runtime reports code c as -c).
var DeviceLatchedNames = map[int32]string{
	1:   "SCOPE_DEADLOCK",
	2:   "HEAP_RING_DEADLOCK",
	3:   "FLOW_CONTROL_DEADLOCK",
	4:   "FANIN_CAPACITY_EXCEEDED",
	5:   "INVALID_ARGS",
	7:   "REQUIRE_SYNC_START_INVALID",
	8:   "TENSOR_WAIT_TIMEOUT",
	9:   "EXPLICIT_ORCH_FATAL",
	10:  "SCOPE_TASKS_OVERFLOW",
	11:  "TENSORMAP_OVERFLOW",
	100: "SCHEDULER_TIMEOUT",
	101: "ASYNC_COMPLETION_INVALID",
	102: "ASYNC_WAIT_OVERFLOW",
	103: "ASYNC_REGISTRATION_FAILED",
}

// HostStatuses lists every host-band code docs/contract.md defines, from -1000 down.
var HostStatuses = []Status{
	Internal, Unsupported, PreparedIncompatible, InvalidState, InvalidArgument,
	CallableCountExceeded, CallableBytesExceeded, CallableNotResident, CapacityExceeded,
}

// IsHostBand reports whether s is at or below -1000 (the band runtimes use for
// host-side failures, S-1).
func (s Status) IsHostBand() bool { return s <= HostBandMax }

// IsDefinedHost reports whether s is one of the host codes docs/contract.md names.
func (s Status) IsDefinedHost() bool { _, ok := hostNames[s]; return ok }

// IsDeviceLatched reports whether s lies in -1..-999, the band of negated
// device-latched runtime codes (S-1).
func (s Status) IsDeviceLatched() bool { return s <= -1 && s >= -LatchedCodeMax }

// Name is the bare name of s ("INVALID_ARGUMENT", "OK", "SCOPE_DEADLOCK"), or
// "" when docs/contract.md gives s no name.
func (s Status) Name() string {
	if s == OK {
		return "OK"
	}
	if n, ok := hostNames[s]; ok {
		return n
	}
	if s.IsDeviceLatched() {
		return DeviceLatchedNames[int32(-s)]
	}
	return ""
}

// String renders s as NAME(value), for example "INVALID_ARGUMENT(-1004)"; an
// unnamed value renders as "STATUS(value)".
func (s Status) String() string {
	n := s.Name()
	if n == "" {
		n = "STATUS"
	}
	return n + "(" + strconv.Itoa(int(s)) + ")"
}

// TranslateLegacy maps a status returned by a legacy build onto the current
// table for reports: -1 is generic (INTERNAL), -2 UNSUPPORTED, -3
// PREPARED_INCOMPATIBLE. Other values are returned unchanged.
func TranslateLegacy(s Status) Status {
	switch s {
	case LegacyGeneric:
		return Internal
	case LegacyUnsupported:
		return Unsupported
	case LegacyPreparedIncompatible:
		return PreparedIncompatible
	}
	return s
}
