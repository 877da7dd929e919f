package opfuzz

import "testing"

// FuzzOpsSim: bytes → op sequence (Decode: the first byte picks the
// profile, every later choice is read from the input, any input decodes) →
// the sequence on the worker's sim instance, reset between inputs, every
// call checked by the model. It is FuzzOps' first half alone (tests/opdiff),
// for fuzzing the model and sim in bulk: no C compiler, no library. Runs
// over its seed corpus (testdata/fuzz/FuzzOpsSim) in every `go test`. Every
// rule the op space reaches: S-*, V-*, L-*, K-*, E-*, M-*, D-*, X-1, X-2.
//
// The body passes t to nothing but its own methods: a libFuzzer build
// (go-118-fuzz-build, docs/fuzzing.md) replaces the testing package with a
// shim whose T is not a *testing.T.
func FuzzOpsSim(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, _, _, failure := OnSim(data); failure != "" {
			t.Fatal(failure)
		}
	})
}
