package main

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Outcome is what a test came to in one run.
type Outcome string

const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"
	Errored Outcome = "error" // an error in setup, teardown or collection
	Skipped Outcome = "skipped"
	Missing Outcome = "missing" // not in the run's JUnit file
)

// Test is one testcase of a JUnit file.
type Test struct {
	ID      string // file::Class::name as pytest names it; the file alone for a collection error
	File    string // tests/ut/py/test_x.py
	Outcome Outcome
	Cause   string  // the first line of the failure or error (skip reason for a skip)
	Seconds float64 // setup, call and teardown
}

// suiteRun is one run of the suite: its label, its JUnit file and what
// the file holds, or why it could not be read.
type suiteRun struct {
	Label string
	Path  string
	Tests map[string]Test
	Err   error
}

type junitCase struct {
	Classname string     `xml:"classname,attr"`
	Name      string     `xml:"name,attr"`
	Time      string     `xml:"time,attr"`
	Failure   *junitText `xml:"failure"`
	Error     *junitText `xml:"error"`
	Skipped   *junitText `xml:"skipped"`
}

type junitText struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

type junitSuite struct {
	Cases  []junitCase  `xml:"testcase"`
	Suites []junitSuite `xml:"testsuite"`
}

// readJUnit reads a JUnit file as pytest's --junitxml writes it
// (<testsuites><testsuite><testcase>, or a bare <testsuite>).
func readJUnit(path string) (map[string]Test, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var root junitSuite
	if err := xml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: not a JUnit file: %v", path, err)
	}
	tests := map[string]Test{}
	var walk func(s junitSuite) error
	walk = func(s junitSuite) error {
		for _, c := range s.Cases {
			t, err := testOf(c)
			if err != nil {
				return fmt.Errorf("%s: %v", path, err)
			}
			tests[t.ID] = t
		}
		for _, sub := range s.Suites {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	if len(tests) == 0 {
		return nil, fmt.Errorf("%s: no testcase", path)
	}
	return tests, nil
}

func testOf(c junitCase) (Test, error) {
	t := Test{Outcome: Passed}
	if c.Time != "" {
		s, err := strconv.ParseFloat(c.Time, 64)
		if err != nil {
			return t, fmt.Errorf("testcase %s %s: time %q: not a number", c.Classname, c.Name, c.Time)
		}
		t.Seconds = s
	}
	t.File, t.ID = nodeID(c.Classname, c.Name)
	switch {
	case c.Failure != nil:
		t.Outcome, t.Cause = Failed, cause(c.Failure)
	case c.Error != nil:
		t.Outcome, t.Cause = Errored, cause(c.Error)
	case c.Skipped != nil:
		t.Outcome, t.Cause = Skipped, firstLine(c.Skipped.Message)
	}
	return t, nil
}

// nodeID turns pytest's JUnit names back into its node id: classname is
// the module path with dots (tests.ut.py.test_x) and then the classes, the
// module being the last part named test_*; a collection error has no
// classname and the dotted module as its name.
func nodeID(classname, name string) (file, id string) {
	if classname == "" {
		file = strings.ReplaceAll(name, ".", "/") + ".py"
		return file, file
	}
	parts := strings.Split(classname, ".")
	mod := len(parts) - 1
	for i := len(parts) - 1; i >= 0; i-- {
		if strings.HasPrefix(parts[i], "test_") {
			mod = i
			break
		}
	}
	file = strings.Join(parts[:mod+1], "/") + ".py"
	id = strings.Join(append([]string{file}, parts[mod+1:]...), "::") + "::" + name
	return file, id
}

// cause is the first line saying what went wrong: the message, unless it
// only says a collection failed, then the last "E   " line of the report
// (the exception, e.g. ModuleNotFoundError: No module named 'torch').
func cause(t *junitText) string {
	if t.Message != "" && t.Message != "collection failure" {
		return firstLine(t.Message)
	}
	last := ""
	for _, line := range strings.Split(t.Body, "\n") {
		if rest, ok := strings.CutPrefix(line, "E   "); ok && strings.TrimSpace(rest) != "" {
			last = strings.TrimSpace(rest)
		}
	}
	if last == "" {
		return firstLine(t.Message)
	}
	return last
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// readLoaders reads the ids of the tests that loaded a host runtime, as
// PYTEST_CURRENT_TEST names them ("<node id> (call)"); blank lines and
// repeats are fine.
func readLoaders(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ids := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.LastIndex(line, " ("); i >= 0 && strings.HasSuffix(line, ")") {
			line = line[:i]
		}
		if line != "" {
			ids[line] = true
		}
	}
	return ids, sc.Err()
}
