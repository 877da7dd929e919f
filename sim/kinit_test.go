package sim

import (
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/latch"
)

// cfgWith returns a valid config changed by f.
func cfgWith(f func(c *abi.CallConfig)) []byte {
	var c abi.CallConfig
	f(&c)
	return c.Bytes()
}

// TestKernelInitValidation is V-INIT (with V-SPAN: a span is consistent iff
// pointer and size are both zero or both nonzero) and V-CFG at kernel init
// (E-KINIT): each structural violation → IA and each config defect → its code, in every
// profile, leaving the context unlatched and usable by simpler_init (L-5).
func TestKernelInitValidation(t *testing.T) {
	lockThread(t)
	buf := make([]byte, 16)
	p := abi.Ptr(buf)
	tests := []struct {
		name string
		run  func(r *Runtime, ctx abi.Ctx) abi.Status
		want abi.Status
	}{
		{"NULL config", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.KernelModeInit(ctx, 0, nil, 0, nil, 0, nil, 0, nil, 1)
		}, iaS},
		{"device -1", func(r *Runtime, ctx abi.Ctx) abi.Status { return kinit(r, ctx, -1, configBytes(), 1) }, iaS},
		{"generation 0", func(r *Runtime, ctx abi.Ctx) abi.Status { return kinit(r, ctx, 0, configBytes(), 0) }, iaS},
		{"aicpu ptr without size", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.KernelModeInit(ctx, 0, p, 0, nil, 0, nil, 0, abi.Ptr(configBytes()), 1)
		}, iaS},
		{"aicpu size without ptr", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.KernelModeInit(ctx, 0, nil, 16, nil, 0, nil, 0, abi.Ptr(configBytes()), 1)
		}, iaS},
		{"aicore ptr without size", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.KernelModeInit(ctx, 0, nil, 0, p, 0, nil, 0, abi.Ptr(configBytes()), 1)
		}, iaS},
		{"aicore size without ptr", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.KernelModeInit(ctx, 0, nil, 0, nil, 16, nil, 0, abi.Ptr(configBytes()), 1)
		}, iaS},
		{"dispatcher ptr without size", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.KernelModeInit(ctx, 0, nil, 0, nil, 0, p, 0, abi.Ptr(configBytes()), 1)
		}, iaS},
		{"dispatcher size without ptr", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return r.KernelModeInit(ctx, 0, nil, 0, nil, 0, nil, 16, abi.Ptr(configBytes()), 1)
		}, iaS},
		{"V-CFG threads 1", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return kinit(r, ctx, 0, cfgWith(func(c *abi.CallConfig) { c.AicpuThreadNum = 1 }), 1)
		}, iaS},
		{"V-CFG threads 5", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return kinit(r, ctx, 0, cfgWith(func(c *abi.CallConfig) { c.AicpuThreadNum = 5 }), 1)
		}, iaS},
		{"V-CFG dump args", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return kinit(r, ctx, 0, cfgWith(func(c *abi.CallConfig) { c.EnableDumpArgs = 1 }), 1)
		}, unsup},
		{"V-CFG pmu", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return kinit(r, ctx, 0, cfgWith(func(c *abi.CallConfig) { c.EnablePMU = 1 }), 1)
		}, unsup},
		{"V-CFG swimlane 5", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return kinit(r, ctx, 0, cfgWith(func(c *abi.CallConfig) { c.EnableChipSwimlane = 5 }), 1)
		}, iaS},
		{"V-CFG dep gen without prefix", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return kinit(r, ctx, 0, cfgWith(func(c *abi.CallConfig) { c.EnableDepGen = 1 }), 1)
		}, iaS},
		{"V-CFG unterminated prefix", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return kinit(r, ctx, 0, cfgWith(func(c *abi.CallConfig) {
				for i := range c.OutputPrefix {
					c.OutputPrefix[i] = 'x'
				}
			}), 1)
		}, iaS},
		{"V-CFG ring window 3", func(r *Runtime, ctx abi.Ctx) abi.Status {
			return kinit(r, ctx, 0, cfgWith(func(c *abi.CallConfig) { c.RingTaskWindow[2] = 3 }), 1)
		}, iaS},
	}
	for _, prof := range []Profile{TMR, Refusing} {
		for _, tc := range tests {
			t.Run(string(prof)+"/"+tc.name, func(t *testing.T) {
				r := New(prof, Options{})
				setDevice(t, r, 0)
				ctx := r.CreateDeviceContext()
				want(t, tc.name, tc.run(r, ctx), tc.want)
				// L-5: refused before the latch: unlatched, and simpler_init still works.
				wantState(t, r, ctx, ContextState{Mode: latch.Unlatched, Phase: latch.New, DeviceID: -1},
					"Mode", "Phase", "InitFailed", "DeviceID", "ClaimHeld")
				if _, held := r.ClaimHolder(0); held {
					t.Fatal("a refused init holds the device claim")
				}
				want(t, "simpler_init after a refused kernel init", r.SimplerInit(ctx, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0), okS)
			})
		}
	}
}

