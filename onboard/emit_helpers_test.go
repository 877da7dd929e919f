package onboard

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// emitted builds cfg with sim/emit (cached by the emitter across runs) and
// returns the runtime's path; it skips the test when there is no C compiler.
func emitted(tb testing.TB, cfg emit.Config) string {
	tb.Helper()
	return emittest.Path(tb, cfg)
}

func tmrConfig() emit.Config { return emit.Config{Profile: emit.ProfileTMR} }

// lockThread locks the calling goroutine to its OS thread for the rest of
// its life (the current device is per thread, D-2); the thread exits with
// the goroutine, taking its device with it.
func lockThread(testing.TB) { runtime.LockOSThread() }

// rtldNoload is glibc's RTLD_NOLOAD: dlopen succeeds only for a library that
// is loaded already.
const rtldNoload = 0x4

// loaded reports whether path is currently loaded in the process.
func loaded(path string) bool {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|rtldNoload)
	if err != nil {
		return false
	}
	_ = purego.Dlclose(h)
	return true
}

// unsafeBytes views n bytes at p (C memory of a loaded library).
func unsafeBytes(p unsafe.Pointer, n int) []byte { return unsafe.Slice((*byte)(p), n) }

// streamA is the stream the tests launch on.
const streamA abi.Stream = 0x5A00

func defaultConfig() []byte { return (&abi.CallConfig{}).Bytes() }
