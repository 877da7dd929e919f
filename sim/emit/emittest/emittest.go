// Package emittest is the one way a test gets an emitted fake runtime: built
// (or found in the emitter's cache), the test skipped with the reason when
// there is no C compiler, failed with the build's error otherwise.
package emittest

import (
	"errors"
	"testing"

	"github.com/simabi/simabi/sim/emit"
)

// Build builds cfg and returns its artifacts.
func Build(tb testing.TB, cfg emit.Config) *emit.Artifacts {
	tb.Helper()
	a, err := emit.Build(cfg, emit.BuildOptions{})
	return check(tb, a, err, cfg)
}

// BuildSources builds edited sources (a test's own variant of the fake).
func BuildSources(tb testing.TB, src emit.Sources) *emit.Artifacts {
	tb.Helper()
	a, err := emit.BuildSources(src, emit.BuildOptions{})
	return check(tb, a, err, "edited sources")
}

// Path builds cfg and returns the runtime library's path.
func Path(tb testing.TB, cfg emit.Config) string {
	tb.Helper()
	return Build(tb, cfg).RuntimePath
}

func check(tb testing.TB, a *emit.Artifacts, err error, what any) *emit.Artifacts {
	tb.Helper()
	if errors.Is(err, emit.ErrNoCompiler) {
		tb.Skipf("sim/emit: %v", err)
	}
	if err != nil {
		tb.Fatalf("emit.Build(%+v): %v", what, err)
	}
	return a
}
