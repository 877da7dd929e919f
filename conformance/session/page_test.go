package session

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Issue #37: WritePage writes the -html report atomically and names it:
// on stderr, as every file abicheck writes ("abicheck: wrote the HTML
// report to FILE"), with or without -json;
// a render that fails leaves the report that was there, and no temporary
// file, behind.
func TestIssue37_WritePage(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	type outcome struct {
		Err    string
		File   string
		Stderr string
		Left   []string // the directory's files
	}
	run := func(json bool, render func(io.Writer) error) outcome {
		var se bytes.Buffer
		err := WritePage(&Options{HTML: page, JSON: json}, &se, render)
		o := outcome{Stderr: se.String()}
		if err != nil {
			o.Err = err.Error()
		}
		b, _ := os.ReadFile(page)
		o.File = string(b)
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			o.Left = append(o.Left, e.Name())
		}
		return o
	}
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	got := []outcome{
		run(false, text("<p>one</p>")),
		run(true, text("<p>two</p>")),
		run(false, func(w io.Writer) error { io.WriteString(w, "<p>half"); return errors.New("the template broke") }),
	}
	want := []outcome{
		{File: "<p>one</p>", Stderr: "abicheck: wrote the HTML report to " + page + "\n", Left: []string{"report.html"}},
		{File: "<p>two</p>", Stderr: "abicheck: wrote the HTML report to " + page + "\n", Left: []string{"report.html"}},
		{Err: "-html " + page + ": the template broke", File: "<p>two</p>", Left: []string{"report.html"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WritePage (-want +got):\n%s", diff)
	}
	if st, err := os.Stat(page); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("the report's mode: %v (err %v), want -rw-r--r--", st.Mode(), err)
	}
}

// Issue #37: -html FILE is checked before anything runs (a finding of a
// long run must not be lost to a path that cannot be written), and the
// check leaves nothing behind: a missing directory is made to find out and
// removed again (WritePage makes it), a directory named as the file is an
// error.
func TestIssue37_CheckOutputsHTML(t *testing.T) {
	dir := t.TempDir()
	if err := (&Options{HTML: filepath.Join(dir, "new", "r.html")}).CheckOutputs(); err != nil {
		t.Errorf("a new directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("the check left the directory it made to find out: %v", err)
	}
	err := (&Options{HTML: dir}).CheckOutputs()
	if want := "-html " + dir + ": is a directory"; err == nil || err.Error() != want {
		t.Errorf("a directory: %v, want %q", err, want)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("the check left %d files behind", len(es))
	}
}
