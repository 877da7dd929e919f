// Command abicheck checks a host runtime of simpler (libhost_runtime.so)
// against the contract of docs/contract.md: every applicable rule's
// directed checks plus random sequences, each call checked against an
// independent model, failures shrunk to short op logs that replay.
//
//	abicheck [flags] [LIB]
//	abicheck -replay FILE [flags] [LIB]
//	abicheck mutants [flags]
//
// Without LIB it checks the built-in simulator (profiles tmr and refusing)
// and a freshly emitted fake runtime. With LIB it loads that library through
// onboard and checks it; each sequence runs in a child process (this binary,
// re-executed), so that a crash or hang of the library is a finding and the
// run goes on. See docs/abicheck.md.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/childproc"
	"github.com/simabi/simabi/conformance/htmlreport"
	"github.com/simabi/simabi/conformance/isolate"
	"github.com/simabi/simabi/conformance/session"
	"github.com/simabi/simabi/conformance/speed"
)

// Exit codes.
const (
	exitOK       = session.ExitOK
	exitFindings = session.ExitFindings
	exitUsage    = session.ExitUsage
)

// defaultSeed is the seed of the random sequences unless -seed says
// otherwise: a fixed value, so that two runs of one build agree; every
// report prints the seed it used.
const defaultSeed = 1

func main() {
	switch {
	case os.Getenv(isolate.ChildEnv) != "":
		os.Exit(isolate.ChildMain())
	case os.Getenv(speed.ChildEnv) != "":
		os.Exit(speed.ChildMain())
	}
	os.Exit(abicheck(os.Args[1:], os.Stdout, os.Stderr))
}

// abicheck is run with the cleanup of its children and temporary files at
// exit and on SIGINT and SIGTERM (exit status 130, 143).
func abicheck(args []string, stdout, stderr *os.File) int {
	return childproc.Main("abicheck", stdout, stderr, func(stdout, stderr io.Writer) int { return run(args, stdout, stderr) })
}

// pathList appends each value of a repeatable path flag to *l.
func pathList(l *[]string) func(string) error {
	return func(v string) error {
		if v == "" {
			return errors.New("empty path")
		}
		*l = append(*l, v)
		return nil
	}
}

// options are abicheck's flags: a session's options.
type options = session.Options

// logLevelFlag parses -log-level (a name or a value of docs/contract.md's levels).
type logLevelFlag struct{ l *abi.LogLevel }

func (f logLevelFlag) String() string {
	if f.l == nil {
		return "" // the flag package's zero value, so that -h shows the default
	}
	if *f.l == 0 {
		return abi.DefaultLogLevel.String()
	}
	return f.l.String()
}

func (f logLevelFlag) Set(v string) error {
	l, err := abi.ParseLogLevel(v)
	if err != nil {
		return err
	}
	*f.l = l
	return nil
}

const usageText = `usage: abicheck [flags] [LIB]
       abicheck -replay FILE [flags] [LIB]
       abicheck -check-trace [flags] TRACE...
       abicheck mutants [flags]
       abicheck diff [flags] OLD NEW
       abicheck rules [-json]
       abicheck explain ID...

Checks a simpler host runtime (libhost_runtime.so) against the contract
(docs/contract.md; abicheck rules lists its rules, abicheck explain ID
prints one): directed checks per rule plus random sequences, every call
checked against an independent model; failures are shrunk to op logs that
-replay reproduces.

Without LIB: the built-in simulator (profiles tmr and refusing) and a freshly
emitted fake runtime (needs a C compiler). LIB may be a .so path, or sim:tmr /
sim:refusing for one built-in profile. An external LIB runs in child
processes: a crash or hang is reported (verdict crash / hang) and the run
goes on.

Exit status: 0 no failures (warnings allowed), 1 findings, 2 usage or load
error, 130/143 stopped by SIGINT/SIGTERM (children killed, temporary files
removed). -replay of a repro (a file with a "# finding:" line): 0 when that
finding reproduces, 1 when it does not. Every file written (-repro-dir,
-junit, -write-baseline, -html) is named on stderr; without these flags
nothing is written.

Examples:
  abicheck                                  # sim + emitted fake: failures, skips, a line per target
  abicheck -json build/libhost_runtime.so   # one library, JSON report
  abicheck -preload build/lib/libcpu_sim_context.so \
      build/lib/a2a3/sim/tensormap_and_ringbuffer/libhost_runtime.so
  abicheck -acl /usr/local/Ascend/ascend-toolkit/latest/lib64/libascendcl.so \
      /path/to/onboard/libhost_runtime.so   # on silicon (no hooks)
  abicheck -repro-dir out -junit out/abicheck.xml LIB
  abicheck -replay out/repro-E-PREP.ops LIB
  abicheck -check-trace session-*.ops          # recorded sessions, judged offline
  abicheck -replay session-1234.ops sim:tmr    # a recorded session replayed, differences per call
  abicheck mutants                          # kill table of the emitted mutants
  abicheck explain E-FIN                    # what a finding's rule says

Flags:
`

