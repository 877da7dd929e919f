package onboard

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// F-1, C-BIND-1, C-BIND-2: the emitted runtime of each profile loads through
// onboard and answers; the revision is detected.
func TestF1EmittedProfilesLoad(t *testing.T) {
	for _, tc := range []struct {
		profile   emit.Profile
		revision  abi.Profile
		supported int32
		bound     bool
		depth     uint32
	}{
		{emit.ProfileTMR, abi.ProfileTMR, 1, true, 1},
		{emit.ProfileRefusing, abi.ProfileRefusing, 0, false, 1},
		{emit.ProfileLegacy, abi.ProfileLegacy, 0, false, 2},
	} {
		t.Run(string(tc.profile), func(t *testing.T) {
			path := emitted(t, emit.Config{Profile: tc.profile})
			l := mustOpen(t, path, Options{})
			if l.Profile() != tc.revision || l.Supported() != tc.supported || l.KernelBound() != tc.bound || !l.HasHooks() {
				t.Fatalf("revision %v supported %d bound %v hooks %v", l.Profile(), l.Supported(), l.KernelBound(), l.HasHooks())
			}
			// V-CONTRACT: each profile's default pipeline (legacy:
			// tensormap_and_ringbuffer's depth-2 contract).
			if want := tc.revision.DefaultPipeline().Spec().Contract; l.Contract() != want || want.PipelineDepth != tc.depth {
				t.Fatalf("contract %+v, want %+v", l.Contract(), want)
			}
			if got := l.KernelModeSupported(0); got != tc.supported {
				t.Fatalf("supported(NULL) = %d", got)
			}
			c := l.CreateDeviceContext()
			if c == 0 {
				t.Fatal("create returned NULL")
			}
			if st := l.FinalizeDevice(c); st != abi.OK {
				t.Fatalf("finalize of a fresh context: %v", st)
			}
			l.DestroyDeviceContext(c)
			if st := l.FinalizeDevice(0); l.Translate(st) != abi.Internal {
				t.Fatalf("finalize(NULL) = %v (translated %v)", st, l.Translate(st))
			}
			if tc.revision == abi.ProfileLegacy {
				if st := l.FinalizeDevice(0); st != abi.LegacyGeneric {
					t.Fatalf("legacy finalize(NULL) = %v, want -1", st)
				}
				if st := l.KernelModeInit(1, 0, nil, 0, nil, 0, nil, 0, nil, 1); st != abi.Unsupported {
					t.Fatalf("legacy kernel init = %v", st)
				}
			}
			if ok, err := ProbeKernelModeSupported(path, Options{}); err != nil || ok != (tc.supported != 0) {
				t.Fatalf("C-PROBE: %v %v", ok, err)
			}
			if ACLPathFor(path) == ACLLibraryName {
				t.Fatalf("no libascendcl.so beside %s", path)
			}
		})
	}
}

