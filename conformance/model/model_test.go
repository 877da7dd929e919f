package model

import (
	"strconv"
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

var statusByName = map[string]abi.Status{"OK": abi.OK}

func init() {
	for _, s := range abi.HostStatuses {
		statusByName[s.Name()] = s
	}
}

// runExpectScript steps a model through "op => STATUS [out=N] [mem=M]
// [value=V]" lines, checking the model's primary expectation of each op
// ("-" leaves the status unchecked).
func runExpectScript(t *testing.T, o ModelOptions, script string) *Model {
	t.Helper()
	m := newModel(o)
	for n, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		opText, want, _ := strings.Cut(line, "=>")
		op, err := Parse(opText)
		if err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		e := m.Expect(op)
		for _, w := range strings.Fields(want) {
			k, v, _ := strings.Cut(w, "=")
			switch {
			case w == "-":
			case k == "out":
				id, _ := strconv.Atoi(v)
				if !e.OutKnown || e.OutOK != int32(id) {
					t.Errorf("line %d %q: out %d (known %v), want %d", n+1, opText, e.OutOK, e.OutKnown, id)
				}
			case k == "mem":
				if e.Mem.String() != v && !(v == "0~" && e.Mem == MemZeroTolUp) {
					t.Errorf("line %d %q: mem %v, want %s", n+1, opText, e.Mem, v)
				}
			case k == "value":
				x, _ := strconv.ParseInt(v, 10, 64)
				if !e.CheckValue || e.Value != uint64(x) {
					t.Errorf("line %d %q: value %d (checked %v), want %d", n+1, opText, int64(e.Value), e.CheckValue, x)
				}
			case k == "rule":
				if e.Rule.String() != v {
					t.Errorf("line %d %q: rule %v, want %s", n+1, opText, e.Rule, v)
				}
			case k == "tol":
				st, known := statusByName[v]
				if !known && v != "foreign" {
					t.Fatalf("line %d: unknown status %q", n+1, v)
				}
				if (v == "foreign" && !e.Tol.Foreign) || (v != "foreign" && !e.Tol.Has(st)) {
					t.Errorf("line %d %q: tolerated %v, want %s", n+1, opText, e.Tol, v)
				}
			case w == "any":
				if !e.Status.Any {
					t.Errorf("line %d %q: %v, want any", n+1, opText, e.Status)
				}
			default:
				st, known := statusByName[w]
				if !known {
					code, err := strconv.Atoi(w)
					if err != nil {
						t.Fatalf("line %d: unknown status %q", n+1, w)
					}
					st = abi.Status(code)
				}
				if e.Status.Any || e.Status.N != 1 || e.Status.V[0] != st {
					t.Errorf("line %d %q: expect %v (%s: %s), want %s", n+1, opText, e.Status, e.Rule, e.Note, w)
				}
			}
		}
		m.advance(op)
		if m.lost {
			t.Fatalf("line %d %q: model lost: %s", n+1, opText, m.lostWhy)
		}
	}
	return m
}

var hooked = ModelOptions{Profile: ProfileTMR, DrivenCompletion: true, DeviceKnown: true, Device: -1}

