// Command gen-fake-runtime emits and builds a simabi fake host runtime: a
// C11 shared library (libhost_runtime.so) implementing the host-runtime C ABI
// for a profile, plus the fake ACL library it links against (libascendcl.so).
// See docs/fake-runtime.md. With -recorder it emits and builds the recording
// runtime of docs/trace.md instead: a libhost_runtime.so that forwards every
// call to the runtime named by SIMABI_RECORD_TARGET and writes a trace.
//
//	gen-fake-runtime -o DIR [-profile tmr|refusing|legacy] [-omit sym,sym]
//	                 [-knob key=value]... [-mutant NAME] [-cc CC] [-emit-only]
//	gen-fake-runtime -recorder -o DIR [-revision kernel|legacy] [-hooks=false]
//	                 [-image-limit N] [-cc CC] [-emit-only]
//	gen-fake-runtime -list-mutants
//	gen-fake-runtime install [-knob key=value]... [-cc CC] SIMPLER_ROOT
//	gen-fake-runtime restore SIMPLER_ROOT
//
// install puts the legacy fake where upstream simpler's RuntimeBuilder
// looks for each simulator runtime of a simpler build, keeping upstream's
// files aside; restore puts them back.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/emit"
)

type knobFlags struct{ k *emit.Knobs }

func (f knobFlags) String() string { return "" }
func (f knobFlags) Set(v string) error {
	return emit.ParseKnob(v, f.k)
}

// knobUsage is -knob's help: every form emit.ParseKnob accepts, three to a
// line.
func knobUsage() string {
	var b strings.Builder
	b.WriteString("a `key=value` knob, repeatable (docs/fake-runtime.md):")
	for i, f := range emit.KnobForms {
		sep := " "
		if i%3 == 0 {
			sep = "\n"
		}
		b.WriteString(sep + f.Key + "=" + f.Value)
	}
	return b.String()
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
	if len(args) > 0 {
		switch args[0] {
		case "install":
			return runInstall(args[1:], stdout, stderr)
		case "restore":
			return runRestore(args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("gen-fake-runtime", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		cfg      emit.Config
		out      = fs.String("o", "", "output `directory` (required unless -list-mutants)")
		profile  = fs.String("profile", "tmr", "build profile: tmr, refusing or legacy")
		omit     = fs.String("omit", "", "comma-separated `symbols` to leave unexported")
		mutant   = fs.String("mutant", "", "emit the mutant `NAME` (see -list-mutants)")
		list     = fs.Bool("list-mutants", false, "print every mutant with the clause it breaks, then exit")
		emitOnly = fs.Bool("emit-only", false, "write the C sources without building")
		cc       = fs.String("cc", "", "C compiler `command` (default $CC, then cc)")
		recorder = fs.Bool("recorder", false, "build the recording runtime of docs/trace.md instead of a fake")
		revision = fs.String("revision", "kernel", "-recorder: the ABI revision of the runtime to record: kernel or legacy")
		hooks    = fs.Bool("hooks", true, "-recorder: export the simulation hooks of docs/contract.md (-hooks=false for a target without them)")
		imgLimit = fs.Uint64("image-limit", emit.DefaultImageLimit, "-recorder: the default most `bytes` of one image written to the trace")
	)
	fs.Var(knobFlags{&cfg.Knobs}, "knob", knobUsage())
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "usage: gen-fake-runtime -o DIR [flags]\n       gen-fake-runtime -recorder -o DIR [-revision kernel|legacy] [-hooks=false] [-image-limit N]\n       gen-fake-runtime -list-mutants\n       gen-fake-runtime install [-knob key=value]... [-cc CC] SIMPLER_ROOT\n       gen-fake-runtime restore SIMPLER_ROOT")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return exitOK
		}
		return usageError(stderr, err.Error())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *recorder {
		for _, name := range []string{"profile", "omit", "knob", "mutant", "list-mutants"} {
			if set[name] {
				return usageError(stderr, "-recorder does not take -"+name)
			}
		}
	} else {
		for _, name := range []string{"revision", "hooks", "image-limit"} {
			if set[name] {
				return usageError(stderr, "-"+name+" needs -recorder")
			}
		}
	}
	if *list {
		listMutants(stdout)
		return 0
	}
	switch {
	case fs.NArg() != 0:
		return usageError(stderr, "unexpected arguments: "+strings.Join(fs.Args(), " "))
	case *out == "":
		return usageError(stderr, "-o DIR is required")
	}
	if *recorder {
		return runRecorder(*revision, *hooks, *imgLimit, *out, *cc, *emitOnly, stdout, stderr)
	}
	cfg.Profile = emit.Profile(*profile)
	cfg.Mutant = *mutant
	for _, sym := range strings.Split(*omit, ",") {
		if sym = strings.TrimSpace(sym); sym != "" {
			cfg.Omit = append(cfg.Omit, sym)
		}
	}
	return runFake(cfg, *out, *cc, *emitOnly, stdout, stderr)
}

// listMutants prints every mutant with the clause it breaks (-list-mutants).
func listMutants(stdout io.Writer) {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tCLAUSE\tPROFILE\tWHAT IT DOES")
	for _, m := range emit.Mutants() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.Name, m.Clause, m.Profile, m.Description)
	}
	tw.Flush()
}

