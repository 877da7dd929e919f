package trace

import (
	"encoding/hex"
	"fmt"
	"github.com/simabi/simabi/conformance/op"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
)

// traceImageHex is the canonical image with one IN tensor, as a trace
// records it.
func traceImageHex(t testing.TB) (string, int) {
	t.Helper()
	spec := abi.ChipCallableSpec{FuncName: "noop", Signature: []abi.ArgDirection{abi.DirIn}}
	img, err := spec.Build()
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(img), len(img)
}

func cfgHex() string { return hex.EncodeToString((&abi.CallConfig{}).Bytes()) }

func mustTrace(t testing.TB, body string) *op.Trace {
	t.Helper()
	tr, err := ParseTrace(strings.NewReader("# simabi trace v1\n# target: /x/libhost_runtime.so\n# revision: kernel\n# pid: 7\n"+body), "t.ops")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func kernelSession(t *testing.T, prepareResult, launchResult string) string {
	h, n := traceImageHex(t)
	return fmt.Sprintf(`@1-2 t0 dev=0 call simpler_host_log_bind_state -> 0
@3-4 t0 dev=0 create -> c0
@5-6 t0 dev=0 supported c0 -> 1
@7-8 t0 dev=0 kinit c0 dev=0 gen=1 cfg=raw(%s) aicpu=none aicore=none disp=none -> 0
@9-10 t0 dev=0 prepare c0 img=raw(%d,0,%s) -> %s
@11-12 t0 dev=0 launch c0 id=0 args=raw(t=1,s=0,host=0) stream=s0 -> %s
@13-14 t0 dev=0 finalize c0 -> 0
@15-16 t0 dev=0 destroy c0 -> done
`, cfgHex(), n, h, prepareResult, launchResult)
}

func failuresOf(tc *Outcome) []string {
	var out []string
	for _, f := range tc.Result.Findings {
		if f.Verdict == model.Fail {
			out = append(out, f.Rule.String())
		}
	}
	return out
}

// A clean recorded kernel session checks clean; a runtime that answered
// wrongly in it is a finding under the rule it broke.
func TestCheckTrace_judgesRecordedAnswers(t *testing.T) {
	for _, tc := range []struct {
		name            string
		prepare, launch string
		want            []string
	}{
		{"clean", "0 out=0", "0", nil},
		{"first id 1 (M-1)", "0 out=1", "-1007", []string{"M-1"}},
		{"launch of a minted id refused (E-LAUNCH)", "0 out=0", "-1007", []string{"E-LAUNCH"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := mustTrace(t, kernelSession(t, tc.prepare, tc.launch))
			c := Check(tr, Options{})
			if c.Concurrent || c.Profile != model.ProfileTMR {
				t.Fatalf("concurrent %v profile %v", c.Concurrent, c.Profile)
			}
			got := failuresOf(c)
			if len(tc.want) == 0 && len(got) != 0 {
				t.Fatalf("failures %v on a clean session: %v", got, c.Result.Findings)
			}
			for _, w := range tc.want {
				found := false
				for _, g := range got {
					found = found || g == w
				}
				if !found {
					t.Errorf("want a %s failure, got %v", w, c.Result.Findings)
				}
			}
			// The host-log bind is not judged, and says why.
			if f := c.Result.Findings[0]; f.Verdict != Skip || !strings.Contains(f.Detail, "simpler_host_log_bind_state: not an entry the op grammar models") {
				t.Errorf("first finding %+v", f)
			}
		})
	}
}

// V-PREP-1 from a trace: a failing prepare that left its out untouched.
// The image is refused by V-PREP-2, so E-PREP.1 (the -1 is written before
// V-PREP-2 refuses) is broken too.
func TestCheckTrace_VPREP1(t *testing.T) {
	h, n := traceImageHex(t)
	body := fmt.Sprintf("@1-2 t0 dev=0 create -> c0\n@3-4 t0 dev=0 prepare c0 img=raw(%d,3,%s) -> -1004 out=7\n@5-6 t0 dev=0 destroy c0 -> done\n", n, h)
	c := Check(mustTrace(t, body), Options{})
	got := failuresOf(c)
	if !cmp.Equal(got, []string{"V-PREP-1", "E-PREP"}) {
		t.Fatalf("failures %v, want V-PREP-1 and E-PREP: %v", got, c.Result.Findings)
	}
}

// Overlapping calls of two threads are accepted when an order keeping
// their intervals satisfies the model (X-2: a launch refused while a
// prepare held the gate), and refused when none does.
func TestCheckTrace_concurrentCallsLinearized_X2(t *testing.T) {
	h, n := traceImageHex(t)
	pre := fmt.Sprintf("@1-2 t0 dev=0 create -> c0\n@3-4 t0 dev=0 kinit c0 dev=0 gen=1 cfg=raw(%s) aicpu=none aicore=none disp=none -> 0\n@5-6 t0 dev=0 prepare c0 img=raw(%d,0,%s) -> 0 out=0\n", cfgHex(), n, h)
	overlap := pre + fmt.Sprintf("@7-10 t0 dev=0 prepare c0 img=raw(%d,0,%s) -> 0 out=1\n@8-9 t1 dev=0 launch c0 id=0 args=raw(t=1,s=0,host=0) stream=s0 -> -1003\n", n, h)
	c := Check(mustTrace(t, overlap), Options{})
	if !c.Concurrent || !c.Linearizable || len(failuresOf(c)) != 0 {
		t.Fatalf("concurrent %v linearizable %v failures %v (%s)", c.Concurrent, c.Linearizable, c.Result.Findings, c.Note)
	}
	// The same refusal with the prepare long done: no order explains it.
	after := pre + fmt.Sprintf("@7-8 t0 dev=0 prepare c0 img=raw(%d,0,%s) -> 0 out=1\n@9-12 t1 dev=0 launch c0 id=0 args=raw(t=1,s=0,host=0) stream=s0 -> -1003\n@10-11 t0 dev=0 supported c0 -> 1\n", n, h)
	c = Check(mustTrace(t, after), Options{})
	if !c.Concurrent || c.Linearizable || len(failuresOf(c)) == 0 {
		t.Fatalf("concurrent %v linearizable %v failures %v", c.Concurrent, c.Linearizable, c.Result.Findings)
	}
}

// A malformed trace is an error naming the file and line; the recorded
// ops round-trip through the op grammar (a raw image included).
func TestParseTraceErrorsAndRoundTrip(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"create -> c0\n", "t.ops:1: not a simabi trace"},
		{"# simabi trace v1\n@1-2 t0 create -> c0\n", "t.ops:2: want \"@B-E tT dev=D OP -> RESULT\""},
		{"# simabi trace v1\n@2-1 t0 dev=0 create -> c0\n", "t.ops:2: bad sequence numbers \"@2-1\""},
		{"# simabi trace v1\n@1-2 t0 dev=0 frobnicate c0 -> 0\n", "t.ops:2: unknown op \"frobnicate\""},
		{"# simabi trace v1\n@1-2 t0 dev=0 prepare c0 img=raw(9,0,abcd) -> 0 out=0\n", "t.ops:2: bad img \"raw(9,0,abcd)\": the hex is not N bytes"},
	} {
		_, err := ParseTrace(strings.NewReader(tc.body), "t.ops")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.body, err, tc.want)
		}
	}
	tr := mustTrace(t, kernelSession(t, "0 out=0", "0"))
	for _, c := range tr.Calls {
		if c.Skip != "" {
			continue
		}
		back, err := Parse(c.Op.String())
		if err != nil || back != c.Op {
			t.Fatalf("%q does not round-trip: %v", c.Op.String(), err)
		}
	}
}