// C-BIND-1, F-2 (omit): one omitted symbol of every required group fails the
// load naming exactly that symbol and its group; nothing stays loaded.
func TestCBind1EmittedOmitOnePerGroup(t *testing.T) {
	type omission struct {
		profile emit.Profile
		symbol  string   // the omitted symbol (or the first of omitted)
		named   []string // symbols the error must name, in order
		omitted []string // when more than symbol is omitted
	}
	var cases []omission
	seen := map[abi.Group]bool{}
	for _, s := range abi.Symbols {
		if s.Revisions.Has(abi.RevKernel) && s.Required == abi.Required && !seen[s.Group] {
			seen[s.Group] = true
			cases = append(cases, omission{emit.ProfileTMR, s.Name, []string{s.Name}, nil})
		}
	}
	// The trio is required when supported is nonzero.
	cases = append(cases, omission{emit.ProfileTMR, abi.EntryKernelLaunch.Name(), []string{abi.EntryKernelLaunch.Name()}, nil})
	// Legacy: its own set, provision included; without provision the library
	// is no longer legacy-shaped and is bound (and refused) as the kernel ABI.
	cases = append(cases,
		omission{emit.ProfileLegacy, abi.EntryRun.Name(), []string{abi.EntryRun.Name()}, nil},
		omission{emit.ProfileLegacy, abi.EntryHostLogBindState.Name(), []string{abi.EntryHostLogBindState.Name()}, nil},
		omission{emit.ProfileLegacy, abi.EntryProvisionDMAWorkspace.Name(), []string{abi.EntryDeviceMemoryInfo.Name(), abi.EntryKernelSupported.Name()}, nil},
		// A kernel-ABI build stripped of its kernel entries and
		// device_memory_info_ctx is not legacy-shaped (no provision entry,
		// and its simpler_init has 12 parameters): it is refused.
		omission{emit.ProfileTMR, abi.EntryKernelSupported.Name(), []string{abi.EntryDeviceMemoryInfo.Name(), abi.EntryKernelSupported.Name()},
			[]string{abi.EntryKernelSupported.Name(), abi.EntryKernelInit.Name(), abi.EntryKernelPrepare.Name(), abi.EntryKernelLaunch.Name(), abi.EntryDeviceMemoryInfo.Name()}},
	)
	for _, tc := range cases {
		name := string(tc.profile) + "/" + tc.symbol
		omit := []string{tc.symbol}
		if tc.omitted != nil {
			name, omit = string(tc.profile)+"/kernel-entries-and-meminfo", tc.omitted
		}
		t.Run(name, func(t *testing.T) {
			path := emitted(t, emit.Config{Profile: tc.profile, Omit: omit})
			l, err := Open(path, Options{})
			if err == nil {
				l.Close()
				t.Fatal("Open succeeded")
			}
			var be *BindError
			if !errors.As(err, &be) {
				t.Fatalf("Open: %v, want *BindError", err)
			}
			var names, parts []string
			for _, s := range be.Missing {
				names = append(names, s.Name)
			}
			// Without simpler_provision_dma_workspace a legacy build shows the
			// kernel revision's shape (C-BIND-1).
			rev := abi.RevKernel
			if tc.profile == emit.ProfileLegacy && !slices.Contains(omit, abi.EntryProvisionDMAWorkspace.Name()) {
				rev = abi.RevLegacy
			}
			for _, n := range tc.named {
				s, _ := abi.LookupSymbol(n)
				part := fmt.Sprintf("%s (%s)", n, s.Group)
				if rev == abi.RevLegacy {
					// The legacy consumer's requirement names the upstream change behind it.
					i := slices.IndexFunc(abi.ConsumerSet(abi.ConsumerOf(rev)), func(r abi.ConsumerRequirement) bool { return r.Name == n })
					part = fmt.Sprintf("%s (%s, %s)", n, s.Group, abi.ConsumerSet(abi.ConsumerOf(rev))[i].Since)
				}
				parts = append(parts, part)
			}
			want := "onboard: " + path + ": missing required symbols: " + strings.Join(parts, ", ") + "; required by " + abi.ConsumerOf(rev).String()
			if err.Error() != want || strings.Join(names, ",") != strings.Join(tc.named, ",") {
				t.Fatalf("error\n got %q\nwant %q", err, want)
			}
			if loaded(path) {
				t.Fatal("the library stayed loaded after a refused bind")
			}
		})
	}
	t.Run("refusing/trio-absent-ok", func(t *testing.T) {
		path := emitted(t, emit.Config{Profile: emit.ProfileRefusing, Omit: kernelTrioNames})
		l := mustOpen(t, path, Options{BindKernelWhenUnsupported: true})
		if l.Profile() != abi.ProfileRefusing || l.KernelBound() {
			t.Fatalf("revision %v bound %v", l.Profile(), l.KernelBound())
		}
	})
	t.Run("tmr/hook-absent-ok", func(t *testing.T) {
		path := emitted(t, emit.Config{Profile: emit.ProfileTMR, Omit: []string{abi.EntrySimInject.Name()}})
		l := mustOpen(t, path, Options{})
		if l.HasHooks() {
			t.Fatal("hooks reported with simabi_inject missing")
		}
		if _, ok := l.Hooks(); ok {
			t.Fatal("Hooks() ok with simabi_inject missing")
		}
	})
}

