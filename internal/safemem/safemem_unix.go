//go:build unix

package safemem

import (
	"sync"
	"syscall"
)

// A pipe per call would cost two more system calls; one pipe serves the
// process, a call at a time (its capacity, 64 KiB on Linux and 16 KiB at
// least elsewhere, bounds a transfer: Read and Write split larger ones).
var pipe struct {
	sync.Mutex
	fds [2]int
	ok  bool
}

const chunk = 4096

func open() error {
	if pipe.ok {
		return nil
	}
	if err := syscall.Pipe(pipe.fds[:]); err != nil {
		return err
	}
	syscall.CloseOnExec(pipe.fds[0])
	syscall.CloseOnExec(pipe.fds[1])
	pipe.ok = true
	return nil
}

// locked runs f with the pipe open and held.
func locked(f func() error) error {
	pipe.Lock()
	defer pipe.Unlock()
	if err := open(); err != nil {
		return err
	}
	return f()
}

// Read copies len(b) bytes from addr into b; an address the process cannot
// read is an error (EFAULT), not a fault.
func Read(addr uintptr, b []byte) error {
	return locked(func() error {
		for done := 0; done < len(b); {
			n := min(chunk, len(b)-done)
			// write(2) from the foreign address: the kernel checks it.
			w, _, e := syscall.Syscall(syscall.SYS_WRITE, uintptr(pipe.fds[1]), addr+uintptr(done), uintptr(n))
			if e != 0 {
				return e
			}
			if _, err := readFull(pipe.fds[0], b[done:done+int(w)]); err != nil {
				return err
			}
			done += int(w)
		}
		return nil
	})
}

// Write copies b to addr; an address the process cannot write is an error
// (EFAULT), not a fault.
func Write(addr uintptr, b []byte) error {
	return locked(func() error {
		for done := 0; done < len(b); {
			n := min(chunk, len(b)-done)
			if _, err := syscall.Write(pipe.fds[1], b[done:done+n]); err != nil {
				return err
			}
			// read(2) into the foreign address: the kernel checks it. What
			// a failed read leaves in the pipe is drained, so the next call
			// starts empty.
			for got := 0; got < n; {
				r, _, e := syscall.Syscall(syscall.SYS_READ, uintptr(pipe.fds[0]), addr+uintptr(done+got), uintptr(n-got))
				if e != 0 {
					_, _ = readFull(pipe.fds[0], make([]byte, n-got))
					return e
				}
				got += int(r)
			}
			done += n
		}
		return nil
	})
}

func readFull(fd int, b []byte) (int, error) {
	got := 0
	for got < len(b) {
		n, err := syscall.Read(fd, b[got:])
		if err != nil {
			return got, err
		}
		got += n
	}
	return got, nil
}