// The consumer's side of a trace replays on another runtime, and every
// difference from the recording is reported call by call.
func TestTraceReplayOnSim(t *testing.T) {
	tr := mustTrace(t, kernelSession(t, "0 out=0", "0"))
	ops, calls, left := Ops(tr)
	out := FactoryExecutor{Factory: SimFactory("tmr")}.Execute(ops, true)
	if out.Verdict != model.Pass {
		t.Fatalf("replay: %v %s", out.Verdict, out.Detail)
	}
	rs := CompareReplay(tr, ops, calls, left, out.History)
	var diffs []string
	for _, r := range rs {
		if r.Differs() {
			diffs = append(diffs, r.String())
		}
	}
	if len(diffs) != 0 {
		t.Fatalf("a session sim answers the same way replays with differences:\n%s", strings.Join(diffs, "\n"))
	}
	// A recording whose launch was refused differs on sim at that call.
	tr = mustTrace(t, kernelSession(t, "0 out=0", "-1007"))
	ops, calls, left = Ops(tr)
	out = FactoryExecutor{Factory: SimFactory("tmr")}.Execute(ops, true)
	rs = CompareReplay(tr, ops, calls, left, out.History)
	diffs = nil
	for _, r := range rs {
		if r.Differs() {
			diffs = append(diffs, r.String())
		}
	}
	want := []string{"#5 launch c0 id=0 args=exact(t=1,s=0) stream=s0: recorded CALLABLE_NOT_RESIDENT, got OK"}
	if d := cmp.Diff(want, diffs); d != "" {
		t.Errorf("differences (-want +got):\n%s", d)
	}
}

