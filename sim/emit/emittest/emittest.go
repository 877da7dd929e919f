// Package emittest is the one way a test gets an emitted fake runtime: built
// (or found in the emitter's cache), the test skipped with the reason when
// there is no C compiler, failed with the build's error otherwise.
//
// A test's fake is built at -O0 (emit.BuildOptions.Unoptimized): a test
// drives a few calls, and -O2's compile was most of a clean clone's make
// test (about 130 test-only variants). What users get is built at -O2 and
// tested so by sim/emit's own tests (warning-free at -O2 under -Werror),
// the commands' and the Python package's.
package emittest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simabi/simabi/internal/procmaps"
	"github.com/simabi/simabi/internal/scratch"
	"github.com/simabi/simabi/sim/emit"
)

// testBuild is how a test's fake is built.
var testBuild = emit.BuildOptions{Unoptimized: true}

// Build builds cfg and returns its artifacts.
func Build(tb testing.TB, cfg emit.Config) *emit.Artifacts {
	tb.Helper()
	a, err := emit.Build(cfg, testBuild)
	return check(tb, a, err, cfg)
}

// BuildSources builds edited sources (a test's own variant of the fake).
func BuildSources(tb testing.TB, src emit.Sources) *emit.Artifacts {
	tb.Helper()
	a, err := emit.BuildSources(src, testBuild)
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

// MappedRuntimes lists the runtimes (any libhost_runtime.so, and the
// onboard tests' libstub*.so) this process still has mapped, by path, but
// those kept says the process keeps by design (a preload, loaded once per
// process); nil where there is no /proc. A package whose tests load runtimes
// checks it after its tests ran: a test that loads a library releases it, so
// that no later test runs beside what an earlier one left (the fake ACL, one
// per process by design, is not a runtime).
func MappedRuntimes(kept func(path string) bool) []string {
	return procmaps.Mapped(func(path string) bool {
		base := filepath.Base(path)
		runtime := base == emit.RuntimeLibName || (strings.HasPrefix(base, "libstub") && strings.HasSuffix(base, ".so"))
		return runtime && (kept == nil || !kept(path))
	})
}

// Released is a TestMain's exit code after its tests ran with code: code,
// or 1 with the list on stderr when a runtime is still mapped that kept does
// not account for (see MappedRuntimes). Then what the process's runs still
// hold goes, as abicheck's exit undoes it: a hung in-process run keeps its
// comm segments until then (TestEmittedMutantsRandom's launch-waits left
// one in /dev/shm on every run).
func Released(pkg string, code int, kept func(path string) bool) int {
	left := MappedRuntimes(kept)
	scratch.Cleanup()
	if len(left) == 0 {
		return code
	}
	fmt.Fprintf(os.Stderr, "%s tests: %d runtime(s) still loaded after the tests ran (a test did not close what it opened):\n  %s\n",
		pkg, len(left), strings.Join(left, "\n  "))
	return 1
}
