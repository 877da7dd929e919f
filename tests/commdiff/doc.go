// Package commdiff is FuzzCommOps, the comm family's differential
// op-sequence fuzz target (E-COMM): fuzz input bytes decoded into a
// sequence of comm ops by the checker's one generator (GenOptions.CommOnly:
// handles, windows, derived contexts, domain windows, global domains, the
// words of the windows, each entry's refusals, the timeouts under a short
// bound set through simabi_comm_timeout_ms), run on sim and on the
// emitted runtime of the profile the first byte picks, through onboard.
// Every call is judged by the model on both, and the two histories must be
// identical (F-1): the Go and the C backend answer alike. A package of its
// own, as tests/opdiff is, so that the fuzz engine walks only the coverage
// of what it links (docs/fuzzing.md).
package commdiff
