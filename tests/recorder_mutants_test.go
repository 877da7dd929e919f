package tests

import (
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"

	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/simabi/simabi/sim/emit"
)

// recordedMutantReasons are the emitted mutants whose directed checks,
// recorded, cannot show the mutant in the trace, and why. Every other
// mutant is flagged by the live model under a rule of its group in one of
// its claiming checks run through the recorder, and -check-trace flags
// every rule the live model flagged there.
var recordedMutantReasons = map[string]string{
	"finalize-resets-device": "D-1 is judged from the ACL calls a runtime makes (the fake ACL's counters); " +
		"the recorder records the runtime's entries, not the ACL calls the runtime makes",
	"launch-waits": "X-2's waiting is a matter of time (a launch that takes half the hold waited): a trace's sequence " +
		"numbers order the calls but carry no time, and a launch that overlapped the end of a prepare and succeeded " +
		"may have entered just after the prepare released the gate",
	"thread-key-leak":  "U-1: its check unloads the runtime, and the mutant then crashes the process; the live check runs in a child process",
	"late-thread-leak": "U-1: its check unloads the runtime, and the mutant then crashes the process; the live check runs in a child process",
	"refusal-latches": "only a refusal probe kills it (a call after the refusal that finds the context latched); " +
		"no directed check's script makes one, so the live model does not flag it there either",
	"acl-does-not-latch": "only a refusal probe kills it (a kernel init after ensure_acl_ready_ctx that finds the " +
		"context unlatched); no directed check's script makes one",
	// Killed only by the probes after an injected failure (a recorded
	// check makes no probe): each survivor is read by a probe op no
	// claiming check's script makes.
	"rollback-unlatches": "only a probe kills it (a program init after the rolled-back kernel init of k-7/init-rollback, site 1, " +
		"that finds the context unlatched); no directed check's script makes one",
	"quarantine-unlatches": "only a probe kills it (a program init after the quarantine of d-4/quarantine, site 6, that " +
		"finds the context unlatched); no directed check's script makes one",
	"teardown-fail-clears-latch": "only a probe kills it (a kernel init after the failed program teardown of " +
		"e-fin/program-teardown-failure, site 10, that finds the context unlatched); no directed check's script makes one",
	"async-failure-releases-claim": "only a probe kills it (a second context's kernel init on the device after the " +
		"synchronize that delivers site 8's failure, which finds the claim released); no directed check's script makes one",
	"launch-reads-caller-image": "M-6 is judged from the runner's own overwrite of the caller's image after the prepare " +
		"(the clobber op), which is no call of the runtime and so not in a trace; the trace flags the launch's answer (E-LAUNCH)",
	"patches-caller-image": "M-6: the runtime writes into the caller's image; the runner sees it by reading its own " +
		"buffer back, which is no call of the runtime and so not in a trace",

	// The current device is the thread's, and the consumer sets it with
	// its own ACL calls, which the recorder does not see: a device that
	// differs between two recorded calls is no finding in a trace.
	"acl-no-set-device":        recordedDeviceReason,
	"acl-repeat-keeps-device":  recordedDeviceReason,
	"pinit-no-set-device":      recordedDeviceReason,
	"supported-sets-device":    recordedDeviceReason,
	"prog-refusal-sets-device": recordedDeviceReason,
	"refused-acl-sets-device":  recordedDeviceReason,

	// The byte budget check prepares images over the recording limit,
	// recorded by size only (raw(N,A,trunc)): whether each passed V-IMG,
	// and so what it was charged, is not in the trace.
	"budget-off-by-one":        recordedBudgetReason,
	"full-budget-refuses-tail": recordedBudgetReason,
	"slack-not-counted":        recordedBudgetReason,

	// simpler_host_log_bind_state is recorded as `call NAME -> N`: the
	// state it is given (version, size, threshold), which decides the
	// answer, is not.
	"hostlog-threshold-range":   recordedHostLogReason,
	"hostlog-size-unchecked":    recordedHostLogReason,
	"hostlog-version-unchecked": recordedHostLogReason,
	"hostlog-null-ok":           recordedHostLogReason,
	"hostlog-refuses-debug":     recordedHostLogReason,

	// E-COMM's CommContexts and windows are read through the simulation
	// hooks, and a global domain's peers are other processes.
	"comm-windows-out-unset":              recordedCommMemoryReason,
	"comm-derive-offset-lost":             recordedCommMemoryReason,
	"comm-dalloc-base-is-segment":         recordedCommMemoryReason,
	"comm-dalloc-no-zero":                 recordedCommMemoryReason,
	"comm-session-private":                recordedCommMemoryReason,
	"comm-destroy-keeps-allocation-names": recordedCommMemoryReason,
	"comm-base-before-alloc-nonzero":      "the value comm_get_local_window_base writes is not recorded (`cbase h0 -> 0`)",
	"comm-desc-reserved-set":              "the descriptor comm_global_domain_prepare writes is not recorded (`gprep d=1 ... -> 0`)",
	"comm-import-refusal-marks-imported":  recordedCommPeerReason,
	"comm-import-absent-peer-own":         recordedCommPeerReason,
	"comm-import-own-reopened":            recordedCommPeerReason,
	"comm-grelease-keeps-domain": "live, the import after the release kills it (the released peer's window still opens), and the " +
		"sequence ends there; in a trace whether a peer's window opens is the peer's process's to say",

	"mint-racy": "two overlapping prepares minted one id: the trace's linearization judges them one after the other " +
		"and flags the repeated id under M-1 (the live racing op under X-1)",
	"prepare-fails-fast": "a prepare that fails at once while another holds the gate: in a trace it is a refused " +
		"prepare in the order the calls are linearized (K-3, E-LAUNCH), not X-2's, which needs to know it overlapped a held gate",

	// Known gaps of the trace checker, found by this sweep (-long): the
	// live model flags the mutant in its claiming check and the trace of
	// the same calls is not flagged. Each is a checker to mend; the test
	// fails once one is flagged, so the list stays true.
	"unregister-keeps-id":  "gap: E-PROG.11 (an unregistered id still runs) is not flagged in the recorded e-prog/run-family",
	"copy-failure-charges": "gap: E-PREP.6 (a failed allocate-and-copy keeps its charge) is not flagged in the recorded m-3/failures-mint-nothing",
	"poison-frees-blocks":  "gap: K-4.4 (poison frees the code blocks) is not flagged in the recorded k-4/registration-poisons",
	"refused-destroy-frees-device-memory": "gap: E-DESTROY.3 (a refused destroy frees the context's device memory) is not flagged in the recorded " +
		"e-destroy/refused-keeps-device-memory: a trace reads device_malloc_ctx and the copies as the prog op (fn=malloc, " +
		"fn=copy_to, fn=copy_from), judged without their pointers or bytes, and committed_device_memory_ctx without the value before it",
	"copy-past-end-accepted":   recordedDevSpanGap,
	"copy-prefix-then-refuse":  recordedDevSpanGap,
	"copy-zero-refused":        recordedDevSpanGap,
	"copy-null-host-ok":        recordedDevSpanGap,
	"copy-refuses-comm-window": recordedDevSpanGap,
	"free-interior-frees":      recordedDevSpanGap,
	"free-keeps-committed":     recordedDevSpanGap,
	"malloc-zero-null":         recordedDevSpanGap,
	"malloc-failure-charges":   recordedDevSpanGap,
	"failed-copy-keeps-tail":   "gap: E-PREP.6 (a failed allocate-and-copy keeps the block's tail charged) is not flagged in the recorded trace, as copy-failure-charges",
	"one-run-per-context":      "gap: E-PROG.29 (a second run on the other slot's storage is refused) is not flagged in the recorded e-prog/two-slots (why not is not yet known)",
}

