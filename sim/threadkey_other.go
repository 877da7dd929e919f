//go:build !linux

package sim

// gettid has no portable equivalent off Linux: every goroutine of the process
// shares one pseudo-thread, so the per-thread device degrades to one device
// per process. The simulator targets Linux; this keeps it building elsewhere.
func gettid() uintptr { return 1 }

// threadLiveness is nil off Linux: the one pseudo-thread never exits.
var threadLiveness func(uintptr) bool

func threadAlive(uintptr) bool { return true }
