package main

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/sim/emit"
)

func TestMain(m *testing.M) {
	if childMain() { // a Go consumer started by goConsumer: never returns
		return
	}
	os.Exit(m.Run())
}

// chipWorker is the consumer the records of testdata/chipworker are of.
func chipWorker(t *testing.T) consumer {
	t.Helper()
	c, err := loadConsumer("chipworker")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The differential without upstream's source (issue #31): lifecycle.Worker
// performs every action of each consumer, in every variant the consumer was
// recorded in (testdata/KEY, written by the consumer lane; ChipWorker's
// in testdata/chipworker), over the recorder over the same legacy fake,
// and its transcript must equal the consumer's step by step and call by
// call, or differ only where a verdict decides it: C-ERR, C-SINGLE
// (committed-uninitialized, prepared-incompatible-code, and the host-side
// refusals IA allows), and everything the fixes of lifecycle made equal
// (Run through the phases, the descriptor, CallConfig::validate, the
// poisoned run path, the native-run phases, E-FIN's runs finished by Close,
// DeviceFree(0)).
func TestReplay_ChipWorkerRecords_CERR_CSINGLE_EFIN(t *testing.T) {
	b, err := newBench(t.TempDir())
	if errors.Is(err, emit.ErrNoCompiler) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	keys := consumerKeys()
	if !slices.Contains(keys, "chipworker") {
		t.Fatalf("consumers %q, want chipworker among them", keys)
	}
	for _, key := range keys {
		c, err := loadConsumer(key)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := readRecords(filepath.Join("testdata", key))
		if err != nil {
			t.Fatal(err)
		}
		res, err := replay(b, c, lifecycleConsumer(self), recs)
		if err != nil {
			t.Fatal(err)
		}
		s := summarize(res)
		for _, d := range s.undecidedDiffs {
			t.Errorf("%s: undecided: %s", key, d)
		}
		t.Log(strings.TrimSpace(s.text()))
		if key == "chipworker" && len(s.rows) != 56 {
			t.Errorf("%d actions of ChipWorker, want 56", len(s.rows))
		}
	}
}

// The records are complete: one per action, none stale, each holding
// exactly the variants its plain run calls for (every entry ChipWorker
// called with a status forced on it, or NULL), with the action's steps.
func TestRecords_coverEveryActionAndVariant(t *testing.T) {
	c := chipWorker(t)
	recs, err := readRecords("testdata/chipworker")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range c.actions {
		names = append(names, a.name)
		r, ok := recs[a.name]
		if !ok {
			continue
		}
		if diff := cmp.Diff(a.steps, r.Steps); diff != "" {
			t.Errorf("%s: steps (-action +record):\n%s", a.name, diff)
		}
		if len(r.Variants) == 0 || r.Variants[0].Variant.Name != "plain" {
			t.Errorf("%s: the record does not start with its plain variant", a.name)
			continue
		}
		var got []variant
		for _, v := range r.Variants {
			got = append(got, v.Variant)
		}
		if diff := cmp.Diff(variantsOf(a, callsOf(r.Variants[0].T)), got); diff != "" {
			t.Errorf("%s: variants (-want +recorded):\n%s", a.name, diff)
		}
	}
	var recorded []string
	for n := range recs {
		recorded = append(recorded, n)
	}
	slices.Sort(names)
	slices.Sort(recorded)
	if diff := cmp.Diff(names, recorded); diff != "" {
		t.Errorf("actions (-table +records); run the consumer lane with CHIPDIFF_UPDATE=1:\n%s", diff)
	}
}

// The action table keeps its own rules, and ../actions.cpp understands
// exactly the step words steps.go does.
func TestActions_tableAndStepWords(t *testing.T) {
	if n := len(chipWorker(t).actions); n != 56 {
		t.Errorf("%d actions, want 56", n)
	}
	src, err := os.ReadFile("../actions.cpp")
	if err != nil {
		t.Fatal(err)
	}
	var cpp []string
	for _, m := range regexp.MustCompile(`head == "([a-z_0-9]+)"`).FindAllStringSubmatch(string(src), -1) {
		if !slices.Contains(cpp, m[1]) {
			cpp = append(cpp, m[1])
		}
	}
	want := slices.Sorted(maps.Keys(goSteps))
	slices.Sort(cpp)
	if diff := cmp.Diff(want, cpp); diff != "" {
		t.Errorf("step words (-steps.go +actions.cpp):\n%s", diff)
	}
	for _, tc := range []struct {
		name  string
		table []action
		want  string
	}{
		{"unknown step", []action{act("a", "init jump finalize")}, "unknown step jump"},
		{"left initialized", []action{act("a", "init register=0")}, "ends with the worker initialized"},
		{"new while initialized", []action{act("a", "init new finalize")}, "new while the worker may be initialized"},
		{"twice", []action{act("a", "finalize"), act("a", "finalize")}, "listed twice"},
	} {
		err := checkActions(tc.table)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// A recorder trace normalizes to its calls: sequence numbers and thread
// dropped, a session header one "load", configs as their nonzero bytes, a
// descriptor as its fields with epochs numbered, an image hashed; and a
// consumer's step lines take the calls made up to their count.
func TestParseRun_normalizesAndAssignsCalls(t *testing.T) {
	trace := `# simabi trace v2
# target: /x/libhost_runtime.so
# revision: legacy
# pid: 7
# image-limit: 1048576
@1-2 t0 dev=none call simpler_host_log_bind_state -> 0
@3-4 t0 dev=none pinit c0 dev=0 aicpu=bytes(3) aicore=none disp=none prewarm=raw(0400000000ff) -> 0
@5-6 t0 dev=0 register c0 id=0 img=raw(4,0,01020304) -> 0
@7-8 t0 dev=0 prepare_run c0 st=0 id=0 args=raw(t=1,s=0,as=01) cfg=raw(0000) desc=raw(0000000000000000000000000000000002000000000000000000000000000000290000000000000000000000000000000000000000000000) -> 0
@9-10 t0 dev=0 finalize c0 -> 0
`
	out := `STEP 1 init | ok | - | 2
STEP 2 register=0 | err | code=-1 | 3 | register_callable failed with code -1
STEP 3 run=0 | err | host | 3 | refused
STEP 4 prepare=0 | ok | slot 0 gen 2 | 4
END 5
`
	got, err := parseRun(out, trace, "0")
	if err != nil {
		t.Fatal(err)
	}
	want := transcript{
		Steps: []stepResult{
			{N: 1, Word: "init", Outcome: "ok", Detail: "-", Calls: []string{"load",
				"dev=none call simpler_host_log_bind_state -> 0",
				"dev=none pinit c0 dev=0 aicpu=bytes(3) aicore=none disp=none prewarm=bytes(6;@0:04,@5:ff) -> 0"}},
			{N: 2, Word: "register=0", Outcome: "err", Detail: "code=-1", Msg: "register_callable failed with code -1",
				Calls: []string{"dev=0 register c0 id=0 img=raw(4,0,#9f64a747) -> 0"}},
			{N: 3, Word: "run=0", Outcome: "err", Detail: "host", Msg: "refused"},
			{N: 4, Word: "prepare=0", Outcome: "ok", Detail: "slot 0 gen 2", Calls: []string{
				"dev=0 prepare_run c0 st=0 id=0 args=raw(t=1,s=0,as=01) cfg=zero(2) desc={slot=0 bank=0 run=0 gen=2 dispatch=0 epoch=e1 accepted=null/0} -> 0"}},
		},
		After: []string{"dev=0 finalize c0 -> 0"},
		Exit:  "0",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if e := entryOf(got.Steps[3].Calls[0]); e != "simpler_prepare_run" {
		t.Errorf("entryOf = %q", e)
	}
}

// Each verdict decides its own shape and nothing else: the same step with
// lifecycle making a call, or answering otherwise, stays undecided. C-ERR,
// C-SINGLE.
func TestVerdicts_decideOnlyTheirShape_CERR_CSINGLE(t *testing.T) {
	refused := stepResult{Outcome: "err", Detail: "host"}
	called := stepResult{Outcome: "err", Detail: "code=-1", Calls: []string{"dev=0 x"}}
	tests := []struct {
		name    string
		word    string
		variant string
		cw, gw  stepResult
		want    string
	}{
		{"committed before init", "committed", "plain", stepResult{Outcome: "ok", Detail: "0"}, refused, "committed-uninitialized"},
		{"committed with a call", "committed", "plain", stepResult{Outcome: "ok", Detail: "0", Calls: []string{"c"}}, refused, ""},
		{"PI code dropped", "run=0", "status.simpler_prepare_run=-3",
			stepResult{Outcome: "err", Detail: "host", Calls: []string{"p"}}, stepResult{Outcome: "err", Detail: "code=-3", Calls: []string{"p"}},
			"prepared-incompatible-code"},
		{"PI in another variant", "run=0", "status.simpler_prepare_run=-1",
			stepResult{Outcome: "err", Detail: "host", Calls: []string{"p"}}, stepResult{Outcome: "err", Detail: "code=-3", Calls: []string{"p"}}, ""},
		{"bad prewarm", "init:badprewarm", "plain", called, refused, "prewarm-validated"},
		{"bad prewarm, lifecycle calls", "init:badprewarm", "plain", called, called, ""},
		{"malformed image", "register=0:malformed", "strict", called, refused, "image-validated"},
		{"a good image refused", "register=0", "plain", stepResult{Outcome: "ok", Detail: "-", Calls: []string{"r"}}, refused, ""},
		{"copy to 0", "copy_to0", "plain", called, refused, "copy-to-address-0"},
		{"copy after a NULL malloc", "copy", "null.device_malloc_ctx", called, refused, "copy-to-address-0"},
		{"a copy refused otherwise", "copy", "plain", called, refused, ""},
	}
	vs := chipWorker(t).verdicts
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cw.N, tc.gw.N, tc.cw.Word, tc.gw.Word = 1, 1, tc.word, tc.word
			d := difference{Action: "a", Variant: tc.variant, Step: 1, Word: tc.word, What: "calls"}
			v := verdictFor(vs, d, transcript{Steps: []stepResult{tc.cw}}, transcript{Steps: []stepResult{tc.gw}})
			got := ""
			if v != nil {
				got = v.ID
			}
			if got != tc.want {
				t.Errorf("verdict %q, want %q", got, tc.want)
			}
		})
	}
	ids := map[string]bool{}
	for _, v := range vs {
		if ids[v.ID] || (v.Kind != upstreamBreaks && v.Kind != allowed) || v.Rule == "" || v.Upstream == "" || v.Ours == "" || v.Why == "" {
			t.Errorf("verdict %q: duplicate, or kind, rule, citations or reason missing", v.ID)
		}
		ids[v.ID] = true
	}
}

// A record survives writing and reading.
func TestRecord_roundTrip(t *testing.T) {
	r := record{Action: "a", Steps: []string{"init", "finalize"}, Variants: []recordedVariant{
		{Variant: variant{Name: "plain"}, T: transcript{Steps: []stepResult{
			{N: 1, Word: "init", Outcome: "err", Detail: "code=-1", Msg: "simpler_init failed with code -1", Calls: []string{"load", "dev=none create -> c0"}},
			{N: 2, Word: "finalize", Outcome: "ok", Detail: "-"}}, After: []string{"x"}, Exit: "0"}},
		{Variant: variant{Name: "status.simpler_init=-1", Knobs: []string{"poll_pending=1", "status.simpler_init=-1"}},
			T: transcript{Steps: []stepResult{{N: 1, Word: "init", Outcome: "ok", Detail: "-"}}, Exit: "signal: aborted"}},
	}}
	var b strings.Builder
	if err := writeRecord(&b, []string{"about a"}, r); err != nil {
		t.Fatal(err)
	}
	got, err := readRecord(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, got, cmp.AllowUnexported(record{}, recordedVariant{}, variant{}, transcript{}, stepResult{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// A consumer's declarations that break their syntax are refused with the
// file, the line and what is wrong.
func TestDeclarations_refusedWithWhere(t *testing.T) {
	for _, tc := range []struct{ name, verdicts, want string }{
		{"before verdict", "kind allowed\n", `v:1: "kind allowed" before the first verdict line`},
		{"kind", "verdict x\nkind maybe\n", `v:2: kind "maybe" is not upstream-breaks or allowed`},
		{"unknown", "verdict x\nwhen now\n", `v:2: unknown line "when now"`},
		{"regexp", "verdict x\nat (\n", "v:2: error parsing regexp: missing closing ): `(`"},
		{"calls", "verdict x\nlifecycle err host | some calls\n", `v:2: calls "some calls" is not "no call", "the same calls" or "any calls"`},
		{"missing", "verdict x\nkind allowed\nrule C-ERR\n", "v: verdict x: kind, rule, at, upstream, ours or why missing"},
	} {
		if _, err := parseVerdicts(tc.verdicts, "v"); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
		}
	}
	for _, tc := range []struct{ name, actions, want string }{
		{"no colon", "name X\ninit finalize\n", `a:2: want ACTION: STEP... [| KNOB...], got "init finalize"`},
		{"no name", "a: init finalize\n", "a: no name line"},
		{"bad step", "name X\na: init jump finalize\n", "action a: unknown step jump"},
	} {
		var c consumer
		if err := c.parseActions(tc.actions, "a"); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
		}
	}
	if _, err := loadConsumer("pyworker"); err == nil || err.Error() != `no consumer "pyworker" (declared: chipworker)` {
		t.Errorf("an undeclared consumer: %v", err)
	}
}

// A difference names both consumers, aligned (the lane's UNDECIDED lines).
func TestDifference_namesTheConsumers(t *testing.T) {
	d := difference{Action: "a", Variant: "plain", Step: 2, Word: "run=0", What: "answer", CW: "ok -", Go: "err host",
		Names: [2]string{"ChipWorker", "lifecycle"}}
	want := "a [plain] step 2 run=0: answer differ\n    ChipWorker: ok -\n    lifecycle:  err host"
	if got := d.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Every record of ChipWorker writes back byte for byte under the header
// of its consumer's about lines: a lane run with CHIPDIFF_UPDATE=1 changes
// a record only where ChipWorker's behaviour changed.
func TestRecords_writeBackByteForByte(t *testing.T) {
	c := chipWorker(t)
	files, err := filepath.Glob("testdata/chipworker/*.txt")
	if err != nil || len(files) != len(c.actions) {
		t.Fatalf("%d records (%v), want one per action, %d", len(files), err, len(c.actions))
	}
	for _, p := range files {
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := readRecord(strings.NewReader(string(want)))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		var b strings.Builder
		if err := writeRecord(&b, c.about, r); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), b.String()); diff != "" {
			t.Errorf("%s (-file +written):\n%s", p, diff)
		}
	}
}
