// Package conformance is the checker of simabi: it drives any abi.Runtime
// with sequences of ops, checks every call against an independent model of
// docs/contract.md, and reports per rule. cmd/abicheck is a thin main over
// it.
//
//   - Op (conformance/op): one step, a comparable value with a one-line
//     text form; no op holds a raw handle or address.
//   - Model (conformance/model): the expected outcome of each call, written
//     from docs/contract.md only (never from sim).
//   - Runner: executes a sequence on a Target on one goroutine locked to its
//     OS thread (the current device is per thread, D-2), checks each call,
//     returns a text History and Findings. Diff compares two histories;
//     RunDiff runs one sequence on two targets.
//   - Generate: seeded random sequences biased by a model of the sequence
//     so far. Catalogue (conformance/catalogue): the directed checks
//     (checks/*.ops), each tagged with its rules and the clauses and
//     mutants it judges, and the clause and rule tables.
//   - Shrink: delta debugging (chunks, single ops, then arguments).
//   - Executor / Outcome: one sequence on a fresh runtime instance, in this
//     process (FactoryExecutor) or a child's.
//
// A Target is a runtime instance plus what the checker may drive: Hooks,
// an ACL for targets without hooks, and ACL call Counters (D-1); Basic
// assembles one and CapsOf derives its capabilities (catalogue.Caps). An op that needs a
// missing one is reported as a skip naming the rule it leaves undriven; a
// directed check that needs one is skipped whole.
//
// A runtime instance keeps claims and fault sites across sequences. The
// runner starts each run by clearing the thread's device (hook) or setting
// device 0 (ACL) and disarming every fault site, and ends it by draining
// the streams and finalizing and destroying every context it created. A
// context whose finalize never returns 0 keeps its claim, which later runs'
// models are seeded with. After the model lost track the runner calls
// nothing more on the contexts (a freed handle would abort an emitted
// runtime, F-3) and the instance is Dirty.
package conformance