// TestKernelInitPrecedence sets up two simultaneous defects and checks which
// one E-KINIT reports first: V-INIT → V-CFG → capability → latched or not
// New → claim → borrowed device (D-2) → creation.
func TestKernelInitPrecedence(t *testing.T) {
	lockThread(t)
	pmu := cfgWith(func(c *abi.CallConfig) { c.EnablePMU = 1 })
	tests := []struct {
		name    string
		profile Profile
		setup   func(t *testing.T, r *Runtime, ctx abi.Ctx)
		run     func(r *Runtime, ctx abi.Ctx) abi.Status
		want    abi.Status
		// check runs afterwards
		check func(t *testing.T, r *Runtime, ctx abi.Ctx)
	}{
		{name: "V-INIT beats V-CFG", profile: TMR,
			run:  func(r *Runtime, ctx abi.Ctx) abi.Status { return kinit(r, ctx, 0, pmu, 0) },
			want: iaS},
		{name: "V-CFG threads beats V-CFG diagnostics", profile: TMR,
			run: func(r *Runtime, ctx abi.Ctx) abi.Status {
				return kinit(r, ctx, 0, cfgWith(func(c *abi.CallConfig) { c.AicpuThreadNum = 7; c.EnablePMU = 1 }), 1)
			},
			want: iaS},
		{name: "V-CFG diagnostics beats swimlane level", profile: TMR,
			run: func(r *Runtime, ctx abi.Ctx) abi.Status {
				return kinit(r, ctx, 0, cfgWith(func(c *abi.CallConfig) { c.EnableChipSwimlane = 9; c.EnableScopeStats = 1 }), 1)
			},
			want: unsup},
		{name: "V-CFG IA beats refusing UNSUPPORTED (decision)", profile: Refusing,
			run: func(r *Runtime, ctx abi.Ctx) abi.Status {
				return kinit(r, ctx, 0, cfgWith(func(c *abi.CallConfig) { c.AicpuThreadNum = 1 }), 1)
			},
			want: iaS},
		{name: "refusing UNSUPPORTED beats already latched", profile: Refusing,
			setup: func(t *testing.T, r *Runtime, ctx abi.Ctx) {
				want(t, "ensure_acl_ready", r.EnsureACLReady(ctx, 0), okS)
			},
			run:  func(r *Runtime, ctx abi.Ctx) abi.Status { return kinit(r, ctx, 0, configBytes(), 1) },
			want: unsup,
			check: func(t *testing.T, r *Runtime, ctx abi.Ctx) {
				wantState(t, r, ctx, ContextState{Mode: latch.Program}, "Mode", "InitFailed")
			}},
		{name: "latched program beats device mismatch", profile: TMR,
			setup: func(t *testing.T, r *Runtime, ctx abi.Ctx) {
				want(t, "ensure_acl_ready", r.EnsureACLReady(ctx, 1), okS) // device 1 now current
			},
			run:  func(r *Runtime, ctx abi.Ctx) abi.Status { return kinit(r, ctx, 0, configBytes(), 1) },
			want: isS,
			check: func(t *testing.T, r *Runtime, ctx abi.Ctx) {
				wantState(t, r, ctx, ContextState{Mode: latch.Program, Phase: latch.New}, "Mode", "Phase", "InitFailed", "ClaimHeld")
			}},
		{name: "claim beats device mismatch", profile: TMR,
			setup: func(t *testing.T, r *Runtime, ctx abi.Ctx) {
				kernelCtx(t, r, 0) // holds device 0
				setDevice(t, r, 1)
			},
			run:  func(r *Runtime, ctx abi.Ctx) abi.Status { return kinit(r, ctx, 0, configBytes(), 1) },
			want: isS,
			check: func(t *testing.T, r *Runtime, ctx abi.Ctx) {
				if h, _ := r.ClaimHolder(0); h == ctx {
					t.Fatal("the second claimant holds the claim")
				}
				wantState(t, r, ctx, ContextState{Mode: latch.Kernel, Phase: latch.New, InitFailed: true, DeviceID: 0},
					"Mode", "Phase", "InitFailed", "DeviceID", "ClaimHeld")
			}},
		{name: "device mismatch beats resource creation failure", profile: TMR,
			setup: func(t *testing.T, r *Runtime, ctx abi.Ctx) {
				want(t, "inject site 1", r.SimInject(abi.SiteInitCreate, 1, -1009), okS)
				setDevice(t, r, 1)
			},
			run:  func(r *Runtime, ctx abi.Ctx) abi.Status { return kinit(r, ctx, 0, configBytes(), 1) },
			want: isS,
			check: func(t *testing.T, r *Runtime, ctx abi.Ctx) {
				if n := r.FaultsRemaining()[abi.SiteInitCreate]; n != 1 {
					t.Fatalf("site 1 has %d passes left, want 1 (not reached)", n)
				}
				wantState(t, r, ctx, ContextState{Mode: latch.Kernel, Phase: latch.New, InitFailed: true, DeviceID: 0},
					"Mode", "Phase", "InitFailed", "DeviceID", "ClaimHeld", "LiveStreams", "LiveEvents")
				if _, held := r.ClaimHolder(0); held {
					t.Fatal("E-CLAIM: a failed init kept the claim")
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := New(tc.profile, Options{})
			setDevice(t, r, 0)
			ctx := r.CreateDeviceContext()
			if tc.setup != nil {
				tc.setup(t, r, ctx)
			}
			want(t, "kernel init", tc.run(r, ctx), tc.want)
			if tc.check != nil {
				tc.check(t, r, ctx)
			}
		})
	}
}

// TestKernelInitSuccess (E-KINIT, K-2): New → Collecting with 2 streams, 5
// events, the claim, the device and generation recorded, the config copied,
// and no ACL call made (D-1).
func TestKernelInitSuccess(t *testing.T) {
	lockThread(t)
	r := newTMR(t)
	setDevice(t, r, 3)
	before := r.ACL().Counters()
	ctx := r.CreateDeviceContext()
	want(t, "init", r.KernelModeInit(ctx, 3, nil, 0, nil, 0, nil, 0, abi.Ptr(configBytes()), 77), okS)
	w := freshKernelState(3)
	w.Generation = 77
	wantState(t, r, ctx, w, append(kernelFields, "Generation", "ConfigKept")...)
	if h, ok := r.ClaimHolder(3); !ok || h != ctx {
		t.Fatalf("claim holder of device 3 = %#x, %v", h, ok)
	}
	if after := r.ACL().Counters(); after != before {
		t.Fatalf("D-1: kernel init moved ACL counters: %+v → %+v", before, after)
	}
	if got := r.CommittedDeviceMemory(ctx); got != 0 {
		t.Fatalf("M-7: committed after init = %d, want 0 (C0 is 0 in simulated builds)", got)
	}
}

// TestKernelInitConfigCopied: the config is copied at init; later changes to
// the caller's memory have no effect (V-CFG).
func TestKernelInitConfigCopied(t *testing.T) {
	lockThread(t)
	r := newTMR(t)
	setDevice(t, r, 0)
	cfg := cfgWith(func(c *abi.CallConfig) { c.AicpuThreadNum = 3; _ = c.SetOutputPrefix("/tmp/x") })
	orig := append([]byte(nil), cfg...)
	ctx := r.CreateDeviceContext()
	want(t, "init", kinit(r, ctx, 0, cfg, 1), okS)
	for i := range cfg {
		cfg[i] = 0xFF
	}
	got, ok := r.KernelConfig(ctx)
	if !ok || string(got) != string(orig) {
		t.Fatal("the kept config changed with the caller's buffer")
	}
}

// TestKernelInitStateRefusals is K-2 and K-6: a structurally valid init on a
// context that is latched, initialized, or not in New returns IS and changes
// nothing — from every phase (InitializeRejectedFromEveryNonNewPhase,
// RepeatedInitializeRejected) and after close (re-init after close is
// impossible).
func TestKernelInitStateRefusals(t *testing.T) {
	lockThread(t)
	tests := []struct {
		name  string
		setup func(t *testing.T, r *Runtime) abi.Ctx
		phase latch.Phase
	}{
		{"Collecting", func(t *testing.T, r *Runtime) abi.Ctx { return kernelCtx(t, r, 0) }, latch.Collecting},
		{"ReadyEnqueued", func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := kernelCtx(t, r, 0)
			mustPrepare(t, r, ctx, noopImage(t, 64), 0)
			return ctx
		}, latch.ReadyEnqueued},
		{"Poisoned", func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := kernelCtx(t, r, 0)
			want(t, "inject", r.SimInject(abi.SitePrepareRegister, 1, -1010), okS)
			_, st := prepare(r, ctx, noopImage(t, 64))
			want(t, "prepare", st, -1010)
			return ctx
		}, latch.Poisoned},
		{"Closing", func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := kernelCtx(t, r, 0)
			want(t, "inject", r.SimInject(abi.SiteFinalizeRelease, 1, -1011), okS)
			want(t, "finalize", r.FinalizeDevice(ctx), -1011)
			return ctx
		}, latch.Closing},
		{"Closed", func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := kernelCtx(t, r, 0)
			want(t, "finalize", r.FinalizeDevice(ctx), okS)
			return ctx
		}, latch.Closed},
		{"init failed (New)", func(t *testing.T, r *Runtime) abi.Ctx {
			ctx := r.CreateDeviceContext()
			want(t, "inject", r.SimInject(abi.SiteInitCreate, 1, -1012), okS)
			want(t, "init", kinit(r, ctx, 0, configBytes(), 1), -1012)
			return ctx
		}, latch.New},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newTMR(t)
			setDevice(t, r, 0)
			ctx := tc.setup(t, r)
			before := state(t, r, ctx)
			if before.Phase != tc.phase {
				t.Fatalf("setup reached %v, want %v", before.Phase, tc.phase)
			}
			want(t, "re-init", kinit(r, ctx, 0, configBytes(), 2), isS)
			after := state(t, r, ctx)
			if diff := diffStates(before, after); diff != "" {
				t.Fatalf("K-2: a refused init changed the context:\n%s", diff)
			}
			// L-2: simpler_init on a kernel context is refused too.
			want(t, "simpler_init", r.SimplerInit(ctx, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0), isS)
			want(t, "ensure_acl_ready", r.EnsureACLReady(ctx, 0), isS)
		})
	}
}

