// Package model is the independent model of docs/contract.md:
// Step(state, call, answer) returns the state after the call and the
// findings it added, porcupine's model shape. A State is owned (advanced in
// place: the live runner's path copies nothing) or shared (copied by Step,
// never changed: a linearization search keeps every state it reached). The
// model stands on the standard library, abi and conformance/op alone, so it
// cannot see the code it judges. The engine (conformance) changes a state
// only through Step (a call it did not make is an Observation with Unmade
// set, which Step records as a skip) and Park and JoinParked (a comm call
// in flight on a rank's thread); it reads a state through State.Model's
// queries (Context, Storage, Device, Released and the like), which change
// nothing: a Model exports no way to change it.
//
// # The model
//
// For every call the model walks the rule chain of the entry (E-KINIT,
// E-PREP, E-LAUNCH, E-FIN, E-DESTROY, E-PINIT, E-ACL, E-PROG, S-3) over its
// state: per context the latch, phase, init-failed and quarantined flags,
// device, claim, published ids with their counts, blocks of the byte
// budget, the persistent region, the last launch's stream and serial; per
// runtime the claim registry, the thread's current device, the nine fault
// sites, each stream's enqueued and completed serials, and the profile
// (asked of supported(NULL) at the start of each run; legacy must be
// given). Where docs/contract.md allows several outcomes the model accepts each and
// follows the observed one (a tolerated alternative that continues, like
// unchecked ring sizing, is walked as its own branch). A status it did not
// predict is a failure; the model then stops predicting ("lost") and the
// rest of the sequence is not run unless Options.ContinueAfterLoss.
//
// Rule attribution. A surprise is reported under the rule of the step that
// decided the expectation and under every other rule it breaks, so that the
// report (and the kill of a mutant, cmd/abicheck mutants) names the rule at
// fault:
//
//   - S-1: a device-band code (-1..-999) where the rules want host codes
//     only (a refusal: IS, IA, NR, ...; not where success is due), on every
//     profile but legacy.
//   - S-2: a status that is not 0, a host code of abi.HostStatuses, a
//     device-band code, a documented positive (simpler_poll_run's 1) or a
//     code the checker injected, with the value in the detail; also where
//     the rules otherwise leave the outcome open ("any status").
//   - S-3: every entry called with a NULL context, the kernel four included
//     (their V-INIT / V-PREP-2 / V-LAUNCH IA has no tolerance; supported
//     follows E-SUP), besides the entry's own rule.
//   - M-5 with E-PREP: both byte-budget steps of E-PREP (size > 2 GiB
//     before V-IMG, and the budget after the count).
//   - L-5: a context whose kernel init was refused before the latch (V-INIT,
//     V-SPAN, V-CFG, capability) must still be unlatched: a later
//     simpler_init or ensure_acl_ready_ctx that finds it latched fails L-5,
//     a later kernel init or finalize fails L-5 besides E-KINIT (K-7) or
//     E-FIN. A later kernel init
//     that fails with the INVALID_STATE expected after the latch (claim,
//     D-2) is what a runtime that latched at the refusal answers too: a
//     failure on that context afterwards also names L-5.
//   - D-2's tolerated alternative ("the query's own code") is a code of a
//     lower layer in place of INVALID_STATE at the D-2 step: not a host code
//     of docs/contract.md and not a code the checker injected (a runtime that skipped
//     the check and failed at a later fault site fails D-2).
//
// Beyond statuses each call is checked for: the value left in out (-1 on
// every failure, V-PREP-1; the next dense id on success, M-1 / M-2 / M-3),
// the caller's image left untouched by prepare (M-6: patching happens only
// in the runtime's copy), the committed-memory direction of the op's
// context (M-7, M-5), queried values (E-SUP, S-3, E-PROG, V-CONTRACT, the
// current device), and, when the target exposes ACL counters, no ACL init,
// finalize, set-device, reset or synchronize on a kernel path (D-1, E-SUP).
//
// Points where docs/contract.md leaves the outcome open, and what the model does:
//
//   - Stream completion. docs/contract.md lets a checker with hooks drive completion
//     (simabi_sync_stream completes a stream; site 8 fires on "the next
//     synchronize of a stream with pending work"), so with hooks work is
//     pending until the stream is synchronized and an unsynchronized stream
//     switch must be PREPARED_INCOMPATIBLE. Without hooks (ACL on a device)
//     work completes on its own: the switch may be refused or not.
//   - Dispatch on a quarantined context (D-4 says only finalize and
//     destroy): any status; the model keeps checking finalize (IS forever),
//     destroy (refused) and the claim (kept). The finalize that quarantines
//     returns IS (E-FIN: "IS on this and every later finalize_device").
//   - The calling thread's device after a program finalize or the destroy
//     of an attached program context ("resets the device"): unknown until
//     the next setdev; a borrowed-device check in between loses the model.
//   - Failures nothing injected: resource creation, AICPU bring-up,
//     allocation, loading the binaries and program teardown are assumed to
//     succeed (a real build needs Options.Binaries for kinit/pinit spans).
//   - Simulated kernels: a synchronize with pending work and no site-8
//     fault should return 0; a device-band code (-1..-999) is a warning
//     (S-1), since docs/contract.md says nothing about what the checker's kernels
//     do on a device.
//   - E-PINIT's prewarm check uses V-CFG's thread, swimlane, prefix and
//     ring rules, not the kernel-only UNSUPPORTED step: a prewarm config
//     with enable_pmu is accepted.
//   - supports_concurrent_native_prepare_ctx(NULL) and the run-family and
//     program entries on a live program context: any result.
//   - Racing kernel inits with fault site 1 or 9 armed: a racer may
//     fail creation and release the claim while the other is refused, which
//     no serial order explains; the model accepts anything and stops.
//   - M-7: exact 0 for NULL, fresh and finalized contexts; after kernel
//     init 0 (nonzero C0 warned); otherwise directions: a prepare that opens
//     a block or commits the persistent region goes up, one that fits a
//     tail stays, a registration failure does not go down, a launch stays.
package model
