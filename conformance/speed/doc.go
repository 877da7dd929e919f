// Package speed times two builds of the host runtime against each other in
// one run (issue #30 part 2): `abicheck diff OLD NEW` reports, per entry on
// the hot paths, whether NEW is slower or faster than OLD beyond the noise,
// and how much.
//
// # What is timed
//
// Each entry of Entries is a call (or a pair of calls) of the contract made
// on a state the contract's own calls set up, on one OS thread whose
// current device is set the way the checker's runner sets it (the
// simulation hooks, else the ACL; the launch context is on device 0, the
// prepare context on device 1, the program context on device 2, since a
// kernel context claims its device):
//
//   - create+destroy: create_device_context and destroy_device_context of
//     the context it made;
//   - kernel_prepare: simpler_kernel_mode_prepare_callable of the canonical
//     image on a kernel-initialized context (tmr builds). The contract has
//     no entry that releases a resident, so the context is finalized,
//     destroyed and replaced, untimed, before a batch would take it past
//     1024 residents (M-4's limit is 8192);
//   - kernel_launch: simpler_kernel_mode_launch of a prepared id on a
//     kernel-initialized context and one stream (tmr builds); the stream is
//     synchronized, untimed, after every batch;
//   - register+unregister: simpler_register_callable and
//     simpler_unregister_callable of one id on a program context;
//   - run: simpler_run, the whole program run;
//   - prepare_run: simpler_prepare_run (the run is finalized, untimed);
//   - launch_run: simpler_launch_run of a prepared run (prepared, waited and
//     finalized untimed);
//   - poll_run, wait_run: simpler_poll_run (answering 1) and
//     simpler_wait_run (answering 0) on a run that has completed.
//
// The program entries run the canonical empty image on a build with the
// simulation hooks (the built-in simulator, an emitted fake) and the
// -callable image on any build; a real build without one skips them, as a
// refusing or legacy build skips the kernel entries. A call that answers
// anything but the status named above ends the entry's measurement: it is
// reported skipped, with the call and its status.
//
// Each call is timed alone, from just before to just after it, with the
// monotonic clock; what reading the clock costs is in every sample of both
// builds alike, so a ratio of calls of a few clock ticks is drawn towards
// 1.
//
// # How
//
// Compare starts three child processes of the calling binary (the binary
// must call ChildMain first thing when the environment variable ChildEnv is
// set; abicheck's main and this package's tests do): OLD, OLD again (the
// noise reference, OLD') and NEW, each loading its build once; on Linux
// the three share one CPU (they take turns, and a CPU slower than the
// other, on a shared machine, then slows the three alike). For each entry
// it then runs rounds; in a round each child makes K calls of the entry in
// turn, in an order that changes from round to round (all six orders in
// turn), so that a drift of the machine falls on the three alike. Two
// warm-up batches per child, not counted, precede each entry's rounds and
// measure what a call and a batch cost, from which K follows: at most
// Options.Calls (500), smaller (down to 20) when Options.Rounds (20) rounds
// would not fit the entry's share of Options.Budget (3 s by default for
// the whole comparison, shared by the entries, what one leaves going to
// the later ones); the size is revised before each round from what the
// rounds so far took. Past its share an entry stops after 10 rounds, so a
// slow build may overrun the budget. Loading the three children is not in
// it.
//
// # Statistics
//
// Per entry and side: the median and the 99th percentile (nearest rank) of
// all its per-call times. The ratio NEW/OLD is the median over the rounds of
// the ratio of NEW's time to OLD's time in that round, with a 95 %
// confidence interval for that median from order statistics (distribution
// free; see medianCI); the noise is the same for OLD'/OLD. A side's time in
// a round is the mean of the middle half of its batch's per-call times
// (centre; a batch's median would be quantized by the clock on calls of a
// few ticks). The verdict is Verdict's rule: a difference needs the ratio's
// interval to exclude 1 and the ratio to lie outside the band from the
// noise to 1, widened by Options.MinChange (25 %).
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