// TestKernelInitResourceFailure is K-7 with site 1: the creation failure is
// returned, the init rolls back to New with nothing live, "init failed" is
// set, the claim is released (E-CLAIM), and re-init returns IS (L-5); the
// context must be finalized (→ 0) before destroy (E-DESTROY decision).
// PartialInitFailureRollsBackCleanly.
func TestKernelInitResourceFailure(t *testing.T) {
	lockThread(t)
	r := newTMR(t, Fault{Site: abi.SiteInitCreate, Count: 1, Code: -1020})
	setDevice(t, r, 0)
	ctx := r.CreateDeviceContext()
	want(t, "init", kinit(r, ctx, 0, configBytes(), 1), -1020)
	wantState(t, r, ctx, ContextState{Mode: latch.Kernel, Phase: latch.New, InitFailed: true, DeviceID: 0},
		kernelFields...)
	if _, held := r.ClaimHolder(0); held {
		t.Fatal("E-CLAIM: claim kept after a failed init")
	}
	want(t, "re-init", kinit(r, ctx, 0, configBytes(), 1), isS)
	want(t, "simpler_init", r.SimplerInit(ctx, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0), isS)
	_, st := prepare(r, ctx, noopImage(t, 0))
	want(t, "prepare on an init-failed context", st, isS)
	r.DestroyDeviceContext(ctx)
	if _, ok := r.Inspect(ctx); !ok || r.RefusedDestroys() != 1 {
		t.Fatal("E-DESTROY: an init-failed context was destroyed before finalize")
	}
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
	wantState(t, r, ctx, ContextState{Mode: latch.Kernel, Phase: latch.Closed, InitFailed: true, Finalized: true, DeviceID: 0},
		kernelFields...)
	r.DestroyDeviceContext(ctx)
	if _, ok := r.Inspect(ctx); ok {
		t.Fatal("destroy after finalize did not free the context")
	}
	// A retry on a fresh context succeeds (the site is spent), and can claim
	// the device the failed init released.
	kernelCtx(t, r, 0)
}

