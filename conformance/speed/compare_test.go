package speed

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/simabi/simabi/conformance/isolate"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// The tests of issue #30 part 2, "speed in the same run": abicheck diff
// OLD NEW times both builds in one run, each entry of the hot paths
// interleaved, with the noise measured (OLD against itself).

func simBuild(spec string) func(*testing.T) Build {
	return func(*testing.T) Build { return Build{Sim: spec} }
}

// slowBuild is sim:tmr with every timed entry about factor times as slow
// (slowRuntime, in the child).
func slowBuild(factor float64) func(*testing.T) Build {
	return func(*testing.T) Build { return Build{Label: "sim:tmr slowed down", Sim: "sim:tmr", slow: factor} }
}

// fakeBuild is an emitted tmr fake with knobs (skipped without a C
// compiler).
func fakeBuild(knobs ...string) func(*testing.T) Build {
	return func(t *testing.T) Build {
		cfg := emit.Config{Profile: emit.ProfileTMR}
		for _, k := range knobs {
			if err := emit.ParseKnob(k, &cfg.Knobs); err != nil {
				t.Fatal(err)
			}
		}
		return Build{Label: "emitted fake", Lib: isolate.Config{Lib: emittest.Path(t, cfg)}}
	}
}

func kernelEntry(name string) bool { return name == EntryKernelPrepare || name == EntryKernelLaunch }

// Issue #30 part 2: per entry, a build against itself is the same, a build
// twice as slow is slower by about twice, and every entry a build supports
// is timed.
func TestIssue30Part2_Compare(t *testing.T) {
	const slow = 2.0
	cases := []struct {
		name     string
		old, new func(*testing.T) Build
		runs     int           // comparisons
		budget   time.Duration // each
		// anyRun: an entry passes its check when one run passes it, and
		// the runs stop once every entry has; otherwise every run must.
		// A slowed build's verdict blurs on a loaded machine: in CI, under
		// the race detector beside other jobs, create+destroy measured
		// 2.15 [0.94, 2.84] ("same": the interval reaches 1).
		anyRun bool
		check  func(e EntryReport) string // what is wrong, or ""
	}{
		{
			name: "sim:tmr against itself: no difference", old: simBuild("sim:tmr"), new: simBuild("sim:tmr"), runs: 3, budget: 300 * time.Millisecond,
			check: func(e EntryReport) string {
				if e.Verdict != Same {
					return fmt.Sprintf("verdict %q, want %q (ratio %.3f [%.3f, %.3f], noise %.3f, band %.3f..%.3f)",
						e.Verdict, Same, e.Ratio, e.RatioLo, e.RatioHi, e.Noise, e.BandLo, e.BandHi)
				}
				return ""
			},
		},
		{
			name: "sim:refusing against itself: the kernel entries are skipped", old: simBuild("sim:refusing"), new: simBuild("sim:refusing"), runs: 1, budget: 200 * time.Millisecond,
			check: func(e EntryReport) string {
				want := Same
				if kernelEntry(e.Name) {
					want = "skipped: OLD: the build does not run kernel mode (not a tmr build); NEW: the build does not run kernel mode (not a tmr build)"
				}
				if e.Verdict != want {
					return fmt.Sprintf("verdict %q, want %q", e.Verdict, want)
				}
				return ""
			},
		},
		{
			name: "NEW twice as slow: every entry slower, by about twice", old: simBuild("sim:tmr"), new: slowBuild(slow), runs: 3, anyRun: true, budget: time.Second,
			check: func(e EntryReport) string {
				if e.Verdict != Slower {
					return fmt.Sprintf("verdict %q, want %q (ratio %.3f [%.3f, %.3f], band %.3f..%.3f)",
						e.Verdict, Slower, e.Ratio, e.RatioLo, e.RatioHi, e.BandLo, e.BandHi)
				}
				// The measurement must agree with the factor: its 95 %
				// interval reaches [slow/1.25, slow×1.4]. The spin makes
				// up what the caller's clock sees of the call; on a call
				// of a few clock ticks the wrapper's own cost adds a good
				// part of one (up to 3.3x was seen on calls of 40 ns), so
				// only a longer call is held to the factor from above.
				if e.RatioHi < slow/1.25 || (e.OldMedianNs >= 150 && e.RatioLo > slow*1.4) {
					return fmt.Sprintf("ratio %.3f [%.3f, %.3f] on a call of %.0f ns, want about %.1f", e.Ratio, e.RatioLo, e.RatioHi, e.OldMedianNs, slow)
				}
				return ""
			},
		},
		{
			name: "the emitted fake against sim:tmr: every entry timed", old: simBuild("sim:tmr"), new: fakeBuild(), runs: 1, budget: 300 * time.Millisecond,
			check: func(e EntryReport) string {
				if e.Skipped() || e.Calls == 0 || e.Rounds < MinRounds {
					return fmt.Sprintf("verdict %q, %d calls in %d rounds: want it timed", e.Verdict, e.Calls, e.Rounds)
				}
				return ""
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old, new := c.old(t), c.new(t)
			failing := map[string][]string{} // entry: what each run found wrong
			for run := range c.runs {
				r, err := Compare(old, new, Options{Budget: c.budget})
				if err != nil {
					t.Fatalf("run %d: %v", run+1, err)
				}
				var text strings.Builder
				r.WriteText(&text)
				t.Logf("run %d:\n%s", run+1, text.String())
				wellFormed(t, r)
				for _, e := range r.Entries {
					if _, failed := failing[e.Name]; run > 0 && c.anyRun && !failed {
						continue // passed in an earlier run
					}
					if msg := c.check(e); msg != "" {
						failing[e.Name] = append(failing[e.Name], fmt.Sprintf("run %d: %s", run+1, msg))
					} else if c.anyRun {
						delete(failing, e.Name)
					}
				}
				if c.anyRun && len(failing) == 0 {
					break
				}
			}
			for _, name := range Entries {
				if msgs := failing[name]; len(msgs) > 0 {
					t.Errorf("%s: %s", name, strings.Join(msgs, "; "))
				}
			}
		})
	}
}

