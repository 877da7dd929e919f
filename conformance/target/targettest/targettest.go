// Package targettest gives tests the targets they run the checker on
// beside sim's: fresh instances of an emitted runtime.
package targettest

import (
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target/library"
	"github.com/simabi/simabi/sim/emit"
)

// EmittedFactory opens a fresh instance of an emitted runtime for every run:
// library.Factory's private copy (a different file is a separate
// RTLD_LOCAL instance with its own claims and fault sites) beside a link
// to the fake ACL (one ACL for all, as in one process on silicon). Hooks
// come from the library, the D-1 counters and the caller's device memory
// from the fake ACL (library.Target).
func EmittedFactory(tb testing.TB, a *emit.Artifacts) conformance.Factory {
	l, err := library.Open(a.RuntimePath, library.Options{ACLPath: a.ACLPath, TempDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(l.Close)
	return l.Factory()
}