// TestKernelInitRollbackFailure is K-7 with sites 1 and 9: init returns the
// creation failure's code, lands in Closing holding both streams and the
// four events it created, keeps the rollback's code as the teardown error,
// releases the claim (E-CLAIM), refuses dispatch, and a later finalize
// releases the rest (InitFailureWithFailedCleanupLandsInClosing).
func TestKernelInitRollbackFailure(t *testing.T) {
	lockThread(t)
	r := newTMR(t, Fault{Site: abi.SiteInitCreate, Count: 1, Code: -1021}, Fault{Site: abi.SiteInitRollbackFails, Count: 1, Code: -1022})
	setDevice(t, r, 0)
	ctx := r.CreateDeviceContext()
	want(t, "init", kinit(r, ctx, 0, configBytes(), 1), -1021)
	wantState(t, r, ctx, ContextState{Mode: latch.Kernel, Phase: latch.Closing, InitFailed: true, DeviceID: 0,
		LiveStreams: 2, LiveEvents: 4, TeardownError: -1022}, kernelFields...)
	if _, held := r.ClaimHolder(0); held {
		t.Fatal("E-CLAIM: claim kept after an init that ended in Closing")
	}
	_, st := prepare(r, ctx, noopImage(t, 0))
	want(t, "prepare in Closing", st, isS)
	want(t, "launch in Closing", launch(r, ctx, 0, emptyArgs(), streamA), isS)
	want(t, "finalize", r.FinalizeDevice(ctx), okS)
	wantState(t, r, ctx, ContextState{Mode: latch.Kernel, Phase: latch.Closed, InitFailed: true, Finalized: true, DeviceID: 0,
		TeardownError: -1022}, kernelFields...)
}

