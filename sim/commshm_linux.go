//go:build linux

package sim

// platformShmDir is glibc's: shm_open(3) opens files of /dev/shm.
func platformShmDir() (string, error) { return "/dev/shm", nil }
