package tests

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
	"github.com/simabi/simabi/conformance/session"
	"github.com/simabi/simabi/conformance/trace"
	"github.com/simabi/simabi/sim/emit"
)

// A consumer that is not one of the checker's own (testdata/
// recorded_consumer.c: each scenario in a child of its own; program mode
// with device memory and the run family, garbage pointers, launches
// refused for tensor 1, every fault site through simabi_inject and the
// asynchronous failures through simabi_sync_stream, a hanging child its
// parent kills), recorded through the recorder exactly as README's "Record
// a real session" says, and judged by -check-trace: clean over the emitted
// fake; flagged (exit 1) over each emitted mutant under the mutant's rule's
// group, or the table below says why it cannot be; a hang and a crash
// attributed to the call the process was inside.

// consumerMutantReasons are the mutants the consumer's recorded sessions
// cannot show, and why.
var consumerMutantReasons = map[string]string{
	"finalize-resets-device": "D-1 is judged from the ACL calls a runtime makes, which the recorder does not record (it records the runtime's entries)",
	"launch-waits": "X-2's waiting is a matter of time, and a trace's sequence numbers carry none (see recordedMutantReasons); " +
		"the hold_gate scenario's launch, refused at once over the fake, just succeeds later over the mutant",
	"thread-key-leak":  "U-1: the mutant crashes a process after it unloads the runtime; the consumer never unloads it",
	"late-thread-leak": "U-1: the mutant crashes a process after it unloads the runtime; the consumer never unloads it",
	"count-8191":       "M-4 needs 8192 residents on one context; the consumer prepares a handful",
	"no-byte-budget":   "M-5 needs 2 GiB of images on one context; the consumer prepares a handful of small ones",
	"refusal-latches":  "simpler_init with a negative device: the consumer never passes one",
	"kinit-cfg-before-init-args": "it reads the config before V-INIT's checks: the consumer's kinit(NULL, unmapped config) " +
		"crashes it, which -check-trace reports as a crash of that call under S-3 (its NULL context), not under E-KINIT",
	"destroy-null-crashes": "it aborts on destroy_device_context(NULL): -check-trace reports the crash of that call under S-3, " +
		"the rule of a NULL context",
	"stream-dereferenced": "it reads the caller's stream: the consumer's garbage stream crashes the launch, which -check-trace " +
		"reports as a crash of that call under E-LAUNCH, not D-3",
	"launch-commits": "M-7's directions (committed memory rising on a launch) need the value before the call, which a trace does not hold",
	"pinit-no-set-device": "the defect is the current device simpler_init leaves on the thread; a trace records each call's " +
		"device, but not the consumer's own ACL calls between two calls",
	"free-keeps-committed": "the defect is program-mode committed memory after a free (E-PROG.25), which the live model judges " +
		"from the value before the call; a trace holds no value before it, and a program context's committed memory is the runtime's",
	"malloc-failure-charges": "the defect is program-mode committed memory after a refused allocation (E-PROG.34), which the " +
		"live model judges from the value before the call; a trace holds no value before it",
}

