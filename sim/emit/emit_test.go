package emit

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
)

// ---- F-1: exports ----

func dynamicSymbols(t *testing.T, path string) (defined map[string]bool, needed []string, runpath []string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	defined = map[string]bool{}
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF && elf.ST_BIND(s.Info) == elf.STB_GLOBAL {
			defined[s.Name] = true
		}
	}
	needed, _ = f.DynString(elf.DT_NEEDED)
	runpath, _ = f.DynString(elf.DT_RUNPATH)
	return defined, needed, runpath
}

// F-1: every profile builds warning-free (-Wall -Wextra -Werror) and exports
// exactly the symbols of its revision, hooks and host log included.
func TestF1_ExportsEverySymbolOfTheProfile(t *testing.T) {
	t.Parallel()
	for _, p := range Profiles {
		t.Run(string(p), func(t *testing.T) {
			art := buildFake(t, Config{Profile: p})
			defined, needed, runpath := dynamicSymbols(t, art.RuntimePath)
			for _, s := range ExportedSymbols(p) {
				if !defined[s.Name] {
					t.Errorf("%s does not export %s", p, s.Name)
				}
			}
			for _, must := range []string{abi.EntryHostLogBindState.Name(), abi.EntrySimInject.Name(), abi.EntrySimSyncStream.Name(), abi.EntrySimSetCurrentDevice.Name(), abi.EntrySimCurrentDevice.Name()} {
				if !defined[must] {
					t.Errorf("%s does not export %s", p, must)
				}
			}
			legacyOnly := []string{abi.EntryProvisionDMAWorkspace.Name()}
			kernelOnly := []string{abi.EntryKernelSupported.Name(), abi.EntryKernelInit.Name(), abi.EntryKernelPrepare.Name(), abi.EntryKernelLaunch.Name(), abi.EntryDeviceMemoryInfo.Name()}
			absent := legacyOnly
			if p == ProfileLegacy {
				absent = kernelOnly
			}
			for _, s := range absent {
				if defined[s] {
					t.Errorf("%s exports %s", p, s)
				}
			}
			// Nothing but the ABI is exported.
			want := map[string]bool{}
			for _, s := range ExportedSymbols(p) {
				want[s.Name] = true
			}
			for name := range defined {
				if !want[name] && !strings.HasPrefix(name, "_") {
					t.Errorf("%s exports %s, which docs/contract.md does not list", p, name)
				}
			}
			if !slices.Contains(needed, ACLLibName) {
				t.Errorf("DT_NEEDED = %v, want %s", needed, ACLLibName)
			}
			if !slices.Contains(runpath, "$ORIGIN") {
				t.Errorf("DT_RUNPATH = %v, want $ORIGIN", runpath)
			}
			aclDefined, _, _ := dynamicSymbols(t, art.ACLPath)
			for _, s := range append(slices.Clone(ACLCounters), "aclrtMalloc", "aclrtFree", "aclrtMemcpy", "simabi_acl_counters") {
				if !aclDefined[s] {
					t.Errorf("ACL library does not export %s", s)
				}
			}
		})
	}
}

// F-2: -omit removes exports.
func TestF2_OmitRemovesSymbols(t *testing.T) {
	t.Parallel()
	omit := []string{abi.EntryKernelSupported.Name(), abi.EntryCommBarrier.Name(), abi.EntrySimInject.Name()}
	art := buildFake(t, Config{Profile: ProfileTMR, Omit: omit})
	defined, _, _ := dynamicSymbols(t, art.RuntimePath)
	for _, s := range omit {
		if defined[s] {
			t.Errorf("%s still exported", s)
		}
	}
	if !defined[abi.EntryKernelInit.Name()] {
		t.Errorf("%s missing", abi.EntryKernelInit.Name())
	}
	if _, err := Source(Config{Profile: ProfileLegacy, Omit: []string{abi.EntryKernelInit.Name()}}); err == nil {
		t.Error("omitting a symbol the profile does not have was accepted")
	}
}

// ---- F-1: behaviour, through compiled C drivers ----

