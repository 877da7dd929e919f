package emit

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// mechHeader is what every source of TestMechanicalOperators starts with:
// the #defines the enumerator reads.
const mechHeader = `#define PTO_RUNTIME_ERR_INTERNAL (-1000)
#define PTO_RUNTIME_ERR_INVALID_STATE (-1003)
#define LIMIT 8
#define SOME_FAIL (-1)
#define SIMABI_STRICT 0
`

// TestMechanicalOperators: each operator's sites in a small C source,
// exactly, in source order.
func TestMechanicalOperators(t *testing.T) {
	type site struct{ op, orig, repl string }
	for _, tc := range []struct {
		name, body string
		want       []site
	}{
		{"relational, boundary, guard and status", `
static int f(int n)
{
    if (n < 0) {
        return PTO_RUNTIME_ERR_INVALID_STATE;
    }
    return 0;
}`, []site{
			{"grd", "(n < 0)", "(0 && (n < 0))"},
			{"ror", "<", "<="}, {"ror", "<", ">="},
			{"bnd", "0", "1"}, {"bnd", "0", "-1"},
			{"ret", "PTO_RUNTIME_ERR_INVALID_STATE", "PTO_RUNTIME_ERR_INTERNAL"}, {"ret", "PTO_RUNTIME_ERR_INVALID_STATE", "0"},
			{"ret", "0", "-1"},
		}},
		{"a left constant, a #define and a negative constant", `
static int g(unsigned n, int m)
{
    return LIMIT > n && m != -1;
}`, []site{
			{"bnd", "LIMIT", "(LIMIT + 1)"}, {"bnd", "LIMIT", "(LIMIT - 1)"},
			{"ror", ">", ">="}, {"ror", ">", "<="},
			{"ror", "!=", "=="},
			{"bnd", "-1", "0"}, {"bnd", "-1", "-2"},
		}},
		{"statements: delete and swap, not declarations, casts to void or messages", `
static void h(int *p, int n)
{
    int k = n;
    node **q = NULL;
    (void)k;
    *p = n;
    helper(n);
    fprintf(stderr, "x");
    if (n)
        p[1] = 2;
}`, []site{
			{"del", "*p = n;", "(void)0;"},
			{"swp", "*p = n;\n    helper(n);", "helper(n);\n    *p = n;"},
			{"del", "helper(n);", "(void)0;"},
			{"swp", "helper(n);\n    fprintf(stderr, \"x\");", "fprintf(stderr, \"x\");\n    helper(n);"},
		}},
		{"returns of a status function, of a pointer, of a failure", `
static int32_t r(int x)
{
    if (x == 1) {
        return -1;
    }
    if (x == 2) {
        return SOME_FAIL;
    }
    return x;
}
static int s(int x)
{
    int rc = x + 1;
    return rc;
}
static int *q(int *x) { return x; }`, []site{
			{"grd", "(x == 1)", "(0 && (x == 1))"}, {"ror", "==", "!="}, {"bnd", "1", "2"}, {"bnd", "1", "0"},
			{"ret", "-1", "0"},
			{"grd", "(x == 2)", "(0 && (x == 2))"}, {"ror", "==", "!="}, {"bnd", "2", "3"}, {"bnd", "2", "1"},
			{"ret", "SOME_FAIL", "0"},
			{"ret", "x", "(void)x, 0"},
			{"ret", "rc", "(void)rc, 0"},
		}},
		{"excluded functions and knob-dead blocks", `
static int fault_pass(int site) { return site < 3; }
static void k(int n)
{
    if (SIMABI_STRICT) {
        n++;
        n--;
    }
}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := mechanicalSites(mechHeader+tc.body, ProfileTMR)
			if err != nil {
				t.Fatal(err)
			}
			var got []site
			for _, m := range ms {
				got = append(got, site{string(m.Op), m.Original, m.Replacement})
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("sites:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestMechanicalEnumerationIsDeterministic: the same profile gives the same
// mutants, IDs are unique, every operator has sites, a seed picks the same
// sample, and each mutant's source is the plain one with its marker and its
// replacement at its site.
func TestMechanicalEnumerationIsDeterministic(t *testing.T) {
	a, err := MechanicalMutants(ProfileTMR)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := MechanicalMutants(ProfileTMR)
	if !slices.Equal(ids(a), ids(b)) {
		t.Fatal("two enumerations of the tmr runtime differ")
	}
	seen := map[string]bool{}
	ops := map[MechanicalOp]int{}
	for _, m := range a {
		if seen[m.ID] {
			t.Errorf("ID %s twice", m.ID)
		}
		seen[m.ID] = true
		ops[m.Op]++
		if _, ok := MechanicalExcluded[m.Func]; ok {
			t.Errorf("%s mutates %s, which is excluded", m.ID, m.Func)
		}
		if !strings.HasPrefix(m.ID, string(m.Op)+"-") {
			t.Errorf("ID %s does not name its operator %s", m.ID, m.Op)
		}
	}
	for _, op := range MechanicalOps {
		if ops[op] == 0 {
			t.Errorf("no %s site", op)
		}
	}
	for _, tc := range []struct {
		n    int
		seed uint64
		want int
	}{{0, 1, len(a)}, {len(a) + 1, 1, len(a)}, {5, 1, 5}, {50, 7, 50}} {
		s1, s2 := SampleMechanical(a, tc.n, tc.seed), SampleMechanical(b, tc.n, tc.seed)
		if len(s1) != tc.want || !slices.Equal(ids(s1), ids(s2)) {
			t.Errorf("SampleMechanical(n=%d, seed %d): %d mutants, the same twice: %v; want %d", tc.n, tc.seed, len(s1), slices.Equal(ids(s1), ids(s2)), tc.want)
		}
		if !slices.IsSortedFunc(s1, func(x, y MechanicalMutant) int { return x.start - y.start }) {
			t.Errorf("SampleMechanical(n=%d, seed %d) is not in source order", tc.n, tc.seed)
		}
	}
	if slices.Equal(ids(SampleMechanical(a, 50, 7)), ids(SampleMechanical(a, 50, 8))) {
		t.Error("seeds 7 and 8 pick the same 50 mutants")
	}
	plain, err := Source(Config{Profile: ProfileTMR})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range SampleMechanical(a, 5, 3) {
		src, err := MechanicalSource(m)
		if err != nil {
			t.Fatal(err)
		}
		want := plain.Runtime[:m.start] + "/* MUTANT " + m.ID + " [mechanical " + string(m.Op) + "] */ " + m.Replacement + plain.Runtime[m.end:]
		if src.Runtime != want || src.ACL != plain.ACL || src.Header != plain.Header {
			t.Errorf("%s: the source is not the plain one with the marker and %q at line %d", m.ID, m.Replacement, m.Line)
		}
	}
}

func ids(ms []MechanicalMutant) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// TestMechanicalMutantsCompile: the first site of each operator in
// prepare_impl builds warning-free with the mutants' flags; a source the
// compiler refuses is a *CompileError, remembered by the cache.
func TestMechanicalMutantsCompile(t *testing.T) {
	all, err := MechanicalMutants(ProfileTMR)
	if err != nil {
		t.Fatal(err)
	}
	first := map[MechanicalOp]MechanicalMutant{}
	for _, m := range all {
		if _, ok := first[m.Op]; !ok && m.Func == "prepare_impl" {
			first[m.Op] = m
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, len(MechanicalOps))
	for i, op := range MechanicalOps {
		m, ok := first[op]
		if !ok {
			t.Fatalf("prepare_impl has no %s site", op)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = BuildMechanical(m, BuildOptions{})
		}()
	}
	wg.Wait()
	for i, op := range MechanicalOps {
		if errors.Is(errs[i], ErrNoCompiler) {
			t.Skip(errs[i])
		}
		if errs[i] != nil {
			t.Errorf("%s (%s): %v", first[op].ID, first[op].Describe(), errs[i])
		}
	}
	bad := first[OpDelete]
	bad.ID, bad.Replacement = "del-test-refused", "this is not C;"
	for try := range 2 {
		_, err := BuildMechanical(bad, BuildOptions{})
		var ce *CompileError
		if !errors.As(err, &ce) || ce.ID != bad.ID || !strings.Contains(ce.Out, "error:") {
			t.Errorf("build %d of a mutant that does not compile: %v, want a *CompileError with the compiler's error", try, err)
		}
	}
}

func ExampleMechanicalMutant_Describe() {
	m := MechanicalMutant{Func: "prepare_impl", Line: 2744, Original: "<", Replacement: "<="}
	fmt.Println(m.Describe())
	// Output: prepare_impl:2744 `<` → `<=`
}
