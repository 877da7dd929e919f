package model

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

// refusersAfter steps a fresh model of profile p through setup (an op
// script) and returns the conditions of call, and the state's model.
func refusersAfter(t *testing.T, p Profile, setup, call string) []Refusal {
	t.Helper()
	st := NewState(ModelOptions{Profile: p, DrivenCompletion: true, DeviceKnown: true, Device: -1, Simulated: true})
	for i, o := range op.MustParseScript(setup) {
		for rep := 0; rep < o.Reps(); rep++ {
			st, _ = Step(st, i, rep, o, nil)
		}
	}
	o, err := op.Parse(call)
	if err != nil {
		t.Fatal(err)
	}
	return Refusers(st, o)
}

func ref(clause, cond string, st abi.Status) Refusal {
	return Refusal{Clause: clause, Cond: cond, Status: one(st)}
}

const (
	ia     = abi.InvalidArgument
	is     = abi.InvalidState
	budget = abi.CallableBytesExceeded
)

var (
	vcfg3   = ref("V-CFG.3", "enable_chip_swimlane outside 0..4", ia)
	vcfg4   = ref("V-CFG.4", "diagnostic enabled with an empty output_prefix", ia)
	pinit6  = ref("E-PINIT.6", "prewarm: enable_chip_swimlane outside 0..4", ia)
	pinit7  = ref("E-PINIT.7", "prewarm: diagnostic enabled with an empty output_prefix", ia)
	vimg    = func(k int) Refusal { return ref("V-IMG."+strconv.Itoa(k), imgClauseText[k], ia) }
	kernel0 = "create c0\nsetdev 0\nkinit c0 dev=0 gen=1\n"
)

