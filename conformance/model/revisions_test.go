package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
)

var legacyModel = ModelOptions{Profile: ProfileLegacy, DeviceKnown: true, Device: 0}

// obsStatus is an observation of a call that returned st.
func obsStatus(st abi.Status) Observation { return Observation{Call: CallObs{Status: st, Out: -1}} }

// verdictsOf lists "VERDICT RULE" of m's findings from index from on.
func verdictsOf(m *Model, from int) []string {
	var out []string
	for _, f := range m.Findings()[from:] {
		out = append(out, f.Verdict.String()+" "+f.Rule.String())
	}
	return out
}

// Revisions (docs/contract.md): a legacy build is held only to what upstream's legacy
// code does. Each case steps the legacy model through ops with the answers
// upstream's a2a3 simulator build gives (c_api_shared.cpp at 6ebaf77) and
// checks the verdicts: target-revision decisions are skips, never failures;
// what legacy code does is asserted with its grounds. E-PINIT, V-SPAN,
// E-ACL, E-FIN, E-PROG, S-3.
func TestLegacyModelHoldsUpstreamLegacyCode(t *testing.T) {
	type step struct {
		op   string
		st   abi.Status
		want []string // verdicts of the findings this step adds
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"spans-are-not-checked", []step{
			{"create c0", 0, nil},
			// V-SPAN is a target decision: legacy takes the span as empty and attaches.
			{"pinit c0 dev=0 aicpu=halfptr", abi.OK, []string{"skip V-SPAN"}},
			// attached: another device is refused until finalize (device_runner_base.cpp:278-284)
			{"pinit c0 dev=1", abi.Internal, nil},
			{"finalize c0", abi.OK, nil},
			{"pinit c0 dev=1", abi.OK, nil},
		}},
		{"a-build-that-checks-spans-is-accepted-too", []step{
			{"create c0", 0, nil},
			{"pinit c0 dev=0 aicpu=halfptr", abi.Internal, []string{"skip V-SPAN"}},
			// the refusal attached nothing: any device goes
			{"pinit c0 dev=1", abi.OK, nil},
		}},
		{"re-init-on-the-attached-device", []step{
			{"create c0", 0, nil},
			{"pinit c0 dev=0", abi.OK, nil},
			{"pinit c0 dev=0", abi.OK, []string{"skip E-PINIT"}},
			{"pinit c0 dev=-1", abi.Internal, nil},
		}},
		{"legacy-is-held-to-its-own-code", []step{
			{"create c0", 0, nil},
			{"pinit c0 dev=0", abi.OK, nil},
			// a runner bound to device 0 that accepts device 1 breaks E-PINIT
			{"pinit c0 dev=1", abi.OK, []string{"fail E-PINIT"}},
		}},
		{"prewarm-ring-refused-after-attach", []step{
			{"create c0", 0, nil},
			{"pinit c0 dev=0 prewarm=ring=badtask", abi.Internal, nil},
			// legacy kept the runner bound, the target revision did not: both go on
			{"pinit c0 dev=1", abi.Internal, nil},
			{"pinit c0 dev=0", abi.OK, nil},
		}},
		{"sdma-span-refused-after-attach", []step{
			{"create c0", 0, nil},
			// not judged (a legacy init has no SDMA span), and refused by
			// the prewarm after the attach: the runner may be bound now
			{"pinit c0 dev=0 sdma=bytes prewarm=ring=bigdep", abi.Internal, []string{"skip E-PINIT"}},
			{"pinit c0 dev=1", abi.Internal, nil},
			{"pinit c0 dev=0", abi.OK, nil},
		}},
		{"sdma-span-refused-before-any-call", []step{
			{"create c2", 0, nil},
			{"pinit c2 dev=0", abi.OK, nil},
			{"register c2 id=2", abi.OK, nil},
			{"prepare_run c2 st=2 id=2", abi.OK, nil},
			// the adapter refuses the span before any call: the run stays
			{"pinit c2 dev=0 aicpu=halfptr sdma=halfptr", abi.Internal, []string{"skip E-PINIT"}},
			{"prepare_run c2 st=2 id=2", abi.Internal, nil},
			{"finalize_run c2 st=2", abi.OK, nil},
			{"prepare_run c2 st=2 id=2", abi.OK, nil},
		}},
		{"prewarm-ring-refused-on-an-attached-runner", []step{
			{"create c0", 0, nil},
			{"pinit c0 dev=1", abi.OK, nil},
			{"pinit c0 dev=1 prewarm=ring=badpow2", abi.Internal, nil},
			// still attached: a re-init of that device is either
			{"pinit c0 dev=1", abi.Internal, []string{"skip E-PINIT"}},
			{"pinit c0 dev=1", abi.OK, []string{"skip E-PINIT"}},
		}},
		{"sdma-span-refused-keeps-the-registry", []step{
			{"create c2", 0, nil},
			{"create c1", 0, nil},
			{"pinit c2 dev=0", abi.OK, nil},
			{"register c2 id=0", abi.OK, nil},
			{"pinit c2 dev=0 aicpu=halfsize sdma=halfptr prewarm=ok", abi.Internal, []string{"skip E-PINIT"}},
			{"prepare_run c2 st=3 id=0", abi.OK, nil},
			{"pinit c1 dev=0", abi.OK, nil},
			{"register c1 id=2", abi.OK, nil},
			// st3 holds c2's run
			{"prepare_run c1 st=3 id=2", abi.Internal, nil},
		}},
		{"prewarm-ring-refused-thread-device", []step{
			{"create c0", 0, nil},
			// the target revision refuses before it binds the thread: the
			// thread's device (0) may be kept (getdev answers a device)
			{"pinit c0 dev=1 prewarm=ring=badpow2", abi.Internal, nil},
			{"getdev", 0, nil},
		}},
		{"sdma-span-with-an-init-that-may-refuse", []step{
			{"create c0", 0, nil},
			// judged as the 9-parameter init it is: either (the dispatcher
			// span), and refused, so nothing changed
			{"pinit c0 dev=0 aicpu=bytes aicore=bytes disp=halfsize sdma=bytes prewarm=ok", abi.Internal, []string{"skip E-PINIT", "skip V-SPAN"}},
			{"setdev 1", abi.OK, nil},
			{"acl c0 dev=0", abi.OK, nil},
			{"pinit c0 dev=1", abi.OK, nil},
		}},
		{"sdma-provisioning-refused", []step{
			{"create c0", 0, nil},
			// the init succeeded, the warm-up's provisioning failed: the
			// adapter finalized the context
			{"pinit c0 dev=0 sdma=bytes", abi.Internal, []string{"skip E-PINIT"}},
			{"pinit c0 dev=1", abi.OK, nil},
		}},
		{"prewarm-keys-legacy-does-not-read", []step{
			{"create c0", 0, nil},
			{"pinit c0 dev=0 prewarm=threads=7", abi.OK, []string{"skip E-PINIT"}},
		}},
		{"acl", []step{
			{"create c0", 0, nil},
			{"acl c0 dev=0", abi.OK, nil},
			// onboard refuses, the simulator's stub returns 0: either
			{"acl c0 dev=-1", abi.OK, nil},
			{"acl c0 dev=-1", abi.Internal, nil},
			// the stub's 0 for NULL is a true S-3 finding
			{"acl null dev=0", abi.OK, []string{"fail S-3"}},
			{"prog null fn=comm_destroy", abi.OK, []string{"fail S-3"}},
		}},
		{"no-init-gate", []step{
			{"create c0", 0, nil},
			{"prog c0 fn=unregister", abi.OK, []string{"skip E-PROG"}},
			{"prog c0 fn=register", abi.Internal, []string{"skip E-PROG"}},
		}},
		{"finalize", []step{
			{"finalize null", abi.Internal, nil},
			{"create c0", 0, nil},
			{"finalize c0", abi.OK, nil},
			{"finalize null", abi.OK, []string{"fail E-FIN", "fail S-3"}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(legacyModel)
			for i, s := range tc.steps {
				n := len(m.Findings())
				o := obsStatus(s.st)
				if s.op == "getdev" {
					o = Observation{Call: CallObs{Value: uint64(int64(s.st))}}
				}
				if strings.HasPrefix(s.op, "create") {
					o = Observation{Call: CallObs{Value: 1}, HandleCreated: true, MemProbed: true}
				}
				m.step(i, 0, MustParse(s.op), &o)
				if d := cmp.Diff(s.want, verdictsOf(m, n)); d != "" {
					t.Fatalf("#%d %s -> %v: findings (-want +got):\n%s\n%v", i, s.op, s.st, d, m.Findings()[n:])
				}
			}
		})
	}
}

