// Package speed times two builds of the host runtime against each other in
// one run (issue #30 part 2): `abicheck diff OLD NEW` reports, per entry on
// the hot paths, whether NEW is slower or faster than OLD beyond the noise,
// and how much (docs/abicheck.md).
//
// # What is timed
//
// Each entry of Entries is a call (or a pair) of the contract on a state
// the contract's own calls set up, on one OS thread whose current device is
// set as the checker's runner sets it (the simulation hooks, else the ACL;
// launch, prepare and program contexts on devices 0, 1 and 2, since a
// kernel context claims its device): create+destroy; kernel_prepare of the
// canonical image (tmr builds; the contract releases no resident, so the
// context is replaced, untimed, before a batch takes it past 1024, M-4
// allowing 8192); kernel_launch of a prepared id on one stream (tmr builds;
// synchronized untimed after every batch); register+unregister of one id;
// run; prepare_run (finalized untimed); launch_run (prepared, waited and
// finalized untimed); poll_run (answering 1) and wait_run (0) on a
// completed run. The program entries run the canonical empty image on a
// build with simulation hooks, the -callable image on any build; a real
// build without one skips them, as a refusing or legacy build skips the
// kernel entries. A call that answers anything but that status ends the
// entry: it is reported skipped, with the call and its status. Each call is
// timed alone with the monotonic clock (the clock's own cost is in every
// sample of both builds, drawing a ratio of calls of a few ticks towards 1).
//
// # How
//
// Compare starts three child processes of the calling binary (which must
// call ChildMain first thing when ChildEnv is set): OLD, OLD again (OLD',
// the noise reference) and NEW, each loading its build once, sharing one
// CPU on Linux. Per entry it runs rounds; in a round each child makes K
// calls in turn, the order cycling through all six, so that a drift of the
// machine falls on the three alike. Two uncounted warm-up batches per child
// measure what a call and a batch cost, from which K follows (planner): at
// most Options.Calls, down to MinCalls when Options.Rounds would not fit
// the entry's share of Options.Budget, revised before each round. Past its
// share an entry stops after MinRounds rounds, so a slow build may overrun
// the budget; loading the children is not in it. The statistics are
// centre, medianCI and Verdict's.
//
// # The child protocol
//
// The parent writes one JSON line on the child's stdin, the build
// (childConfig), then one request a line, {"id":N,"entry":E,"n":K}. The
// child answers on file descriptor 3 (the library may write anything on
// stdout and stderr), one JSON line a message: {"t":"at","entry":E} before
// it probes an entry; {"t":"hello","build":...,"skips":{E:why}} once it has
// loaded the build and probed every entry (why is "" for an entry it
// measures); for each request {"t":"at","id":N,"entry":E} when it starts it,
// then {"t":"done","id":N,"elapsed":ns,"ns":[K per-call times]} or
// {"t":"fail","id":N,"err":...} when a call answered what the entry does
// not expect; {"t":"error","err":...} when the build does not load. It
// exits 0 at the end of its input, after releasing what it made.
package speed