// F-1 acceptance (the issue): a C program dlopening the tmr fake sees
// supported return 1, a malformed prepare write -1 and return -1004, a full
// kernel init/prepare/launch/sync/finalize sequence succeed, and the ACL
// counters of D-1 unchanged on that path.
func TestF1_AcceptanceDriver(t *testing.T) {
	art := buildFake(t, Config{Profile: ProfileTMR})
	r := runExe(t, time.Minute, driver(t, "selfcheck"), art.RuntimePath, art.ACLPath, "tmr", "acceptance")
	if r.exitCode != 0 || !strings.Contains(r.stdout, "PASS acceptance") {
		t.Fatalf("acceptance driver failed:\n%v", r)
	}
}

// F-1: the emitted runtimes keep the rules (V-*, L-*, K-*, E-*, M-*, D-*, X-2)
// as docs/semantics.md pins them; each check of testdata/selfcheck.c names
// the rules it covers.
func TestF1_SelfCheck(t *testing.T) {
	for _, p := range []Profile{ProfileTMR, ProfileRefusing} {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			art := buildFake(t, Config{Profile: p})
			r := runExe(t, 2*time.Minute, driver(t, "selfcheck"), art.RuntimePath, art.ACLPath, string(p))
			if r.exitCode != 0 || r.signaled {
				t.Fatalf("selfcheck of %s failed:\n%v", p, r)
			}
			t.Logf("%s", r.stdout)
		})
	}
}

// ---- F-4: mutants ----

func TestF4_MutantListCoversEveryRuleGroup(t *testing.T) {
	ms := Mutants()
	if len(ms) < 20 {
		t.Fatalf("%d mutants, want at least 20", len(ms))
	}
	groups := map[string]bool{}
	names := map[string]bool{}
	for _, m := range ms {
		if names[m.Name] {
			t.Errorf("mutant %s listed twice", m.Name)
		}
		names[m.Name] = true
		if !strings.HasPrefix(m.Rule, m.Group+"-") || m.Description == "" {
			t.Errorf("mutant %+v: rule, group or description malformed", m)
		}
		groups[m.Group] = true
	}
	for _, g := range []string{"S", "V", "L", "K", "E", "M", "D", "U", "X"} {
		if !groups[g] {
			t.Errorf("no mutant breaks a rule of group %s", g)
		}
	}
	// Every mutant has a switch in the template, and the template names no
	// other mutant.
	tmpl, err := templateFS.ReadFile("templates/runtime.c.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`mut "([a-z0-9-]+)"`).FindAllStringSubmatch(string(tmpl), -1) {
		used[m[1]] = true
	}
	for _, m := range ms {
		if !used[m.Name] {
			t.Errorf("mutant %s has no switch in the runtime template", m.Name)
		}
	}
}

// F-4: a mutant's source differs from the plain runtime of its profile,
// and only in lines marked with its name (besides the banner).
func TestF4_MutantSourcesDifferOnlyAtTheirRule(t *testing.T) {
	bases := map[Profile]map[string]bool{}
	plain := map[Profile]Sources{}
	for _, p := range Profiles {
		base, err := Source(Config{Profile: p})
		if err != nil {
			t.Fatal(err)
		}
		plain[p] = base
		bases[p] = map[string]bool{}
		for _, l := range strings.Split(base.Runtime, "\n") {
			bases[p][l] = true
		}
	}
	for _, m := range Mutants() {
		src, err := Source(Config{Profile: m.Profile, Mutant: m.Name})
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		base := plain[m.Profile]
		if src.Runtime == base.Runtime {
			t.Errorf("%s: source identical to the plain %s runtime", m.Name, m.Profile)
			continue
		}
		if src.ACL != base.ACL {
			t.Errorf("%s: ACL source changed", m.Name)
		}
		if !strings.Contains(src.Runtime, "MUTANT "+m.Name+" ["+m.Rule+"]") {
			t.Errorf("%s: no MUTANT %s [%s] marker", m.Name, m.Name, m.Rule)
		}
		added := 0
		for _, l := range strings.Split(src.Runtime, "\n") {
			if !bases[m.Profile][l] {
				added++
			}
		}
		if added > 25 {
			t.Errorf("%s: %d changed lines; a mutant should change only its rule", m.Name, added)
		}
	}
	if _, err := Source(Config{Profile: ProfileTMR, Mutant: "refusing-latches"}); err == nil {
		t.Error("a refusing-profile mutant emitted for tmr: want an error")
	}
}

