// Package model is the independent model of docs/contract.md:
// Step(state, call, answer) returns the state after the call and the
// findings it added, porcupine's model shape (state.go). The model stands
// on the standard library, abi and conformance/op alone, so it cannot see
// the code it judges. The engine changes a state only through Step (a call
// it did not make is an Observation with Unmade set, recorded as a skip),
// Park and JoinParked (a comm call in flight on a rank's thread); it reads
// it through State.Model's queries, which change nothing.
//
// # The model
//
// For every call the model walks the rule chain of the entry (E-KINIT,
// E-PREP, E-LAUNCH, E-FIN, E-DESTROY, E-PINIT, E-ACL, E-PROG, S-3) over its
// state: per context the latch, phase, init-failed and quarantined flags,
// device, claim, published ids with their counts, blocks of the byte
// budget, the persistent region, the last launch's stream and serial; per
// runtime the claim registry, the thread's current device, the fault
// sites, each stream's enqueued and completed serials, and the profile.
// Where docs/contract.md allows several outcomes the model accepts each and
// follows the observed one (a tolerated alternative that continues, like
// unchecked ring sizing, is walked as its own branch). A status it did not
// predict is a failure, after which the model re-synchronises (resync.go)
// or, where it cannot, stops predicting ("lost"; the rest of the sequence
// is not run unless Options.ContinueAfterLoss).
//
// Rule attribution: a surprise is reported under the rule of the step that
// decided the expectation and under every other rule it breaks, so that the
// report (and the kill of a mutant) names the rule at fault:
//
//   - S-1: a device-band code (-1..-999) where the rules want host codes
//     only (a refusal, not where success is due), on every profile but
//     legacy.
//   - S-2: a status that is not 0, a host code, a device-band code, a
//     documented positive (simpler_poll_run's 1) or an injected code, also
//     where the rules otherwise leave the outcome open.
//   - S-3: every entry called with a NULL context, the kernel four included,
//     besides the entry's own rule.
//   - M-5 with E-PREP: both byte-budget steps of E-PREP.
//   - L-5: a context whose kernel init was refused before the latch must
//     still be unlatched: a later init, ACL call or finalize that finds it
//     latched fails L-5; a later kernel init that fails with the IS
//     expected after the latch (claim, D-2) is what a runtime latched at
//     the refusal answers too, so a later failure there also names L-5.
//   - D-2's tolerated "query's own code" is a lower layer's code in place
//     of IS at the D-2 step: no host code and no injected code.
//
// Beyond statuses each call is checked for: the value left in out (-1 on
// every failure, V-PREP-1; the next dense id on success, M-1 / M-2 / M-3),
// the caller's image left untouched by prepare (M-6), the committed-memory
// direction (M-7, M-5), queried values (E-SUP, S-3, E-PROG, V-CONTRACT, the
// current device), and, with ACL counters, no ACL init, finalize,
// set-device, reset or synchronize on a kernel path (D-1, E-SUP).
//
// Where docs/contract.md leaves the outcome open, the model:
//
//   - Stream completion: with hooks, work is pending until the checker
//     synchronizes the stream (site 8 fires there), so an unsynchronized
//     stream switch must be PREPARED_INCOMPATIBLE; without hooks it may be
//     refused or not.
//   - Dispatch on a quarantined context (D-4 names only finalize and
//     destroy): any status; finalize stays IS, destroy refused, the claim
//     kept.
//   - The thread's device after a program finalize or the destroy of an
//     attached program context: unknown until the next setdev.
//   - Failures nothing injected are assumed not to happen.
//   - Simulated kernels: a synchronize with pending work and no site-8
//     fault returns 0; a device-band code is an S-1 warning.
//   - E-PINIT's prewarm check uses V-CFG without the kernel-only
//     UNSUPPORTED step: enable_pmu is accepted.
//   - supports_concurrent_native_prepare_ctx(NULL) and the run-family and
//     program entries on a live program context: any result.
//   - Racing kernel inits with fault site 1 or 9 armed: anything, and
//     the model stops.
//   - M-7: exact 0 for NULL, fresh and finalized contexts; after kernel
//     init 0 (nonzero C0 warned); elsewhere directions (a prepare that opens
//     a block or commits the region goes up, one that fits a tail stays).
package model
