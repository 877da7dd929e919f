// Package conformance is the checker of simabi: it drives any abi.Runtime
// with sequences of ops, checks every call against an independent model of
// docs/contract.md, and reports per rule. cmd/abicheck is a thin
// main over it.
//
// # Pieces
//
//   - Op: one step, a comparable value with a one-line text form
//     (String / Parse, round-trip tested). Contexts are slots c0..c15,
//     streams names s0..s7, images and args recipes; no op holds a raw
//     handle or address.
//   - Model: the expected outcome of each call, written from docs/contract.md and
//     docs/contract.md only (never from sim): allowed statuses with the rule that
//     decides them, tolerated statuses (docs/contract.md "tolerated": reported as
//     warnings), the id prepare must leave in out, the direction of
//     committed memory, queried values, and whether ACL calls were allowed.
//   - Runner: executes a sequence on a Target on one goroutine locked to its
//     OS thread (the current device is per thread, D-2), checks each call,
//     returns a text History and Findings; Options.BeforeOp is called before
//     each op (a child process of the CLI streams its progress with it).
//     Diff compares two histories; RunDiff runs one sequence on two targets.
//   - Generate: seeded random sequences biased by a model of the sequence
//     so far. Catalogue: directed checks, one named sequence per rule,
//     each tagged with its rules and the mutants of docs/semantics.md §13
//     it kills.
//   - Shrink: delta debugging (chunks, single ops, then arguments).
//   - Executor / Outcome: one sequence on a fresh runtime instance, in this
//     process (FactoryExecutor) or a child's (conformance/isolate).
//
// Above the engine: conformance/suite runs the directed checks and random
// sequences over any Executor (ConformWith; Conform over a
// FactoryExecutor); conformance/report aggregates the runs per rule
// (verdicts pass, fail, warn, skip, crash, hang with a detail line and the
// shrunk op log of a failure; text, JSON and JUnit renderings; baselines);
// conformance/target adapts the backends (sim, onboard) to Target.
//
// # Op text grammar
//
// The op language, its text grammar and what a history line shows are
// documented with it, in conformance/op (package doc).
//
// # Targets
//
// A Target is a runtime instance plus what the checker may drive: Hooks
// (simabi_set_current_device, simabi_current_device, simabi_sync_stream,
// simabi_inject), an ACL (set device, create / synchronize streams) for
// targets without hooks, and ACL call Counters (D-1). Basic assembles one:
// conformance/target does, for sim (SimTarget: Basic{RT: rt, SimHooks: rt,
// CountersF: ...rt.ACL().Counters...}) and for onboard (library.Target:
// Basic{RT: lib, SimHooks: hooks-if-any, ACLib or CountersF from
// onboard.OpenACL}). CapsOf derives the capabilities; an op that needs a
// missing one is not executed and is reported as a skip naming the rule it
// leaves undriven and why ("D-2: target exports no simabi_set_current_device
// and no ACL was given"); a directed check that needs one is skipped whole.
//
// A runtime instance keeps claims and fault sites across sequences. The
// runner starts each run by clearing the thread's device (hook) or setting
// device 0 (ACL), disarming every fault site, and ends it by draining the
// streams and finalizing and destroying every context it created (with the
// context's device current). A context whose finalize never returns 0
// (quarantined) keeps its claim; the runner seeds later runs' models with
// that claim. After the model lost track the runner calls nothing more on
// the contexts (a handle the runtime freed would abort an emitted runtime,
// F-3) and the instance is Dirty. suite.Conform takes a Factory and uses a
// fresh instance per run (sim.New, or a copy of an emitted .so).
//
// # The model
//
// How the model walks each entry's rule chain, attributes a surprise and
// treats the points docs/contract.md leaves open is documented with it, in
// conformance/model (package doc).
//
// # Concurrency ops
//
// holdlaunch / holdprepare arm site 7 (count 1, code = ms), run a prepare on
// the runner's thread and, a short delay later, a launch or a prepare on a
// second locked thread whose current device is set to the first's. The
// launch must return INVALID_STATE at once — one that takes half the
// hold waited; the second prepare must wait and succeed (ids in gate
// order). Whether the second call overlapped is measured and shown in the
// history's annotation; a call that started after the prepare returned is
// judged sequentially. racekinit starts two kernel inits of one device from a
// barrier: exactly one gets the claim (X-1, E-CLAIM).
//
// # Performance
//
// Images, configs and the args buffer are built once and reused (images
// per recipe; the model's image facts are cached per recipe process-wide),
// the observation is a runner field, histories are stored as values and
// rendered on demand. BenchmarkSimRandom and BenchmarkEmittedRandom report
// model-checked calls per second.
package conformance