// selfChecked are the mutants the emitter's own self-check
// (testdata/selfcheck.c) was written to detect, with the rule its failure
// names. Every mutant is the conformance checker's to kill
// (conformance.TestEmittedMutantsKilled, abicheck mutants); these are also
// the self-check's, an independent second opinion on the emitted runtime.
var selfChecked = map[string]string{
	"prep-keeps-out": "V-PREP-1", "prep-misaligned-ok": "V-PREP-2", "launch-id-8192-ok": "V-LAUNCH",
	"img-trailing-ok": "V-IMG", "img-dup-funcid-ok": "V-IMG", "init-gen0-ok": "V-INIT", "span-half-ok": "V-SPAN",
	"cfg-pmu-ok": "V-CFG", "latch-cleared-on-fail": "L-3", "latch-before-cfg": "L-5", "program-over-kernel": "L-2",
	"poison-ignored": "K-4", "closed-accepts-dispatch": "K-6", "close-failure-swallowed": "K-5",
	"reinit-after-close": "K-2", "launch-before-prepare-nr": "E-LAUNCH", "finalize-null-ia": "E-FIN",
	"destroy-unfinalized": "E-DESTROY", "prog-args-first": "E-PROG", "supported-after-init-0": "E-SUP",
	"claim-kept-on-fail": "E-CLAIM", "ids-from-one": "M-1", "failure-consumes-id": "M-3", "dedup": "M-2",
	"count-8191": "M-4", "no-byte-budget": "M-5", "committed-after-finalize": "M-7", "device-unchecked": "D-2",
	"finalize-resets-device": "D-1", "fatal-resets": "D-4", "launch-waits": "X-2", "stream-switch-ok": "E-LAUNCH",
	"async-poisons": "E-LAUNCH-ASYNC", "device-band-code": "S-1", "undocumented-code": "S-2",
	"null-prepare-internal": "S-3", "thread-key-leak": "U-1", "late-thread-leak": "U-1",
	"prepared-run-not-outstanding": "E-FIN", "program-teardown-swallowed": "E-FIN", "refusal-latches": "L-4",
	"run-null-config-ok": "E-PROG",
}

// F-4: every mutant of selfChecked builds warning-free, and the self-check
// detects it with a failure of the rule it names (or the process dies).
// (TestF4_MutantSourcesDifferOnlyAtTheirRule holds every mutant to the
// compiler's warnings through conformance's builds, which use the same flags.)
func TestF4_EveryMutantBuildsAndIsDetected(t *testing.T) {
	needCC(t)
	exe := driver(t, "selfcheck")
	var ms []Mutant
	for _, m := range Mutants() {
		if _, ok := selfChecked[m.Name]; ok {
			ms = append(ms, m)
		}
	}
	if len(ms) != len(selfChecked) {
		t.Fatalf("%d of the %d self-checked mutants exist", len(ms), len(selfChecked))
	}
	type result struct {
		m   Mutant
		art *Artifacts
		err error
	}
	results := make([]result, len(ms))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			art, err := Build(Config{Profile: ProfileTMR, Mutant: m.Name}, BuildOptions{CacheDir: testCacheDir})
			results[i] = result{m, art, err}
		}()
	}
	wg.Wait()
	for _, res := range results {
		t.Run(res.m.Name, func(t *testing.T) {
			if res.err != nil {
				t.Fatalf("build: %v", res.err)
			}
			rule := selfChecked[res.m.Name]
			r := runExe(t, 2*time.Minute, exe, res.art.RuntimePath, res.art.ACLPath, "tmr")
			if r.exitCode == 0 && !r.signaled {
				t.Fatalf("mutant %s (%s) not detected:\n%v", res.m.Name, rule, r)
			}
			if !strings.Contains(r.stdout, "FAIL "+rule+" ") && !r.signaled {
				t.Errorf("mutant %s detected, but no failure names rule %s:\n%v", res.m.Name, rule, r)
			}
		})
	}
}

// ---- F-3: invariant aborts ----

func probe(t *testing.T, cfg Config, cmds ...string) runResult {
	t.Helper()
	art := buildFake(t, cfg)
	return runExe(t, 30*time.Second, driver(t, "probe"), append([]string{art.RuntimePath}, cmds...)...)
}

func wantAbort(t *testing.T, r runResult, invariant string) {
	t.Helper()
	if r.exitCode == 0 && !r.signaled {
		t.Fatalf("process exited 0, want an abort naming %s:\n%v", invariant, r)
	}
	if !strings.Contains(r.stderr, "[F-3 "+invariant+"]") {
		t.Fatalf("stderr does not name invariant %s:\n%v", invariant, r)
	}
}