// TestDeviceClaim is E-CLAIM: one kernel context per (device, instance); a
// second claimant gets IS (init failed, still finalizable); the claim is held
// until a finalize of its holder returns 0; a poisoned, Closing or
// quarantined context keeps it; another instance has its own registry.
func TestDeviceClaim(t *testing.T) {
	lockThread(t)
	t.Run("second claimant", func(t *testing.T) {
		r := newTMR(t)
		setDevice(t, r, 0)
		first := kernelCtx(t, r, 0)
		second := r.CreateDeviceContext()
		want(t, "second init", kinit(r, second, 0, configBytes(), 1), isS)
		wantState(t, r, second, ContextState{Mode: latch.Kernel, Phase: latch.New, InitFailed: true, DeviceID: 0}, kernelFields...)
		// Another device is free.
		setDevice(t, r, 1)
		kernelCtx(t, r, 1)
		setDevice(t, r, 0)
		want(t, "finalize first", r.FinalizeDevice(first), okS)
		if _, held := r.ClaimHolder(0); held {
			t.Fatal("claim kept after finalize returned 0")
		}
		third := kernelCtx(t, r, 0)
		if h, _ := r.ClaimHolder(0); h != third {
			t.Fatal("the claim did not move to the third context")
		}
		want(t, "finalize init-failed second", r.FinalizeDevice(second), okS)
		if h, _ := r.ClaimHolder(0); h != third {
			t.Fatal("finalizing a context without the claim released someone else's")
		}
	})
	t.Run("kept while poisoned, closing, quarantined", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			faults []Fault
			act    func(t *testing.T, r *Runtime, ctx abi.Ctx)
		}{
			{"poisoned", []Fault{{abi.SitePrepareRegister, 1, -1030}}, func(t *testing.T, r *Runtime, ctx abi.Ctx) {
				_, st := prepare(r, ctx, noopImage(t, 0))
				want(t, "prepare", st, -1030)
			}},
			{"closing", []Fault{{abi.SiteFinalizeRelease, 1, -1031}}, func(t *testing.T, r *Runtime, ctx abi.Ctx) {
				want(t, "finalize", r.FinalizeDevice(ctx), -1031)
			}},
			{"quarantined", []Fault{{abi.SiteFinalizeFatal, 1, 0}}, func(t *testing.T, r *Runtime, ctx abi.Ctx) {
				want(t, "finalize", r.FinalizeDevice(ctx), isS)
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := newTMR(t, tc.faults...)
				setDevice(t, r, 0)
				ctx := kernelCtx(t, r, 0)
				tc.act(t, r, ctx)
				if h, ok := r.ClaimHolder(0); !ok || h != ctx {
					t.Fatalf("claim holder = %#x, %v; want the %s context", h, ok, tc.name)
				}
				other := r.CreateDeviceContext()
				want(t, "init of a second context", kinit(r, other, 0, configBytes(), 1), isS)
			})
		}
	})
	t.Run("per instance", func(t *testing.T) {
		r1, r2 := newTMR(t), newTMR(t)
		setDevice(t, r1, 0)
		setDevice(t, r2, 0)
		kernelCtx(t, r1, 0)
		kernelCtx(t, r2, 0)
	})
}

