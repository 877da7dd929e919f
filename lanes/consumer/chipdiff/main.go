// Command chipdiff is the consumer lane's differential of consumers
// (docs/upstream.md, "ChipWorker and lifecycle, action by action"): for each
// user action of a consumer (consumers/KEY/actions; ChipWorker's driver is
// ../actions.cpp, compiled from upstream's sources), that consumer and
// lifecycle.Worker in program mode each perform the action over the
// recording runtime over the same legacy fake, once per variant of the fake
// (plain; strict with must_not_call; a status forced on each entry the
// consumer called, or NULL for a pointer entry), and the two traces are
// compared call by call, with what each consumer answered at each step.
// Every difference must be one the consumer's expectation file
// (consumers/KEY/verdicts) decides; any other fails.
//
// Usage:
//
//	chipdiff lane -driver PROGRAM -out DIR [-consumer KEY] [-update DIR] [-only A,B]
//	chipdiff list [-consumer KEY]
//
// lane runs the differential (KEY chipworker by default); -update writes
// the consumer's transcripts into DIR (testdata/KEY), which the package's
// test replays against lifecycle without the consumer. Exit 0 when every
// difference is decided, 1 otherwise, 2 for a usage or setup error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

const usage = `usage: chipdiff lane -driver PROGRAM -out DIR [-consumer KEY] [-update DIR] [-only A,B]
       chipdiff list [-consumer KEY]`

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
	if len(args) == 0 || (args[0] != "list" && args[0] != "lane") {
		return 2, errors.New(usage)
	}
	fs := flag.NewFlagSet("chipdiff "+args[0], flag.ContinueOnError)
	key := fs.String("consumer", "chipworker", "the consumer (a folder of consumers/)")
	driver := fs.String("driver", "", "the consumer's driver (for chipworker, ../actions.cpp compiled)")
	out := fs.String("out", "", "a folder for the runs and the report")
	update := fs.String("update", "", "write the consumer's transcripts into this folder")
	only := fs.String("only", "", "comma-separated actions to run (default: all)")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 0 {
		return 2, errors.New(usage)
	}
	c, err := loadConsumer(*key)
	if err != nil {
		return 2, err
	}
	if args[0] == "list" {
		for _, a := range c.actions {
			fmt.Printf("%s: %s\n", a.name, strings.Join(a.steps, " "))
		}
		return 0, nil
	}
	if *driver == "" || *out == "" {
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
	as, err := c.selectActions(*only)
	if err != nil {
		return 2, err
	}
	c.start = driverStart(*driver)
	res, err := lane(b, c, lifecycleConsumer(self), as)
	if err != nil {
		return 2, err
	}
	if *update != "" {
		if err := writeRecords(*update, c, res); err != nil {
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