// TestModelKernelLifecycle walks the kernel lifecycle: E-KINIT, E-PREP,
// E-LAUNCH, M-1, M-3, M-7, K-1, K-3, K-5, K-6, D-2, E-FIN.
func TestModelKernelLifecycle(t *testing.T) {
	runExpectScript(t, hooked, `
create c0                         => value=1 mem=0
prepare c0 img=valid()            => INVALID_STATE rule=E-PREP
kinit c0 dev=0 gen=1              => INVALID_STATE rule=E-KINIT tol=foreign
setdev 0                          => OK
kinit c0 dev=0 gen=1              => INVALID_STATE rule=E-KINIT
create c1
kinit c1 dev=0 gen=2              => OK mem=0~
launch c1 id=0 stream=s0          => INVALID_STATE rule=E-LAUNCH
prepare c1 img=valid(t=2,s=1)     => OK out=0 mem=up
prepare c1 img=valid(t=2,s=1)     => OK out=1 mem=same rule=E-PREP
prepare c1 img=valid()+mis(4)     => INVALID_ARGUMENT rule=V-PREP-2
prepare c1 img=valid()+long(8)    => INVALID_ARGUMENT rule=V-IMG mem=same
prepare c1 img=huge               => CALLABLE_BYTES_EXCEEDED
prepare c1 img=valid()            => OK out=2
launch c1 id=3 stream=s0          => CALLABLE_NOT_RESIDENT
launch c1 id=8192 stream=s0       => INVALID_ARGUMENT rule=V-LAUNCH
launch c1 id=0 args=match(dt=1) stream=s0 => INVALID_ARGUMENT tol=INTERNAL
launch c1 id=0 args=match(host) stream=s0 => INVALID_ARGUMENT
launch c1 id=2 args=match(host) stream=s0 => OK
launch c1 id=0 stream=s0          => OK mem=same
launch c1 id=1 stream=s1          => PREPARED_INCOMPATIBLE
sync s0                           => OK
launch c1 id=1 stream=s1          => OK
setdev 1                          => OK
launch c1 id=1 stream=s1          => INVALID_STATE rule=D-2 tol=foreign
finalize c1                       => INVALID_STATE rule=D-2
setdev 0
finalize c1                       => OK mem=0
finalize c1                       => OK rule=K-6
prepare c1 img=valid()            => INVALID_STATE rule=K-6
kinit c1 dev=0 gen=3              => INVALID_STATE rule=K-6
pinit c1 dev=0                    => INVALID_STATE rule=L-3
destroy c1                        => -
finalize c0                       => OK rule=K-5
destroy c0
create c2
kinit c2 dev=0 gen=4              => OK
`)
}

// TestModelFaults walks the fault sites: K-4, K-5, K-7, M-3, D-4,
// E-LAUNCH-ASYNC, D-3, E-CLAIM.
func TestModelFaults(t *testing.T) {
	runExpectScript(t, hooked, `
setdev 0
create c0
inject site=1 count=1 code=-1234  => -
kinit c0 dev=0 gen=1              => -1234 rule=K-7
kinit c0 dev=0 gen=1              => INVALID_STATE
create c1
kinit c1 dev=0 gen=2              => OK
prepare c1 img=valid()            => OK out=0
inject site=2 count=1 code=-1300
prepare c1 img=valid()            => -1300 mem=same
prepare c1 img=valid()            => OK out=1 rule=E-PREP
launch c1 id=1 stream=s0          => OK
launch c1 id=0 stream=s0          => OK
inject site=8 count=1 code=-1400
sync s1                           => OK
sync s0                           => -1400 rule=D-3
sync s0                           => OK
launch c1 id=0 stream=s0          => OK rule=E-LAUNCH-ASYNC
inject site=3 count=1 code=-1500
prepare c1 img=valid()            => -1500 rule=K-4 mem=up-or-same
prepare c1 img=valid()            => INVALID_STATE rule=K-4
inject site=5 count=1 code=-1600
finalize c1                       => -1600 rule=K-5
create c2
kinit c2 dev=0 gen=3              => INVALID_STATE rule=E-CLAIM
finalize c1                       => OK
create c3
kinit c3 dev=0 gen=4              => OK
prepare c3 img=valid()            => OK out=0
inject site=6 count=1 code=0
finalize c3                       => INVALID_STATE rule=D-4
finalize c3                       => INVALID_STATE rule=D-4
prepare c3 img=valid()            => any
destroy c3
finalize c3                       => INVALID_STATE
inject site=0 count=1 code=1      => INVALID_ARGUMENT
inject site=2 count=1 code=0      => INVALID_ARGUMENT
inject site=7 count=1 code=0      => -
`)
}

