package abi

// ACL status codes a caller sees (the simulated ACL, the fake libascendcl
// the emitter builds, and the subset of real ACL's codes the consumer
// handles).
const (
	ACLSuccess           = 0      // ACL_SUCCESS
	ACLErrorInvalidParam = 100000 // ACL_ERROR_INVALID_PARAM: NULL stream, no current device, bad range
	ACLErrorBadAlloc     = 200000 // ACL_ERROR_BAD_ALLOC: device memory exhausted
)

// ACLCounters count the ACL calls a runtime made (the simulated ACL's
// counters, the fake libascendcl's simabi_acl_counters), in this order.
// Kernel-context paths move none of the first six (D-1).
type ACLCounters struct {
	Init              uint64
	Finalize          uint64
	SetDevice         uint64
	ResetDevice       uint64
	SynchronizeStream uint64
	SynchronizeDevice uint64
	CreateStream      uint64
	DestroyStream     uint64
	GetDevice         uint64
}

// ACLCounterNames are the ACL functions the counters count, in order.
var ACLCounterNames = [...]string{"aclInit", "aclFinalize", "aclrtSetDevice", "aclrtResetDevice",
	"aclrtSynchronizeStream", "aclrtSynchronizeDevice", "aclrtCreateStream", "aclrtDestroyStream", "aclrtGetDevice"}

// Values are the counters in ACLCounterNames order.
func (c ACLCounters) Values() [len(ACLCounterNames)]uint64 {
	return [...]uint64{c.Init, c.Finalize, c.SetDevice, c.ResetDevice, c.SynchronizeStream, c.SynchronizeDevice,
		c.CreateStream, c.DestroyStream, c.GetDevice}
}

// Forbidden is the sum of the six counters no kernel-context path may move
// (D-1).
func (c ACLCounters) Forbidden() uint64 {
	return c.Init + c.Finalize + c.SetDevice + c.ResetDevice + c.SynchronizeStream + c.SynchronizeDevice
}

// ForbiddenSince names the D-1 calls made between the snapshots before and
// c, comma-separated ("" for none).
func (c ACLCounters) ForbiddenSince(before ACLCounters) string {
	now, then := c.Values(), before.Values()
	out := ""
	for i := 0; i < 6; i++ {
		if now[i] != then[i] {
			if out != "" {
				out += ", "
			}
			out += ACLCounterNames[i]
		}
	}
	return out
}
