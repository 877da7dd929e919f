// Package safemem reads and writes memory at an address another component
// handed out (a runtime's CommContext, a window it mapped), failing where
// nothing readable or writable is there instead of faulting: the bytes go
// through a pipe, and the kernel answers EFAULT for an address the process
// cannot access. A checker that reads what a runtime under test points at
// must survive a runtime that points at nothing.
package safemem

import "errors"

// ErrUnsupported: the platform has no pipe to go through.
var ErrUnsupported = errors.New("safemem: not supported on this platform")
