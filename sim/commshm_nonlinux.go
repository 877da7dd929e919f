//go:build unix && !linux

package sim

// platformShmDir: off Linux the platform's shm_open keeps no files, so the
// Go runtime's segments are files of their own, which only Go ranks of
// this machine share (docs/semantics.md §14).
func platformShmDir() (string, error) { return tempShmDir() }