// TestRefusers_VCFG_EPINIT_VIMG_VINIT: each condition that alone refuses a
// call is listed, whichever decides, and the masking is the deciding one
// with the next when the two share a code: a swimlane of -1 with no output
// prefix breaks the swimlane range and the prefix rule (V-CFG.3, V-CFG.4;
// E-PINIT.6, E-PINIT.7), and with a prefix only the range.
func TestRefusers_VCFG_EPINIT_VIMG_VINIT(t *testing.T) {
	for _, c := range []struct {
		name    string
		profile Profile
		setup   string
		call    string
		want    []Refusal
		masked  bool
	}{
		{name: "kinit swim=-1 without prefix", setup: "create c0\nsetdev 0", call: "kinit c0 dev=0 gen=1 cfg=swim=-1",
			want: []Refusal{vcfg3, vcfg4}, masked: true},
		{name: "kinit swim=-1 with prefix", setup: "create c0\nsetdev 0", call: "kinit c0 dev=0 gen=1 cfg=swim=-1+prefix",
			want: []Refusal{vcfg3}},
		{name: "pinit prewarm swim=-1", setup: "create c0", call: "pinit c0 dev=0 prewarm=swim=-1",
			want: []Refusal{pinit6, pinit7}, masked: true},
		{name: "pinit prewarm swim=-1 with prefix", setup: "create c0", call: "pinit c0 dev=0 prewarm=swim=-1+prefix",
			want: []Refusal{pinit6}},
		{name: "V-INIT then V-CFG.2, codes differ", setup: "create c0\nsetdev 0", call: "kinit c0 dev=0 gen=0 cfg=pmu",
			want: []Refusal{ref("V-INIT.4", "context_generation 0", ia),
				ref("V-CFG.2", "a diagnostic that kernel mode does not support: enable_pmu", abi.Unsupported)}},
		{name: "two spans, each its own condition", setup: "create c0\nsetdev 0", call: "kinit c0 dev=0 gen=1 aicpu=halfptr disp=halfsize",
			want: []Refusal{ref("V-INIT.5", "an inconsistent aicpu span", ia), ref("V-INIT.5", "an inconsistent disp span", ia)}, masked: true},
		{name: "program context on a claimed device", setup: kernel0 + "create c1\nacl c1 dev=0", call: "kinit c1 dev=0 gen=2",
			want: []Refusal{ref("E-KINIT.3", "a program context", is), ref("E-KINIT.4", "another context holds the device's claim", is)}, masked: true},
		{name: "refusing build: V-CFG.2 and the build's UNSUPPORTED", profile: ProfileRefusing, setup: "create c0\nsetdev 0",
			call: "kinit c0 dev=0 gen=1 cfg=pmu",
			want: []Refusal{ref("V-CFG.2", "a diagnostic that kernel mode does not support: enable_pmu", abi.Unsupported),
				{Clause: "E-KINIT.2", Cond: "a refusing build refuses kernel init", Status: one(abi.Unsupported), Build: true}}},
		{name: "sig_count 257 reads entry 256, sig_count itself", setup: kernel0, call: "prepare c0 img=valid()+defect(sigcount)",
			want: []Refusal{vimg(3), vimg(4), vimg(5), vimg(6)}, masked: true},
		{name: "sig_count -1 alone", setup: kernel0, call: "prepare c0 img=valid()+defect(sigcount-neg)", want: []Refusal{vimg(3)}},
		{name: "a short child binary: V-IMG.18 and step 6", setup: kernel0, call: "prepare c0 img=valid(c=1)+short(8)",
			want: []Refusal{vimg(18), vimg(19)}, masked: true},
		{name: "child gap alone", setup: kernel0, call: "prepare c0 img=valid(c=2)+defect(child-gap)", want: []Refusal{vimg(15)}},
		{name: "huge: before V-IMG, and past the budget", setup: kernel0, call: "prepare c0 img=huge",
			want: []Refusal{ref("E-PREP.5", "callable_size above the 2 GiB budget", budget), vimg(19),
				ref("M-5.4", "the charge would pass 2 GiB of blocks", budget)}},
		{name: "state before V-IMG", setup: "create c0", call: "prepare c0 img=valid()+defect(sigcount-neg)",
			want: []Refusal{ref("E-PREP.3", "not a kernel context", is), vimg(3)}},
		{name: "launch id 8192 before any prepare", setup: kernel0, call: "launch c0 id=8192 stream=s0",
			want: []Refusal{ref("V-LAUNCH.5", "callable_id >= 8192", ia), ref("E-LAUNCH.2", "no prepare has succeeded", is),
				ref("E-LAUNCH.4", "an id never published on this context", abi.CallableNotResident)}},
		{name: "NULL run storage with a NULL context", setup: "", call: "run null st=null id=0",
			want: []Refusal{ref("S-3", "ctx NULL", ia), ref("E-PROG.6", "NULL run storage", ia)}, masked: true},
		{name: "legacy: every failure is -1", profile: ProfileLegacy, setup: "create c0\npinit c0 dev=0", call: "pinit c0 dev=-1",
			want: []Refusal{ref("E-PINIT.2", "device_id < 0", abi.Internal),
				ref("E-PINIT", "legacy: the runner is bound to another device until finalize_device", abi.Internal)}, masked: true},
		{name: "a NULL rootinfo_path and a bad rank: two NULL handles", setup: "", call: "cinit h0 rank=-1 nranks=1 path=null",
			want: []Refusal{{Clause: "E-COMM.1", Cond: "a NULL rootinfo_path"}, {Clause: "E-COMM.2", Cond: "rank outside [0, nranks)"}}, masked: true},
		{name: "a successful call", setup: kernel0, call: "prepare c0 img=valid()"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.profile
			if p == "" {
				p = ProfileTMR
			}
			got := refusersAfter(t, p, c.setup, c.call)
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("%s: refusers (-want +got):\n%s", c.call, d)
			}
			if m := Masking(got); (len(m) > 0) != c.masked {
				t.Errorf("%s: masking %v, want masked %v", c.call, m, c.masked)
			}
		})
	}
}

