package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/isolate"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/suite"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/conformance/target/library"
	"github.com/simabi/simabi/sim"
)

// Options are what a checking session runs with (abicheck's flags).
type Options struct {
	JSON          bool
	JUnit         string
	Preloads      []string
	ACL           string
	Seed          uint64
	Sequences     int
	MaxOps        int
	Duration      time.Duration
	CaseTimeout   time.Duration
	Replay        string
	ReproDir      string
	Verbose       bool
	Quiet         bool
	NoColor       bool
	NoShrink      bool
	NoProbes      bool
	MaxHangs      int
	Bins          [4]string
	LogLevel      abi.LogLevel
	LoadTimeout   time.Duration
	Baseline      string
	WriteBaseline string
	Callable      string
	CheckTrace    bool   // the arguments are recorded sessions to judge (docs/trace.md)
	HTML          string // -html FILE: also write the report as one HTML page (WritePage)
	Pages         Pages  // renders HTML (set by the command)
}

// libConfig is what a child process loads for the library at path.
func (o *Options) libConfig(path string) isolate.Config {
	return isolate.Config{Lib: path, Preloads: o.Preloads, ACL: o.ACL, Binaries: o.Bins, LogLevel: int32(o.LogLevel), Callable: o.Callable}
}

// holdMs is the X-2 hold of the session's random sequences.
const holdMs = 10

// cases are the suite's cases of a session on a target of profile and caps:
// the catalogue, then o's random sequences. killOnly is a mutant's run,
// which shows no repro (suite.Cases.KillOnly).
func (o *Options) cases(profile model.Profile, caps catalogue.Caps, probes, killOnly bool, progress func(done, total int, name string)) suite.Cases {
	return suite.Cases{Profile: profile, Caps: caps, Probes: probes, Random: o.Sequences, RandomOps: o.MaxOps, Seed: o.Seed,
		HoldMs: holdMs, Duration: o.Duration, NoShrink: o.NoShrink, KillOnly: killOnly, Progress: progress}
}

// Validate checks the options for a run on lib ("" for the default targets):
// each error is a usage error.
func (o *Options) Validate(lib string) error {
	builtin := lib == "" || IsSimSpec(lib)
	switch {
	case o.Sequences < 0:
		return errors.New("-sequences must be >= 0")
	case o.MaxOps <= 0:
		return errors.New("-max-ops must be > 0")
	case o.Duration < 0:
		return errors.New("-duration must be >= 0")
	case o.CaseTimeout <= 0:
		return errors.New("-case-timeout must be > 0")
	case o.MaxHangs <= 0:
		return errors.New("-max-hangs must be > 0")
	case o.LoadTimeout <= 0:
		return errors.New("-load-timeout must be > 0")
	case o.JSON && o.Quiet:
		return errors.New("-json and -q do not go together")
	case o.Verbose && o.Quiet:
		return errors.New("-v and -q do not go together")
	case builtin && len(o.Preloads) > 0:
		return errors.New("-preload needs a LIB")
	case builtin && o.ACL != "":
		return errors.New("-acl needs a LIB")
	case builtin && o.Bins != [4]string{}:
		return errors.New("-aicpu, -aicore, -dispatcher and -sdma-warmup need a LIB")
	case strings.HasPrefix(lib, "sim:") && !builtin:
		return fmt.Errorf("unknown built-in target %q (sim:tmr or sim:refusing)", lib)
	}
	for _, b := range o.Bins {
		if b == "" {
			continue
		}
		if _, err := os.Stat(b); err != nil {
			return fmt.Errorf("binary %s: %v", b, errors.Unwrap(err))
		}
	}
	if o.Callable != "" {
		if _, err := isolate.ReadCallable(o.Callable); err != nil {
			return err
		}
	}
	return nil
}

// IsSimSpec reports whether s names the built-in simulator.
func IsSimSpec(s string) bool { return s == "sim:tmr" || s == "sim:refusing" }

// Target is one runtime under check.
type Target struct {
	Label    string // sim:tmr, sim:refusing, or the library path
	Info     library.Info
	Exec     conformance.Executor
	Isolated bool
	Close    func()
	// ReplayArgs are the arguments after "abicheck -replay FILE" that pick
	// this target again ("" for sim:tmr).
	ReplayArgs string
	// FileTag prefixes repro file names when several targets are checked.
	FileTag string
}

// SimTarget is the built-in simulator as a target: sim:tmr or sim:refusing,
// run in this process.
func SimTarget(spec string, timeout time.Duration) *Target {
	p := sim.TMR
	if spec == "sim:refusing" {
		p = sim.Refusing
	}
	t := target.SimTarget(p)
	info := library.Info{Path: spec, Revision: "kernel", Supported: 1, Profile: "tmr", Hooks: true,
		Counters: true, Caps: conformance.CapsOf(t), ProfileModel: "tmr"}
	if p == sim.Refusing {
		info.Supported, info.Profile, info.ProfileModel = 0, "refusing", "refusing"
	}
	tg := &Target{Label: spec, Info: info, Close: func() {}, FileTag: strings.ReplaceAll(spec, ":", "-"),
		Exec: conformance.FactoryExecutor{Factory: target.SimFactory(p), Timeout: timeout}}
	if spec != "sim:tmr" {
		tg.ReplayArgs = spec
	}
	return tg
}

// LibTarget opens an external library in isolation (its first child loads
// it and says what it is).
func LibTarget(path string, o *Options, stderr io.Writer) (*Target, error) {
	p, err := isolate.NewPool(o.libConfig(path), o.CaseTimeout, o.LoadTimeout, o.verboseTo(stderr))
	if err != nil {
		return nil, err
	}
	var ra []string
	add := func(flag, v string) {
		if v != "" {
			ra = append(ra, flag, ShellQuote(v))
		}
	}
	for _, pl := range o.Preloads {
		ra = append(ra, "-preload", ShellQuote(pl))
	}
	add("-acl", o.ACL)
	if o.LogLevel != 0 && o.LogLevel != abi.DefaultLogLevel {
		ra = append(ra, "-log-level", o.LogLevel.String())
	}
	add("-callable", o.Callable)
	for i, name := range []string{"-aicpu", "-aicore", "-dispatcher", "-sdma-warmup"} {
		add(name, o.Bins[i])
	}
	ra = append(ra, ShellQuote(path))
	return &Target{Label: path, Info: p.Info(), Exec: p, Isolated: true, Close: p.Close, ReplayArgs: strings.Join(ra, " "),
		FileTag: "lib"}, nil
}

// ShellQuote quotes s for a shell command line, only when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '+' || r == '=' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Run is a checked target.
type Run struct {
	Target  *Target
	Result  *suite.Result
	Elapsed time.Duration
	Trace   bool // a recorded session judged offline, not a run of the suite
}

func FirstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Check runs the suite on one target.
func Check(t *Target, o *Options, out *Printer) *Run {
	t0 := time.Now()
	profile, _ := conformance.ParseProfile(t.Info.ProfileModel)
	s := suite.Run{Name: t.Label, MaxHangs: o.MaxHangs, BindFindings: t.Info.BindFindings,
		Cases: o.cases(profile, t.Info.Caps, !o.NoProbes, false, out.Progress(t.Label))}
	res := suite.ConformWith(t.Exec, s)
	out.ClearProgress()
	return &Run{Target: t, Result: res, Elapsed: time.Since(t0)}
}