// replayUsage says where -replay runs FILE: replayMain's choice of target.
const replayUsage = "run the op script `FILE` once and print its history: on LIB; without LIB, a repro on the target\n" +
	"its header names (# target: sim:..., or # args: with the flags that loaded its library), else on sim:tmr;\n" +
	"a recorded trace (docs/trace.md) on sim:tmr"

// newFlags is an empty flag set of the command name: its errors are
// returned, not printed (parse prints them).
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses args into fs; -h prints text and the flags on stdout. When
// the command ends there, ok is false and code is its exit status.
func parse(fs *flag.FlagSet, args []string, text, prefix string, stdout, stderr io.Writer) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, text)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		return exitOK, false
	case err != nil:
		return usage(stderr, prefix+err.Error()), false
	}
	return 0, true
}

func newFlagSet(o *options) *flag.FlagSet {
	fs := newFlags("abicheck")
	fs.BoolVar(&o.JSON, "json", false, "print the report as JSON (docs/abicheck.md, schema abicheck/v2) instead of the text")
	fs.StringVar(&o.JUnit, "junit", "", "also write a JUnit XML report to `FILE`")
	fs.StringVar(&o.HTML, "html", "", "also write the report as one self-contained HTML page to `FILE` (verdicts, repros, the contract's text)")
	fs.Func("preload", "load `PATH` RTLD_GLOBAL before LIB (repeatable; e.g. libcpu_sim_context.so)", pathList(&o.Preloads))
	fs.StringVar(&o.ACL, "acl", "", "the ACL library (`PATH` to libascendcl.so) that sets the device and streams of a LIB without simulation hooks")
	fs.Uint64Var(&o.Seed, "seed", defaultSeed, "seed of the random sequences (sequence i uses seed+i)")
	fs.IntVar(&o.Sequences, "sequences", 100, "random sequences per target after the directed checks")
	fs.IntVar(&o.MaxOps, "max-ops", 300, "ops per random sequence")
	fs.DurationVar(&o.Duration, "duration", 20*time.Second, "time budget of the random sequences per target (0: none)")
	fs.DurationVar(&o.CaseTimeout, "case-timeout", 10*time.Second, "a sequence running longer is a hang (its child is killed)")
	fs.StringVar(&o.Replay, "replay", "", replayUsage)
	fs.StringVar(&o.ReproDir, "repro-dir", "", "write each failure's op log to `DIR`/repro-<rule>.ops (without it nothing is written)")
	fs.BoolVar(&o.Verbose, "v", false, "verbose: the table of every rule, every check, the library's stderr, the rules not checked here")
	fs.BoolVar(&o.Quiet, "q", false, "quiet: only failures and the summary")
	fs.BoolVar(&o.NoColor, "no-color", false, "no colors in the text")
	fs.BoolVar(&o.NoShrink, "no-shrink", false, "report failing sequences unshrunk")
	fs.BoolVar(&o.NoProbes, "no-probes", false, "do not probe, after each refused call of a directed check, that the refusal left no trace")
	fs.IntVar(&o.MaxHangs, "max-hangs", 2, "after this many hangs in one entry, cases that call it are skipped")
	fs.StringVar(&o.Bins[0], "aicpu", "", "AICPU binary `FILE` passed to kernel/program init (a real build needs it)")
	fs.StringVar(&o.Bins[1], "aicore", "", "AICore binary `FILE` passed to kernel/program init")
	fs.StringVar(&o.Bins[2], "dispatcher", "", "dispatcher binary `FILE` passed to kernel/program init")
	fs.StringVar(&o.Bins[3], "sdma-warmup", "", "SDMA warm-up `FILE` passed to simpler_init")
	fs.Var(logLevelFlag{&o.LogLevel}, "log-level", "host-log threshold bound into LIB and its preloads: debug, info, timing, warn, error or null (10..60)")
	fs.DurationVar(&o.LoadTimeout, "load-timeout", 30*time.Second, "loading LIB (in its first child) taking longer is a load error")
	fs.StringVar(&o.Baseline, "baseline", "", "accept the findings recorded in `FILE` (rule and fingerprint): they are listed as known and fail nothing")
	fs.StringVar(&o.WriteBaseline, "write-baseline", "", "write the run's findings to `FILE` as a baseline")
	fs.BoolVar(&o.CheckTrace, "check-trace", false, "judge the recorded sessions given as arguments (docs/trace.md) offline instead of checking a LIB")
	fs.StringVar(&o.Callable, "callable", "", "a ChipCallable image `FILE` the build can run: the run family's checks register it (img=prog)")
	return fs
}

