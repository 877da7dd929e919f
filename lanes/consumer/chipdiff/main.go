// Command chipdiff is the consumer lane's differential of consumers
// (docs/upstream.md, "ChipWorker and lifecycle, action by action"): for each
// user action (actions.go), upstream's ChipWorker (the lane's action driver,
// ../actions.cpp, compiled from upstream's sources) and lifecycle.Worker in
// program mode each perform the action over the recording runtime over the
// same legacy fake, once per variant of the fake (plain; strict with
// must_not_call; a status forced on each entry ChipWorker called, or NULL
// for a pointer entry), and the two traces are compared call by call, with
// what each consumer answered at each step. Every difference must be one
// the verdict table decides (verdicts.go); any other fails.
//
// Usage:
//
//	chipdiff lane -driver ACTIONS -out DIR [-update DIR] [-only A,B]
//	chipdiff list
//
// lane runs the differential; -update writes ChipWorker's transcripts into
// DIR (testdata/chipworker), which the package's test replays against
// lifecycle without upstream's source. Exit 0 when every difference is
// decided, 1 otherwise, 2 for a usage or setup error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

const usage = `usage: chipdiff lane -driver ACTIONS -out DIR [-update DIR] [-only A,B]
       chipdiff list`

func main() {
	if childMain() {
		return
	}
	code, err := run(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "chipdiff:", err)
	}
	os.Exit(code)
}

func run(args []string) (int, error) {
	if err := checkActions(actions); err != nil {
		return 2, err
	}
	if len(args) == 0 {
		return 2, errors.New(usage)
	}
	switch args[0] {
	case "list":
		for _, a := range actions {
			fmt.Printf("%s: %s\n", a.name, strings.Join(a.steps, " "))
		}
		return 0, nil
	case "lane":
	default:
		return 2, errors.New(usage)
	}
	fs := flag.NewFlagSet("chipdiff lane", flag.ContinueOnError)
	driver := fs.String("driver", "", "the lane's ChipWorker action driver (actions.cpp, compiled)")
	out := fs.String("out", "", "a folder for the runs and the report")
	update := fs.String("update", "", "write ChipWorker's transcripts into this folder")
	only := fs.String("only", "", "comma-separated actions to run (default: all)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2, err
	}
	if *driver == "" || *out == "" || fs.NArg() != 0 {
		return 2, errors.New(usage)
	}
	self, err := os.Executable()
	if err != nil {
		return 2, err
	}
	work := filepath.Join(*out, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return 2, err
	}
	b, err := newBench(work)
	if err != nil {
		return 2, err
	}
	as, err := selectActions(*only)
	if err != nil {
		return 2, err
	}
	res, err := lane(b, cppConsumer(*driver), goConsumer(self), as)
	if err != nil {
		return 2, err
	}
	if *update != "" {
		if err := writeRecords(*update, res); err != nil {
			return 2, err
		}
	}
	report := summarize(res)
	if err := os.WriteFile(filepath.Join(*out, "chipdiff.md"), []byte(report.markdown()), 0o644); err != nil {
		return 2, err
	}
	fmt.Print(report.text())
	if report.undecided > 0 {
		return 1, nil
	}
	return 0, nil
}

func selectActions(only string) ([]action, error) {
	if only == "" {
		return actions, nil
	}
	var as []action
	for _, n := range strings.Split(only, ",") {
		a, ok := findAction(n)
		if !ok {
			return nil, fmt.Errorf("no action %q (chipdiff list)", n)
		}
		as = append(as, a)
	}
	return as, nil
}