// A failure on a legacy build names its grounds, and the passes it earned
// with the generic -1 are counted apart (they prove less).
func TestLegacyGroundsAndGenericPasses(t *testing.T) {
	m := newModel(legacyModel)
	o := obsStatus(abi.Internal)
	m.step(0, 0, MustParse("finalize null"), &o)
	m.step(1, 0, MustParse("pinit null dev=0"), &o)
	if m.generic[REFin] != 1 || m.generic[REPInit] != 1 || m.generic[RS3] != 2 {
		t.Fatalf("generic passes E-FIN %d E-PINIT %d S-3 %d, want 1 1 2", m.generic[REFin], m.generic[REPInit], m.generic[RS3])
	}
	ok := obsStatus(abi.OK)
	m.step(2, 0, MustParse("acl null dev=0"), &ok)
	f := m.Findings()
	if len(f) != 1 || f[0].Rule != RS3 || !strings.Contains(f[0].Detail, "[legacy: onboard PLATFORM/platform/onboard/host/pto_runtime_c_api.cpp:36") ||
		f[0].Key != "want INTERNAL, got OK" {
		t.Fatalf("findings %v, want one S-3 failure naming its grounds, keyed on the statuses alone", f)
	}
}

// One divergence never hides the rest: after a call answers what the model
// did not predict, the model forgets only that context and judges every
// later call (docs/contract.md: every independent expectation of a directed check is
// judged). Against sim with two stubbed entries, the S-3 check reports both.
func TestDivergenceHidesNoOtherExpectation(t *testing.T) {
	m := newModel(hooked)
	ok := obsStatus(abi.OK)
	steps := []struct {
		op string
		o  Observation
	}{
		{"acl null dev=0", ok}, // S-3 / E-ACL: want IA
		{"finalize null", obsStatus(abi.Internal)},
		{"prog null fn=comm_destroy", ok},                  // S-3: want IA
		{"prog null fn=register", obsStatus(abi.Internal)}, // tolerated
	}
	for i, s := range steps {
		m.step(i, 0, MustParse(s.op), &s.o)
	}
	got := verdictsOf(m, 0)
	want := []string{"fail E-ACL", "fail S-3", "fail S-3", "warn S-3"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("findings (-want +got):\n%s", d)
	}
	if m.lost || m.divergences != 2 {
		t.Fatalf("lost %v divergences %d, want the model going on after 2", m.lost, m.divergences)
	}
}