func TestF3_InvalidHandleAborts(t *testing.T) {
	t.Parallel()
	t.Run("never-created", func(t *testing.T) {
		wantAbort(t, probe(t, Config{}, "bogus"), "invalid-handle")
	})
	t.Run("destroyed", func(t *testing.T) {
		r := probe(t, Config{}, "new", "destroy", "0", "fin", "0")
		wantAbort(t, r, "invalid-handle")
		if !strings.Contains(r.stderr, "finalize_device") || !strings.Contains(r.stderr, "destroy_device_context freed") {
			t.Errorf("message does not name the entry and the cause:\n%v", r)
		}
	})
	t.Run("comm-never-returned", func(t *testing.T) {
		r := probe(t, Config{}, "cbogus")
		wantAbort(t, r, "invalid-comm-handle")
		if !strings.Contains(r.stderr, "comm_barrier") || !strings.Contains(r.stderr, "comm_init never returned") {
			t.Errorf("message does not name the entry and the cause:\n%v", r)
		}
	})
	t.Run("comm-destroyed", func(t *testing.T) {
		r := probe(t, Config{}, "cinit", "calloc", "0", "cdestroy", "0", "cbarrier", "0")
		wantAbort(t, r, "invalid-comm-handle")
		if !strings.Contains(r.stdout, "cdestroy 0 -> 0") || !strings.Contains(r.stderr, "comm_destroy freed") {
			t.Errorf("message does not name the cause:\n%v", r)
		}
	})
	t.Run("null-is-not-invalid", func(t *testing.T) {
		r := probe(t, Config{}, "fin", "-1", "sup", "-1")
		if r.exitCode != 0 || !strings.Contains(r.stdout, "fin -1 -> -1000") || !strings.Contains(r.stdout, "sup -1 -> 1") {
			t.Fatalf("NULL handling:\n%v", r)
		}
	})
}

func TestF3_StrictConsumer(t *testing.T) {
	t.Parallel()
	strict := Config{Knobs: Knobs{Strict: true, MustNotCall: []string{abi.EntryRun.Name()}}}
	t.Run("must-not-call", func(t *testing.T) {
		wantAbort(t, probe(t, strict, "new", "run", "0"), "must-not-call")
	})
	t.Run("supported-after-program-init", func(t *testing.T) {
		r := probe(t, strict, "new", "sup", "0", "pinit", "0", "3", "sup", "0")
		wantAbort(t, r, "supported-after-program-init")
		if !strings.Contains(r.stdout, "sup 0 -> 1") {
			t.Errorf("supported on a fresh context should answer 1 first:\n%v", r)
		}
	})
	t.Run("wild-copy", func(t *testing.T) { // E-PROG.28
		r := probe(t, strict, "new", "pinit", "0", "0", "wild", "0")
		wantAbort(t, r, "wild-copy")
		if !strings.Contains(r.stderr, "copy_to_device_ctx of 8 bytes at device address") || strings.Contains(r.stdout, "wild 0 ->") {
			t.Errorf("the abort does not name the wild copy, or the copy returned:\n%v", r)
		}
		plain := probe(t, Config{}, "new", "pinit", "0", "0", "wild", "0")
		if plain.exitCode != 0 || !strings.Contains(plain.stdout, "wild 0 -> -1004") {
			t.Errorf("without strict a wild copy is refused with INVALID_ARGUMENT (-1004):\n%v", plain)
		}
	})
	t.Run("context-leak-at-exit", func(t *testing.T) {
		wantAbort(t, probe(t, strict, "new"), "context-leak")
	})
	t.Run("context-leak-at-unload", func(t *testing.T) {
		r := probe(t, strict, "new", "unload")
		wantAbort(t, r, "context-leak")
	})
	t.Run("comm-handle-leak-at-exit", func(t *testing.T) {
		wantAbort(t, probe(t, strict, "cinit", "calloc", "0"), "comm-handle-leak")
	})
	t.Run("comm-handle-leak-at-unload", func(t *testing.T) {
		wantAbort(t, probe(t, strict, "cinit", "unload"), "comm-handle-leak")
	})
	t.Run("clean-exit", func(t *testing.T) {
		r := probe(t, strict, "new", "kinit", "0", "1", "fin", "0", "destroy", "0", "sup", "-1", "cinit", "calloc", "0", "cdestroy", "0")
		if r.exitCode != 0 || r.signaled {
			t.Fatalf("a clean scenario aborted:\n%v", r)
		}
	})
	t.Run("quarantined-may-outlive", func(t *testing.T) {
		cfg := strict
		cfg.Knobs.FatalDevice = true
		r := probe(t, cfg, "new", "kinit", "0", "2", "prep", "0", "fin", "0", "fin", "0", "destroy", "0")
		if r.exitCode != 0 || r.signaled || !strings.Contains(r.stdout, "fin 0 -> -1003\nfin 0 -> -1003") {
			t.Fatalf("fatal_device scenario:\n%v", r)
		}
	})
	t.Run("off-keeps-E-SUP", func(t *testing.T) {
		r := probe(t, Config{}, "new", "pinit", "0", "3", "sup", "0", "new")
		if r.exitCode != 0 || !strings.Contains(r.stdout, "sup 0 -> 1") {
			t.Fatalf("without the strict knob supported must answer:\n%v", r)
		}
	})
}

