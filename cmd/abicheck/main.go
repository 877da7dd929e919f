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
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/tests/conformance"
	"github.com/simabi/simabi/validation"
)

// Exit codes.
const (
	exitOK       = 0 // no failures (warnings allowed)
	exitFindings = 1 // a rule failed, crashed or hung (mutants: one survived)
	exitUsage    = 2 // usage or load error
)

// defaultSeed is the seed of the random sequences unless -seed says
// otherwise: a fixed value, so that two runs of one build agree; every
// report prints the seed it used.
const defaultSeed = 1

const noCompilerLine = "abicheck: no C compiler found (set CC or install gcc); checking the built-in simulator only"

func main() {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	if v == "" {
		return errors.New("empty path")
	}
	*s = append(*s, v)
	return nil
}

type options struct {
	json        bool
	junit       string
	preloads    stringList
	acl         string
	seed        uint64
	sequences   int
	maxOps      int
	duration    time.Duration
	caseTimeout time.Duration
	replay      string
	reproDir    string
	verbose     bool
	quiet       bool
	noColor     bool
	noShrink    bool
	noProbes    bool
	maxHangs    int
	bins        [4]string
	logLevel    abi.LogLevel
	loadTimeout time.Duration
	baseline    string
	writeBase   string
	callable    string
}

// logLevelFlag parses -log-level (a name or a value of docs/contract.md's levels).
type logLevelFlag struct{ l *abi.LogLevel }