// wellFormed holds one report to what every comparison gives: each entry
// in order, timed consistently, its rounds the samples of its ratios, and
// the report encodable.
func wellFormed(t *testing.T, r *Report) {
	t.Helper()
	if len(r.Entries) != len(Entries) {
		t.Fatalf("%d entries, want %d", len(r.Entries), len(Entries))
	}
	for i, e := range r.Entries {
		if e.Name != Entries[i] {
			t.Errorf("entry %d is %q, want %q", i, e.Name, Entries[i])
		}
		if !e.Skipped() && (e.Calls < MinRounds*MinCalls || e.Rounds < MinRounds || !(e.RatioLo <= e.Ratio && e.Ratio <= e.RatioHi) ||
			!(e.NoiseLo <= e.Noise && e.Noise <= e.NoiseHi) || e.OldMedianNs <= 0 || e.OldP99Ns < e.OldMedianNs) {
			t.Errorf("%s: an inconsistent measurement: %+v", e.Name, e)
		}
		if !e.Skipped() {
			roundsAgree(t, e)
		}
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("the report does not encode: %v", err)
	}
}

// roundsAgree holds an entry's recorded round times to its ratios: one
// time per round and side, and the ratio and the noise with their
// intervals are what the rounds' quotients give (the HTML report plots the
// rounds, so they must be the samples the verdict was made of).
func roundsAgree(t *testing.T, e EntryReport) {
	t.Helper()
	if len(e.OldRoundNs) != e.Rounds || len(e.NoiseRoundNs) != e.Rounds || len(e.NewRoundNs) != e.Rounds {
		t.Fatalf("%s: %d rounds, round times OLD %d, OLD' %d, NEW %d", e.Name, e.Rounds, len(e.OldRoundNs), len(e.NoiseRoundNs), len(e.NewRoundNs))
	}
	ratios, noise := make([]float64, e.Rounds), make([]float64, e.Rounds)
	for r := range e.Rounds {
		ratios[r], noise[r] = e.NewRoundNs[r]/e.OldRoundNs[r], e.NoiseRoundNs[r]/e.OldRoundNs[r]
	}
	type ci struct{ Mid, Lo, Hi float64 }
	var got, want [2]ci
	got[0].Mid, got[0].Lo, got[0].Hi = medianCI(ratios)
	got[1].Mid, got[1].Lo, got[1].Hi = medianCI(noise)
	want[0], want[1] = ci{e.Ratio, e.RatioLo, e.RatioHi}, ci{e.Noise, e.NoiseLo, e.NoiseHi}
	if got != want {
		t.Errorf("%s: the round times give ratio and noise %v, the report says %v", e.Name, got, want)
	}
}

