// Command compare reads the JUnit files of upstream simpler's unit suite run
// on upstream's build and on each fake variant, and compares the outcome of
// every test: a test that passes on upstream's build and not on a variant
// is a regression (exit 1). It prints each run's counts, every regression,
// and every test that fails on upstream's build too with its cause; with
// -summary it writes a per-file table in Markdown. With -loading (the test
// ids that loaded a host runtime, one a line, as PYTEST_CURRENT_TEST names
// them) it adds up those tests' JUnit times per run.
//
//	compare [-summary FILE] [-loading FILE] LABEL=JUNIT LABEL=JUNIT...
//
// The first run is the baseline (upstream's build). Exit 0: no regression;
// 1: a regression, or a variant's JUnit file missing or unreadable; 2: a
// usage error.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const (
	exitOK         = 0
	exitRegression = 1
	exitUsage      = 2
)

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	summary := fs.String("summary", "", "write the per-file table (Markdown) to `FILE`")
	loading := fs.String("loading", "", "`FILE` of the test ids that loaded a host runtime, one a line")
	if err := fs.Parse(args); err != nil || fs.NArg() < 2 {
		fmt.Fprintln(stderr, "usage: compare [-summary FILE] [-loading FILE] LABEL=JUNIT LABEL=JUNIT... (the first is upstream's build)")
		return exitUsage
	}
	var runs []*suiteRun
	for _, a := range fs.Args() {
		label, path, ok := strings.Cut(a, "=")
		if !ok || label == "" || path == "" {
			fmt.Fprintf(stderr, "compare: %q: want LABEL=JUNIT\n", a)
			return exitUsage
		}
		runs = append(runs, &suiteRun{Label: label, Path: path})
	}
	var loaders map[string]bool
	if *loading != "" {
		var err error
		if loaders, err = readLoaders(*loading); err != nil {
			fmt.Fprintln(stderr, "compare:", err)
			return exitUsage
		}
	}
	for i, r := range runs {
		r.Tests, r.Err = readJUnit(r.Path)
		if r.Err != nil && i == 0 {
			fmt.Fprintf(stderr, "compare: %s: %v\n", r.Label, r.Err)
			return exitUsage
		}
	}
	c := compareRuns(runs, loaders)
	c.print(stdout)
	if *summary != "" {
		if err := os.WriteFile(*summary, []byte(c.table()), 0o644); err != nil {
			fmt.Fprintln(stderr, "compare:", err)
			return exitRegression
		}
	}
	if c.failed() {
		return exitRegression
	}
	return exitOK
}