// F-2 knobs observed through onboard: a fixed status, fail-first-N of a
// fault site, prepare not writing ids, a fixed host-log status refusing the
// load (C-BIND-1).
func TestF2KnobsThroughOnboard(t *testing.T) {
	lockThread(t)
	img := emittest.Image("noop")
	cfg := defaultConfig()
	kernelCtx := func(t *testing.T, l *Library) abi.Ctx {
		h, _ := l.Hooks()
		h.SimSetCurrentDevice(0)
		c := l.CreateDeviceContext()
		if st := l.KernelModeInit(c, 0, nil, 0, nil, 0, nil, 0, abi.Ptr(cfg), 1); st != abi.OK {
			t.Fatalf("kernel init: %v", st)
		}
		return c
	}
	t.Run("status", func(t *testing.T) {
		path := emitted(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Status: map[string]int32{abi.EntryFinalizeDevice.Name(): -1234}}})
		l := mustOpen(t, path, Options{})
		c := l.CreateDeviceContext()
		if st := l.FinalizeDevice(c); st != -1234 {
			t.Fatalf("finalize = %v, want the fixed -1234", st)
		}
	})
	t.Run("fail-first", func(t *testing.T) {
		path := emitted(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Fail: map[int32]emit.Fault{abi.SitePrepareCopy: {Count: 2, Code: -1200}}}})
		l := mustOpen(t, path, Options{})
		c := kernelCtx(t, l)
		id := new(int32)
		for i, want := range []struct {
			st abi.Status
			id int32
		}{{-1200, -1}, {-1200, -1}, {abi.OK, 0}, {abi.OK, 1}} {
			if st := l.KernelModePrepareCallable(c, abi.Ptr(img), uintptr(len(img)), id); st != want.st || *id != want.id {
				t.Fatalf("prepare %d: %v id %d, want %v id %d", i, st, *id, want.st, want.id)
			}
		}
		if st := l.FinalizeDevice(c); st != abi.OK {
			t.Fatal(st)
		}
		l.DestroyDeviceContext(c)
	})
	t.Run("prepare-writes-no-id", func(t *testing.T) {
		path := emitted(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{PrepareNoID: true}})
		l := mustOpen(t, path, Options{})
		c := kernelCtx(t, l)
		id := new(int32)
		if st := l.KernelModePrepareCallable(c, abi.Ptr(img), uintptr(len(img)), id); st != abi.OK || *id != -1 {
			t.Fatalf("prepare: %v id %d, want OK with -1 left", st, *id)
		}
		l.FinalizeDevice(c)
		l.DestroyDeviceContext(c)
	})
	t.Run("fatal-device", func(t *testing.T) {
		path := emitted(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{FatalDevice: true}})
		l := mustOpen(t, path, Options{})
		c := kernelCtx(t, l)
		id := new(int32)
		l.KernelModePrepareCallable(c, abi.Ptr(img), uintptr(len(img)), id)
		if st := l.FinalizeDevice(c); st != abi.InvalidState {
			t.Fatalf("finalize of a fatal device: %v, want INVALID_STATE (quarantined)", st)
		}
	})
	t.Run("host-log-refused", func(t *testing.T) {
		path := emitted(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Status: map[string]int32{abi.EntryHostLogBindState.Name(): int32(abi.InvalidArgument)}}})
		_, err := Open(path, Options{})
		var le *LoadError
		if !errors.As(err, &le) || le.Status != abi.InvalidArgument || !strings.Contains(err.Error(), path) {
			t.Fatalf("Open: %v", err)
		}
		if loaded(path) {
			t.Fatal("library stayed loaded")
		}
	})
	t.Run("contract-checked", func(t *testing.T) {
		// C-BIND-2 on the emitted runtime: its contract passes V-CONTRACT.
		l := mustOpen(t, emitted(t, tmrConfig()), Options{})
		p := l.GetPipelineContract()
		c, err := abi.DecodePipelineContract(bytes.Clone(unsafeBytes(p, abi.PipelineContractSize)))
		if err != nil || c != l.Contract() {
			t.Fatalf("contract %+v %v", c, err)
		}
	})
}

// f3ChildEnv makes the test binary a child that violates an invariant of the
// emitted runtime (F-3).
const f3ChildEnv = "ONBOARD_F3_CHILD"

// TestF3InvariantAbortInChild: the emitted runtime's invariant aborts,
// observed in a child process (the test binary re-executed): a non-zero exit
// and a message naming the invariant.
func TestF3InvariantAbortInChild(t *testing.T) {
	if mode := os.Getenv(f3ChildEnv); mode != "" {
		f3Child(mode)
		return
	}
	cases := []struct {
		mode      string
		cfg       emit.Config
		invariant string
	}{
		{"invalid-handle", tmrConfig(), "[F-3 invalid-handle]"},
		{"freed-handle", tmrConfig(), "[F-3 invalid-handle]"},
		{"supported-after-program-init", emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Strict: true}}, "[F-3 supported-after-program-init]"},
		{"context-leak", emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{Strict: true}}, "[F-3 context-leak]"},
		{"must-not-call", emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{MustNotCall: []string{abi.EntryRun.Name()}}}, "[F-3 must-not-call]"},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			path := emitted(t, tc.cfg)
			cmd := exec.Command(os.Args[0], "-test.run=^TestF3InvariantAbortInChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), f3ChildEnv+"="+tc.mode+"="+path)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Success() {
				t.Fatalf("child exited with %v, want a non-zero exit\n%s", err, out.String())
			}
			if !strings.Contains(out.String(), tc.invariant) {
				t.Fatalf("child output does not name %s:\n%s", tc.invariant, out.String())
			}
			if strings.Contains(out.String(), "child survived") {
				t.Fatalf("child survived the violation:\n%s", out.String())
			}
		})
	}
}

