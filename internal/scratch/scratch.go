// Package scratch keeps track of what a run of abicheck (or gen-fake-runtime) makes only for
// itself — temporary directories and files, child processes — so that it
// goes when the run ends, normally or by a signal: every maker registers
// how to undo what it made, and the command calls Cleanup once at exit
// (cmd/abicheck, also from its SIGINT/SIGTERM handler).
//
// Once Cleanup has begun nothing new is made: Hold refuses with ErrEnding,
// so that no child starts, and no directory appears, after the cleanup
// passed by.
package scratch

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// ErrEnding is Hold's answer once Cleanup has begun.
var ErrEnding = errors.New("the run is ending: nothing new is started")

// Registry holds the undos of one process's run; the package's functions
// use the process's one (tests make their own).
type Registry struct {
	mu     sync.Mutex
	ending bool
	ended  atomic.Bool // ending, read without the lock (Ending, per op of a run)
	next   int
	undo   map[int]func()
	once   sync.Once
}

// process is the registry of this process's run.
var process Registry

// Hold is Registry.Hold on this process's registry.
func Hold(create func() error, undo func()) (release func(), err error) {
	return process.Hold(create, undo)
}

// Ending reports whether this process's Cleanup has begun: work still
// running in the process (an in-process run) stops making things then.
func Ending() bool { return process.ended.Load() }

// MkdirTemp is Registry.MkdirTemp on this process's registry.
func MkdirTemp(dir, pattern string) (string, func(), error) { return process.MkdirTemp(dir, pattern) }

// CreateTemp is Registry.CreateTemp on this process's registry.
func CreateTemp(dir, pattern string) (*os.File, func(), error) {
	return process.CreateTemp(dir, pattern)
}

// Cleanup is Registry.Cleanup on this process's registry.
func Cleanup() { process.Cleanup() }

// Hold runs create (nil: nothing to create) and, if it succeeds, registers
// undo to run at Cleanup. The two happen under one lock with Cleanup's
// start, so that what create makes is either undone by Cleanup or never
// made. release forgets undo without running it: call it once the thing is
// gone (a directory removed, a process waited for) or is the user's (a
// directory the output names).
func (reg *Registry) Hold(create func() error, undo func()) (release func(), err error) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.ending {
		return nil, ErrEnding
	}
	if create != nil {
		if err := create(); err != nil {
			return nil, err
		}
	}
	if reg.undo == nil {
		reg.undo = map[int]func(){}
	}
	id := reg.next
	reg.next++
	reg.undo[id] = undo
	return func() {
		reg.mu.Lock()
		delete(reg.undo, id)
		reg.mu.Unlock()
	}, nil
}

// MkdirTemp is os.MkdirTemp(dir, pattern) with the directory removed at
// Cleanup unless release was called first.
func (reg *Registry) MkdirTemp(dir, pattern string) (path string, release func(), err error) {
	release, err = reg.Hold(func() error {
		path, err = os.MkdirTemp(dir, pattern)
		return err
	}, func() { os.RemoveAll(path) })
	return path, release, err
}

// CreateTemp is os.CreateTemp(dir, pattern) with the file removed at
// Cleanup unless release was called first.
func (reg *Registry) CreateTemp(dir, pattern string) (f *os.File, release func(), err error) {
	release, err = reg.Hold(func() error {
		f, err = os.CreateTemp(dir, pattern)
		return err
	}, func() { os.Remove(f.Name()) })
	return f, release, err
}

// Cleanup undoes everything held and not released, the newest first (a
// child process goes before the directory it works in), and refuses every
// Hold after it. Concurrent calls return when the first has finished.
func (reg *Registry) Cleanup() {
	reg.once.Do(func() {
		reg.mu.Lock()
		reg.ending = true
		reg.ended.Store(true)
		undo := make([]func(), 0, len(reg.undo))
		for id := reg.next - 1; id >= 0; id-- {
			if f, ok := reg.undo[id]; ok {
				undo = append(undo, f)
			}
		}
		clear(reg.undo)
		reg.mu.Unlock()
		// Without the lock: an undo waits for a process whose reaper
		// releases its entry.
		for _, f := range undo {
			f()
		}
	})
}

// Held is how many undos are registered and not released.
func (reg *Registry) Held() int {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	return len(reg.undo)
}

// CopyFile copies src to dst with src's permissions, through a temporary
// file beside dst (held in this process's registry while it exists) that is
// renamed over dst: a reader of dst sees the old file or the whole new one.
func CopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	tmp, release, err := CreateTemp(filepath.Dir(dst), ".copy-*")
	if err != nil {
		return err
	}
	defer func() { os.Remove(tmp.Name()); release() }()
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}
