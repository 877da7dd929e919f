// Package opfuzz is the op-sequence fuzzing of simabi's runtimes: fuzz input
// bytes decoded into an op sequence by the one generator of the checker
// (Decode), and the sim half every op-sequence fuzz target runs (OnSim: the
// sequence on a per-process sim instance reset between inputs, every call
// judged by the model). FuzzOpsSim is its fuzz target; tests/opdiff adds
// the emitted runtime for FuzzOps, and package tests draws its rapid state
// machines and recorded runs from the same generator.
//
// It is a package of its own, apart from tests, for speed: the Go fuzz
// engine and libFuzzer walk the coverage counters of every package linked
// into the binary on every input, so a fuzz target's floor (an empty fuzz
// function) depends on what its package links. On the 2-core machine an
// empty target made about 4,000 inputs/s in package tests, which links
// every backend, the session, rapid and porcupine, and about 24,000 in a
// package linking only the engine and sim (docs/fuzzing.md).
package opfuzz
