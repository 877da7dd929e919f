//go:build unix && !linux

package sim

import (
	"os"
	"path/filepath"
)

// platformShmDir: off Linux the platform's shm_open keeps no files, so the
// Go runtime's segments are files of their own, which only Go ranks of
// this machine share (docs/semantics.md §14).
func platformShmDir() (string, error) { return tempShmDir() }

// tempShmDir is the fallback directory: simabi-shm under the temporary
// directory, created on first use.
func tempShmDir() (string, error) {
	dir := filepath.Join(os.TempDir(), "simabi-shm")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}