// Calls of three threads that all overlap, on contexts of their own, are
// accepted (X-1: independent contexts).
func TestCheckTrace_manyOverlappingThreads_X1(t *testing.T) {
	var b strings.Builder
	seq := 1
	for th := 0; th < 3; th++ {
		fmt.Fprintf(&b, "@%d-%d t%d dev=0 create -> c%d\n", seq, seq+1, th, th)
		seq += 2
	}
	// Two calls per thread, every interval inside [7, 30].
	for th := 0; th < 3; th++ {
		fmt.Fprintf(&b, "@%d-%d t%d dev=0 supported c%d -> 1\n", 7+th, 30-th, th, th)
	}
	for th := 0; th < 3; th++ {
		fmt.Fprintf(&b, "@%d-%d t%d dev=0 supported null -> 1\n", 31+th, 40-th, th)
	}
	c := Check(mustTrace(t, b.String()), Options{})
	if !c.Concurrent || !c.Linearizable || len(failuresOf(c)) != 0 {
		t.Fatalf("concurrent %v linearizable %v failures %v (%s)", c.Concurrent, c.Linearizable, c.Result.Findings, c.Note)
	}
}

// The linearization search compares the states it reached in different
// orders: states with gates (a map) compare without a panic, by content.
func TestEqualTraceStates(t *testing.T) {
	s := model.NewTraceState(model.ProfileTMR, false).Share()
	a := traceState{s: s, n: 2, gates: map[int8]int{0: 4}}
	b := traceState{s: model.NewTraceState(model.ProfileTMR, false).Share(), n: 2, gates: map[int8]int{0: 4}}
	if !equalTraceStates(a, b) {
		t.Error("equal states compare unequal")
	}
	for name, c := range map[string]traceState{
		"gate held by another call": {s: s, n: 2, gates: map[int8]int{0: 5}},
		"no gate":                   {s: s, n: 2, gates: map[int8]int{}},
		"one call more":             {s: s, n: 3, gates: map[int8]int{0: 4}},
	} {
		if equalTraceStates(a, c) {
			t.Errorf("%s: compare equal", name)
		}
	}
	s2, _ := Step(s, 0, 0, op.Op{Kind: KindCreate, C: 0}, &Observation{})
	if equalTraceStates(a, traceState{s: s2, n: 2, gates: map[int8]int{0: 4}}) {
		t.Error("states with different models compare equal")
	}
}

