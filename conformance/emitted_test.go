package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// emittedBuild builds (cached) an emitted runtime; it skips without a C
// compiler.
func emittedBuild(tb testing.TB, cfg emit.Config) *emit.Artifacts {
	tb.Helper()
	return emittest.Build(tb, cfg)
}

var copies atomic.Int64

// emittedFactory opens a fresh instance of an emitted runtime for every run:
// a copy of the .so in its own directory (a different file is a separate
// RTLD_LOCAL instance with its own claims and fault sites) next to a link to
// the fake ACL (one ACL for all, as in one process on silicon). Hooks come
// from the library, the D-1 counters and the caller's device memory from the
// fake ACL (LibraryTarget).
func emittedFactory(tb testing.TB, a *emit.Artifacts) Factory {
	root := tb.TempDir()
	return func() (Target, func(), error) {
		dir := filepath.Join(root, fmt.Sprint(copies.Add(1)))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, nil, err
		}
		src, err := os.ReadFile(a.RuntimePath)
		if err != nil {
			return nil, nil, err
		}
		path := filepath.Join(dir, filepath.Base(a.RuntimePath))
		if err := os.WriteFile(path, src, 0o755); err != nil {
			return nil, nil, err
		}
		if err := os.Symlink(a.ACLPath, filepath.Join(dir, filepath.Base(a.ACLPath))); err != nil {
			return nil, nil, err
		}
		lib, err := onboard.Open(path, onboard.Options{BindKernelWhenUnsupported: true, Inspect: true})
		if err != nil {
			return nil, nil, err
		}
		acl, err := onboard.OpenACL(a.ACLPath)
		if err != nil {
			lib.Close()
			return nil, nil, err
		}
		t := LibraryTarget(lib, acl)
		t.UnloadF = lib.Close // U-1: the copy is the only reference to it
		return t, func() { lib.Close(); os.RemoveAll(dir) }, nil
	}
}

// TestEmittedCatalogue runs the directed checks and random sequences against
// the emitted runtime (tmr and refusing) through onboard: no failure.
func TestEmittedCatalogue(t *testing.T) {
	for _, p := range []emit.Profile{emit.ProfileTMR, emit.ProfileRefusing} {
		t.Run(string(p), func(t *testing.T) {
			a := emittedBuild(t, emit.Config{Profile: p})
			n := 20
			if testing.Short() {
				n = 4
			}
			rep, err := Conform(emittedFactory(t, a), SuiteOptions{Name: "emitted:" + string(p), Random: n, RandomOps: 300,
				Seed: 77, SkipSlow: testing.Short()})
			if err != nil {
				t.Fatal(err)
			}
			reportFailures(t, rep)
			if testing.Verbose() {
				t.Log("\n" + rep.Text())
			}
		})
	}
}

// TestEmittedLegacy checks a legacy build (program-mode rules only, legacy
// codes: E-PINIT, E-ACL, E-PROG, S-3, V-CONTRACT).
func TestEmittedLegacy(t *testing.T) {
	a := emittedBuild(t, emit.Config{Profile: emit.ProfileLegacy})
	p := ProfileLegacy
	rep, err := Conform(emittedFactory(t, a), SuiteOptions{Name: "emitted:legacy", Options: Options{Profile: &p}, Random: 10, RandomOps: 200, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	reportFailures(t, rep)
	passed := 0
	for _, rr := range rep.Rules {
		if rr.Verdict == Pass {
			passed++
		}
	}
	if passed < 5 {
		t.Errorf("only %d rules passed on the legacy build:\n%s", passed, rep.Text())
	}
	if testing.Verbose() {
		t.Log("\n" + rep.Text())
	}
}

// TestEmittedHangIsReported: a runtime whose launch never returns yields a
// hang verdict for the rules of the check that met it (the CLI's
// pass|fail|warn|skip|crash|hang), and the run is abandoned, not waited for.
func TestEmittedHangIsReported(t *testing.T) {
	if testing.Short() {
		t.Skip("abandons a thread blocked in C")
	}
	a := emittedBuild(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Hang: []string{"simpler_kernel_mode_launch"}}})
	var checks []Check
	for _, c := range Catalogue() {
		if c.Name == "v-launch/arguments" || c.Name == "v-prep-2/arguments" {
			checks = append(checks, c)
		}
	}
	rep, err := Conform(emittedFactory(t, a), SuiteOptions{Name: "hang", Checks: checks, NoShrink: true, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Verdict{}
	for _, c := range rep.Checks {
		got[c.Name] = c.Verdict
	}
	if got["v-launch/arguments"] != Hang || got["v-prep-2/arguments"] != Pass {
		t.Fatalf("checks %v, want v-launch hung and v-prep-2 passed", got)
	}
	if rep.Verdict() != Hang {
		t.Fatalf("report verdict %v, want hang:\n%s", rep.Verdict(), rep.Text())
	}
}