// f3Child runs one violation and reports survival (which the parent treats
// as a failure).
func f3Child(spec string) {
	mode, path, _ := strings.Cut(spec, "=")
	l, err := Open(path, Options{})
	if err != nil {
		fmt.Println("child: open:", err)
		os.Exit(3)
	}
	switch mode {
	case "invalid-handle":
		l.FinalizeDevice(abi.Ctx(0xdead0))
	case "freed-handle":
		c := l.CreateDeviceContext()
		l.DestroyDeviceContext(c)
		l.KernelModeSupported(c)
	case "supported-after-program-init":
		c := l.CreateDeviceContext()
		l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0)
		l.KernelModeSupported(c)
	case "context-leak":
		l.CreateDeviceContext()
		_ = l.Close()
		os.Exit(0) // the process exit is the last chance for the check
	case "must-not-call":
		l.Run(1, 0, 0, nil, nil, nil)
	}
	fmt.Println("child survived", mode)
	os.Exit(0)
}

// TestF4MutantsBuildAndLoad (F-4): every mutant builds and loads through onboard
// (the conformance suite elsewhere proves each is detected), except that a
// mutant of V-CONTRACT is refused at load, naming the rule (C-BIND-2). With
// -short only the first mutant of each rule group is built (a cold build
// cache compiles each one), and under the race detector only those and the
// V-CONTRACT ones load: the concurrent Opens are raced the same, emitting
// each mutant's source took 25 CPU-s there (a tenth without), and every
// mutant loads through onboard in conformance/suite's
// TestEmittedMutantsKilled and abicheck mutants (TestMutantsCommand).
func TestF4MutantsBuildAndLoad(t *testing.T) {
	groups := map[string]bool{}
	for _, m := range emit.Mutants() {
		if (testing.Short() || raceEnabled) && groups[m.Group] && m.Rule != "V-CONTRACT" {
			continue
		}
		groups[m.Group] = true
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			path := emitted(t, emit.Config{Profile: m.Profile, Mutant: m.Name})
			l, err := Open(path, Options{})
			if m.Rule == "V-CONTRACT" {
				if err == nil || !strings.Contains(err.Error(), "C-BIND-2") || !strings.Contains(err.Error(), "V-CONTRACT") {
					t.Fatalf("mutant %s (%s): Open returned %v, want the C-BIND-2 refusal", m.Name, m.Clause, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("mutant %s (%s): %v", m.Name, m.Rule, err)
			}
			defer l.Close()
			if l.Profile() != m.Profile || !l.HasHooks() {
				t.Fatalf("mutant %s: revision %v hooks %v", m.Name, l.Profile(), l.HasHooks())
			}
			c := l.CreateDeviceContext()
			if c == 0 {
				t.Fatalf("mutant %s: create returned NULL", m.Name)
			}
			l.DestroyDeviceContext(c)
		})
	}
}

// C-BIND-1 legacy: simpler_init is called with 9 arguments and SDMA is
// provisioned by simpler_provision_dma_workspace after a successful init; a
// provisioning failure finalizes the context, which a later simpler_init can
// initialize again (E-PINIT); an inconsistent warm-up span is refused before
// any call.
func TestLegacySimplerInitProvision(t *testing.T) {
	lockThread(t)
	warm := []byte("warm-up binary")
	t.Run("provisioned", func(t *testing.T) {
		l := mustOpen(t, emitted(t, emit.Config{Profile: emit.ProfileLegacy}), Options{})
		c := l.CreateDeviceContext()
		if st := l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 1, abi.Ptr(warm), uint64(len(warm))); st != abi.OK {
			t.Fatalf("legacy init with SDMA: %v", st)
		}
		if st := l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0); l.Translate(st) != abi.Internal {
			t.Fatalf("second legacy init: %v (translated %v), want the generic -1", st, l.Translate(st))
		}
		if st := l.FinalizeDevice(c); st != abi.OK {
			t.Fatal(st)
		}
		if st := l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 0, abi.Ptr(warm), 0); st != abi.LegacyGeneric {
			t.Fatalf("inconsistent warm-up span: %v, want -1", st)
		}
		if st := l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0); st != abi.OK {
			t.Fatalf("init after a refused span: %v", st)
		}
		l.FinalizeDevice(c)
		l.DestroyDeviceContext(c)
	})
	t.Run("provision-fails", func(t *testing.T) {
		cfg := emit.Config{Profile: emit.ProfileLegacy, Knobs: emit.Knobs{Status: map[string]int32{abi.EntryProvisionDMAWorkspace.Name(): -2}}}
		l := mustOpen(t, emitted(t, cfg), Options{})
		c := l.CreateDeviceContext()
		if st := l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 1, nil, 0); st != abi.LegacyUnsupported || l.Translate(st) != abi.Unsupported {
			t.Fatalf("legacy init with a failing provision: %v", st)
		}
		// The context was finalized: program-latched and unattached.
		if st := l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0); st != abi.OK {
			t.Fatalf("init after a failed provision: %v", st)
		}
		l.FinalizeDevice(c)
		l.DestroyDeviceContext(c)
	})
}