// consumerExe compiles testdata/recorded_consumer.c with a prelude that
// declares the ABI's types and binds every entry with dlsym (the compiler
// of $CC, else cc); skips without one.
var consumerExe = sync.OnceValues(func() (string, error) {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		return "", emit.ErrNoCompiler
	}
	body, err := os.ReadFile("testdata/recorded_consumer.c")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("#define _GNU_SOURCE 1\n#include <dlfcn.h>\n#include <stdio.h>\n")
	b.WriteString("typedef void *DeviceContextHandle;\ntypedef void *RuntimeHandle;\ntypedef void *CommHandle;\n")
	b.WriteString(abi.CDeclarations(""))
	var syms []abi.Symbol
	for _, s := range abi.Symbols {
		if s.Revisions.Has(abi.RevKernel) {
			syms = append(syms, s)
		}
	}
	for _, s := range syms {
		re := regexp.MustCompile(`\b` + s.Name + `\(`)
		fmt.Fprintf(&b, "__attribute__((unused)) static %s;\n", re.ReplaceAllString(s.Proto, "(*p_"+s.Name+")("))
	}
	b.WriteString("static int load(void *h)\n{\n")
	for _, s := range syms {
		fmt.Fprintf(&b, "    if ((*(void **)&p_%s = dlsym(h, %q)) == NULL) {\n        fprintf(stderr, \"missing %s\\n\");\n        return -1;\n    }\n", s.Name, s.Name, s.Name)
	}
	b.WriteString("    return 0;\n}\n\n")
	src := b.String() + string(body)
	sum := sha256.Sum256([]byte(cc + "\x00" + src))
	root, err := instanceRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "consumer-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	c, exe := filepath.Join(dir, "recorded_consumer.c"), filepath.Join(dir, "recorded_consumer")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		return "", err
	}
	if out, err := exec.Command(cc, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-pthread", "-o", exe, c, "-ldl").CombinedOutput(); err != nil {
		return "", fmt.Errorf("compiling the consumer: %v\n%s", err, out)
	}
	return exe, nil
})

// consumerRun is one recorded run of the consumer.
type consumerRun struct {
	stdout string
	traces []string // the trace files
	dir    string
}

