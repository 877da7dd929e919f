package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The Makefile names tests that run without the race detector (and are
// skipped in the race-detected run), and the tests of ./tests that run under
// it. A renamed or deleted test would make its pattern match nothing, and
// the test it meant would silently run under the race detector again, or
// no longer under it: every name of each list must begin the name of a test
// function of the package the list runs in.
func TestMakefilePlainListsNameTests(t *testing.T) {
	root := repoRoot(t)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string][]string{ // list → the packages its names live in
		"RACE_EMIT_TESTS":     {"sim/emit"},
		"RACE_TESTS_TESTS":    {"tests"},
		"PLAIN_SUITE_TESTS":   {"conformance/suite"},
		"PLAIN_SESSION_TESTS": {"conformance/session"},
		"PLAIN_CONF_TESTS":    {"conformance"},
	}
	for list, pkgs := range lists {
		m := regexp.MustCompile(`(?m)^` + list + ` := \^\(?([^)$]*)\)?\$*$`).FindSubmatch(mk)
		if m == nil {
			t.Errorf("Makefile: no line %q := ^(...)", list)
			continue
		}
		funcs := testFuncs(t, root, pkgs)
		for _, name := range strings.Split(string(m[1]), "|") {
			if !anyHasPrefix(funcs, name) {
				t.Errorf("Makefile %s names %q, which begins no test function of %v", list, name, pkgs)
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

func anyHasPrefix(names []string, prefix string) bool {
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}
