package opfuzz

import (
	"math/rand/v2"
	"testing"
)

// fuzzBenchInputs are n random fuzz inputs of lo to hi bytes (fixed seed).
func fuzzBenchInputs(n, lo, hi int) [][]byte {
	r := rand.New(rand.NewPCG(21, 21))
	in := make([][]byte, n)
	for i := range in {
		in[i] = make([]byte, lo+r.IntN(hi-lo+1))
		for k := range in[i] {
			in[i][k] = byte(r.Uint32())
		}
	}
	return in
}

// The cost of one fuzz input, without the engine: the body of FuzzOpsSim
// (decode, reset the worker's sim, run and check) and, as its floor in the
// same run, the decoding alone. docs/fuzzing.md and docs/performance.md
// quote these (go test ./tests/opfuzz -run '^$' -bench FuzzInput -benchmem).
// Inputs of 8 to 64 bytes decode to about 17 ops, of 1 to 4 KiB to the
// 48 ops an input may hold (MaxOps).
func BenchmarkFuzzInput(b *testing.B) {
	for _, size := range []struct {
		name   string
		lo, hi int
	}{{"8-64B", 8, 64}, {"1-4KiB", 1024, 4096}} {
		inputs := fuzzBenchInputs(512, size.lo, size.hi)
		b.Run("decode-only/"+size.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				Decode(inputs[i%len(inputs)], MaxOps, HoldMs)
			}
		})
		b.Run("FuzzOpsSim/"+size.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, _, _, failure := OnSim(inputs[i%len(inputs)]); failure != "" {
					b.Fatal(failure)
				}
			}
		})
	}
}