// TestSupportedIsABuildConstant is E-SUP: 1 for tmr, 0 for refusing, for NULL
// and for a context in every lifecycle state; asking never touches a device
// (no ACL counter moves).
func TestSupportedIsABuildConstant(t *testing.T) {
	lockThread(t)
	for _, tc := range []struct {
		p    Profile
		want int32
	}{{TMR, 1}, {Refusing, 0}} {
		t.Run(string(tc.p), func(t *testing.T) {
			r := New(tc.p, Options{})
			setDevice(t, r, 0)
			check := func(what string, ctx abi.Ctx) {
				t.Helper()
				if got := r.KernelModeSupported(ctx); got != tc.want {
					t.Fatalf("supported(%s) = %d, want %d", what, got, tc.want)
				}
			}
			check("NULL", 0)
			fresh := r.CreateDeviceContext()
			check("fresh", fresh)
			prog := r.CreateDeviceContext()
			want(t, "simpler_init", r.SimplerInit(prog, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0), okS)
			check("program", prog)
			setDevice(t, r, 0)
			before := r.ACL().Counters()
			if tc.p == TMR {
				k := kernelCtx(t, r, 0)
				check("kernel Collecting", k)
				mustPrepare(t, r, k, noopImage(t, 0), 0)
				check("kernel ReadyEnqueued", k)
				want(t, "finalize", r.FinalizeDevice(k), okS)
				check("kernel Closed", k)
			} else {
				k := r.CreateDeviceContext()
				want(t, "kernel init", kinit(r, k, 0, configBytes(), 1), unsup)
				check("after UNSUPPORTED init", k)
			}
			if after := r.ACL().Counters(); after != before {
				t.Fatalf("supported or the kernel path moved ACL counters: %+v → %+v", before, after)
			}
		})
	}
}

// diffStates reports differences between two snapshots.
func diffStates(a, b ContextState) string {
	fields := append(append([]string(nil), kernelFields...), "Blocks", "RegionCommitted", "LastStream", "Attached", "Generation")
	return cmpDiff(pick(a, fields), pick(b, fields))
}