// run is main without the exit: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "abicheck: internal error: %v\n%s", p, debug.Stack())
			code = exitUsage
		}
	}()
	if len(args) > 0 {
		switch args[0] {
		case "mutants":
			return mutantsMain(args[1:], stdout, stderr)
		case "diff":
			return diffMain(args[1:], stdout, stderr)
		case "rules":
			return rulesMain(args[1:], stdout, stderr)
		case "explain":
			return explainMain(args[1:], stdout, stderr)
		}
	}
	o := options{Pages: pages(args)}
	fs := newFlagSet(&o)
	if code, ok := parse(fs, args, usageText, "", stdout, stderr); !ok {
		return code
	}
	rest := fs.Args()
	if o.CheckTrace {
		if len(rest) == 0 {
			return usage(stderr, "-check-trace needs one or more trace files")
		}
		if o.Replay != "" {
			return usage(stderr, "-check-trace and -replay do not go together")
		}
		return session.MainTraces(&o, rest, stdout, stderr)
	}
	if len(rest) > 1 {
		if strings.HasPrefix(rest[1], "-") {
			return usage(stderr, "flags must come before LIB: "+strings.Join(rest[1:], " "))
		}
		return usage(stderr, "one LIB at most, got "+strings.Join(rest, " "))
	}
	lib := ""
	if len(rest) == 1 {
		if lib = rest[0]; lib == "" {
			return usage(stderr, "LIB is empty (give a library path, sim:tmr or sim:refusing, or no LIB for the built-in default)")
		}
	}
	if err := o.Validate(lib); err != nil {
		return usage(stderr, err.Error())
	}
	if o.Replay != "" {
		if o.HTML != "" {
			return usage(stderr, "-html goes with a check, -check-trace, diff or mutants, not -replay")
		}
		return session.ReplayMain(&o, lib, func(words []string) (string, error) {
			fs := newFlagSet(&o)
			if err := fs.Parse(words); err != nil || fs.NArg() != 1 {
				return "", errors.New("is not [flags] LIB")
			}
			return fs.Arg(0), nil
		}, stdout, stderr)
	}
	return session.Main(&o, lib, stdout, stderr)
}

// pages renders the -html report, naming the command line that made it.
func pages(args []string) htmlreport.Pages {
	words := []string{"abicheck"}
	for _, a := range args {
		words = append(words, session.ShellQuote(a))
	}
	return htmlreport.Pages{Command: strings.Join(words, " ")}
}

func usage(stderr io.Writer, msg string) int { return session.UsageError(stderr, msg) }