// TestMasking_decidingAndNext: the masking is the condition that decides
// and the next one when they share a code; a later one that shares it does
// not mask the first (the next decides without it), and the build's own
// refusal is left out.
func TestMasking_decidingAndNext(t *testing.T) {
	a, b, c := ref("A.1", "a", ia), ref("B.1", "b", is), ref("C.1", "c", ia)
	build := Refusal{Clause: "E-KINIT.2", Cond: "build", Status: one(abi.Unsupported), Build: true}
	u := ref("V-CFG.2", "u", abi.Unsupported)
	fails := Refusal{Clause: "E-PROG.13", Cond: "any", Status: anyFailure}
	for _, x := range []struct {
		rs   []Refusal
		want []Refusal
	}{
		{nil, nil},
		{[]Refusal{a}, nil},
		{[]Refusal{a, c}, []Refusal{a, c}},
		{[]Refusal{a, b, c}, nil},
		{[]Refusal{u, build}, nil},
		{[]Refusal{build, a, c}, []Refusal{a, c}},
		{[]Refusal{b, fails}, []Refusal{b, fails}},
	} {
		if d := cmp.Diff(x.want, Masking(x.rs)); d != "" {
			t.Errorf("Masking(%v) (-want +got):\n%s", x.rs, d)
		}
	}
}

// checkImageClauses maps the defect checkImage reports to the V-IMG
// clauses it stands for.
var checkImageClauses = []struct {
	prefix  string
	clauses []int
}{
	{"sig_count", []int{3}}, {"signature value", []int{4}}, {"tensor entry after", []int{5}}, {"more than 128", []int{6}},
	{"stored scalar_count", []int{7}}, {"name length or terminator", []int{8, 9}}, {"NUL inside a name", []int{10}},
	{"binary_size", []int{11}}, {"child_count", []int{12}}, {"child func_id", []int{13, 14}}, {"child offset", []int{15}},
	{"child header", []int{16}}, {"child sig_count", []int{17}}, {"child binary", []int{18}}, {"trailing bytes", []int{19}},
}

// TestImageClausesAgreeWithCheckImage: the first V-IMG clause that alone
// refuses a recipe is the one where the model's V-IMG, which stops at the
// first defect, refuses it, and a recipe it accepts breaks none (V-IMG):
// over every named defect on two bases, and spans that end early or late.
func TestImageClausesAgreeWithCheckImage(t *testing.T) {
	var rs []ImageRecipe
	for d := op.DefNone; d < op.NumDefects; d++ {
		for _, base := range []ImageRecipe{{}, {T: 1, S: 1, C: 2, B: 33}} {
			r := base
			r.Defect = d
			rs = append(rs, r)
		}
	}
	rs = append(rs, ImageRecipe{Long: 64, C: 2}, ImageRecipe{Short: 8, C: 1}, ImageRecipe{Short: 5, B: 10}, ImageRecipe{T: 3, C: 3, B: 100})
	for _, r := range rs {
		f := factsOf(r)
		ks := imageClauses(r)
		switch {
		case f.valid && len(ks) > 0:
			t.Errorf("%v: the model's V-IMG accepts it, yet V-IMG.%d alone refuses it", r, ks[0])
		case f.valid:
		case len(ks) == 0:
			t.Errorf("%v: the model's V-IMG refuses it (%s), yet no clause alone does", r, f.defect)
		case f.lenient != (len(ks) == 1 && ks[0] == 7):
			t.Errorf("%v: lenient %v, clauses %v", r, f.lenient, ks)
		default:
			i := slices.IndexFunc(checkImageClauses, func(x struct {
				prefix  string
				clauses []int
			}) bool {
				return strings.HasPrefix(f.defect, x.prefix)
			})
			if i < 0 || !slices.Contains(checkImageClauses[i].clauses, ks[0]) {
				t.Errorf("%v: the model's V-IMG refuses it for %q, the first clause alone is V-IMG.%d", r, f.defect, ks[0])
			}
		}
	}
}

// TestRingRecipesHaveAClause: every ring recipe that breaks a ring rule
// names its clause (V-CFG.6 to V-CFG.8).
func TestRingRecipesHaveAClause(t *testing.T) {
	for r := op.RingRecipe(0); r < op.NumRings; r++ {
		if n, _ := ringClause(r); r.Bad() != (n != 0) {
			t.Errorf("ring recipe %d: bad %v, clause V-CFG.%d", r, r.Bad(), n)
		}
	}
}