func (f logLevelFlag) String() string {
	if f.l == nil || *f.l == 0 {
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
       abicheck mutants [flags]
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
error.

Examples:
  abicheck                                  # sim + emitted fake, table
  abicheck -json build/libhost_runtime.so   # one library, JSON report
  abicheck -preload build/lib/libcpu_sim_context.so \
      build/lib/a2a3/sim/tensormap_and_ringbuffer/libhost_runtime.so
  abicheck -acl /usr/local/Ascend/ascend-toolkit/latest/lib64/libascendcl.so \
      /path/to/onboard/libhost_runtime.so   # on silicon (no hooks)
  abicheck -repro-dir out -junit out/abicheck.xml LIB
  abicheck -replay out/repro-E-PREP.ops LIB
  abicheck mutants                          # kill table of the emitted mutants
  abicheck explain E-FIN                    # what a finding's rule says

Flags:
`

func newFlagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("abicheck", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&o.json, "json", false, "print the report as JSON (docs/abicheck.md) instead of the table")
	fs.StringVar(&o.junit, "junit", "", "also write a JUnit XML report to `FILE`")
	fs.Var(&o.preloads, "preload", "load `PATH` RTLD_GLOBAL before LIB (repeatable; e.g. libcpu_sim_context.so)")
	fs.StringVar(&o.acl, "acl", "", "the ACL library (`PATH` to libascendcl.so) that sets the device and streams of a LIB without simulation hooks")
	fs.Uint64Var(&o.seed, "seed", defaultSeed, "seed of the random sequences (sequence i uses seed+i)")
	fs.IntVar(&o.sequences, "sequences", 100, "random sequences per target after the directed checks")
	fs.IntVar(&o.maxOps, "max-ops", 300, "ops per random sequence")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "time budget of the random sequences per target (0: none)")
	fs.DurationVar(&o.caseTimeout, "case-timeout", 10*time.Second, "a sequence running longer is a hang (its child is killed)")
	fs.StringVar(&o.replay, "replay", "", "run the op script `FILE` (a repro) on LIB (default sim:tmr) and print its history")
	fs.StringVar(&o.reproDir, "repro-dir", "", "write each failure's op log to `DIR`/repro-<rule>.ops")
	fs.BoolVar(&o.verbose, "v", false, "verbose: every check, the library's stderr, the rules not checked here")
	fs.BoolVar(&o.quiet, "q", false, "quiet: only failures and the summary")
	fs.BoolVar(&o.noColor, "no-color", false, "no colors in the table")
	fs.BoolVar(&o.noShrink, "no-shrink", false, "report failing sequences unshrunk")
	fs.BoolVar(&o.noProbes, "no-probes", false, "do not probe, after each refused call of a directed check, that the refusal left no trace")
	fs.IntVar(&o.maxHangs, "max-hangs", 2, "after this many hangs in one entry, cases that call it are skipped")
	fs.StringVar(&o.bins[0], "aicpu", "", "AICPU binary `FILE` passed to kernel/program init (a real build needs it)")
	fs.StringVar(&o.bins[1], "aicore", "", "AICore binary `FILE` passed to kernel/program init")
	fs.StringVar(&o.bins[2], "dispatcher", "", "dispatcher binary `FILE` passed to kernel/program init")
	fs.StringVar(&o.bins[3], "sdma-warmup", "", "SDMA warm-up `FILE` passed to simpler_init")
	fs.Var(logLevelFlag{&o.logLevel}, "log-level", "host-log threshold bound into LIB and its preloads: debug, info, timing, warn, error or null (10..60)")
	fs.DurationVar(&o.loadTimeout, "load-timeout", 30*time.Second, "loading LIB (in its first child) taking longer is a load error")
	fs.StringVar(&o.baseline, "baseline", "", "accept the findings recorded in `FILE` (rule and fingerprint): they are listed as known and fail nothing")
	fs.StringVar(&o.writeBase, "write-baseline", "", "write the run's findings to `FILE` as a baseline")
	fs.StringVar(&o.callable, "callable", "", "a ChipCallable image `FILE` the build can run: the run family's checks register it (img=prog)")
	fs.Usage = func() {}
	return fs
}

// printHelp prints the usage text and the flags (-h goes to stdout).
func printHelp(fs *flag.FlagSet, text string, w io.Writer) {
	fmt.Fprint(w, text)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
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
		case "rules":
			return rulesMain(args[1:], stdout, stderr)
		case "explain":
			return explainMain(args[1:], stdout, stderr)
		}
	}
	var o options
	fs := newFlagSet(&o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(fs, usageText, stdout)
			return exitOK
		}
		return usage(stderr, err.Error())
	}
	rest := fs.Args()
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
	if err := o.validate(lib); err != nil {
		return usage(stderr, err.Error())
	}
	if o.replay != "" {
		return replayMain(&o, lib, stdout, stderr)
	}
	return checkMain(&o, lib, stdout, stderr)
}

func usage(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "abicheck: %s (abicheck -h for help)\n", msg)
	return exitUsage
}

func (o *options) validate(lib string) error {
	switch {
	case o.sequences < 0:
		return errors.New("-sequences must be >= 0")
	case o.maxOps <= 0:
		return errors.New("-max-ops must be > 0")
	case o.duration < 0:
		return errors.New("-duration must be >= 0")
	case o.caseTimeout <= 0:
		return errors.New("-case-timeout must be > 0")
	case o.maxHangs <= 0:
		return errors.New("-max-hangs must be > 0")
	case o.loadTimeout <= 0:
		return errors.New("-load-timeout must be > 0")
	case o.json && o.quiet:
		return errors.New("-json and -q do not go together")
	case o.verbose && o.quiet:
		return errors.New("-v and -q do not go together")
	}
	external := lib != "" && !isSimSpec(lib)
	if !external {
		if len(o.preloads) > 0 {
			return errors.New("-preload needs a LIB")
		}
		if o.acl != "" {
			return errors.New("-acl needs a LIB")
		}
		for _, b := range o.bins {
			if b != "" {
				return errors.New("-aicpu, -aicore, -dispatcher and -sdma-warmup need a LIB")
			}
		}
	}
	if strings.HasPrefix(lib, "sim:") && !isSimSpec(lib) {
		return fmt.Errorf("unknown built-in target %q (sim:tmr or sim:refusing)", lib)
	}
	for _, b := range o.bins {
		if b == "" {
			continue
		}
		if _, err := os.Stat(b); err != nil {
			return fmt.Errorf("binary %s: %v", b, errors.Unwrap(err))
		}
	}
	if o.callable != "" {
		if _, err := readCallable(o.callable); err != nil {
			return err
		}
	}
	return nil
}

// checkOutputs makes sure, before anything runs, that every output abicheck
// will write can be written: a finding found after a long run must not be
// hidden by a directory that does not exist.
func (o *options) checkOutputs() error {
	if o.junit != "" {
		if dir := filepath.Dir(o.junit); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("-junit %s: %v", o.junit, errors.Unwrap(err))
			}
		}
		f, err := os.OpenFile(o.junit, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("-junit %s: %v", o.junit, errors.Unwrap(err))
		}
		f.Close()
	}
	if o.reproDir != "" {
		if err := os.MkdirAll(o.reproDir, 0o755); err != nil {
			return fmt.Errorf("-repro-dir %s: %v", o.reproDir, errors.Unwrap(err))
		}
		probe, err := os.CreateTemp(o.reproDir, ".abicheck-write-test-")
		if err != nil {
			return fmt.Errorf("-repro-dir %s: %v", o.reproDir, errors.Unwrap(err))
		}
		probe.Close()
		os.Remove(probe.Name())
	}
	return nil
}

// readCallable reads a -callable image and checks it is a ChipCallable (V-IMG).
func readCallable(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-callable %s: %v", path, errors.Unwrap(err))
	}
	if st := validation.Image(b); st != abi.OK {
		return nil, fmt.Errorf("-callable %s: not a ChipCallable image (V-IMG refuses it: %v)", path, validation.CheckImageAt(0, b))
	}
	return b, nil
}

func isSimSpec(s string) bool { return s == "sim:tmr" || s == "sim:refusing" }

// target is one runtime under check.
type target struct {
	label    string // sim:tmr, sim:refusing, or the library path
	info     conformance.LibraryInfo
	exec     conformance.Executor
	isolated bool
	close    func()
	// replayArgs are the arguments after "abicheck -replay FILE" that pick
	// this target again ("" for sim:tmr).
	replayArgs string
	// fileTag prefixes repro file names when several targets are checked.
	fileTag string
}

func simTarget(spec string, timeout time.Duration) *target {
	p := sim.TMR
	if spec == "sim:refusing" {
		p = sim.Refusing
	}
	t := conformance.SimTarget(p)
	info := conformance.LibraryInfo{Path: spec, Revision: "kernel", Supported: 1, Profile: "tmr", Hooks: true,
		Counters: true, Caps: conformance.CapsOf(t), ProfileModel: "tmr"}
	if p == sim.Refusing {
		info.Supported, info.Profile, info.ProfileModel = 0, "refusing", "refusing"
	}
	tg := &target{label: spec, info: info, close: func() {}, fileTag: strings.ReplaceAll(spec, ":", "-"),
		exec: conformance.FactoryExecutor{Factory: conformance.SimFactory(p), Timeout: timeout}}
	if spec != "sim:tmr" {
		tg.replayArgs = spec
	}
	return tg
}

// libTarget opens an external library in isolation (its first child loads
// it and says what it is).
func libTarget(path string, o *options, stderr io.Writer) (*target, error) {
	var verbose io.Writer
	if o.verbose {
		verbose = stderr
	}
	p, err := newPool(childConfig{Lib: path, Preloads: o.preloads, ACL: o.acl, Binaries: o.bins, LogLevel: int32(o.logLevel), Callable: o.callable},
		o.caseTimeout, o.loadTimeout, verbose)
	if err != nil {
		return nil, err
	}
	var ra []string
	for _, pl := range o.preloads {
		ra = append(ra, "-preload", shellQuote(pl))
	}
	if o.acl != "" {
		ra = append(ra, "-acl", shellQuote(o.acl))
	}
	if o.logLevel != 0 && o.logLevel != abi.DefaultLogLevel {
		ra = append(ra, "-log-level", o.logLevel.String())
	}
	if o.callable != "" {
		ra = append(ra, "-callable", shellQuote(o.callable))
	}
	for i, name := range []string{"-aicpu", "-aicore", "-dispatcher", "-sdma-warmup"} {
		if o.bins[i] != "" {
			ra = append(ra, name, shellQuote(o.bins[i]))
		}
	}
	ra = append(ra, shellQuote(path))
	return &target{label: path, info: p.Info(), exec: p, isolated: true, close: p.Close, replayArgs: strings.Join(ra, " "),
		fileTag: "lib"}, nil
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '+' || r == '=' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// targetRun is a checked target.
type targetRun struct {
	t       *target
	res     *conformance.SuiteResult
	elapsed time.Duration
}

func checkMain(o *options, lib string, stdout, stderr io.Writer) int {
	var base *conformance.Baseline
	if o.baseline != "" {
		f, err := os.Open(o.baseline)
		if err != nil {
			return usage(stderr, "-baseline: "+err.Error())
		}
		base, err = conformance.ParseBaseline(f)
		f.Close()
		if err != nil {
			return usage(stderr, "-baseline "+o.baseline+": "+err.Error())
		}
	}
	if err := o.checkOutputs(); err != nil {
		return usage(stderr, err.Error())
	}
	var baseOut *os.File
	if o.writeBase != "" {
		f, err := os.Create(o.writeBase)
		if err != nil {
			return usage(stderr, "-write-baseline: "+err.Error())
		}
		baseOut = f
		defer f.Close()
	}
	out := newPrinter(o, stdout)
	var runs []*targetRun
	code := exitOK
	check := func(t *target) {
		defer t.close()
		runs = append(runs, checkTarget(t, o, out))
	}
	switch {
	case lib == "":
		check(simTarget("sim:tmr", o.caseTimeout))
		check(simTarget("sim:refusing", o.caseTimeout))
		a, err := emit.Build(emit.Config{Profile: emit.ProfileTMR}, emit.BuildOptions{})
		switch {
		case errors.Is(err, emit.ErrNoCompiler):
			fmt.Fprintln(stderr, noCompilerLine)
		case err != nil:
			fmt.Fprintf(stderr, "abicheck: emitting the fake runtime failed: %v\n", firstLine(err.Error()))
			code = exitUsage
		default:
			t, err := libTarget(a.RuntimePath, o, stderr)
			if err != nil {
				fmt.Fprintf(stderr, "abicheck: %v\n", err)
				code = exitUsage
				break
			}
			t.label, t.fileTag = "emitted:tmr", "emitted-tmr"
			check(t)
		}
	case isSimSpec(lib):
		check(simTarget(lib, o.caseTimeout))
	default:
		t, err := libTarget(lib, o, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "abicheck: %v\n", err)
			return exitUsage
		}
		check(t)
	}
	for _, r := range runs {
		r.res.Report.ApplyBaseline(base)
	}
	if baseOut != nil {
		reps := make([]*conformance.Report, len(runs))
		for i, r := range runs {
			reps[i] = r.res.Report
		}
		if err := conformance.WriteBaseline(baseOut, reps); err != nil {
			fmt.Fprintf(stderr, "abicheck: -write-baseline: %v\n", err)
			code = exitUsage
		}
	}
	if len(runs) > 1 {
		for _, r := range runs {
			r.t.fileTag += "-"
		}
	} else {
		for _, r := range runs {
			r.t.fileTag = ""
		}
	}
	if o.reproDir == "" && !o.json && anyFindings(runs) {
		// The replay hint must work when copied: the repro files go to a
		// directory of their own, whose paths the table prints.
		if dir, err := os.MkdirTemp("", "abicheck-repro-"); err == nil {
			o.reproDir = dir
		}
	}
	if o.reproDir != "" {
		if err := writeRepros(o.reproDir, runs); err != nil {
			fmt.Fprintf(stderr, "abicheck: -repro-dir: %v\n", err)
			code = max(code, exitUsage)
		}
	}
	if o.json {
		if err := printJSON(stdout, runs, o); err != nil {
			fmt.Fprintf(stderr, "abicheck: %v\n", err)
			return exitUsage
		}
	} else {
		out.report(runs)
	}
	if o.junit != "" {
		if err := writeJUnit(o.junit, runs); err != nil {
			fmt.Fprintf(stderr, "abicheck: -junit: %v\n", err)
			code = max(code, exitUsage)
		}
	}
	if code == exitOK && anyFindings(runs) {
		code = exitFindings
	}
	return code
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// checkTarget runs the suite on one target.
func checkTarget(t *target, o *options, out *printer) *targetRun {
	t0 := time.Now()
	profile, _ := conformance.ParseProfile(t.info.ProfileModel)
	s := conformance.SuiteRun{Name: t.label, Profile: profile, Caps: t.info.Caps, Checks: conformance.Catalogue(), Random: o.sequences,
		RandomOps: o.maxOps, Seed: o.seed, HoldMs: 10, Duration: o.duration, NoShrink: o.noShrink,
		MaxHangs: o.maxHangs, Progress: out.progressFunc(t.label), BindFindings: t.info.BindFindings, Probes: !o.noProbes}
	res := conformance.ConformWith(t.exec, s)
	out.clearProgress()
	return &targetRun{t: t, res: res, elapsed: time.Since(t0)}
}

func anyFindings(runs []*targetRun) bool {
	for _, r := range runs {
		for _, rr := range results(r) {
			if bad(rr.Verdict) {
				return true
			}
		}
	}
	return false
}

func bad(v conformance.Verdict) bool {
	return v == conformance.Fail || v == conformance.Crash || v == conformance.Hang
}