// TestModelLatchAndProgram walks L-1..L-5, E-PINIT, E-ACL, E-PROG and S-3.
func TestModelLatchAndProgram(t *testing.T) {
	runExpectScript(t, hooked, `
finalize null                     => INTERNAL rule=E-FIN
pinit null dev=0                  => INTERNAL
acl null dev=0                    => INVALID_ARGUMENT tol=INTERNAL
committed null                    => value=0
prog null fn=register             => INVALID_ARGUMENT tol=INTERNAL
prog null fn=aicpu_dlopen         => value=0
supported null                    => value=1
create c0
prog c0 fn=register               => INVALID_STATE rule=E-PROG
prog c0 fn=malloc                 => value=0
setdev 0
kinit c0 dev=0 gen=1 cfg=pmu      => UNSUPPORTED rule=V-CFG
kinit c0 dev=0 gen=1 cfg=threads=1 => INVALID_ARGUMENT tol=INTERNAL
kinit c0 dev=0 gen=1 cfg=ring=badtask => INVALID_ARGUMENT
kinit c0 dev=0 gen=1 aicpu=halfptr => INVALID_ARGUMENT rule=V-SPAN
kinit c0 dev=0 gen=0              => INVALID_ARGUMENT rule=V-INIT
pinit c0 dev=1                    => OK rule=L-5
pinit c0 dev=1                    => INVALID_STATE rule=E-PINIT
kinit c0 dev=1 gen=1              => INVALID_STATE rule=L-2
prog c0 fn=register               => INVALID_ARGUMENT tol=INTERNAL rule=E-PROG
prog c0 fn=unregister             => INVALID_ARGUMENT tol=INTERNAL rule=E-PROG
prog c0 fn=launch_run             => INVALID_ARGUMENT tol=INTERNAL rule=E-PROG
prog c0 fn=copy_from              => INVALID_ARGUMENT tol=INTERNAL rule=E-PROG
prog c0 fn=meminfo                => INVALID_ARGUMENT tol=INTERNAL rule=E-PROG
prog c0 fn=malloc                 => value=1
prog c0 fn=aicpu_dlopen           => value=0
finalize c0                       => OK
setdev 1
pinit c0 dev=1 prewarm=swim=2     => INVALID_ARGUMENT
pinit c0 dev=1 prewarm=pmu        => OK
create c1
acl c1 dev=-1                     => INVALID_ARGUMENT
acl c1 dev=0                      => OK
prog c1 fn=copy_to                => INVALID_STATE
prepare c1 img=valid()            => INVALID_STATE rule=L-4
create c2
setdev 0
kinit c2 dev=0 gen=1              => OK
acl c2 dev=0                      => INVALID_STATE rule=L-2
supported c2                      => value=1
`)
}

// TestModelRefusing: a refusing build validates, then refuses (E-KINIT,
// E-PREP, E-LAUNCH, E-SUP).
func TestModelRefusing(t *testing.T) {
	o := hooked
	o.Profile = ProfileRefusing
	runExpectScript(t, o, `
supported null                    => value=0
create c0
setdev 0
kinit c0 dev=0 gen=1              => UNSUPPORTED
kinit c0 dev=0 gen=0              => INVALID_ARGUMENT
kinit c0 dev=0 gen=1 cfg=pmu      => UNSUPPORTED rule=V-CFG tol=UNSUPPORTED
kinit c0 dev=0 gen=1 cfg=swim=9   => INVALID_ARGUMENT tol=UNSUPPORTED
prepare c0 img=valid()            => INVALID_STATE
prepare c0 img=valid()+mis(2)     => INVALID_ARGUMENT
launch c0 id=0 stream=s0          => INVALID_STATE
launch c0 id=-1 stream=s0         => INVALID_ARGUMENT
pinit c0 dev=0                    => OK
supported c0                      => value=0
`)
}

// TestModelBudget checks the M-4 count and M-5 block accounting.
func TestModelBudget(t *testing.T) {
	m := runExpectScript(t, hooked, `
setdev 0
create c0
kinit c0 dev=0 gen=1
`)
	big := MustParse("prepare c0 img=valid(b=1048576)")
	for i := 0; i < 1024; i++ {
		if e := m.Expect(big); !e.Status.Has(abi.OK) || e.Mem != MemUp || e.OutOK != int32(i) {
			t.Fatalf("big prepare %d: %v (M-5: each opens its own 2 MiB block)", i, e)
		}
		m.advance(big)
	}
	if e := m.Expect(big); !e.Status.Has(abi.CallableBytesExceeded) || e.Rule != RM5 {
		t.Fatalf("prepare past 2 GiB: %v, want BYTES (M-5)", e)
	}
	small := MustParse("prepare c0 img=valid()")
	if e := m.Expect(small); !e.Status.Has(abi.OK) || e.Mem != MemSame {
		t.Fatalf("small prepare with a full budget: %v, want OK in an existing tail (M-5)", e)
	}
	m2 := runExpectScript(t, hooked, "setdev 0\ncreate c0\nkinit c0 dev=0 gen=1\n")
	for i := 0; i < MaxIDs; i++ {
		m2.advance(small)
	}
	if e := m2.Expect(small); !e.Status.Has(abi.CallableCountExceeded) || e.Rule != RM4 {
		t.Fatalf("prepare at 8192 residents: %v, want COUNT (M-4)", e)
	}
}