// E-PROG: a recorded run with a NULL CallConfig is judged: refused is
// right, and a runtime that ran it is flagged.
func TestCheckTrace_runWithNullConfig_EPROG(t *testing.T) {
	h, n := traceImageHex(t)
	desc := hex.EncodeToString(make([]byte, abi.NativeRunDescSize))
	session := func(nullResult string) string {
		return fmt.Sprintf(`@1-2 t0 dev=0 create -> c0
@3-4 t0 dev=0 pinit c0 dev=0 aicpu=bytes(64) aicore=bytes(64) disp=none prewarm=null sdma=none sdmaon=0 -> 0
@5-6 t0 dev=0 register c0 id=0 img=raw(%d,0,%s) -> 0
@7-8 t0 dev=0 run c0 st=0 id=0 args=raw(t=1,s=0,host=0) cfg=null desc=raw(%s) -> %s
@9-10 t0 dev=0 finalize c0 -> 0
@11-12 t0 dev=0 destroy c0 -> done
`, n, h, desc, nullResult)
	}
	c := Check(mustTrace(t, session("-1004")), Options{})
	if got := failuresOf(c); len(got) != 0 {
		t.Fatalf("a refused NULL-config run is flagged: %v", c.Result.Findings)
	}
	if e := c.Result.History.Entries[3]; e.Op.Kind != KindRun || !e.Op.Cfg.Null || e.Skipped != "" {
		t.Fatalf("the NULL-config run was not judged: %+v", e)
	}
	c = Check(mustTrace(t, session("0")), Options{})
	if got := failuresOf(c); len(got) != 1 || got[0] != "E-PROG" {
		t.Fatalf("a NULL-config run that ran: failures %v, want [E-PROG] (%v)", got, c.Result.Findings)
	}
}

// A struct the recorder could not read (cfg=bad, args=bad, desc=bad) makes
// a call on a context not judged, with the reason; the trace still parses.
// With a NULL context the call is judged (V-INIT, V-LAUNCH, S-3): every
// entry answers a NULL context before it reads a struct, so the bytes the
// trace lacks cannot decide the answer.
func TestParseTrace_unreadableStructIsSkipped_VINIT(t *testing.T) {
	tr := mustTrace(t, `@1-2 t0 dev=none kinit null dev=0 gen=1 cfg=bad aicpu=none aicore=none disp=none -> -1004
@3-4 t0 dev=none launch null id=0 args=bad stream=s0 -> -1004
@5-6 t0 dev=none prepare_run null st=0 id=0 args=bad cfg=bad desc=bad -> -1004
@7-8 t0 dev=none create -> c0
@9-10 t0 dev=none kinit c0 dev=0 gen=1 cfg=bad aicpu=none aicore=none disp=none -> -1004
@11-12 t0 dev=none destroy c0 -> done
`)
	for i, want := range []string{"", "", "", "", "cfg: a pointer the recorder could not read (unmapped memory)"} {
		if got := tr.Calls[i].Skip; got != want {
			t.Errorf("call %d: skip %q, want %q", i, got, want)
		}
	}
	if c := Check(tr, Options{}); len(failuresOf(c)) != 0 {
		t.Errorf("failures %v", c.Result.Findings)
	}
	// A NULL context answered INVALID_STATE is a finding of V-INIT (and S-3), however
	// unreadable the config.
	refused := mustTrace(t, "@1-2 t0 dev=none kinit null dev=0 gen=1 cfg=bad aicpu=none aicore=none disp=none -> -1003\n")
	if got := failuresOf(Check(refused, Options{})); !cmp.Equal(got, []string{"V-INIT", "S-3"}) {
		t.Errorf("kinit(NULL) answering INVALID_STATE: failures %v, want [V-INIT S-3]", got)
	}
}

// a launch that overlaps another launch on the same context fails fast
// with INVALID_STATE; in a trace, the launch that got the gate explains it.
// Without an overlap, the same refusal is a finding.
func TestCheckTrace_launchRefusedByAnOverlappingLaunch_X2(t *testing.T) {
	h, n := traceImageHex(t)
	pre := fmt.Sprintf("@1-2 t0 dev=0 create -> c0\n@3-4 t0 dev=0 kinit c0 dev=0 gen=1 cfg=raw(%s) aicpu=none aicore=none disp=none -> 0\n@5-6 t0 dev=0 prepare c0 img=raw(%d,0,%s) -> 0 out=0\n", cfgHex(), n, h)
	overlap := pre + "@7-10 t0 dev=0 launch c0 id=0 args=raw(t=1,s=0,host=0) stream=s0 -> 0\n@8-9 t1 dev=0 launch c0 id=0 args=raw(t=1,s=0,host=0) stream=s0 -> -1003\n"
	c := Check(mustTrace(t, overlap), Options{})
	if !c.Concurrent || !c.Linearizable || len(failuresOf(c)) != 0 {
		t.Fatalf("concurrent %v linearizable %v failures %v (%s)", c.Concurrent, c.Linearizable, c.Result.Findings, c.Note)
	}
	apart := pre + "@7-8 t0 dev=0 launch c0 id=0 args=raw(t=1,s=0,host=0) stream=s0 -> 0\n@9-12 t1 dev=0 launch c0 id=0 args=raw(t=1,s=0,host=0) stream=s0 -> -1003\n@10-11 t0 dev=0 supported c0 -> 1\n"
	c = Check(mustTrace(t, apart), Options{})
	if len(failuresOf(c)) == 0 {
		t.Fatalf("a fail-fast refusal with no launch or prepare in flight passed: %v", c.Result.Findings)
	}
}