// runFake emits the fake of cfg into out and builds it (unless emitOnly),
// printing every file written.
func runFake(cfg emit.Config, out, cc string, emitOnly bool, stdout, stderr io.Writer) int {
	src, err := emit.Source(cfg)
	if err != nil {
		// An unknown profile, mutant or symbol, or a knob the profile
		// cannot take: the arguments are wrong.
		return usageError(stderr, err.Error())
	}
	if emitOnly {
		paths, err := emit.WriteSources(src, out)
		if err != nil {
			fmt.Fprintln(stderr, "gen-fake-runtime:", err)
			return 1
		}
		for _, p := range paths {
			fmt.Fprintln(stdout, p)
		}
		return 0
	}
	art, err := emit.BuildSources(src, emit.BuildOptions{CC: cc, OutDir: out})
	if err != nil {
		// errors.Is(err, emit.ErrNoCompiler) reads "no C compiler found
		// (set CC or install gcc)": one line.
		fmt.Fprintln(stderr, "gen-fake-runtime:", err)
		return 1
	}
	if code := checkExports(art.RuntimePath, cfg.Omit, stderr); code != 0 {
		return code
	}
	for _, p := range []string{art.RuntimePath, art.ACLPath, art.RuntimeSource, art.ACLSource, art.HeaderPath} {
		fmt.Fprintln(stdout, p)
	}
	return 0
}

// checkExports holds the built library to what the consumer of its revision
// resolves at load (abi.ConsumerSet, C-BIND-1), read from the file: a
// symbol the user omitted is said once, as a note (the consumer will refuse
// this fake, which is what -omit is for); any other missing one is a defect
// of the generator and fails the build.
func checkExports(path string, omitted []string, stderr io.Writer) int {
	rev, missing, err := emit.MissingForConsumer(path)
	if err != nil {
		fmt.Fprintln(stderr, "gen-fake-runtime: checking the exports:", err)
		return exitBuild
	}
	var chosen, defects []abi.ConsumerRequirement
	for _, m := range missing {
		if slices.Contains(omitted, m.Name) {
			chosen = append(chosen, m)
		} else {
			defects = append(defects, m)
		}
	}
	if len(chosen) > 0 {
		fmt.Fprintf(stderr, "gen-fake-runtime: note: %s lacks, as -omit asked: %s\n", path, abi.FormatMissing(chosen))
	}
	if len(defects) > 0 {
		fmt.Fprintf(stderr, "gen-fake-runtime: %s (revision %s) lacks symbols its consumer resolves: %s\n", path, rev, abi.FormatMissing(defects))
		return exitBuild
	}
	return 0
}

// runRecorder is -recorder: the recording runtime of docs/trace.md.
func runRecorder(revision string, hooks bool, imageLimit uint64, out, cc string, emitOnly bool, stdout, stderr io.Writer) int {
	rev, err := emit.ParseRevision(revision)
	if err != nil {
		return usageError(stderr, "-revision: "+strings.TrimPrefix(err.Error(), "emit: "))
	}
	if imageLimit == 0 {
		return usageError(stderr, "-image-limit must be at least 1 (SIMABI_RECORD_IMAGE_LIMIT=0 records no image bytes)")
	}
	cfg := emit.RecorderConfig{Revision: rev, NoHooks: !hooks, ImageLimit: imageLimit}
	if emitOnly {
		src, err := emit.RecorderSource(cfg)
		if err != nil {
			return usageError(stderr, err.Error())
		}
		p, err := emit.WriteRecorderSource(src, out)
		if err != nil {
			fmt.Fprintln(stderr, "gen-fake-runtime:", err)
			return exitBuild
		}
		fmt.Fprintln(stdout, p)
		return exitOK
	}
	art, err := emit.BuildRecorder(cfg, emit.BuildOptions{CC: cc, OutDir: out})
	if err != nil {
		fmt.Fprintln(stderr, "gen-fake-runtime:", err)
		return exitBuild
	}
	if code := checkExports(art.RuntimePath, nil, stderr); code != 0 {
		return code
	}
	fmt.Fprintln(stdout, art.RuntimePath)
	fmt.Fprintln(stdout, art.SourcePath)
	return exitOK
}