// step feeds one observation to the model.
func step(m *Model, line string, obs Observation) {
	m.step(0, 0, MustParse(line), &obs)
}

func findingsOf(m *Model, v Verdict) []Finding {
	var out []Finding
	for _, f := range m.Findings() {
		if f.Verdict == v {
			out = append(out, f)
		}
	}
	return out
}

// TestModelJudge checks what the model makes of observations: V-PREP-1 on
// an untouched out, tolerated alternatives as warnings (V-CFG, M-7), the
// tolerated ring branch, M-1 wrong ids, S-2 undocumented values, D-1
// counters and losing track after a surprise.
func TestModelJudge(t *testing.T) {
	m := newModel(hooked)
	step(m, "setdev 0", Observation{})
	step(m, "create c0", Observation{Call: CallObs{Value: 1}, MemProbed: true})
	step(m, "prepare c0 img=valid()", Observation{Call: CallObs{Status: abi.InvalidState, Out: op.OutSentinel}})
	if f := findingsOf(m, Fail); len(f) != 1 || f[0].Rule != RVPrep1 {
		t.Fatalf("untouched out: findings %v, want one V-PREP-1 failure", f)
	}
	step(m, "kinit c0 dev=0 gen=1 cfg=threads=1", Observation{Call: CallObs{Status: abi.Internal}})
	if w := findingsOf(m, Warn); len(w) != 1 || w[0].Rule != RVCfg {
		t.Fatalf("INTERNAL for threads: warnings %v, want one V-CFG warning", w)
	}
	// The tolerated ring branch: a build that does not check rings initializes.
	step(m, "kinit c0 dev=0 gen=1 cfg=ring=baddep", Observation{Call: CallObs{Status: abi.OK}, MemProbed: true, Mem: 4096})
	if w := findingsOf(m, Warn); len(w) != 3 {
		t.Fatalf("ring not checked and a nonzero C0: warnings %v, want V-CFG and M-7 warnings", w)
	}
	if m.ctxs[0].phase != phCollecting {
		t.Fatalf("after the tolerated ring branch the context is %v, want Collecting", phaseNames[m.ctxs[0].phase])
	}
	step(m, "prepare c0 img=valid()", Observation{Call: CallObs{Status: abi.OK, Out: 1}, MemProbed: true, MemPrev: 4096, Mem: 9000,
		ACLProbed: true, ACLForbidden: "aclrtSynchronizeStream"})
	fails := findingsOf(m, Fail)
	if len(fails) != 3 || fails[1].Rule != RM1 || fails[2].Rule != RD1 {
		t.Fatalf("id 1 first and a stream sync: failures %v, want M-1 and D-1", fails)
	}
	if m.lost {
		t.Fatal("a wrong id alone must not lose the model")
	}
	step(m, "launch c0 id=0 stream=s0", Observation{Call: CallObs{Status: -77}})
	fails = findingsOf(m, Fail)
	if len(fails) != 4 || fails[3].Rule != RELaunch || m.lost || !m.ctxs[0].unknown || m.divergences != 1 {
		t.Fatalf("an unpredicted device-band status: failures %v lost %v unknown %v divergences %d, "+
			"want an E-LAUNCH failure, c0 forgotten and the model going on", fails, m.lost, m.ctxs[0].unknown, m.divergences)
	}
	// The structural checks still judge a forgotten context; its state is not
	// asserted; a second context is judged in full.
	step(m, "launch c0 id=8192 stream=s0", Observation{Call: CallObs{Status: abi.OK}})
	step(m, "prepare c0 img=valid()", Observation{Call: CallObs{Status: abi.InvalidState, Out: -1}})
	step(m, "create c1", Observation{Call: CallObs{Value: 1}, MemProbed: true})
	// c0 held device 0 before it was forgotten: either answer is accepted,
	// and a success pins c1 as the holder.
	step(m, "kinit c1 dev=0 gen=2", Observation{Call: CallObs{Status: abi.OK}})
	step(m, "prepare c1 img=valid()", Observation{Call: CallObs{Status: abi.OK, Out: 1}})
	fails = findingsOf(m, Fail)
	if len(fails) != 6 || fails[4].Rule != RVLaunch || fails[5].Rule != RM1 || m.claims[0] != m.ctxs[1] {
		t.Fatalf("after the divergence: failures %v, want V-LAUNCH on c0 and M-1 on c1 (its first id is 0), c1 holding device 0", fails)
	}
	m = newModel(hooked)
	step(m, "finalize null", Observation{Call: CallObs{Status: 12345}})
	if f := findingsOf(m, Fail); len(f) != 3 || f[0].Rule != REFin || f[1].Rule != RS3 || f[2].Rule != RS2 ||
		!strings.Contains(f[2].Detail, "12345") {
		t.Fatalf("undocumented value for a NULL ctx: %v, want E-FIN, S-3 and S-2 (naming the value)", f)
	}
}

