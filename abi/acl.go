package abi

// ACL status codes a caller sees (the simulated ACL, the fake libascendcl
// the emitter builds, and the subset of real ACL's codes the consumer
// handles).
const (
	ACLSuccess           = 0      // ACL_SUCCESS
	ACLErrorInvalidParam = 100000 // ACL_ERROR_INVALID_PARAM: NULL stream, no current device, bad range
	ACLErrorBadAlloc     = 200000 // ACL_ERROR_BAD_ALLOC: device memory exhausted
)