// recordedDevSpanGap: the device-memory arguments (E-PROG.24, .25,
// .28-34) are recorded as the prog op's calls, without the pointer's
// place in an allocation, the span or the size.
const recordedDevSpanGap = "gap: a trace reads device_malloc_ctx, the copies and device_free_ctx as the prog op (fn=malloc, " +
	"fn=copy_to, fn=copy_from, fn=free), without the pointer's place in an allocation, the span's length or the size: " +
	"E-PROG.24, .25 and .28-34 are judged live only"

const (
	recordedDeviceReason = "the defect is the current device the runtime leaves on the thread; a trace records each " +
		"call's device, but not the consumer's own ACL calls between two calls, so a change between them is no finding there"
	recordedBudgetReason = "the byte-budget check prepares images over the recording limit, recorded by size only: " +
		"whether each passed V-IMG, and so what it was charged, is not in the trace"
	recordedCommMemoryReason = "the defect is in what a CommContext holds or a window reads, which the runner reads through " +
		"the simulation hooks (cmem, the context after a call); a trace records the calls, not that memory"
	recordedCommPeerReason = "the defect is which windows an import opens: a trace records a descriptor's fields, not its " +
		"handle, since the windows it names are other processes', so whether a peer's window opens is not the trace's to judge"
	recordedHostLogReason = "the host-log state (version, size, threshold) that decides simpler_host_log_bind_state's " +
		"answer is not recorded (`call simpler_host_log_bind_state -> N`)"
)

