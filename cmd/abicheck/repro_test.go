package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/conformance/session"
	"github.com/simabi/simabi/sim/emit"
)

// allMutantReprosEnv runs TestMutantRepros_replayTheirOwnFinding over every
// emitted mutant (make mutant-repros): about an hour on two cores, most of
// it shrinking. Without it the test runs reproSample.
const allMutantReprosEnv = "ABICHECK_ALL_MUTANT_REPROS"

// reproSample are the mutants make test replays every repro of: the one
// whose repros replayed other rules' failures (undocumented-code: nine
// rules from one random sequence), one that crashes (a freed handle), one
// that shows only in a child process (it reads past an image), and a
// failure and a hang of a parked comm call, which show only once a later
// call releases it (E-COMM.20, .58: a repro runs through the releaser).
var reproSample = []string{"undocumented-code", "destroy-unfinalized", "img-reads-past-end", "comm-barrier-no-wait", "comm-first-out-unlinks"}

// TestMutantRepros_replayTheirOwnFinding checks each mutant as a user does
// (abicheck -repro-dir DIR LIB), then replays every repro-<RULE>.ops written
// on the same library: each must say it reproduces the finding its header
// names, exit 0 — the finding of its own rule, not the case's first failure
// under another (F-4, and every rule a mutant breaks).
func TestMutantRepros_replayTheirOwnFinding(t *testing.T) {
	t.Parallel()
	names := reproSample
	if os.Getenv(allMutantReprosEnv) != "" {
		names = nil
		for _, m := range emit.Mutants() {
			names = append(names, m.Name)
		}
	}
	var mu sync.Mutex
	files, fresh, mutants := 0, 0, 0
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			n, f := mutantReprosReplay(t, name)
			mu.Lock()
			files, fresh, mutants = files+n, fresh+f, mutants+1
			mu.Unlock()
		})
	}
	t.Cleanup(func() {
		t.Logf("%d repro files of %d mutants replayed: %d reproduced their own finding in a fresh process, %d say in a note that only a process that ran earlier cases shows it",
			files, mutants, fresh, files-fresh)
	})
}

// mutantReprosReplay checks mutant name, replays every repro it wrote and
// returns how many there were — one per failing rule the report shows with
// a repro (a finding at bind time has none: loading the library is its
// repro) — and how many reproduced their finding in a fresh process.
func mutantReprosReplay(t *testing.T, name string) (int, int) {
	m, ok := emit.LookupMutant(name)
	if !ok {
		t.Fatalf("no mutant %s", name)
	}
	lib := build(t, emit.Config{Profile: m.Profile, Mutant: m.Name})
	dir := t.TempDir()
	r := runCLI(t, nil, "-json", "-sequences", "20", "-repro-dir", dir, lib)
	if r.code != exitFindings {
		t.Fatalf("abicheck on mutant %s: exit %d, want 1\n%s", name, r.code, r.stderr)
	}
	var want []string
	for _, res := range parseOne(t, r.stdout).Results {
		if oneOf(*res.Verdict, "fail", "crash", "hang") && *res.Repro != "" {
			want = append(want, "repro-"+*res.Rule+".ops")
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "repro-*.ops"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, filepath.Base(f))
	}
	sort.Strings(want)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mutant %s: the repro files written are not the failing rules with a repro (-want +got):\n%s", name, diff)
	}
	fresh := 0
	for _, f := range files {
		if replayRepro(t, name, lib, f) {
			fresh++
		}
	}
	return len(files), fresh
}

