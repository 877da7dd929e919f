package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/simabi/simabi/conformance/report"
	"github.com/simabi/simabi/sim/emit"
)

// Exit statuses of abicheck.
const (
	ExitOK       = 0 // no failures (warnings allowed)
	ExitFindings = 1 // a rule failed, crashed or hung (mutants: one survived)
	ExitUsage    = 2 // usage or load error
)

// NoCompilerLine is what a default run says without a C compiler.
const NoCompilerLine = "abicheck: no C compiler found (set CC or install gcc); checking the built-in simulator only"

// UsageError writes a usage error's one line and returns ExitUsage.
func UsageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "abicheck: %s (abicheck -h for help)\n", msg)
	return ExitUsage
}

// Failed writes err as abicheck's one line on stderr and returns
// ExitUsage: a target that does not load, a file that cannot be written.
func Failed(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "abicheck: %v\n", err)
	return ExitUsage
}

// Main checks lib (a library, sim:tmr, sim:refusing, or "" for the
// default targets), writes the reports o asks for and returns the exit
// status.
func Main(o *Options, lib string, stdout, stderr io.Writer) int {
	return run(o, stdout, stderr, func(out *Printer) ([]*Run, int) { return checkTargets(o, lib, out, stderr) })
}

// MainTraces judges recorded sessions offline (abicheck -check-trace), with
// the reports of a live run; one that cannot be read makes the status
// ExitUsage, but every other is still judged.
func MainTraces(o *Options, files []string, stdout, stderr io.Writer) int {
	return run(o, stdout, stderr, func(*Printer) (runs []*Run, code int) {
		for _, f := range files {
			t0 := time.Now()
			r, err := CheckTrace(f)
			if err != nil {
				fmt.Fprintf(stderr, "abicheck: -check-trace: %v\n", err)
				code = ExitUsage
				continue
			}
			r.Elapsed = time.Since(t0)
			runs = append(runs, r)
		}
		return runs, code
	})
}

// run makes the runs (produce) and writes every report o asks for.
func run(o *Options, stdout, stderr io.Writer, produce func(out *Printer) ([]*Run, int)) int {
	t0 := time.Now()
	var base *report.Baseline
	if o.Baseline != "" {
		f, err := os.Open(o.Baseline)
		if err != nil {
			return UsageError(stderr, "-baseline: "+err.Error())
		}
		base, err = report.ParseBaseline(f)
		f.Close()
		if err != nil {
			return UsageError(stderr, "-baseline "+o.Baseline+": "+err.Error())
		}
	}
	if err := o.CheckOutputs(); err != nil {
		return UsageError(stderr, err.Error())
	}
	out := NewPrinter(o, stdout)
	runs, code := produce(out)
	if code == ExitUsage && len(runs) == 0 {
		return code
	}
	fail := func(what string, err error) {
		fmt.Fprintf(stderr, "abicheck: %s%v\n", what, err)
		code = max(code, ExitUsage)
	}
	for _, r := range runs {
		r.Result.Report.ApplyBaseline(base)
	}
	if o.WriteBaseline != "" {
		if err := writeBaseline(o.WriteBaseline, runs, stderr); err != nil {
			fail("-write-baseline: ", err)
		}
	}
	for _, r := range runs {
		r.Target.FileTag += "-"
		if len(runs) == 1 {
			r.Target.FileTag = "" // one target: its repro files need no tag
		}
	}
	// Without -repro-dir nothing is written: the table prints each repro
	// and says how to have it written.
	if o.ReproDir != "" {
		files, err := WriteRepros(o.ReproDir, runs)
		if err != nil {
			fail("-repro-dir: ", err)
		}
		defer func() {
			if len(files) > 0 {
				announce(stderr, "%s to %s: %s", plural(len(files), "repro file"), o.ReproDir, strings.Join(files, ", "))
			}
		}()
	}
	if o.JSON {
		if err := WriteJSONValue(stdout, ChecksJSON(runs, o, time.Since(t0))); err != nil {
			return Failed(stderr, err)
		}
	} else {
		out.Report(runs, time.Since(t0))
	}
	if o.JUnit != "" {
		if err := WriteJUnit(o.JUnit, runs); err != nil {
			fail("-junit: ", err)
		} else {
			announce(stderr, "the JUnit report to %s", o.JUnit)
		}
	}
	if err := writePageOf(o, stderr, func(p Pages, w io.Writer) error { return p.Check(w, runs, o) }); err != nil {
		fail("", err)
	}
	if code == ExitOK && Totals(runs).Bad() {
		code = ExitFindings
	}
	return code
}

// writeBaseline writes the runs' findings to path as a baseline and says so.
func writeBaseline(path string, runs []*Run, stderr io.Writer) error {
	reps := make([]*report.Report, len(runs))
	for i, r := range runs {
		reps[i] = r.Result.Report
	}
	var b bytes.Buffer
	if err := report.WriteBaseline(&b, reps); err != nil {
		return err
	}
	if err := writeOutput(path, b.Bytes()); err != nil {
		return err
	}
	announce(stderr, "the baseline of %s to %s", plural(len(baselineEntries(b.String())), "finding"), path)
	return nil
}

// checkTargets checks lib, or the default targets: both simulator profiles
// and a freshly emitted fake, or without the fake (no compiler, a failed
// build or load) the simulators alone.
func checkTargets(o *Options, lib string, out *Printer, stderr io.Writer) ([]*Run, int) {
	if lib != "" {
		t, err := OpenTarget(lib, o, stderr)
		if err != nil {
			return nil, Failed(stderr, err)
		}
		return checkAll(o, out, []*Target{t}), ExitOK
	}
	targets := []*Target{SimTarget("sim:tmr", o.CaseTimeout), SimTarget("sim:refusing", o.CaseTimeout)}
	t, code := emittedTarget(o, stderr)
	if t != nil {
		targets = append(targets, t)
	}
	return checkAll(o, out, targets), code
}

// checkAll runs the suite on targets at once (each target's runs are its
// own: a simulator in this process, a library in its child processes), in
// their order for the reports.
func checkAll(o *Options, out *Printer, targets []*Target) []*Run {
	runs := make([]*Run, len(targets))
	_ = inParallel(len(targets), 0, func(i int) error {
		defer targets[i].Close()
		runs[i] = Check(targets[i], o, out)
		return nil
	})
	return runs
}

// emittedTarget builds the default run's fake and loads it: the target, or
// nil with the exit status its absence means (ExitOK without a compiler,
// said in one line; ExitUsage when the build or the load failed).
func emittedTarget(o *Options, stderr io.Writer) (*Target, int) {
	a, err := emit.Build(emit.Config{Profile: emit.ProfileTMR}, emit.BuildOptions{})
	switch {
	case errors.Is(err, emit.ErrNoCompiler):
		fmt.Fprintln(stderr, NoCompilerLine)
		return nil, ExitOK
	case err != nil:
		fmt.Fprintf(stderr, "abicheck: emitting the fake runtime failed: %v\n", FirstLine(err.Error()))
		return nil, ExitUsage
	}
	t, err := LibTarget(a.RuntimePath, o, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "abicheck: %v\n", err)
		return nil, ExitUsage
	}
	t.Label, t.FileTag = "emitted:tmr", "emitted-tmr"
	return t, ExitOK
}
