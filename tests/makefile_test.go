package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The Makefile names tests that run without the race detector (and are
// skipped in the race-detected run), and the tests of ./tests and
// ./sim/emit that run under it, as lists of names it anchors (^(A|B)$). A
// renamed or deleted test would make its name match nothing, and the test
// it meant would silently run under the race detector again, or no longer
// under it: every name of each list must be a test function of the package
// the list runs in. The lists of one group run in one go test over the
// group's packages, so a name must also be no test of the group's other
// packages (it would run there too).
func TestMakefilePlainListsNameTests(t *testing.T) {
	root := repoRoot(t)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	groups := [][]struct{ list, pkg string }{
		{{"RACE_TESTS_TESTS", "tests"}, {"RACE_EMIT_TESTS", "sim/emit"}},
		{{"PLAIN_SUITE_TESTS", "conformance/suite"}, {"PLAIN_SESSION_TESTS", "conformance/session"}, {"PLAIN_CONF_TESTS", "conformance"}},
	}
	for _, group := range groups {
		for _, l := range group {
			m := regexp.MustCompile(`(?m)^` + l.list + ` := ([\w ]+)$`).FindSubmatch(mk)
			if m == nil {
				t.Errorf("Makefile: no line %q := NAME ...", l.list)
				continue
			}
			for _, name := range strings.Fields(string(m[1])) {
				for _, other := range group {
					has := slices.Contains(testFuncs(t, root, []string{other.pkg}), name)
					switch {
					case other.pkg == l.pkg && !has:
						t.Errorf("Makefile %s names %q, which is no test function of %s", l.list, name, l.pkg)
					case other.pkg != l.pkg && has:
						t.Errorf("Makefile %s names %q, which %s has too: one go test runs both", l.list, name, other.pkg)
					}
				}
			}
		}
	}
}

// testFuncs lists the Test functions declared in the _test.go files of pkgs.
func testFuncs(t *testing.T, root string, pkgs []string) []string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^func (Test\w*)\(`)
	var out []string
	for _, p := range pkgs {
		files, err := filepath.Glob(filepath.Join(root, p, "*_test.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no test files in %s (%v)", p, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range re.FindAllSubmatch(b, -1) {
				out = append(out, string(m[1]))
			}
		}
	}
	return out
}
