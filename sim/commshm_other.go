//go:build !unix

package sim

import "errors"

// Without POSIX shared memory every segment operation fails, so
// comm_alloc_windows, comm_alloc_domain_windows and
// comm_global_domain_prepare return -1 (docs/semantics.md §14).

var errNoShm = errors.New("sim: no shared memory on this platform")

func shmAttach(string) (int, error)       { return -1, errNoShm }
func shmCreate(string) (int, bool, error) { return -1, false, errNoShm }
func shmUnlink(string)                    {}
func shmClose(int)                        {}
func shmTruncate(int, uint64) error       { return errNoShm }
func shmSize(int) (uint64, bool)          { return 0, false }
func shmMap(int, uint64) ([]byte, error)  { return nil, errNoShm }
func shmUnmap([]byte)                     {}
func i32At(b []byte, off int) *int32      { return new(int32) }
func u64At(b []byte, off int) *uint64     { return new(uint64) }
