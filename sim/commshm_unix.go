//go:build unix

package sim

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/simabi/simabi/internal/scratch"
)

// POSIX shared memory as glibc implements it: a segment is a file of the
// shm directory (shmDir), opened O_NOFOLLOW|O_CLOEXEC, so that a Go rank
// and a C rank (the emitted runtime's shm_open) meet in one segment. On
// Linux the directory is /dev/shm, glibc's; elsewhere the segments are
// files under the temporary directory, which only Go ranks share (the
// emitted runtime calls the platform's shm_open there).

// errShmName is glibc's EINVAL for a name shm_open refuses.
var errShmName = errors.New("sim: not a valid shm name")

// shmFile is the file of segment name, or errShmName for a name glibc's
// shm_open refuses: leading slashes skipped, nothing left, a '/' after
// them, or 254 bytes and more.
func shmFile(name string) (string, error) {
	name = strings.TrimLeft(name, "/")
	if name == "" || len(name)+1 >= 255 || strings.IndexByte(name, '/') >= 0 {
		return "", errShmName
	}
	dir, err := shmDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// shmOpen is shm_open(name, flags, 0600).
func shmOpen(name string, flags int) (int, error) {
	path, err := shmFile(name)
	if err != nil {
		return -1, err
	}
	fd, err := syscall.Open(path, flags|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err == syscall.EISDIR {
		err = errShmName // glibc's shm_open folds EISDIR into EINVAL
	}
	return fd, err
}

// shmCreate is shm_open(name, O_CREAT|O_EXCL|O_RDWR, 0600); exists
// reports EEXIST.
func shmCreate(name string) (fd int, exists bool, err error) {
	fd, err = shmOpen(name, syscall.O_CREAT|syscall.O_EXCL|syscall.O_RDWR)
	if err == nil {
		created.add(name)
	}
	return fd, err == syscall.EEXIST, err
}

// created are the files of the segments this process created and has
// not unlinked. A segment outlives its process: when a run that embeds the
// simulator ends (abicheck: internal/scratch, also on a signal), the ones
// still live go.
var created = createdSegments{paths: map[string]bool{}}

type createdSegments struct {
	mu    sync.Mutex
	paths map[string]bool
	once  sync.Once
}

func (c *createdSegments) add(name string) {
	c.once.Do(func() {
		_, _ = scratch.Hold(nil, c.unlinkAll) // refused once the run is ending: nothing to keep
	})
	if path, err := shmFile(name); err == nil {
		c.mu.Lock()
		c.paths[path] = true
		c.mu.Unlock()
	}
}

func (c *createdSegments) remove(path string) {
	c.mu.Lock()
	delete(c.paths, path)
	c.mu.Unlock()
}

func (c *createdSegments) unlinkAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for path := range c.paths {
		_ = syscall.Unlink(path)
	}
	clear(c.paths)
}

// shmAttach is shm_open(name, O_RDWR, 0600).
func shmAttach(name string) (int, error) { return shmOpen(name, syscall.O_RDWR) }

// shmUnlink is shm_unlink(name); its error is of no use to any caller.
func shmUnlink(name string) {
	if path, err := shmFile(name); err == nil {
		_ = syscall.Unlink(path)
		created.remove(path)
	}
}

func shmClose(fd int) { _ = syscall.Close(fd) }

// shmTruncate is ftruncate(fd, (off_t)size): a size past the largest off_t
// is negative there and refused.
func shmTruncate(fd int, size uint64) error { return syscall.Ftruncate(fd, int64(size)) }

// shmSize is the segment's size (fstat), false when fstat fails.
func shmSize(fd int) (uint64, bool) {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		return 0, false
	}
	return uint64(st.Size), true
}

// shmMap maps size bytes of the segment shared, read and write.
func shmMap(fd int, size uint64) ([]byte, error) {
	if size == 0 || size > uint64(^uint(0)>>1) {
		return nil, syscall.EINVAL
	}
	return syscall.Mmap(fd, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

func shmUnmap(b []byte) {
	if len(b) != 0 {
		_ = syscall.Munmap(b)
	}
}

// i32At is the int32 at off of a mapping, for sync/atomic: the header's
// counters are shared with other processes.
func i32At(b []byte, off int) *int32 { return (*int32)(unsafe.Pointer(&b[off])) }

// u64At is the uint64 at off of a mapping.
func u64At(b []byte, off int) *uint64 { return (*uint64)(unsafe.Pointer(&b[off])) }

// shmDir is the directory of the segments, found once per process.
var shmDir = sync.OnceValues(platformShmDir)
