//go:build !(linux && amd64)

package sim

// rdfsbase is never called where fsbaseUsable is false.
func rdfsbase() uintptr { return 0 }

// fsbaseUsable is false off linux/amd64: the thread key is gettid.
func fsbaseUsable() bool { return false }

// hwcap2HasFSGSBASE is not consulted off linux/amd64.
func hwcap2HasFSGSBASE([]byte) bool { return false }