// TestModelRaceAndHold checks the two-thread ops' bookkeeping.
func TestModelRaceAndHold(t *testing.T) {
	m := newModel(hooked)
	for _, l := range []string{"setdev 0", "create c0", "create c1"} {
		step(m, l, Observation{Call: CallObs{Value: 1}})
	}
	step(m, "racekinit c0 c1 dev=0 gen=1", Observation{Call: CallObs{Status: abi.InvalidState}, Second: CallObs{Status: abi.OK}})
	if len(m.Findings()) != 0 || m.ctxs[1].phase != phCollecting || !m.ctxs[0].initFailed {
		t.Fatalf("c1 won the race: findings %v", m.Findings())
	}
	step(m, "prepare c1 img=valid()", Observation{Call: CallObs{Status: abi.OK, Out: 0}})
	step(m, "holdlaunch c1 ms=100 img=valid() id=0 stream=s0", Observation{Overlap: true,
		Call: CallObs{Status: abi.OK, Out: 1}, Second: CallObs{Status: abi.InvalidState}})
	step(m, "holdprepare c1 ms=100 img=valid() img2=valid(t=1)", Observation{Overlap: true,
		Call: CallObs{Status: abi.OK, Out: 3}, Second: CallObs{Status: abi.OK, Out: 2}})
	if len(m.Findings()) != 0 {
		t.Fatalf("findings %v", m.Findings())
	}
	if got := m.ctxs[1].ids[2].t; got != 1 {
		t.Fatalf("id 2 has %d tensors, want the second thread's image (1)", got)
	}
	step(m, "holdlaunch c1 ms=100 img=valid() id=0 stream=s0", Observation{Overlap: true, SecondLate: true,
		Call: CallObs{Status: abi.OK, Out: 4}, Second: CallObs{Status: abi.OK}})
	if f := findingsOf(m, Fail); len(f) == 0 || f[0].Rule != RX2 {
		t.Fatalf("a launch that waited: %v, want an X-2 failure", f)
	}
}

// rulesOf lists the rules of m's findings of verdict v.
func rulesOf(m *Model, v Verdict) []string {
	var out []string
	for _, f := range findingsOf(m, v) {
		out = append(out, f.Rule.String())
	}
	return out
}

// kernelModel returns a model with c0 kernel-initialized on device 0 and,
// when prepared, one id published.
func kernelModel(prepared bool) *Model {
	m := newModel(hooked)
	step(m, "setdev 0", Observation{})
	step(m, "create c0", Observation{Call: CallObs{Value: 1}})
	step(m, "kinit c0 dev=0 gen=1", Observation{})
	if prepared {
		step(m, "prepare c0 img=valid()", Observation{Call: CallObs{Out: 0}})
	}
	return m
}

