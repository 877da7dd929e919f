package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/internal/scratch"
)

// Pages renders abicheck's -html report (conformance/htmlreport implements
// it). The command sets Options.Pages: the renderer reads this package's
// runs and diffs, so this package cannot import it.
type Pages interface {
	// Check renders a check's runs (a live check or -check-trace).
	Check(w io.Writer, runs []*Run, o *Options) error
	// Diff renders a diff's report.
	Diff(w io.Writer, rep *DiffReport, o *Options) error
	// Mutants renders the kill table and the clause coverage.
	Mutants(w io.Writer, run *MutantRun, o *Options, randomOnly bool) error
}

// WritePage writes the -html report, o.HTML, that render produces,
// atomically (a temporary file beside it, renamed into place: a reader
// never sees half a report, a failed render leaves the old one), and names
// it on stderr.
func WritePage(o *Options, stderr io.Writer, render func(io.Writer) error) error {
	dir := filepath.Dir(o.HTML)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-html %s: %v", o.HTML, errors.Unwrap(err))
	}
	f, release, err := scratch.CreateTemp(dir, "."+filepath.Base(o.HTML)+".tmp-")
	if err != nil {
		return fmt.Errorf("-html %s: %v", o.HTML, errors.Unwrap(err))
	}
	defer release()
	tmp := f.Name()
	err = render(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, o.HTML)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("-html %s: %v", o.HTML, err)
	}
	announce(stderr, "the HTML report to %s", o.HTML)
	return nil
}

// writePageOf writes the -html report o asks for, if any, that render
// produces with o.Pages.
func writePageOf(o *Options, stderr io.Writer, render func(Pages, io.Writer) error) error {
	if o.HTML == "" {
		return nil
	}
	if o.Pages == nil {
		return errNoPages
	}
	return WritePage(o, stderr, func(w io.Writer) error { return render(o.Pages, w) })
}

// errNoPages: a caller set -html but no renderer (a bug of the caller).
var errNoPages = errors.New("-html: this build of abicheck has no HTML renderer")

// ReproScript is a failing rule's repro file as WriteRepros writes it
// into dir: its path and its text.
func ReproScript(r *Run, rr report.RuleReport, dir string) (file, text string) {
	file = filepath.Join(dir, reproFile(r, rr.Rule))
	return file, reproText(r, rr, file)
}
