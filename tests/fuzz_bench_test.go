package tests

import (
	"math/rand/v2"
	"testing"
)

// fuzzBenchInputs are n random fuzz inputs of 8 to 64 bytes (fixed seed):
// what the engine's mutator hands the targets, on average.
func fuzzBenchInputs(n int) [][]byte {
	r := rand.New(rand.NewPCG(21, 21))
	in := make([][]byte, n)
	for i := range in {
		in[i] = make([]byte, 8+r.IntN(57))
		for k := range in[i] {
			in[i][k] = byte(r.Uint32())
		}
	}
	return in
}

// The cost of one fuzz input, without the engine: the body of FuzzOpsSim
// (decode, reset the worker's sim, run and check) and, as its floor in the
// same run, the decoding alone. docs/fuzzing.md and docs/performance.md
// quote these (go test ./tests -run '^$' -bench FuzzInput -benchmem).
func BenchmarkFuzzInput(b *testing.B) {
	inputs := fuzzBenchInputs(512)
	b.Run("decode-only", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			decodeBytes(inputs[i%len(inputs)], fuzzMaxOps, holdMs)
		}
	})
	b.Run("FuzzOpsSim", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, _, _, _, failure := onSim(inputs[i%len(inputs)]); failure != "" {
				b.Fatal(failure)
			}
		}
	})
}
