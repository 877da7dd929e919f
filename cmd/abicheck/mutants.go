package main

import (
	"io"
	"strings"
	"time"

	"github.com/simabi/simabi/conformance/session"
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
	mo := session.MutantsOptions{Mech: session.MechanicalOptions{DiffOps: mechanicalDiffOps}}
	fs := newFlags("abicheck mutants")
	fs.IntVar(&o.Sequences, "sequences", 50, "random sequences per mutant after the directed checks (until the first kill)")
	fs.IntVar(&o.MaxOps, "max-ops", 300, "ops per random sequence")
	fs.DurationVar(&o.Duration, "duration", 10*time.Second, "time budget of the random sequences per mutant")
	fs.DurationVar(&o.CaseTimeout, "case-timeout", 10*time.Second, "a sequence running longer is a hang")
	fs.Uint64Var(&o.Seed, "seed", defaultSeed, "seed of the random sequences")
	fs.BoolVar(&mo.RandomOnly, "random-only", false, "leave out the directed catalogue: how far random sequences alone get")
	fs.BoolVar(&mo.Diff, "diff", false, "instead of checking each mutant, diff the plain fake against it (abicheck diff) and report whether the diff names the mutant's clause")
	fs.BoolVar(&mo.Mechanical, "mechanical", false, "check mechanical mutants of the emitted runtime's C instead of the hand-written ones")
	fs.IntVar(&mo.Mech.Count, "mechanical-count", 1000, "-mechanical: how many mutants to sample with -seed (0: all)")
	fs.StringVar(&mo.Profiles, "mechanical-profiles", "tmr", "-mechanical: the comma-separated `profiles` whose runtime is mutated (tmr, refusing, legacy)")
	fs.DurationVar(&mo.Mech.DiffDuration, "mechanical-diff", 5*time.Second, "-mechanical: the time budget of a survivor's random sequences against its reference")
	fs.IntVar(&mo.Mech.DiffSequences, "mechanical-diff-sequences", 2000, "-mechanical: the most random sequences of a survivor against its reference")
	fs.StringVar(&mo.Run, "run", "", "check only the mutants whose name matches `REGEXP`")
	fs.BoolVar(&o.JSON, "json", false, "print the kill table as JSON")
	fs.StringVar(&o.HTML, "html", "", "also write the kill table and the clause-coverage matrix as one self-contained HTML page to `FILE`")
	fs.BoolVar(&o.Verbose, "v", false, "verbose: the children's stderr")
	fs.BoolVar(&o.Quiet, "q", false, "quiet: the kill table's survivors only, then the summary lines")
	fs.BoolVar(&o.NoColor, "no-color", false, "no colors")
	fs.IntVar(&o.MaxHangs, "max-hangs", 2, "after this many hangs in one entry, cases that call it are skipped")
	if code, ok := parse(fs, args, mutantsUsage, "mutants: ", stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usage(stderr, "mutants takes no arguments, got "+strings.Join(fs.Args(), " "))
	}
	o.Pages = pages(append([]string{"mutants"}, args...))
	return session.MutantsMain(&o, mo, stdout, stderr)
}
