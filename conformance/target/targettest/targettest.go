// Package targettest gives tests the targets they run the checker on
// beside sim's: fresh instances of an emitted runtime.
package targettest

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target/library"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit"
)

var copies atomic.Int64

// EmittedFactory opens a fresh instance of an emitted runtime for every run:
// a copy of the .so in its own directory (a different file is a separate
// RTLD_LOCAL instance with its own claims and fault sites) next to a link to
// the fake ACL (one ACL for all, as in one process on silicon). Hooks come
// from the library, the D-1 counters and the caller's device memory from the
// fake ACL (library.Target).
func EmittedFactory(tb testing.TB, a *emit.Artifacts) conformance.Factory {
	root := tb.TempDir()
	return func() (conformance.Target, func(), error) {
		dir := filepath.Join(root, fmt.Sprint(copies.Add(1)))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, nil, err
		}
		src, err := os.ReadFile(a.RuntimePath)
		if err != nil {
			return nil, nil, err
		}
		path := filepath.Join(dir, filepath.Base(a.RuntimePath))
		if err := os.WriteFile(path, src, 0o755); err != nil {
			return nil, nil, err
		}
		if err := os.Symlink(a.ACLPath, filepath.Join(dir, filepath.Base(a.ACLPath))); err != nil {
			return nil, nil, err
		}
		lib, err := onboard.Open(path, onboard.Options{BindKernelWhenUnsupported: true, Inspect: true})
		if err != nil {
			return nil, nil, err
		}
		acl, err := onboard.OpenACL(a.ACLPath)
		if err != nil {
			lib.Close()
			return nil, nil, err
		}
		t := library.Target(lib, acl)
		t.UnloadF = lib.Close // U-1: the copy is the only reference to it
		return t, func() { lib.Close(); os.RemoveAll(dir) }, nil
	}
}