// traceRules are, for a rule the live model judges, the rules under which
// a trace may show the same defect: racing kernel inits are X-1 live (the
// racekinit op) and, judged one by one in the order the trace gives them,
// an E-CLAIM finding in a trace.
var traceRules = map[string][]string{"X-1": {"X-1", "E-CLAIM"}}

// liveOnly are rules the live model judges from what a trace does not
// hold: M-7's directions (the committed memory before a call), D-1 (the
// ACL calls a runtime makes). The trace checker need not flag them where
// the live model did.
var liveOnly = []string{"M-7", "D-1"}

// The mutant half of the differential net (issue "Record anything, read
// everything"): each emitted mutant's directed checks (the catalogue's
// checks that claim it) run live through the recorder over the mutant; the
// trace checker must flag the mutant's rule where the live model did. Each
// mutant runs in a child process of its own: a mutant that frees a context
// the rules keep alive makes the fake abort when a later call uses the
// freed handle (F-3), and that must fail one subtest, not the suite. The
// default run takes a sample of the mutants (sweepMutants); -long takes
// them all.
func TestRecordedTraceFlagsEachMutant(t *testing.T) {
	if name := os.Getenv(recordedMutantChild); name != "" {
		mu, ok := emit.LookupMutant(name)
		if !ok {
			t.Fatalf("no mutant %q", name)
		}
		recordedMutantRun(t, mu)
		return
	}
	if testing.Short() {
		t.Skip("-short")
	}
	for _, mu := range sweepMutants() {
		t.Run(mu.Name, func(t *testing.T) {
			if mu.Isolate {
				t.Skip("it shows itself only by killing the process (abicheck mutants runs it in a child process)")
			}
			t.Parallel()
			childTest(t, "TestRecordedTraceFlagsEachMutant", recordedMutantChild+"="+mu.Name)
		})
	}
}

const recordedMutantChild = "SIMABI_RECORDED_MUTANT"

