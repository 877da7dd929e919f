package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/simabi/simabi/conformance/session"
	"github.com/simabi/simabi/sim/emit"
)

const mutantsUsage = `usage: abicheck mutants [flags]

Builds every mutant of the emitted fake runtime (sim/emit, F-4: each breaks
exactly one clause of the contract), checks each in child processes with the
directed catalogue (the checks that claim the mutant first) and then random
sequences, and prints the kill table, the masking line, the mutation score
and the clause coverage. A mutant is killed only when the checker reports a
rule of the mutant's rule group (the letter before the rule's first '-': E
for E-FIN) failed, crashed or hung; the check of a mutant stops at its first
kill. Exit status 1 when one survives, 2 on a usage or build error.

With -diff, each mutant is diffed against the plain fake instead (abicheck
diff) and reported with whether the diff names the clause it
breaks. Exit status 1 when fewer than 95 % are.

With -mechanical, the mutants are mechanical instead (issue #32): one
operator (relational operator replaced, comparison constant shifted by one,
status swapped, guard forced false, side effect deleted, adjacent statements
swapped) at one site of the emitted runtime's C, -mechanical-count of them
sampled with -seed (-run matches their IDs). Any rule failed, crashed or
hung kills one; a survivor is run against sim (the plain build for legacy)
under the same ops, and reported equivalent when nothing tells them apart,
else as a gap with the script and the clause it escapes. Exit status 1 when
the score over the non-equivalent mutants is below 95 %.

Flags:
`

// mechanicalDiffOps is the length of a mechanical survivor's random
// sequences against its reference.
const mechanicalDiffOps = 200

func mutantsMain(args []string, stdout, stderr io.Writer) int {
	o := options{LoadTimeout: 30 * time.Second}
	var filter string
	var randomOnly, diff, mechanical bool
	mo := session.MechanicalOptions{DiffOps: mechanicalDiffOps}
	var mechProfiles string
	fs := flag.NewFlagSet("abicheck mutants", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&o.Sequences, "sequences", 50, "random sequences per mutant after the directed checks (until the first kill)")
	fs.IntVar(&o.MaxOps, "max-ops", 300, "ops per random sequence")
	fs.DurationVar(&o.Duration, "duration", 10*time.Second, "time budget of the random sequences per mutant")
	fs.DurationVar(&o.CaseTimeout, "case-timeout", 10*time.Second, "a sequence running longer is a hang")
	fs.Uint64Var(&o.Seed, "seed", defaultSeed, "seed of the random sequences")
	fs.BoolVar(&randomOnly, "random-only", false, "leave out the directed catalogue: how far random sequences alone get")
	fs.BoolVar(&diff, "diff", false, "instead of checking each mutant, diff the plain fake against it (abicheck diff) and report whether the diff names the mutant's clause")
	fs.BoolVar(&mechanical, "mechanical", false, "check mechanical mutants of the emitted runtime's C instead of the hand-written ones")
	fs.IntVar(&mo.Count, "mechanical-count", 1000, "-mechanical: how many mutants to sample with -seed (0: all)")
	fs.StringVar(&mechProfiles, "mechanical-profiles", "tmr", "-mechanical: the comma-separated `profiles` whose runtime is mutated (tmr, refusing, legacy)")
	fs.DurationVar(&mo.DiffDuration, "mechanical-diff", 5*time.Second, "-mechanical: the time budget of a survivor's random sequences against its reference")
	fs.IntVar(&mo.DiffSequences, "mechanical-diff-sequences", 2000, "-mechanical: the most random sequences of a survivor against its reference")
	fs.StringVar(&filter, "run", "", "check only the mutants whose name matches `REGEXP`")
	fs.BoolVar(&o.JSON, "json", false, "print the kill table as JSON")
	fs.StringVar(&o.HTML, "html", "", "also write the kill table and the clause-coverage matrix as one self-contained HTML page to `FILE`")
	fs.BoolVar(&o.Verbose, "v", false, "verbose: the children's stderr")
	fs.BoolVar(&o.Quiet, "q", false, "quiet: the kill table's survivors only, then the summary lines")
	fs.BoolVar(&o.NoColor, "no-color", false, "no colors")
	fs.IntVar(&o.MaxHangs, "max-hangs", 2, "after this many hangs in one entry, cases that call it are skipped")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(fs, mutantsUsage, stdout)
			return exitOK
		}
		return usage(stderr, "mutants: "+err.Error())
	}
	if fs.NArg() > 0 {
		return usage(stderr, "mutants takes no arguments, got "+strings.Join(fs.Args(), " "))
	}
	if err := o.Validate(""); err != nil {
		return usage(stderr, "mutants: "+err.Error())
	}
	var re *regexp.Regexp
	if filter != "" {
		var err error
		if re, err = regexp.Compile(filter); err != nil {
			return usage(stderr, "mutants: -run: "+err.Error())
		}
	}
	if o.HTML != "" && (mechanical || diff) {
		return usage(stderr, "mutants: -html goes with the kill table of the hand-written mutants, not -mechanical or -diff")
	}
	if err := o.CheckOutputs(); err != nil {
		return usage(stderr, "mutants: "+err.Error())
	}
	if mechanical {
		return mechanicalMain(&o, mo, mechProfiles, re, randomOnly || diff, stdout, stderr)
	}
	var ms []emit.Mutant
	for _, m := range emit.Mutants() {
		if re == nil || re.MatchString(m.Name) {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return usage(stderr, "mutants: -run "+filter+" matches no mutant")
	}
	out := session.NewPrinter(&o, stdout)
	if diff {
		return diffMutantsMain(&o, ms, out, stdout, stderr)
	}
	run, err := session.RunMutants(&o, ms, randomOnly, out, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "abicheck: "+err.Error())
		return exitUsage
	}
	if err := session.WriteMutants(stdout, run, &o, randomOnly, out); err != nil {
		fmt.Fprintf(stderr, "abicheck: %v\n", err)
		return exitUsage
	}
	if o.HTML != "" {
		render := func(w io.Writer) error {
			return pages(append([]string{"mutants"}, args...)).Mutants(w, run, &o, randomOnly)
		}
		if err := session.WritePage(&o, stderr, render); err != nil {
			fmt.Fprintf(stderr, "abicheck: %v\n", err)
			return exitUsage
		}
	}
	switch {
	case run.Failed:
		return exitUsage
	case run.Killed < len(run.Rows):
		return exitFindings
	}
	return exitOK
}

