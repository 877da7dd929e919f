package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/simabi/simabi/conformance/session"
	"github.com/simabi/simabi/sim/emit"
)

// TestMechanicalUsage: -mechanical's usage errors exit 2 with one line
// that says what is wrong, before anything is built.
func TestMechanicalUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-diff"}, "-mechanical does not go with -random-only or -diff"},
		{[]string{"-random-only"}, "-mechanical does not go with -random-only or -diff"},
		{[]string{"-mechanical-count", "-1"}, "-mechanical-count must be >= 0"},
		{[]string{"-mechanical-diff", "-1s"}, "-mechanical-diff must be >= 0"},
		{[]string{"-mechanical-diff-sequences", "-1"}, "-mechanical-diff-sequences must be >= 0"},
		{[]string{"-mechanical-profiles", "tmr,bogus"}, `-mechanical-profiles: unknown profile "bogus" (tmr, refusing, legacy)`},
		{[]string{"-run", "^nothing$"}, "-run ^nothing$ matches no mechanical mutant"},
	} {
		r := runCLI(t, nil, append([]string{"mutants", "-mechanical"}, tc.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestMutantsMechanicalCommand: five mechanical mutants end to end (built,
// checked, survivors diffed against sim, after the control), the sample the
// seed picks, and figures that add up. Seed 3674 picks five operators'
// mutants: the directed checks kill four, and the fifth (ret-7aba0ac5e8,
// check_image answering 0 for a stored scalar_count, which the model
// tolerates under V-IMG) is a gap, so the test reads a kill, a gap with its
// script and the exit of a score under 95 %; it takes the control's time
// and little more.
func TestMutantsMechanicalCommand(t *testing.T) {
	t.Parallel()
	build(t, emit.Config{Profile: emit.ProfileTMR}) // skips without a compiler
	all, err := emit.MechanicalMutants(emit.ProfileTMR)
	if err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "mutants", "-mechanical", "-mechanical-count", "5", "-seed", "3674", "-sequences", "5", "-duration", "2s",
		"-mechanical-diff", "300ms", "-json")
	var run session.MechanicalRun
	if err := json.Unmarshal([]byte(r.stdout), &run); err != nil {
		t.Fatalf("exit %d: %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	var got, want []string
	for _, row := range run.Rows {
		got = append(got, row.ID)
		if row.Outcome == session.MechGap && (row.Gap == nil || len(row.Gap.Script) == 0) {
			t.Errorf("%s: a gap without its script", row.ID)
		}
	}
	for _, m := range emit.SampleMechanical(all, 5, 3674) {
		want = append(want, m.ID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("mutants %v, want the seed's sample %v", got, want)
	}
	compiled := run.Total - run.NotCompiling
	if run.Sites != len(all) || run.Total != 5 || run.Errors != 0 || run.Killed+run.Equivalent+run.Gaps != compiled {
		t.Errorf("figures: %d sites (want %d), %d generated, %d not compiling, %d killed, %d equivalent, %d gaps, %d errors",
			run.Sites, len(all), run.Total, run.NotCompiling, run.Killed, run.Equivalent, run.Gaps, run.Errors)
	}
	if d := compiled - run.Equivalent; d > 0 && run.Score != float64(run.Killed)/float64(d) {
		t.Errorf("score %v, want %d/%d", run.Score, run.Killed, d)
	}
	wantCode := exitOK
	if run.Score*100 < 95 {
		wantCode = exitFindings
	}
	if r.code != wantCode || len(run.Control) != 1 || !strings.Contains(run.Control[0], "no difference") {
		t.Errorf("exit %d (want %d), control %q\n%s", r.code, wantCode, run.Control, r.stderr)
	}
	t.Logf("mutants -mechanical -mechanical-count 5: %v", r.elapsed)
}