// recordedMutantRun is one mutant's half of the net, in this process.
func recordedMutantRun(t *testing.T, mu emit.Mutant) {
	switch {
	case mu.Name == "destroy-unfinalized":
		t.Skip("it frees a kernel context that destroy must refuse, and the check's next call on the freed handle " +
			"aborts the fake (F-3) before the trace is judged; abicheck mutants kills it in a child process")
	case slices.Contains(liveOnly, mu.Rule):
		t.Skipf("%s is judged from what a trace does not hold (see liveOnly)", mu.Rule)
	case mu.Rule == "V-CONTRACT":
		t.Skip("V-CONTRACT: a trace does not hold the contract's bytes (`contract -> ptr`), and a consumer refuses to load the runtime (C-BIND-2)")
	}
	cat := catalogue.Checks()
	profile := model.ProfileTMR
	if mu.Profile == emit.ProfileRefusing {
		profile = model.ProfileRefusing
	}
	a, err := buildEmitted(emit.Config{Profile: mu.Profile, Mutant: mu.Name})
	if isNoCompiler(err) {
		t.Skip("no C compiler")
	}
	if err != nil {
		t.Fatal(err)
	}
	e, err := newEmittedRuntime(a)
	if err != nil {
		t.Fatal(err)
	}
	var kills, flaggedAt []string
	for _, c := range cat {
		if !slices.Contains(c.Kills, mu.Name) || !c.AppliesTo(profile) || c.Needs.Has(catalogue.CapUnload) {
			continue
		}
		rr, err := runRecorded(e, c.Ops(), t.TempDir())
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		live := liveFailedRules(rr.live)
		got := failedRules(rr.check.Report())
		t.Logf("%s: live %v, trace %v", c.Name, live, got)
		if slices.ContainsFunc(got, func(g string) bool { return g == mu.Rule || slices.Contains(traceRules[mu.Rule], g) }) {
			flaggedAt = append(flaggedAt, c.Name)
		}
		killed := slices.ContainsFunc(live, func(r string) bool { return groupOf(r) == mu.Group || r == mu.Rule })
		if killed {
			kills = append(kills, c.Name)
		}
		// Where the live model flagged the mutant's rule the trace must
		// flag it too, and where it flagged only other rules of its group,
		// one of those; what a divergence led to after that may differ (the
		// two models know different things).
		shows := func(r string) bool {
			return slices.ContainsFunc(got, func(g string) bool { return g == r || slices.Contains(traceRules[r], g) })
		}
		var missed []string
		switch inGroup := slices.DeleteFunc(slices.Clone(live), func(r string) bool { return groupOf(r) != mu.Group || slices.Contains(liveOnly, r) }); {
		case slices.Contains(live, mu.Rule) && !shows(mu.Rule):
			missed = append(missed, mu.Rule)
		case !slices.Contains(live, mu.Rule) && len(inGroup) > 0 && !slices.ContainsFunc(inGroup, shows):
			missed = inGroup
		}
		if _, excused := recordedMutantReasons[mu.Name]; len(missed) > 0 && !excused {
			t.Errorf("%s: the live model flagged %v, the trace checker %v: it missed %v", c.Name, live, got, missed)
		}
		if killed {
			// The first killing check ends the mutant's run, as in
			// TestEmittedMutantsKilled: a mutant that frees a
			// context the rules keep alive would abort this process
			// when a later check's cleanup calls the freed handle.
			break
		}
	}
	if why, excused := recordedMutantReasons[mu.Name]; excused {
		if len(flaggedAt) > 0 {
			t.Errorf("listed as not shown (%s), but the trace checker flagged %s in %v", why, mu.Rule, flaggedAt)
		}
		t.Logf("not required: %s", why)
	} else if len(kills) == 0 && len(flaggedAt) == 0 {
		// (A trace may show what the live run saw only through a refusal
		// probe, which a recorded check does not make: refusing-latches.)
		t.Errorf("no claiming check flags a rule of group %s live through the recorder, nor its trace", mu.Group)
	}
}

// sweepMutants are the mutants a mutant sweep of recorded sessions runs:
// all of them with -long; by default the first mutant of each rule (and
// every one a reasons table names), which is every rule at a fraction of
// the time of 239 mutants.
func sweepMutants() []emit.Mutant {
	all := emit.Mutants()
	if *long {
		return all
	}
	seen := map[string]bool{}
	var out []emit.Mutant
	for _, mu := range all {
		_, r1 := recordedMutantReasons[mu.Name]
		_, r2 := consumerMutantReasons[mu.Name]
		if !seen[mu.Rule] || r1 || r2 {
			seen[mu.Rule] = true
			out = append(out, mu)
		}
	}
	return out
}

// childTest runs test in a fresh process of this test binary with env
// added and fails t with what the child reported when it fails: its test
// failures, or, when it died, how (an invariant abort of the fake names
// the rule), never the whole trace of a dead Go process.
func childTest(t *testing.T, test string, env ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err == nil && bytes.Contains(out, []byte("--- PASS: "+test)) {
		return
	}
	if err == nil && bytes.Contains(out, []byte("--- SKIP: "+test)) {
		_, why, _ := strings.Cut(string(out), "--- SKIP: "+test)
		_, why, _ = strings.Cut(why, "_test.go:")
		_, why, _ = strings.Cut(why, ": ")
		why, _, _ = strings.Cut(why, "\n")
		t.Skip(why)
	}
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		switch {
		case strings.Contains(l, "_test.go:"), strings.Contains(l, "invariant violated"),
			strings.HasPrefix(l, "SIG"), strings.HasPrefix(l, "panic:"), strings.HasPrefix(l, "fatal error:"):
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	t.Errorf("%s in a child process (%v):\n  %s", test, err, strings.Join(keep, "\n  "))
}

// groupOf is a rule's group: the letters before its first '-' ("E-LAUNCH" → "E").
func groupOf(rule string) string {
	g, _, _ := strings.Cut(rule, "-")
	return g
}
