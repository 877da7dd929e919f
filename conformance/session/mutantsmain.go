package session

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/simabi/simabi/sim/emit"
)

// MutantsOptions are `abicheck mutants`' own flags, beside the session's.
type MutantsOptions struct {
	Run        string // -run: only the mutants whose name matches
	RandomOnly bool   // leave out the directed catalogue
	Diff       bool   // diff each mutant against the plain fake instead
	Mechanical bool   // the mechanical mutants instead of the hand-written ones
	Profiles   string // -mechanical-profiles, comma-separated
	Mech       MechanicalOptions
}

// MutantsMain is `abicheck mutants` once its flags are parsed; it returns
// ExitFindings when a mutant survives (-diff: a diff names the clause of
// fewer than 95 %; -mechanical: a score below 95 %), ExitUsage on a usage
// or build error.
func MutantsMain(o *Options, mo MutantsOptions, stdout, stderr io.Writer) int {
	if err := o.Validate(""); err != nil {
		return UsageError(stderr, "mutants: "+err.Error())
	}
	var re *regexp.Regexp
	if mo.Run != "" {
		var err error
		if re, err = regexp.Compile(mo.Run); err != nil {
			return UsageError(stderr, "mutants: -run: "+err.Error())
		}
	}
	if o.HTML != "" && (mo.Mechanical || mo.Diff) {
		return UsageError(stderr, "mutants: -html goes with the kill table of the hand-written mutants, not -mechanical or -diff")
	}
	if err := o.CheckOutputs(); err != nil {
		return UsageError(stderr, "mutants: "+err.Error())
	}
	if mo.Mechanical {
		return mechanicalMain(o, mo, re, stdout, stderr)
	}
	var ms []emit.Mutant
	for _, m := range emit.Mutants() {
		if re == nil || re.MatchString(m.Name) {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return UsageError(stderr, "mutants: -run "+mo.Run+" matches no mutant")
	}
	out := NewPrinter(o, stdout)
	if mo.Diff {
		run, err := DiffMutants(o, ms, out, stderr)
		if err == nil {
			err = WriteDiffMutants(stdout, run, o)
		}
		return mutantsExit(stderr, err, run != nil && run.Failed, run != nil && run.Named*100 < 95*len(run.Rows))
	}
	run, err := RunMutants(o, ms, mo.RandomOnly, out, stderr)
	if err == nil {
		err = WriteMutants(stdout, run, o, mo.RandomOnly, out)
	}
	if err == nil && o.HTML != "" {
		err = WritePage(o, stderr, func(w io.Writer) error { return o.Pages.Mutants(w, run, o, mo.RandomOnly) })
	}
	return mutantsExit(stderr, err, run != nil && run.Failed, run != nil && run.Killed < len(run.Rows))
}

// mutantsExit is ExitUsage (err's line on stderr) when the run did not
// run or a mutant did not build, ExitFindings when it fell short.
func mutantsExit(stderr io.Writer, err error, failed, short bool) int {
	switch {
	case err != nil:
		return Failed(stderr, err)
	case failed:
		return ExitUsage
	case short:
		return ExitFindings
	}
	return ExitOK
}

// mechanicalMain is abicheck mutants -mechanical (issue #32's bar: a
// score of 95 %).
func mechanicalMain(o *Options, mo MutantsOptions, re *regexp.Regexp, stdout, stderr io.Writer) int {
	m := mo.Mech
	switch {
	case mo.RandomOnly || mo.Diff:
		return UsageError(stderr, "mutants: -mechanical does not go with -random-only or -diff")
	case m.Count < 0:
		return UsageError(stderr, "mutants: -mechanical-count must be >= 0")
	case m.DiffDuration < 0:
		return UsageError(stderr, "mutants: -mechanical-diff must be >= 0")
	case m.DiffSequences < 0:
		return UsageError(stderr, "mutants: -mechanical-diff-sequences must be >= 0")
	}
	for _, p := range strings.Split(mo.Profiles, ",") {
		p = strings.TrimSpace(p)
		if !slices.Contains(emit.Profiles, emit.Profile(p)) {
			return UsageError(stderr, "mutants: -mechanical-profiles: unknown profile "+strconv.Quote(p)+" (tmr, refusing, legacy)")
		}
		if !slices.Contains(m.Profiles, emit.Profile(p)) {
			m.Profiles = append(m.Profiles, emit.Profile(p))
		}
	}
	m.Filter = re
	ms, sites, err := SelectMechanical(m, o.Seed)
	if err != nil {
		return mutantsExit(stderr, err, false, false)
	}
	if len(ms) == 0 {
		return UsageError(stderr, "mutants: -run "+fmt.Sprint(re)+" matches no mechanical mutant")
	}
	run, err := RunMechanical(o, m, ms, NewPrinter(o, stdout), stderr)
	if err == nil {
		run.Sites = sites
		err = WriteMechanical(stdout, run, o, m)
	}
	return mutantsExit(stderr, err, run != nil && run.Errors > 0, run != nil && run.Score*100 < 95)
}
