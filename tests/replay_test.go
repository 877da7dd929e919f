package tests

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/tests/opdiff"
)

// replayScript is one tests/testdata/*.ops file (format: testdata/README.md).
type replayScript struct {
	name     string
	ops      []op.Op
	profiles []string // "tmr", "refusing"
	rules    []string
	bug      string
}

// loadReplay reads and parses a replay file with its directives.
func loadReplay(path string) (*replayScript, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := &replayScript{name: strings.TrimSuffix(filepath.Base(path), ".ops"), profiles: []string{"tmr", "refusing"}}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(line, "#")
		if !ok {
			continue
		}
		key, val, ok := strings.Cut(strings.TrimSpace(rest), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch strings.TrimSpace(key) {
		case "profiles":
			s.profiles = strings.Fields(val)
			for _, p := range s.profiles {
				if p != "tmr" && p != "refusing" {
					return nil, fmt.Errorf("%s: profiles: unknown profile %q (tmr, refusing)", path, p)
				}
			}
		case "rules":
			s.rules = strings.Fields(val)
			for _, r := range s.rules {
				if _, ok := model.RuleByName(r); !ok && !slices.Contains(model.ConsumerRules, r) {
					return nil, fmt.Errorf("%s: rules: %q is not a rule ID of docs/contract.md", path, r)
				}
			}
		case "bug":
			s.bug = val
		}
	}
	s.ops, err = op.ParseScript(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(s.ops) == 0 {
		return nil, fmt.Errorf("%s: no ops", path)
	}
	return s, nil
}

// cleanResult says why a replay result is not clean: a failure, a skipped
// op (the script did not drive what it says) or a model that lost track.
func cleanResult(res *conformance.Result) string {
	var out []string
	for _, f := range res.Findings {
		if f.Verdict == model.Fail || f.Verdict == model.Skip {
			out = append(out, f.String())
		}
	}
	if res.Lost != "" {
		out = append(out, "the model lost track: "+res.Lost)
	}
	return strings.Join(out, "\n")
}

// hasTwoThreadOps reports whether a script races or holds.
func hasTwoThreadOps(ops []op.Op) bool {
	for _, o := range ops {
		if o.Kind.TwoThread() {
			return true
		}
	}
	return false
}

// TestReplay runs every tests/testdata/*.ops script against sim and the
// emitted runtime in each profile it names: every call must match the model
// (the rules each script names in its "# rules:" line), no op may be
// skipped, and the two histories must be identical (F-1; a script with
// two-thread ops is diffed serialized).
func TestReplay(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.ops"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no replay scripts in testdata")
	}
	for _, path := range paths {
		s, err := loadReplay(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(s.name, func(t *testing.T) {
			for _, p := range profiles {
				if !slices.Contains(s.profiles, p.name) {
					continue
				}
				t.Run(p.name, func(t *testing.T) {
					e := emitted(t, emit.Config{Profile: p.emit})
					sim := func() (conformance.Target, func(), error) { return target.SimTarget(p.sim), nil, nil }
					rs, err := runChecked(sim, s.ops)
					if err != nil {
						t.Fatal(err)
					}
					re, err := runChecked(e.open, s.ops)
					if err != nil {
						t.Fatal(err)
					}
					if why := cleanResult(rs); why != "" {
						t.Errorf("sim:%s: %s\nhistory:\n%s", p.name, why, rs.History.String())
					}
					if why := cleanResult(re); why != "" {
						t.Errorf("emitted:%s: %s\nhistory:\n%s", p.name, why, re.History.String())
					}
					d := conformance.Diff(rs.History, re.History)
					if hasTwoThreadOps(s.ops) {
						// Who wins a race, or whether a call overlapped a
						// hold, is the scheduler's: diff the serialized
						// script instead (see serialized).
						et, release := e.mustOpen(t)
						d, _, _ = conformance.RunDiff(target.SimTarget(p.sim), et, opdiff.Serialized(s.ops), conformance.Options{})
						release()
					}
					if d != "" {
						t.Errorf("sim and the emitted runtime differ (- sim, + emitted):\n%s", d)
					}
					if testing.Verbose() {
						t.Logf("rules %s; %d calls checked\n%s", strings.Join(s.rules, " "), rs.Checked, rs.History.String())
					}
				})
			}
		})
	}
}
