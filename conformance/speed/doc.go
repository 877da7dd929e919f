// Package speed times two builds of the host runtime against each other in
// one run (issue #30 part 2): `abicheck diff OLD NEW` reports, per entry on
// the hot paths, whether NEW is slower or faster than OLD beyond the noise
// (docs/abicheck.md).
//
// # What is timed
//
// Each of Entries is a call (or a pair) of the contract on a state the
// contract's own calls set up, on one OS thread whose current device is set
// as the runner sets it (hooks, else ACL; launch, prepare and program
// contexts on devices 0, 1 and 2, since a kernel context claims its device).
// kernel_prepare replaces its context, untimed, before a batch takes it past
// 1024 residents (the contract releases none; M-4 allows 8192);
// kernel_launch is synchronized untimed after every batch; prepare_run is
// finalized and launch_run waited and finalized untimed; poll_run (answering
// 1) and wait_run (0) run on a completed run. The program entries run the
// canonical empty image with simulation hooks, the -callable image on any
// build; a real build without one skips them, as a refusing or legacy build
// skips the kernel entries. A call that answers another status ends the
// entry, reported skipped with the call and its status. Each call is timed
// alone with the monotonic clock (whose cost is in every sample of both
// builds, drawing the ratio of calls of a few ticks towards 1).
//
// # How
//
// Compare starts three child processes of the calling binary (which must
// call ChildMain first thing when ChildEnv is set): OLD, OLD again (OLD', the
// noise reference) and NEW, each loading its build once, sharing one CPU on
// Linux. Per entry it runs rounds of K calls per child in turn, the order
// cycling through all six so that a drift of the machine falls on the three
// alike. Two uncounted warm-up batches per child measure what a call and a
// batch cost, from which K follows (planner). Past its share of the budget an
// entry stops after MinRounds rounds. The statistics are centre, medianCI
// and Verdict's.
//
// # The child protocol
//
// The parent writes one JSON line on the child's stdin, the build
// (childConfig), then a request a line, {"id":N,"entry":E,"n":K}. The child
// answers on file descriptor 3 (the library may write anything on stdout and
// stderr), a JSON line a message: {"t":"at","entry":E} before it probes an
// entry; {"t":"hello","build":...,"skips":{E:why}} once loaded and probed
// (why "" for an entry it measures); per request {"t":"at","id":N,"entry":E},
// then {"t":"done","id":N,"elapsed":ns,"ns":[K times]} or
// {"t":"fail","id":N,"err":...}; {"t":"error","err":...} when the build does
// not load. It exits 0 at the end of its input, after releasing what it made.
package speed
