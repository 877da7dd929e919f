package main

import (
	"flag"
	"io"
	"time"

	"github.com/simabi/simabi/conformance/session"
)

const diffUsage = `usage: abicheck diff [flags] OLD NEW

Runs the same directed checks (with their refusal probes) and the same seeded
random sequences on two builds, each in its own child process (sim:PROFILE in
this process), and compares them call by call: status, values written, the
direction of committed memory, queried values, the model's findings, crashes
and hangs. Each change is shrunk to the shortest op script that shows it on
both builds and written to a script that replays it. The changes are
printed by cause: the entry whose call changed and what changed in its
result ("simpler_kernel_mode_launch status: OK -> -93"), with the shortest
change old → new and its two replay commands, then the clause groups of
docs/contract.md the cause touched (the clauses of the check that showed
it; the entry's rule for a random sequence) with their scripts. Then the
hot-path entries are timed on both builds, interleaved, against the noise
of OLD timed against itself: the table shows each ratio NEW/OLD, the band
it must leave to be a change, and the verdict.

OLD and NEW are each a library path or sim:tmr / sim:refusing. Flags that
describe a build (-preload, -acl, -aicpu, -aicore, -dispatcher, -sdma-warmup,
-callable) apply to both; -old-X and -new-X give one side its own.

Exit status: 0 no change (known changes allowed), 1 changes, 2 usage error or
a build that does not load, 130/143 stopped by SIGINT/SIGTERM. The scripts,
-junit and -write-baseline files are named on stderr.

Flags:
`

// sideFlags are the flags that describe one build.
type sideFlags struct {
	preloads         []string
	acl              string
	aicpu, aicore    string
	dispatcher, sdma string
	callable         string
}

func (s *sideFlags) register(fs *flag.FlagSet, prefix, which string) {
	fs.Func(prefix+"preload", "load `PATH` RTLD_GLOBAL before "+which+" (repeatable)", pathList(&s.preloads))
	fs.StringVar(&s.acl, prefix+"acl", "", "the ACL library `PATH` of "+which)
	fs.StringVar(&s.aicpu, prefix+"aicpu", "", "AICPU binary `FILE` for "+which)
	fs.StringVar(&s.aicore, prefix+"aicore", "", "AICore binary `FILE` for "+which)
	fs.StringVar(&s.dispatcher, prefix+"dispatcher", "", "dispatcher binary `FILE` for "+which)
	fs.StringVar(&s.sdma, prefix+"sdma-warmup", "", "SDMA warm-up `FILE` for "+which)
	fs.StringVar(&s.callable, prefix+"callable", "", "a ChipCallable image `FILE` "+which+" can run")
}

// apply gives o one side's build flags: the side's own, else the shared.
func (s *sideFlags) apply(o *options, shared *sideFlags) {
	pick := func(own, all string) string {
		if own != "" {
			return own
		}
		return all
	}
	o.Preloads = append([]string(nil), shared.preloads...)
	if len(s.preloads) > 0 {
		o.Preloads = append([]string(nil), s.preloads...)
	}
	o.ACL = pick(s.acl, shared.acl)
	o.Bins = [4]string{pick(s.aicpu, shared.aicpu), pick(s.aicore, shared.aicore), pick(s.dispatcher, shared.dispatcher), pick(s.sdma, shared.sdma)}
	o.Callable = pick(s.callable, shared.callable)
}

func diffMain(args []string, stdout, stderr io.Writer) int {
	o := options{MaxHangs: 2, Pages: pages(append([]string{"diff"}, args...))}
	var d session.DiffOptions
	var shared, oldSide, newSide sideFlags
	fs := newFlags("abicheck diff")
	fs.BoolVar(&o.JSON, "json", false, "print the report as JSON (docs/abicheck.md, schema abicheck/v2) instead of text")
	fs.StringVar(&o.JUnit, "junit", "", "also write a JUnit XML report to `FILE` (a test case per cause)")
	fs.StringVar(&o.HTML, "html", "", "also write the report as one self-contained HTML page to `FILE` (the changes by cause with their scripts, the speed plotted)")
	fs.Uint64Var(&o.Seed, "seed", defaultSeed, "seed of the random sequences (sequence i uses seed+i)")
	fs.IntVar(&o.Sequences, "sequences", 100, "random sequences run on both builds after the directed checks")
	fs.IntVar(&o.MaxOps, "max-ops", 300, "ops per random sequence")
	fs.DurationVar(&o.Duration, "duration", 20*time.Second, "time budget of the random sequences (0: none)")
	fs.DurationVar(&o.CaseTimeout, "case-timeout", 10*time.Second, "a sequence running longer is a hang (its child is killed)")
	fs.DurationVar(&o.LoadTimeout, "load-timeout", 30*time.Second, "loading a build (in its first child) taking longer is a load error")
	fs.StringVar(&o.ReproDir, "repro-dir", "", "write each change's op script to `DIR`/diff-N.ops (default: a new temporary directory, named on stderr)")
	fs.StringVar(&o.Baseline, "baseline", "", "accept the changes whose keys `FILE` lists (abicheck diff -write-baseline): listed as known, they fail nothing")
	fs.StringVar(&o.WriteBaseline, "write-baseline", "", "write every change's key to `FILE` as a baseline")
	fs.BoolVar(&o.NoShrink, "no-shrink", false, "report each change on its whole case, cut after the op that differs")
	fs.BoolVar(&o.NoProbes, "no-probes", false, "leave out the refusal probes of the directed checks")
	fs.BoolVar(&d.NoSpeed, "no-speed", false, "do not time the hot-path entries")
	fs.DurationVar(&d.SpeedBudget, "speed-budget", 0, "time for the speed comparison (0: its default)")
	fs.BoolVar(&o.Verbose, "v", false, "verbose: every change in full under its clause group, and the children's stderr")
	fs.BoolVar(&o.Quiet, "q", false, "quiet: the causes with their counts, and the summary")
	fs.BoolVar(&o.NoColor, "no-color", false, "no colors")
	fs.Var(logLevelFlag{&o.LogLevel}, "log-level", "host-log threshold bound into both builds: debug, info, timing, warn, error or null")
	shared.register(fs, "", "both builds")
	oldSide.register(fs, "old-", "OLD")
	newSide.register(fs, "new-", "NEW")
	if code, ok := parse(fs, args, diffUsage, "diff: ", stdout, stderr); !ok {
		return code
	}
	oldOpt, newOpt := o, o
	oldSide.apply(&oldOpt, &shared)
	newSide.apply(&newOpt, &shared)
	return session.DiffMain(&o, [2]*options{&oldOpt, &newOpt}, d, fs.Args(), stdout, stderr)
}
