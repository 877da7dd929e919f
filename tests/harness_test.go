package tests

import (
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// emitted builds (or finds in the cache) an emitted runtime; it skips the test
// without a C compiler.
func emitted(tb testing.TB, cfg emit.Config) *emittedRuntime {
	tb.Helper()
	e, err := newEmittedRuntime(emittest.Build(tb, cfg))
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// mustOpen is open for tests.
func (e *emittedRuntime) mustOpen(tb testing.TB) (conformance.Target, func()) {
	tb.Helper()
	t, release, err := e.open()
	if err != nil {
		tb.Fatalf("opening an emitted instance: %v", err)
	}
	return t, release
}