// A legacy trace holds the build's own codes (-1 for every failure), which
// are judged as the live runner judges them, translated (abi.TranslateLegacy):
// upstream's refusal of program id 64 (E-PROG.22) is INTERNAL, not the
// kernel table's -1. Found by the consumer lane (docs/upstream.md), whose
// ChipWorker session registers id 64 on upstream's build.
func TestCheckTrace_legacyCodesTranslated_EPROG(t *testing.T) {
	h, n := traceImageHex(t)
	session := func(register64 string) string {
		return fmt.Sprintf(`@1-2 t0 dev=none create -> c0
@3-4 t0 dev=none pinit c0 dev=0 aicpu=none aicore=none disp=none prewarm=null -> 0
@5-6 t0 dev=0 register c0 id=64 img=raw(%d,0,%s) -> %s
@7-8 t0 dev=0 unregister c0 id=5 -> -1
@9-10 t0 dev=0 finalize c0 -> 0
@11-12 t0 dev=0 destroy c0 -> done
`, n, h, register64)
	}
	for _, tc := range []struct {
		register64 string
		want       []string
	}{
		{"-1", nil},
		{"0", []string{"E-PROG"}},
	} {
		tr, err := ParseTrace(strings.NewReader("# simabi trace v2\n# target: /x/libhost_runtime.so\n# revision: legacy\n# pid: 7\n"+session(tc.register64)), "t.ops")
		if err != nil {
			t.Fatal(err)
		}
		c := Check(tr, Options{})
		if c.Profile != model.ProfileLegacy {
			t.Fatalf("profile %v, want legacy", c.Profile)
		}
		if got := failuresOf(c); !cmp.Equal(got, tc.want) {
			t.Errorf("register id=64 -> %s: failures %v, want %v: %v", tc.register64, got, tc.want, c.Result.Findings)
		}
	}
}

// The comm family's -1 is its own convention in every revision (E-COMM):
// a legacy trace's comm refusal is judged as -1, not translated to INTERNAL
// as a legacy program entry's is. Found by the consumer lane: upstream's
// ChipWorker refusing a derived window past the base window, recorded over
// the legacy fake and over upstream's builds, was flagged E-COMM and S-2.
func TestCheckTrace_legacyCommCodesStay_ECOMM(t *testing.T) {
	for _, tc := range []struct {
		derived string
		want    []string
	}{
		{"-1", nil},
		{"-1000", []string{"E-COMM", "S-2"}},
		{"0", []string{"E-COMM"}},
	} {
		text := "# simabi trace v2\n# target: /x/libhost_runtime.so\n# revision: legacy\n# pid: 7\n" + `@1-2 t0 dev=none cinit rank=0 nranks=1 path=p0 stream=null -> h0
@3-4 t0 dev=none calloc h0 win=4096 -> 0
@5-6 t0 dev=none cderive h0 n=1 rank=0 off=1024 win=2048 ids=raw(00000000) -> 0
@7-8 t0 dev=none cderive h0 n=1 rank=0 off=2048 win=4096 ids=raw(00000000) -> ` + tc.derived + `
@9-10 t0 dev=none cdestroy h0 -> 0
`
		tr, err := ParseTrace(strings.NewReader(text), "t.ops")
		if err != nil {
			t.Fatal(err)
		}
		c := Check(tr, Options{})
		if got := failuresOf(c); !cmp.Equal(got, tc.want) {
			t.Errorf("cderive past the window -> %s: failures %v, want %v: %v", tc.derived, got, tc.want, c.Result.Findings)
		}
	}
}