// TestModelAttribution: a surprise is reported under every rule it breaks,
// so that the report (and a mutant's kill) names the rule at fault: S-1 for
// a device-band code where a host code is due, S-2 for an undocumented
// value (also where the outcome is otherwise open), S-3 for every NULL-ctx
// entry (the kernel four included), M-5 with E-PREP for both byte-budget
// steps, L-5 for a kernel init that finds a context latched after a refusal
// before the latch, and D-2's tolerance limited to the device query's own
// code.
func TestModelAttribution(t *testing.T) {
	for _, c := range []struct {
		name  string
		pre   []string // ops stepped with a zero observation first
		prep  bool
		op    string
		obs   Observation
		fails string // the failing rules, in order
		warns string
	}{
		{name: "S-1 NR as a device-band code", prep: true, op: "launch c0 id=3 stream=s0",
			obs: Observation{Call: CallObs{Status: -7}}, fails: "E-LAUNCH S-1"},
		{name: "S-1 not for a success", prep: true, op: "launch c0 id=0 stream=s0",
			obs: Observation{Call: CallObs{Status: -7}}, fails: "E-LAUNCH"},
		{name: "S-2 V-LAUNCH", prep: true, op: "launch c0 id=8192 stream=s0",
			obs: Observation{Call: CallObs{Status: -1009}}, fails: "V-LAUNCH S-2"},
		{name: "S-2 where the outcome is open", pre: []string{"inject site=6 count=1 code=0", "finalize c0"}, prep: true,
			op: "prepare c0 img=valid()", obs: Observation{Call: CallObs{Status: -1009, Out: -1}}, fails: "S-2"},
		{name: "S-3 prepare", op: "prepare null img=valid()",
			obs: Observation{Call: CallObs{Status: abi.Internal, Out: -1}}, fails: "V-PREP-2 S-3"},
		{name: "S-3 launch", op: "launch null id=0 stream=s0",
			obs: Observation{Call: CallObs{Status: abi.Internal}}, fails: "V-LAUNCH S-3"},
		{name: "S-3 kinit", op: "kinit null dev=0 gen=1",
			obs: Observation{Call: CallObs{Status: abi.Internal}}, fails: "V-INIT S-3"},
		{name: "S-3 supported", op: "supported null",
			obs: Observation{Call: CallObs{Value: 0}}, fails: "E-SUP S-3"},
		{name: "S-3 tolerated for ensure_acl_ready_ctx", op: "acl null dev=0",
			obs: Observation{Call: CallObs{Status: abi.Internal}}, warns: "S-3"},
		{name: "M-5 size step", op: "prepare c0 img=huge",
			obs: Observation{Call: CallObs{Status: abi.InvalidArgument, Out: -1}}, fails: "M-5 E-PREP"},
		{name: "L-5 kinit after a V-CFG refusal", pre: []string{"create c1", "kinit c1 dev=1 gen=1 cfg=pmu", "setdev 1"},
			op: "kinit c1 dev=1 gen=1", obs: Observation{Call: CallObs{Status: abi.InvalidState}}, fails: "E-KINIT L-5"},
		{name: "L-5 kinit after a V-INIT refusal", pre: []string{"create c1", "kinit c1 dev=1 gen=0", "setdev 1"},
			op: "kinit c1 dev=1 gen=1", obs: Observation{Call: CallObs{Status: abi.InvalidState}}, fails: "E-KINIT L-5"},
		{name: "L-5 finalize of a context refused before the latch", pre: []string{"create c1", "kinit c1 dev=1 gen=1 cfg=pmu"},
			op: "finalize c1", obs: Observation{Call: CallObs{Status: abi.InvalidState}}, fails: "E-FIN L-5"},
		{name: "no L-5 without a refusal (a fresh context's IS is L-1's)", pre: []string{"create c1", "setdev 1"},
			op: "kinit c1 dev=1 gen=1", obs: Observation{Call: CallObs{Status: abi.InvalidState}}, fails: "E-KINIT L-1"},
		{name: "D-2 tolerates the query's own code", prep: true, pre: []string{"setdev 1"},
			op: "launch c0 id=0 stream=s0", obs: Observation{Call: CallObs{Status: 107002}}, warns: "D-2"},
		{name: "D-2 does not tolerate an injected code", prep: true, pre: []string{"setdev 1", "inject site=4 count=1 code=-1234"},
			op: "launch c0 id=0 stream=s0", obs: Observation{Call: CallObs{Status: -1234}}, fails: "D-2"},
		{name: "D-2 does not tolerate a host code (NR: the id was looked up first, E-LAUNCH.3)", prep: true, pre: []string{"setdev 1"},
			op: "launch c0 id=0 stream=s0", obs: Observation{Call: CallObs{Status: abi.CallableNotResident}}, fails: "D-2 E-LAUNCH"},
	} {
		m := kernelModel(c.prep)
		for _, l := range c.pre {
			m.step(0, 0, MustParse(l), nil)
		}
		step(m, c.op, c.obs)
		if got := strings.Join(rulesOf(m, Fail), " "); got != c.fails {
			t.Errorf("%s: failures %q, want %q: %v", c.name, got, c.fails, m.Findings())
		}
		if got := strings.Join(rulesOf(m, Warn), " "); got != c.warns {
			t.Errorf("%s: warnings %q, want %q: %v", c.name, got, c.warns, m.Findings())
		}
	}
}