// recordConsumer runs the consumer through a fresh recorder over a fresh
// instance of e (scenarios: all when none), each child given timeout.
func recordConsumer(t *testing.T, e *emittedRuntime, timeout time.Duration, scenarios ...string) consumerRun {
	t.Helper()
	exe, err := consumerExe()
	if isNoCompiler(err) {
		t.Skip("no C compiler")
	}
	if err != nil {
		t.Fatal(err)
	}
	recLib, err := recorderBytes()
	if err != nil {
		t.Fatal(err)
	}
	target, tdir, err := e.instance()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tdir)
	rec := filepath.Join(tdir, "recorder", "libhost_runtime.so")
	if err := os.MkdirAll(filepath.Dir(rec), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rec, recLib, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, append([]string{rec}, scenarios...)...)
	cmd.Env = append(os.Environ(), "SIMABI_RECORD_TARGET="+target, "SIMABI_RECORD_FILE="+filepath.Join(dir, "session-%p.ops"),
		"SIMABI_RECORD_PRELOAD=", "SIMABI_RECORD_IMAGE_LIMIT=", fmt.Sprintf("SIMABI_CONSUMER_TIMEOUT_MS=%d", timeout.Milliseconds()))
	var so bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, io.Discard // the fake's own messages (refusals it explains)
	if err := cmd.Run(); err != nil || !strings.HasSuffix(so.String(), "done\n") {
		t.Fatalf("the consumer: %v\n%s", err, so.String())
	}
	traces, err := filepath.Glob(filepath.Join(dir, "session-*.ops"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(traces)
	return consumerRun{stdout: so.String(), traces: traces, dir: dir}
}

// checkTraces runs -check-trace over the run's traces: its exit status,
// and the failing rules (fail, crash, hang) of each trace.
func (cr consumerRun) checkTraces(t *testing.T) (int, map[string][]string) {
	t.Helper()
	var out, errs bytes.Buffer
	code := session.MainTraces(&session.Options{CheckTrace: true, Quiet: true}, cr.traces, &out, &errs)
	if errs.Len() > 0 {
		t.Errorf("-check-trace: %s", errs.String())
	}
	failed := map[string][]string{}
	for _, f := range cr.traces {
		tr, err := op.ReadTraceFile(f)
		if err != nil {
			t.Fatalf("%v", err)
		}
		rep := trace.Check(tr, trace.Options{}).Report()
		for _, rr := range rep.Rules {
			if rr.Verdict == model.Fail || rr.Verdict == model.Crash || rr.Verdict == model.Hang {
				failed[filepath.Base(f)] = append(failed[filepath.Base(f)], rr.Rule+" "+rr.Verdict.String()+": "+op.Abbreviate(rr.Detail))
			}
		}
	}
	return code, failed
}

// Over the emitted fake, which keeps the contract, every trace of every
// scenario checks clean (exit 0), and no scenario hung.
func TestRecordedConsumerChecksCleanOverTheFake(t *testing.T) {
	es, err := recordedFakes()
	if isNoCompiler(err) {
		t.Skip("no C compiler")
	}
	if err != nil {
		t.Fatal(err)
	}
	cr := recordConsumer(t, es[model.ProfileTMR], 20*time.Second)
	if n := strings.Count(cr.stdout, "status=0\n"); n != 24 {
		t.Errorf("%d of 24 scenarios exited 0:\n%s", n, cr.stdout)
	}
	if len(cr.traces) != 25 {
		t.Errorf("%d traces, want 25 (the parent and 24 scenarios)", len(cr.traces))
	}
	// Every process exited normally with no call in flight: each removed
	// its in-flight records (docs/trace.md).
	if left, _ := filepath.Glob(filepath.Join(cr.dir, "*"+tracevocab.InflightSuffix+"*")); len(left) != 0 {
		t.Errorf("in-flight files left behind: %v", left)
	}
	code, failed := cr.checkTraces(t)
	if code != session.ExitOK {
		t.Errorf("-check-trace exited %d, want 0", code)
	}
	for f, rules := range failed {
		t.Errorf("%s: flagged over the fake:\n  %s", f, strings.Join(rules, "\n  "))
	}
}

// Over each emitted mutant that changes an answer the consumer sees, the
// consumer's traces are flagged (exit 1) under a rule of the mutant's
// rule's group, or consumerMutantReasons says why they cannot be. A mutant
// whose every recorded call answers as over the fake breaks a clause this
// consumer never reaches: there is nothing for a trace to show. The
// default run takes a sample of the mutants (sweepMutants); -long takes
// them all.
func TestRecordedConsumerFlagsEachMutant(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	es, err := recordedFakes()
	if isNoCompiler(err) {
		t.Skip("no C compiler")
	}
	if err != nil {
		t.Fatal(err)
	}
	plain := consumerAnswers(t, recordConsumer(t, es[model.ProfileTMR], 5*time.Second))
	unseen := 0
	for _, mu := range sweepMutants() {
		if mu.Profile != emit.ProfileTMR {
			continue // the consumer drives a tmr build
		}
		t.Run(mu.Name, func(t *testing.T) {
			a, err := buildEmitted(emit.Config{Profile: emit.ProfileTMR, Mutant: mu.Name})
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
			cr := recordConsumer(t, e, 5*time.Second)
			if _, excused := consumerMutantReasons[mu.Name]; !excused && slices.Equal(consumerAnswers(t, cr), plain) {
				unseen++
				t.Logf("not reached: every call the consumer made answered as over the fake (%s)", mu.Clause)
				return
			}
			code, failed := cr.checkTraces(t)
			var under []string
			for f, rules := range failed {
				for _, r := range rules {
					rule, _, _ := strings.Cut(r, " ")
					if rule == mu.Rule || groupOf(rule) == mu.Group {
						under = append(under, f+": "+r)
					}
				}
			}
			sort.Strings(under)
			why, excused := consumerMutantReasons[mu.Name]
			switch {
			case excused && len(under) > 0:
				t.Errorf("listed as not shown (%s), but flagged under %s:\n  %s", why, mu.Group, strings.Join(under, "\n  "))
			case excused:
				t.Logf("not shown: %s", why)
			case code != session.ExitFindings || len(under) == 0:
				var all []string
				for f, rules := range failed {
					all = append(all, f+": "+strings.Join(rules, "; "))
				}
				sort.Strings(all)
				t.Errorf("-check-trace exited %d; no trace flagged under a %s rule (%s); flagged:\n  %s", code, mu.Group, mu.Rule, strings.Join(all, "\n  "))
			default:
				t.Logf("flagged: %s", under[0])
			}
		})
	}
	t.Logf("%d mutants change no answer this consumer sees", unseen)
}

// gatePoll is the call the consumer repeats until a prepare is parked: how
// many times depends on the scheduler.
var gatePoll = " call " + abi.EntrySimGateState.Name() + " "

var (
	recordedBytesRE = regexp.MustCompile(`raw\([^)]*\)`)
	recordedNameRE  = regexp.MustCompile(`\b([cs])\d+\b`) // which context or stream got which name
)

// consumerAnswers are the calls of a consumer run's traces as answered,
// without what differs from run to run (sequence numbers, thread numbers,
// process ids, the recorded bytes, in which a descriptor holds an address,
// which context or stream got which name, where threads race, and the
// polls of a gate's state), sorted: two runs whose every call answered
// alike have equal answers.
func consumerAnswers(t *testing.T, cr consumerRun) []string {
	t.Helper()
	var out []string
	for _, f := range cr.traces {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if _, rest, ok := strings.Cut(line, " dev="); ok && strings.HasPrefix(line, "@") && !strings.Contains(rest, gatePoll) {
				rest = recordedBytesRE.ReplaceAllString(rest, "raw(…)")
				out = append(out, recordedNameRE.ReplaceAllString(rest, "$1"))
			}
		}
	}
	slices.Sort(out)
	return out
}

