package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func runCompare(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

const failingOnUpstream = `failing on upstream too: 3
  tests/ut/py/test_a.py::TestX::test_p[2]: failed: assert 2 == 1
  tests/ut/py/test_a.py::test_err: error: failed on setup with "RuntimeError: setup broke
  tests/ut/py/test_worker/test_t.py: error: ModuleNotFoundError: No module named 'torch'
`

// A test that passes on upstream's build and fails or errors on a variant
// is a regression (exit 1), named with its cause; a test failing on
// upstream's build is listed with its cause (a collection error's is the
// exception the module raised), and a variant on which it does otherwise
// is named; the per-file table counts the tests and the passes of each run;
// -loading adds up the JUnit times of the tests that loaded a runtime.
func TestCompare_regressionsAndCauses(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	code, out, errs := runCompare("-loading", "testdata/loading.txt", "-summary", summary,
		"upstream=testdata/upstream.xml", "fake plain=testdata/plain.xml", "fake strict=testdata/strict.xml")
	want := `upstream: 7 tests, 3 passed, 1 failed, 2 errors, 1 skipped; the 2 tests that load a host runtime: 1.75 s
fake plain: 7 tests, 2 passed, 2 failed, 2 errors, 1 skipped; the 2 tests that load a host runtime: 0.62 s
fake strict: 7 tests, 3 passed, 1 failed, 2 errors, 1 skipped; the 2 tests that load a host runtime: 1.88 s
regressions (passed on upstream, not on a variant): 2
  fake plain: tests/ut/py/test_a.py::TestX::test_p[1]: failed: RuntimeError: copy_to into a comm window: -1
  fake plain: tests/ut/py/test_worker/test_w.py::test_w: error: failed on teardown with "OSError: boom"
failing on upstream too: 3
  tests/ut/py/test_a.py::TestX::test_p[2]: failed: assert 2 == 1
  tests/ut/py/test_a.py::test_err: error: failed on setup with "RuntimeError: setup broke (fake plain passed)
  tests/ut/py/test_worker/test_t.py: error: ModuleNotFoundError: No module named 'torch'
`
	if code != exitRegression || errs != "" {
		t.Errorf("exit %d, stderr %q; want exit 1 and nothing", code, errs)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
	table, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	wantTable := `| test file | tests | passed on upstream | passed on fake plain | passed on fake strict |
|---|--:|--:|--:|--:|
| tests/ut/py/test_a.py | 5 | 2 | 2 | 2 |
| tests/ut/py/test_worker/test_t.py | 1 | 0 | 0 | 0 |
| tests/ut/py/test_worker/test_w.py | 1 | 1 | 0 | 1 |
| all | 7 | 3 | 2 | 3 |
`
	if diff := cmp.Diff(wantTable, string(table)); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

// No regression: exit 0, the failures on upstream's build still listed.
func TestCompare_noRegression(t *testing.T) {
	code, out, errs := runCompare("upstream=testdata/upstream.xml", "fake strict=testdata/strict.xml")
	want := `upstream: 7 tests, 3 passed, 1 failed, 2 errors, 1 skipped
fake strict: 7 tests, 3 passed, 1 failed, 2 errors, 1 skipped
regressions (passed on upstream, not on a variant): 0
` + failingOnUpstream
	if code != exitOK || errs != "" {
		t.Errorf("exit %d, stderr %q; want exit 0 and nothing", code, errs)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
}

// A variant whose JUnit file is missing (pytest died before writing it) or
// holds no testcase fails the comparison (exit 1), saying so on its line;
// a tests missing from a variant's file is a regression.
func TestCompare_variantWithoutResults(t *testing.T) {
	dir := t.TempDir()
	partial := filepath.Join(dir, "partial.xml")
	if err := os.WriteFile(partial, []byte(`<testsuite name="pytest"><testcase classname="tests.ut.py.test_a.TestX" name="test_ok" time="0.5"/></testsuite>`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCompare("upstream=testdata/upstream.xml", "fake strict=testdata/nope.xml", "x=testdata/empty.xml", "partial="+partial)
	want := `upstream: 7 tests, 3 passed, 1 failed, 2 errors, 1 skipped
fake strict: no results: open testdata/nope.xml: no such file or directory
x: no results: testdata/empty.xml: no testcase
partial: 1 tests, 1 passed, 0 failed, 0 errors, 0 skipped
regressions (passed on upstream, not on a variant): 2
  partial: tests/ut/py/test_a.py::TestX::test_p[1]: missing: not in ` + partial + `
  partial: tests/ut/py/test_worker/test_w.py::test_w: missing: not in ` + partial + `
failing on upstream too: 3
  tests/ut/py/test_a.py::TestX::test_p[2]: failed: assert 2 == 1 (partial missing)
  tests/ut/py/test_a.py::test_err: error: failed on setup with "RuntimeError: setup broke (partial missing)
  tests/ut/py/test_worker/test_t.py: error: ModuleNotFoundError: No module named 'torch' (partial missing)
`
	if code != exitRegression || errs != "" {
		t.Errorf("exit %d, stderr %q; want exit 1 and nothing", code, errs)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
}

func TestCompare_usage(t *testing.T) {
	usage := "usage: compare [-summary FILE] [-loading FILE] LABEL=JUNIT LABEL=JUNIT... (the first is upstream's build)\n"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"upstream=testdata/upstream.xml"}, usage},
		{[]string{"-bogus", "a=b", "c=d"}, usage},
		{[]string{"upstream=testdata/upstream.xml", "testdata/plain.xml"}, "compare: \"testdata/plain.xml\": want LABEL=JUNIT\n"},
		{[]string{"upstream=testdata/nope.xml", "p=testdata/plain.xml"}, "compare: upstream: open testdata/nope.xml: no such file or directory\n"},
		{[]string{"upstream=testdata/loading.txt", "p=testdata/plain.xml"}, "compare: upstream: testdata/loading.txt: not a JUnit file: EOF\n"},
		{[]string{"-loading", "testdata/nope.txt", "upstream=testdata/upstream.xml", "p=testdata/plain.xml"}, "compare: open testdata/nope.txt: no such file or directory\n"},
	} {
		code, out, errs := runCompare(tc.args...)
		if code != exitUsage || out != "" || errs != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
}
