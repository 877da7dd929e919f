// Command gen-fake-runtime emits and builds a simabi fake host runtime: a
// C11 shared library (libhost_runtime.so) implementing the host-runtime C ABI
// for a profile, plus the fake ACL library it links against (libascendcl.so).
// See docs/fake-runtime.md.
//
//	gen-fake-runtime -o DIR [-profile tmr|refusing|legacy] [-omit sym,sym]
//	                 [-knob key=value]... [-mutant NAME] [-cc CC] [-emit-only]
//	gen-fake-runtime -list-mutants
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/simabi/simabi/sim/emit"
)

type knobFlags struct{ k *emit.Knobs }

func (f knobFlags) String() string { return "" }
func (f knobFlags) Set(v string) error {
	return emit.ParseKnob(v, f.k)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes: 0 built (or listed), 1 the build failed (the compiler, the
// disk), 2 a usage error: a bad flag, knob, profile, mutant or symbol, said
// in one line.
const (
	exitOK    = 0
	exitBuild = 1
	exitUsage = 2
)

func usageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "gen-fake-runtime: %s (gen-fake-runtime -h for help)\n", strings.TrimPrefix(msg, "emit: "))
	return exitUsage
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen-fake-runtime", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		cfg      emit.Config
		out      = fs.String("o", "", "output `directory` (required unless -list-mutants)")
		profile  = fs.String("profile", "tmr", "build profile: tmr, refusing or legacy")
		omit     = fs.String("omit", "", "comma-separated `symbols` to leave unexported")
		mutant   = fs.String("mutant", "", "emit the mutant `NAME` (see -list-mutants)")
		list     = fs.Bool("list-mutants", false, "print every mutant with the rule it breaks, then exit")
		emitOnly = fs.Bool("emit-only", false, "write the C sources without building")
		cc       = fs.String("cc", "", "C compiler `command` (default $CC, then cc)")
	)
	fs.Var(knobFlags{&cfg.Knobs}, "knob", "a `key=value` knob, repeatable: status.<entry>=<code>, fail.<site>=<count>:<code>,\n"+
		"prepare_writes_id=false, fatal_device=true, strict=true, must_not_call=<entry>[,<entry>],\n"+
		"crash.<entry>=true, hang.<entry>=true, null.<entry>=true")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "usage: gen-fake-runtime -o DIR [flags]\n       gen-fake-runtime -list-mutants")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return exitOK
		}
		return usageError(stderr, err.Error())
	}
	if *list {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "MUTANT\tRULE\tGROUP\tWHAT IT DOES")
		for _, m := range emit.Mutants() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.Name, m.Rule, m.Group, m.Description)
		}
		tw.Flush()
		return 0
	}
	switch {
	case fs.NArg() != 0:
		return usageError(stderr, "unexpected arguments: "+strings.Join(fs.Args(), " "))
	case *out == "":
		return usageError(stderr, "-o DIR is required")
	}
	cfg.Profile = emit.Profile(*profile)
	cfg.Mutant = *mutant
	for _, s := range strings.Split(*omit, ",") {
		if s = strings.TrimSpace(s); s != "" {
			cfg.Omit = append(cfg.Omit, s)
		}
	}
	src, err := emit.Source(cfg)
	if err != nil {
		// An unknown profile, mutant or symbol, or a knob the profile
		// cannot take: the arguments are wrong.
		return usageError(stderr, err.Error())
	}
	if *emitOnly {
		paths, err := emit.WriteSources(src, *out)
		if err != nil {
			fmt.Fprintln(stderr, "gen-fake-runtime:", err)
			return 1
		}
		for _, p := range paths {
			fmt.Fprintln(stdout, p)
		}
		return 0
	}
	art, err := emit.BuildSources(src, emit.BuildOptions{CC: *cc, OutDir: *out})
	if err != nil {
		// errors.Is(err, emit.ErrNoCompiler) reads "no C compiler found
		// (set CC or install gcc)": one line.
		fmt.Fprintln(stderr, "gen-fake-runtime:", err)
		return 1
	}
	for _, p := range []string{art.RuntimePath, art.ACLPath, art.RuntimeSource, art.ACLSource, art.HeaderPath} {
		fmt.Fprintln(stdout, p)
	}
	return 0
}