// ---- F-2: knobs ----

func TestF2_Knobs(t *testing.T) {
	t.Parallel()
	t.Run("fixed-status", func(t *testing.T) {
		cfg := Config{Knobs: Knobs{Status: map[string]int32{abi.EntryKernelLaunch.Name(): -93, abi.EntryKernelInit.Name(): -91, abi.EntryFinalizeDevice.Name(): -77}}}
		r := probe(t, cfg, "new", "kinit", "0", "1", "launch", "0", "0", "fin", "0")
		for _, want := range []string{"kinit 0 -> -91", "launch 0 -> -93", "fin 0 -> -77"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("missing %q:\n%v", want, r)
			}
		}
	})
	t.Run("fixed-prepare-mints-ids", func(t *testing.T) {
		cfg := Config{Knobs: Knobs{Status: map[string]int32{abi.EntryKernelPrepare.Name(): 0}}}
		r := probe(t, cfg, "new", "new", "prep", "0", "prep", "0", "prep", "1", "prep", "-1")
		want := "prep 0 -> 0 0\nprep 0 -> 0 1\nprep 1 -> 0 0\nprep -1 -> 0 -1\n"
		if !strings.Contains(r.stdout, want) {
			t.Errorf("want %q:\n%v", want, r)
		}
		cfg.Knobs.Status[abi.EntryKernelPrepare.Name()] = -92
		if r := probe(t, cfg, "new", "prep", "0"); !strings.Contains(r.stdout, "prep 0 -> -92 -1") {
			t.Errorf("fixed failing prepare:\n%v", r)
		}
	})
	t.Run("prepare-writes-id-false", func(t *testing.T) {
		var k Knobs
		if err := ParseKnob("prepare_writes_id=false", &k); err != nil {
			t.Fatal(err)
		}
		r := probe(t, Config{Knobs: k}, "new", "kinit", "0", "4", "prep", "0", "launch", "0", "0", "sync", "fin", "0", "destroy", "0")
		if !strings.Contains(r.stdout, "prep 0 -> 0 -1") || !strings.Contains(r.stdout, "launch 0 -> 0") {
			t.Errorf("prepare must succeed without writing the id:\n%v", r)
		}
	})
	t.Run("fail-first-N", func(t *testing.T) {
		cfg := Config{Knobs: Knobs{Fail: map[int32]Fault{abi.SitePrepareCopy: {Count: 2, Code: -1000}}}}
		r := probe(t, cfg, "new", "kinit", "0", "5", "prep", "0", "prep", "0", "prep", "0")
		if !strings.Contains(r.stdout, "prep 0 -> -1000 -1\nprep 0 -> -1000 -1\nprep 0 -> 0 0\n") {
			t.Errorf("site 2 armed for two passes:\n%v", r)
		}
	})
	t.Run("crash", func(t *testing.T) {
		r := probe(t, Config{Knobs: Knobs{Crash: []string{abi.EntryFinalizeDevice.Name()}}}, "new", "fin", "0")
		if !r.signaled || !strings.Contains(r.stderr, "crash knob: finalize_device") {
			t.Errorf("crash knob:\n%v", r)
		}
	})
	t.Run("hang", func(t *testing.T) {
		art := buildFake(t, Config{Knobs: Knobs{Hang: []string{abi.EntryFinalizeDevice.Name()}}})
		r := runExe(t, 700*time.Millisecond, driver(t, "probe"), art.RuntimePath, "new", "fin", "0")
		if !r.timedOut || !strings.Contains(r.stderr, "hang knob: finalize_device") {
			t.Errorf("hang knob:\n%v", r)
		}
	})
	t.Run("rejected", func(t *testing.T) {
		for _, cfg := range []Config{
			{Knobs: Knobs{Status: map[string]int32{abi.EntryGetRuntimeSize.Name(): 1}}},
			{Knobs: Knobs{Status: map[string]int32{"no_such_entry": 1}}},
			{Profile: ProfileRefusing, Knobs: Knobs{Fail: map[int32]Fault{1: {1, -1000}}}},
			{Knobs: Knobs{Fail: map[int32]Fault{2: {1, 0}}}},
			{Knobs: Knobs{Crash: []string{"nope"}}},
			{Profile: ProfileLegacy, Mutant: "dedup"},
			{Mutant: "no-such-mutant"},
			{Profile: "silicon"},
		} {
			if _, err := Source(cfg); err == nil {
				t.Errorf("Source(%+v) accepted", cfg)
			}
		}
	})
}