// replayRepro replays repro file f on lib: it must say it reproduces the
// finding its header names, exit 0. The finding is its rule's own, or for
// a refusal probe the trace the refused call left (a "# probe:" line says
// so). It reports whether f reproduced in a fresh process (false for a
// file whose "# note:" says it cannot, which the replay must confirm).
func replayRepro(t *testing.T, mutant, lib, f string) bool {
	t.Helper()
	text, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	rule := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "repro-"), ".ops")
	want := session.Header(string(text), "finding")
	if !strings.HasPrefix(want, rule+" ") && !strings.HasPrefix(session.Header(string(text), "probe"), "a refused call of "+rule+" ") {
		t.Errorf("%s: header names finding %q, neither %s's nor a probe's of it", filepath.Base(f), want, rule)
		return false
	}
	rr := runCLI(t, nil, "-replay", f, lib)
	line := lastLine(rr.stdout)
	if session.Header(string(text), "note") != "" {
		// The finding showed only in a child that had run earlier cases
		// (a library whose state outlives a context, as a process-global
		// table does): the note says a fresh process does not reproduce
		// it, and the replay, in a fresh process, must agree.
		if rr.code != exitFindings || !strings.HasPrefix(line, "replay: does not reproduce "+want+"; ") {
			t.Errorf("%s of mutant %s says a fresh process does not reproduce it, but the replay: exit %d, %q", filepath.Base(f), mutant, rr.code, line)
		}
		t.Logf("%s of mutant %s: its finding shows only after earlier cases in one process (its note)", filepath.Base(f), mutant)
		return false
	}
	if rr.code != exitOK || line != "replay: reproduces "+want && !strings.HasPrefix(line, "replay: reproduces "+want+" (also fails ") {
		t.Errorf("%s of mutant %s: exit %d, last line %q; want exit 0 and %q\n%s", filepath.Base(f), mutant, rr.code, line, "replay: reproduces "+want, text)
	}
	return true
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestReplay_doesNotReproduceOnAFixedBuild: a repro of a finding replayed
// on a build without the defect exits 1 and says what it saw instead
// (V-LAUNCH's finding on undocumented-code, replayed on the plain fake).
func TestReplay_doesNotReproduceOnAFixedBuild(t *testing.T) {
	t.Parallel()
	lib := build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: "undocumented-code"})
	good := build(t, emit.Config{Profile: emit.ProfileTMR})
	dir := t.TempDir()
	// V-LAUNCH's finding is a directed check's (v-launch/arguments).
	if r := runCLI(t, nil, "-q", "-no-probes", "-sequences", "0", "-repro-dir", dir, lib); r.code != exitFindings {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stdout)
	}
	file := filepath.Join(dir, "repro-V-LAUNCH.ops")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := session.Header(string(text), "finding")
	r := runCLI(t, nil, "-replay", file, good)
	if got, line := r.code, lastLine(r.stdout); got != exitFindings || line != "replay: does not reproduce "+want+"; no failure instead" {
		t.Errorf("replay on the plain fake: exit %d, last line %q; want exit 1 and %q", got, line, "replay: does not reproduce "+want+"; no failure instead")
	}
	// A header naming another finding than the one the ops show: exit 1,
	// naming what failed instead.
	other := strings.Replace(string(text), "# finding: "+want, "# finding: E-FIN fail at finalize: want OK, got INVALID_STATE", 1)
	forged := filepath.Join(dir, "forged.ops")
	if err := os.WriteFile(forged, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "-replay", forged, lib)
	if line := lastLine(r.stdout); r.code != exitFindings || !strings.HasPrefix(line, "replay: does not reproduce E-FIN fail at finalize: want OK, got INVALID_STATE; fails V-LAUNCH") {
		t.Errorf("forged header: exit %d, last line %q", r.code, line)
	}
	// A header that does not parse is a usage error naming the file.
	bad := filepath.Join(dir, "bad.ops")
	if err := os.WriteFile(bad, []byte("# finding: E-FIN passed nicely\ncreate c0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r = runCLI(t, nil, "-replay", bad, lib); r.code != exitUsage || !strings.Contains(r.stderr, bad+": # finding:") {
		t.Errorf("bad header: exit %d, stderr %q", r.code, r.stderr)
	}
}
