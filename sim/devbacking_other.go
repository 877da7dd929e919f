//go:build !linux

package sim

// Off Linux device memory lives on the Go heap.
const mmapAvailable = false

func mapAnon(uint64) ([]byte, bool) { return nil, false }

func unmapAnon([]byte) {}