// resync: a success pins the state it leaves; a failure forgets only its
// context, and a context whose destroy the model took as refused is retired
// at the first divergence (calling a freed handle would abort a runtime).
func TestResyncFromObservation(t *testing.T) {
	m := newModel(hooked)
	created := Observation{Call: CallObs{Value: 1}, HandleCreated: true, MemProbed: true}
	for i, s := range []struct {
		op string
		o  Observation
	}{
		{"setdev 0", obsStatus(abi.OK)},
		{"create c0", created},
		{"create c1", created},
		{"kinit c0 dev=0 gen=1", obsStatus(abi.OK)},
		{"destroy c0", Observation{}},                            // refused: c0 is not finalized
		{"pinit c1 dev=0 aicpu=halfptr", obsStatus(abi.OK)},      // V-SPAN wants IA: diverges, c1 pinned program
		{"kinit c1 dev=1 gen=2", obsStatus(abi.InvalidState)},    // program-latched: IS, judged in full
		{"prog c1 fn=register", obsStatus(abi.InvalidArgument)},  // live program init: any
		{"pinit c1 dev=0 prewarm=swim=9", obsStatus(abi.OK)},     // diverges again
		{"kinit c1 dev=1 gen=0", obsStatus(abi.InvalidArgument)}, // V-INIT: state-independent, judged
		{"prepare c1 img=valid()", obsStatus(abi.InvalidState)},  // state unknown: not judged
	} {
		m.step(i, 0, MustParse(s.op), &s.o)
	}
	if m.ctxs[0].live {
		t.Error("c0, whose destroy the model took as refused, is still called after a divergence")
	}
	if c := m.ctxs[1]; c.latch != LatchProgram || !c.attached {
		t.Errorf("c1 after the divergent pinit: latch %v attached %v, want pinned program-latched and attached", c.latch, c.attached)
	}
	// An inconsistent span of simpler_init breaks E-PINIT.3 and V-SPAN.
	want := []string{"fail E-PINIT", "fail V-SPAN", "fail E-PINIT"}
	if d := cmp.Diff(want, verdictsOf(m, 0)); d != "" {
		t.Fatalf("findings (-want +got):\n%s", d)
	}
	if m.tally[RVInit][Pass] != 1 {
		t.Errorf("V-INIT passes %d: the structural check on a context after its divergence is still judged", m.tally[RVInit][Pass])
	}
}