// A child killed inside a call that never returns (a runtime whose launch
// hangs) leaves a trace that ends inside the launch: -check-trace reports
// a hang under E-LAUNCH with the calls up to it; one that dies of a signal
// inside the launch (a runtime that aborts there), a crash.
func TestRecordedConsumerHangAndCrash_ELAUNCH(t *testing.T) {
	for _, c := range []struct {
		name     string
		knobs    emit.Knobs
		scenario string
		status   string
		verdict  model.Verdict
		detail   string
	}{
		{"hang", emit.Knobs{Hang: []string{abi.EntryKernelLaunch.Name()}}, "hang", "status=killed", model.Hang,
			"#5 launch c0 id=0 stream=s0: hang: the trace ends inside this call (it never returned; the launch's args are recorded when it returns)"},
		{"crash", emit.Knobs{Crash: []string{abi.EntryKernelLaunch.Name()}}, "kernel_lifecycle", "status=signal 6", model.Crash,
			"#5 launch c0 id=0 stream=s0: crash: the process died of signal 6 (aborted) inside this call"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := buildEmitted(emit.Config{Profile: emit.ProfileTMR, Knobs: c.knobs})
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
			cr := recordConsumer(t, e, 500*time.Millisecond, c.scenario)
			if !strings.Contains(cr.stdout, c.status) {
				t.Fatalf("the child: %s, want %s", cr.stdout, c.status)
			}
			code, _ := cr.checkTraces(t)
			if code != session.ExitFindings {
				t.Errorf("-check-trace exited %d, want 1", code)
			}
			var got []string
			record := ""
			for _, f := range cr.traces {
				tr, err := op.ReadTraceFile(f)
				if err != nil {
					t.Fatal(err)
				}
				for _, rr := range trace.Check(tr, trace.Options{}).Report().Rules {
					if rr.Verdict == c.verdict {
						got = append(got, rr.Rule+": "+rr.Detail)
						record = tracevocab.InflightName(f, tr.PID)
					}
				}
			}
			if want := []string{"E-LAUNCH: " + c.detail + "; in-flight record: " + record}; !slices.Equal(got, want) {
				t.Errorf("%v rules:\n  %s\nwant\n  %s", c.verdict, strings.Join(got, "\n  "), want[0])
			}
		})
	}
}