// TestModelLatchSuspect: a kernel init after a refusal before the latch that
// fails with IS after the latch (here D-2: no current device) is what a
// runtime that latched at the refusal answers too; a later failure on that
// context also names L-5.
func TestModelLatchSuspect(t *testing.T) {
	m := newModel(hooked)
	step(m, "create c0", Observation{Call: CallObs{Value: 1}})
	step(m, "kinit c0 dev=0 gen=1 cfg=pmu", Observation{Call: CallObs{Status: abi.Unsupported}})
	step(m, "kinit c0 dev=0 gen=1", Observation{Call: CallObs{Status: abi.InvalidState}})
	if f := findingsOf(m, Fail); len(f) != 0 {
		t.Fatalf("findings %v", f)
	}
	step(m, "setdev 0", Observation{})
	step(m, "finalize c0", Observation{Call: CallObs{Status: abi.InvalidState}})
	if got := strings.Join(rulesOf(m, Fail), " "); got != "K-5 L-5" {
		t.Fatalf("failures %q, want K-5 L-5: %v", got, m.Findings())
	}
}

// D-1: a queried value is printed signed, so a thread with no current
// device reads as -1 in a finding, not as 18446744073709551615.
func TestModelValueDetail_D1_printsMinusOne(t *testing.T) {
	m := newModel(hooked)
	step(m, "setdev none", Observation{})
	step(m, "getdev", Observation{Call: CallObs{Value: 3}})
	f := findingsOf(m, Fail)
	if len(f) != 1 || f[0].Rule != RD1 {
		t.Fatalf("findings %v, want one D-1 failure", f)
	}
	const want = "returned 3, want -1: only the caller and program paths change the current device"
	if f[0].Detail != want {
		t.Errorf("detail %q, want %q", f[0].Detail, want)
	}
	m = newModel(hooked)
	step(m, "setdev 2", Observation{})
	step(m, "getdev", Observation{Call: CallObs{Value: ^uint64(0)}})
	if f := findingsOf(m, Fail); len(f) != 1 || !strings.HasPrefix(f[0].Detail, "returned -1, want 2: ") {
		t.Errorf("findings %v, want \"returned -1, want 2: ...\"", f)
	}
}

// A failure's detail names what is wanted and, apart from it, only what is
// tolerated beyond it: never "want UNSUPPORTED ..., tolerated UNSUPPORTED"
// (E-KINIT, V-CFG on a refusing build).
func TestModelFailureDetail_namesOnlyTheExtraTolerance(t *testing.T) {
	for _, tc := range []struct{ op, want string }{
		{"kinit c0 dev=0 gen=1", "want UNSUPPORTED (a refusing build refuses kernel init, unlatched), got -1009"},
		{"kinit c0 dev=0 gen=1 cfg=threads=9", "want INVALID_ARGUMENT (aicpu_thread_num not 0 or in [2, 4]), tolerated UNSUPPORTED, got -1009"},
	} {
		t.Run(tc.op, func(t *testing.T) {
			m := newModel(ModelOptions{Profile: ProfileRefusing, DrivenCompletion: true, DeviceKnown: true, Device: -1, Simulated: true})
			step(m, "create c0", Observation{Call: CallObs{Value: 1}, MemProbed: true})
			step(m, tc.op, Observation{Call: CallObs{Status: -1009}})
			f := findingsOf(m, Fail)
			if len(f) != 2 || f[0].Detail != tc.want || f[1].Rule != RS2 {
				t.Fatalf("findings %v, want %q and an S-2 failure", f, tc.want)
			}
		})
	}
}