func TestParseKnob(t *testing.T) {
	var k Knobs
	for _, kv := range []string{
		"status.simpler_kernel_mode_launch=-93", "fail.2=3:-1000", "fail.async-device-failure=1:-7",
		"prepare_writes_id=false", "fatal_device=true", "strict=true", "must_not_call=simpler_run, simpler_init",
		"crash.finalize_device=true", "hang.simpler_init=true", "hang.simpler_init=false", "comm_timeout_ms=1500",
	} {
		if err := ParseKnob(kv, &k); err != nil {
			t.Fatalf("ParseKnob(%q): %v", kv, err)
		}
	}
	want := Knobs{
		Status:      map[string]int32{"simpler_kernel_mode_launch": -93},
		Fail:        map[int32]Fault{2: {3, -1000}, 8: {1, -7}},
		PrepareNoID: true, FatalDevice: true, Strict: true,
		MustNotCall: []string{"simpler_run", "simpler_init"},
		Crash:       []string{"finalize_device"}, CommTimeoutMs: 1500,
	}
	if fmt.Sprint(k.Strings()) != fmt.Sprint(want.Strings()) {
		t.Errorf("got %v\nwant %v", k.Strings(), want.Strings())
	}
	// Strings round-trips.
	var back Knobs
	for _, kv := range k.Strings() {
		if err := ParseKnob(kv, &back); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(back.Strings()) != fmt.Sprint(k.Strings()) {
		t.Errorf("round trip: %v vs %v", back.Strings(), k.Strings())
	}
	for _, bad := range []string{"", "strict", "strict=maybe", "fail.11=1:-1", "fail.2=1", "status.x=abc", "nope=1", "fail.nosite=1:-1",
		"comm_timeout_ms=0", "comm_timeout_ms=-5", "comm_timeout_ms=x", "comm_timeout_ms=4294967296"} {
		if err := ParseKnob(bad, &Knobs{}); err == nil {
			t.Errorf("ParseKnob(%q) accepted", bad)
		}
	}
}

// ---- generated numbers (F-1: nothing typed by hand) ----

func TestF1_SourceIsGeneratedFromAbiAndLatch(t *testing.T) {
	src, err := Source(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range abi.HostStatuses {
		if line := fmt.Sprintf("#define PTO_RUNTIME_ERR_%s (%d)", s.Name(), int32(s)); !strings.Contains(src.Runtime, line) {
			t.Errorf("missing %q", line)
		}
	}
	for p := range latch.NumPhases {
		for e := range latch.NumEvents {
			tr := latch.Table[p][e]
			cell := fmt.Sprintf("[EV_%s] = {PHASE_%s, RESULT_%s, EFFECT_%s},", cIdent(e.String()), cIdent(tr.To.String()), cIdent(tr.Result.String()), cIdent(tr.Effect.String()))
			if !strings.Contains(src.Runtime, cell) {
				t.Errorf("phase table lacks %s for %v", cell, p)
			}
		}
	}
	for site, name := range abi.SiteNames {
		if line := fmt.Sprintf("SITE_%s = %d,", cIdent(name), site); !strings.Contains(src.Runtime, line) {
			t.Errorf("missing %q", line)
		}
	}
	if !strings.Contains(src.Runtime, abi.CDeclarations("")) {
		t.Error("layouts are not abi.CDeclarations")
	}
	again, _ := Source(Config{})
	if again != src {
		t.Error("Source is not deterministic")
	}
}

// ---- building and caching ----

func TestBuildCacheHit(t *testing.T) {
	t.Parallel()
	needCC(t)
	dir := t.TempDir()
	cfg := Config{Profile: ProfileRefusing, Knobs: Knobs{Status: map[string]int32{abi.EntryCommBarrier.Name(): -1}}}
	first, err := Build(cfg, BuildOptions{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if first.Cached {
		t.Error("first build reported Cached")
	}
	second, err := Build(cfg, BuildOptions{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !second.Cached || second.RuntimePath != first.RuntimePath {
		t.Errorf("second build: %+v, want a cache hit of %s", second, first.RuntimePath)
	}
	out := filepath.Join(t.TempDir(), "out")
	third, err := Build(cfg, BuildOptions{CacheDir: dir, OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(third.RuntimePath) != out || filepath.Dir(third.ACLPath) != out {
		t.Errorf("OutDir copy: %+v", third)
	}
	for _, p := range []string{third.RuntimePath, third.ACLPath, third.RuntimeSource, third.ACLSource} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 || !slices.Contains(names, first.Key) || !strings.HasPrefix(names[0]+names[1], "acl-") && !strings.HasPrefix(names[1], "acl-") {
		t.Errorf("cache holds %v, want the fake and the shared ACL build (no temp dirs left)", names)
	}
}

func TestBuildConcurrentSameKeyCompilesOnce(t *testing.T) {
	t.Parallel()
	needCC(t)
	dir := t.TempDir()
	cfg := Config{Knobs: Knobs{Status: map[string]int32{abi.EntryCommDestroy.Name(): -2}}}
	var wg sync.WaitGroup
	arts := make([]*Artifacts, 4)
	errs := make([]error, 4)
	for i := range arts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			arts[i], errs[i] = Build(cfg, BuildOptions{CacheDir: dir})
		}()
	}
	wg.Wait()
	fresh := 0
	for i := range arts {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !arts[i].Cached {
			fresh++
		}
	}
	if fresh != 1 {
		t.Errorf("%d of 4 concurrent builds compiled, want 1", fresh)
	}
}

func TestErrNoCompiler(t *testing.T) {
	_, err := Build(Config{}, BuildOptions{CC: "/nonexistent/simabi-cc", CacheDir: t.TempDir()})
	if !errors.Is(err, ErrNoCompiler) {
		t.Fatalf("err = %v, want ErrNoCompiler", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("message is not one line: %q", err)
	}
}

// F-1, semantics §12: the legacy profile's 9-parameter simpler_init,
// simpler_provision_dma_workspace and translated codes.
func TestF1_LegacyProfile(t *testing.T) {
	t.Parallel()
	art := buildFake(t, Config{Profile: ProfileLegacy})
	r := runExe(t, time.Minute, driver(t, "legacy"), art.RuntimePath)
	if r.exitCode != 0 || !strings.Contains(r.stdout, "PASS legacy") {
		t.Fatalf("legacy driver:\n%v", r)
	}
}

// The C++ example of docs/fake-runtime.md (testdata/docs_example.cpp) works:
// a test linked directly against the fake through simabi_fake.h.
func TestF1_DocsExamples(t *testing.T) {
	t.Parallel()
	art := buildFake(t, Config{Profile: ProfileTMR})
	dir := filepath.Dir(art.RuntimePath)
	t.Run("c++", func(t *testing.T) {
		cxx, err := exec.LookPath("c++")
		if err != nil {
			t.Skip("skipping: no c++ compiler")
		}
		exe := filepath.Join(t.TempDir(), "docs_example")
		out, err := exec.Command(cxx, "-std=c++17", "-Wall", "-Wextra", "-I", dir, "testdata/docs_example.cpp", "-o", exe,
			"-L", dir, "-l:"+RuntimeLibName, "-l:"+ACLLibName, "-Wl,-rpath,"+dir).CombinedOutput()
		if err != nil {
			t.Fatalf("c++: %v\n%s", err, out)
		}
		if r := runExe(t, time.Minute, exe); r.exitCode != 0 || strings.TrimSpace(r.stdout) != "ok" {
			t.Fatalf("C++ example:\n%v", r)
		}
	})
	// The pytest examples of docs/fake-runtime.md are python/tests'
	// (make test-python).
}

// F-2: every knob at once still compiles warning-free, in every profile.
func TestF2_EveryKnobBuilds(t *testing.T) {
	t.Parallel()
	for _, p := range Profiles {
		k := Knobs{Status: map[string]int32{}, PrepareNoID: true, Strict: true}
		for _, s := range ExportedSymbols(p) {
			if returnsStatus(s) {
				k.Status[s.Name] = -9
			}
			switch {
			case strings.HasPrefix(s.Name, "comm_"):
				k.MustNotCall = append(k.MustNotCall, s.Name)
			case strings.HasPrefix(s.Name, "get_"):
				k.Crash = append(k.Crash, s.Name)
			case strings.HasPrefix(s.Name, "simpler_") && !returnsStatus(s):
				k.Hang = append(k.Hang, s.Name)
			}
		}
		if p == ProfileTMR {
			k.FatalDevice = true
			k.Fail = map[int32]Fault{}
			for site := abi.FirstSite; site <= abi.LastSite; site++ {
				k.Fail[site] = Fault{Count: 1, Code: -1000}
			}
		}
		buildFake(t, Config{Profile: p, Knobs: k, Omit: []string{abi.EntryGetRuntimeSize.Name(), abi.EntrySimInject.Name()}})
	}
}

func TestBuildRepairsDamagedCacheEntry(t *testing.T) {
	t.Parallel()
	needCC(t)
	dir := t.TempDir()
	cfg := Config{Knobs: Knobs{Status: map[string]int32{abi.EntryCommBarrier.Name(): -3}}}
	first, err := Build(cfg, BuildOptions{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(first.RuntimePath); err != nil {
		t.Fatal(err)
	}
	again, err := Build(cfg, BuildOptions{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if again.Cached {
		t.Error("a damaged entry was reported as a cache hit")
	}
	if _, err := os.Stat(again.RuntimePath); err != nil {
		t.Error(err)
	}
}

// E-FIN: an independent C client, written from docs/contract.md alone (no generated
// declarations), runs the outstanding-run scenario against the emitted fake:
// finalize_device returns INTERNAL while a run is prepared, launched or
// completed, and 0 once finalize_run returned.
func TestIndependentClientOutstandingRun(t *testing.T) {
	needCC(t)
	cc, err := resolveCompiler("")
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "efin_client")
	args := append(append([]string(nil), cc.argv[1:]...), "-std=c11", "-Wall", "-Werror", "-o", exe, filepath.Join("testdata", "efin_client.c"), "-ldl")
	if out, err := exec.Command(cc.argv[0], args...).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	art := buildFake(t, Config{Profile: ProfileTMR})
	r := runExe(t, 30*time.Second, exe, art.RuntimePath)
	if r.exitCode != 0 || !strings.Contains(r.stdout, "PASS efin_client") {
		t.Fatalf("efin_client on the emitted fake:\n%v", r)
	}
	mut := buildFake(t, Config{Profile: ProfileTMR, Mutant: "prepared-run-not-outstanding"})
	r = runExe(t, 30*time.Second, exe, mut.RuntimePath)
	if r.exitCode != 1 || !strings.Contains(r.stdout, "FAIL finalize with the run outstanding: expected -1000 got 0") {
		t.Fatalf("efin_client on the mutant that counts only launched runs:\n%v", r)
	}
}

// BuildOptions.Unoptimized compiles the runtime at -O0 into a cache entry
// of its own: the same sources at -O2 are another build.
func TestBuild_unoptimizedIsItsOwnEntry_F1(t *testing.T) {
	needCC(t)
	dir := t.TempDir()
	cfg := Config{Profile: ProfileLegacy}
	opt, err := Build(cfg, BuildOptions{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	unopt, err := Build(cfg, BuildOptions{CacheDir: dir, Unoptimized: true})
	if err != nil {
		t.Fatal(err)
	}
	if opt.RuntimePath == unopt.RuntimePath || unopt.Cached {
		t.Fatalf("-O0 build %s (cached %v) is the -O2 build %s", unopt.RuntimePath, unopt.Cached, opt.RuntimePath)
	}
	again, err := Build(cfg, BuildOptions{CacheDir: dir, Unoptimized: true})
	if err != nil || !again.Cached || again.RuntimePath != unopt.RuntimePath {
		t.Fatalf("second -O0 build: %v, cached %v, %s", err, again != nil && again.Cached, unopt.RuntimePath)
	}
}