// diffMutantsMain is abicheck mutants -diff: exit 1 when a diff names the
// clause of fewer than 95 % of the mutants (issue #30's bar).
func diffMutantsMain(o *options, ms []emit.Mutant, out *session.Printer, stdout, stderr io.Writer) int {
	run, err := session.DiffMutants(o, ms, out, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "abicheck: "+err.Error())
		return exitUsage
	}
	if err := session.WriteDiffMutants(stdout, run, o); err != nil {
		fmt.Fprintf(stderr, "abicheck: %v\n", err)
		return exitUsage
	}
	switch {
	case run.Failed:
		return exitUsage
	case run.Named*100 < 95*len(run.Rows):
		return exitFindings
	}
	return exitOK
}

// mechanicalMain is abicheck mutants -mechanical: exit 1 when the score
// over the non-equivalent mutants is below 95 % (issue #32's bar).
func mechanicalMain(o *options, mo session.MechanicalOptions, profiles string, re *regexp.Regexp, other bool, stdout, stderr io.Writer) int {
	switch {
	case other:
		return usage(stderr, "mutants: -mechanical does not go with -random-only or -diff")
	case mo.Count < 0:
		return usage(stderr, "mutants: -mechanical-count must be >= 0")
	case mo.DiffDuration < 0:
		return usage(stderr, "mutants: -mechanical-diff must be >= 0")
	case mo.DiffSequences < 0:
		return usage(stderr, "mutants: -mechanical-diff-sequences must be >= 0")
	}
	for _, p := range strings.Split(profiles, ",") {
		p = strings.TrimSpace(p)
		if !slices.Contains(emit.Profiles, emit.Profile(p)) {
			return usage(stderr, "mutants: -mechanical-profiles: unknown profile "+strconv.Quote(p)+" (tmr, refusing, legacy)")
		}
		if !slices.Contains(mo.Profiles, emit.Profile(p)) {
			mo.Profiles = append(mo.Profiles, emit.Profile(p))
		}
	}
	mo.Filter = re
	ms, sites, err := session.SelectMechanical(mo, o.Seed)
	if err != nil {
		fmt.Fprintln(stderr, "abicheck: "+err.Error())
		return exitUsage
	}
	if len(ms) == 0 {
		return usage(stderr, "mutants: -run "+fmt.Sprint(re)+" matches no mechanical mutant")
	}
	out := session.NewPrinter(o, stdout)
	run, err := session.RunMechanical(o, mo, ms, out, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "abicheck: "+err.Error())
		return exitUsage
	}
	run.Sites = sites
	if err := session.WriteMechanical(stdout, run, o, mo); err != nil {
		fmt.Fprintf(stderr, "abicheck: %v\n", err)
		return exitUsage
	}
	switch {
	case run.Errors > 0:
		return exitUsage
	case run.Score*100 < 95:
		return exitFindings
	}
	return exitOK
}
