// Package opdiff is FuzzOps, the differential op-sequence fuzz target: the
// sim half of tests/opfuzz, then the same sequence (two-thread ops
// serialized, Serialized) on sim and on the emitted runtime loaded through
// onboard, whose histories must be identical (F-1) and pass the model. A
// package of its own for the same reason as opfuzz: what it links sets the
// fuzz engine's cost per input (docs/fuzzing.md).
package opdiff