// Issue #30 part 2: a child that crashes or hangs is an error that names
// its side and the entry, and the comparison ends (the child killed).
func TestIssue30Part2_DeadChild(t *testing.T) {
	cases := []struct {
		name       string
		old, new   func(*testing.T) Build
		side       string
		entry, has string
	}{
		{"NEW aborts in kernel launch", simBuild("sim:tmr"), fakeBuild("crash.simpler_kernel_mode_launch=true"),
			SideNew, EntryKernelLaunch, "killed by signal SIGABRT"},
		{"OLD aborts in simpler_run", fakeBuild("crash.simpler_run=true"), simBuild("sim:tmr"),
			SideOld, EntryRun, "killed by signal SIGABRT"},
		{"NEW hangs in poll_run", simBuild("sim:tmr"), fakeBuild("hang.simpler_poll_run=true"),
			SideNew, EntryPollRun, "no answer within 2s; killed the child"},
		{"NEW does not load", simBuild("sim:tmr"), func(*testing.T) Build { return Build{Lib: isolate.Config{Lib: "/nonexistent/libhost_runtime.so"}} },
			SideNew, "", "cannot load /nonexistent/libhost_runtime.so"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old, new := c.old(t), c.new(t)
			start := time.Now()
			r, err := Compare(old, new, Options{Budget: 200 * time.Millisecond, LoadTimeout: 2 * time.Second, Timeout: 2 * time.Second})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Compare: report %v, error %v; want an *Error", r, err)
			}
			t.Logf("%v", err)
			side := e.Side
			if side == SideNoise {
				side = SideOld // OLD's second process may die first
			}
			if side != c.side || e.Entry != c.entry || !strings.Contains(e.Err, c.has) {
				t.Errorf("error %+v: want side %s, entry %q, containing %q", *e, c.side, c.entry, c.has)
			}
			if !strings.Contains(err.Error(), e.Side+" ") || !strings.Contains(err.Error(), c.entry) {
				t.Errorf("message %q names neither the side nor the entry", err)
			}
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("Compare took %v", d)
			}
		})
	}
}

// A build that dies while an entry is timed (after the probes) gets the
// entry's verdict "crashed", with the side, and the other entries are
// still timed in a fresh child; a death on NEW alone is a difference. The
// build dies at its third run, the first after run's two probe calls: a
// later one (it was the 300th) may not come within the budget on a loaded
// machine, as in a clean clone's make test under the race detector.
func TestIssue30Part2_DeathDuringAnEntry(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new Build
		side     string
		differs  bool
	}{
		{"NEW dies", Build{Sim: "sim:tmr"}, Build{Label: "sim:tmr dying", Sim: "sim:tmr", dieAfter: 3}, SideNew, true},
		{"OLD dies", Build{Label: "sim:tmr dying", Sim: "sim:tmr", dieAfter: 3}, Build{Sim: "sim:tmr"}, SideOld, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compare(tc.old, tc.new, Options{Budget: 500 * time.Millisecond, Entries: []string{EntryRun, EntryWaitRun}})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]EntryReport{}
			for _, e := range r.Entries {
				got[e.Name] = e
			}
			run := got[EntryRun]
			side := run.CrashedSide
			if side == SideNoise {
				side = SideOld // OLD's second process may die first
			}
			if !strings.HasPrefix(run.Verdict, Crashed+": ") || side != tc.side || !strings.Contains(run.Verdict, "exit status 3") {
				t.Errorf("run: verdict %q, side %q; want crashed on %s with exit status 3", run.Verdict, run.CrashedSide, tc.side)
			}
			if w := got[EntryWaitRun]; w.Skipped() || strings.HasPrefix(w.Verdict, Crashed) || w.Calls == 0 {
				t.Errorf("wait_run after the death: %+v, want it timed", w)
			}
			diffs := r.Differences()
			if differs := len(diffs) == 1 && diffs[0].Name == EntryRun; differs != tc.differs && run.CrashedSide != SideNoise {
				t.Errorf("differences %+v, want the run: %v", diffs, tc.differs)
			}
		})
	}
}
