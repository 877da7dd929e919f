package conformance_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/conformance/target/targettest"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// devCheck is the directed check of issue #32's device memory.
const devCheck = "e-destroy/refused-keeps-device-memory"

func catalogueCheck(t *testing.T, name string) *catalogue.Check {
	t.Helper()
	for _, c := range catalogue.Checks() {
		if c.Name == name {
			return &c
		}
	}
	t.Fatalf("no check %s", name)
	return nil
}

// results are the history's result texts, one per op.
func results(h conformance.History) []string {
	out := make([]string, len(h.Entries))
	for i := range h.Entries {
		out[i] = h.Entries[i].Result()
	}
	return out
}

func wantResults(t *testing.T, name string, h conformance.History, want []string) {
	t.Helper()
	if got := results(h); !slices.Equal(got, want) {
		t.Errorf("%s: results\n  %s\nwant\n  %s\nhistory:\n%s", name, strings.Join(got, "\n  "), strings.Join(want, "\n  "), h)
	}
}

func failures(fs []model.Finding) []model.Finding {
	var out []model.Finding
	for _, f := range fs {
		if f.Verdict == model.Fail {
			out = append(out, f)
		}
	}
	return out
}

// E-DESTROY, E-PROG: a destroy refused for an outstanding run leaves the
// program context's device memory as it was. Both allocations read back
// the patterns written before the destroy ("same"), committed memory reads
// the same across it, and only the finalize frees them (committed 0). sim
// and the emitted runtime answer alike, call for call.
func TestRefusedDestroyKeepsDeviceMemory_EDESTROY(t *testing.T) {
	c := catalogueCheck(t, devCheck)
	want := []string{
		"ok mem=0",                         // create c0
		"OK mem=0",                         // pinit
		"nonnull mem=up", "nonnull mem=up", // dev_alloc a0 4096, a1 100
		"OK mem=same", "OK mem=same", // dev_write a0 seed=1, a1 seed=2
		"same mem=same",              // dev_read a0
		"OK mem=same", "OK mem=same", // register, prepare_run
		"mem=same",                       // committed
		"done",                           // destroy: refused (a run is outstanding)
		"mem=same",                       // committed: E-DESTROY.3
		"same mem=same", "same mem=same", // dev_read a0, a1
		"OK mem=same", "same mem=same", // dev_write a1 seed=3, dev_read a1
		"OK mem=same",   // finalize_run
		"done mem=down", // dev_free a1
		"OK mem=0",      // finalize frees a0 (upstream device_runner.cpp:834)
		"mem=0", "done", // committed, destroy
	}
	h, fs := conformance.Run(target.SimTarget(sim.TMR), c.Ops())
	wantResults(t, "sim", h, want)
	if f := failures(fs); len(f) > 0 {
		t.Errorf("sim: %v", f)
	}
	if testing.Short() {
		return
	}
	et, release, err := targettest.EmittedFactory(t, emittest.Build(t, emit.Config{Profile: emit.ProfileTMR}))()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	h, fs = conformance.Run(et, c.Ops())
	wantResults(t, "emitted", h, want)
	if f := failures(fs); len(f) > 0 {
		t.Errorf("emitted: %v", f)
	}
}

// E-PROG: without a live program init (fresh, kernel-latched, finalized)
// device_malloc_ctx returns NULL and the copies return INVALID_STATE before
// they look at their arguments; the allocation slots stay empty, so a copy
// of one passes NULL. A finalize frees what the context held: its slot is
// empty after it, and a copy of it is refused on the finalized context.
func TestDeviceMemoryWithoutLiveInit_EPROG(t *testing.T) {
	ops := op.MustParseScript(`
create c0
dev_alloc c0 a=0 size=64
dev_write c0 a=0 seed=1
dev_read c0 a=0
create c1
setdev 0
kinit c1 dev=0 gen=1
dev_alloc c1 a=0 size=64
dev_read c1 a=0
finalize c1
pinit c0 dev=1
dev_alloc c0 a=1 size=64
dev_write c0 a=1 seed=4
finalize c0
dev_read c0 a=1
dev_write c0 a=1 seed=5
dev_alloc c0 a=1 size=8
destroy c0
destroy c1
`)
	h, fs := conformance.Run(target.SimTarget(sim.TMR), ops)
	wantResults(t, "sim", h, []string{
		"ok mem=0", "null mem=0", "INVALID_STATE mem=0", "INVALID_STATE mem=0", // fresh c0
		"ok mem=0", "OK", "OK mem=0", "null mem=0", "INVALID_STATE mem=0", "OK mem=0", // kernel c1
		"OK mem=0", "nonnull mem=up", "OK mem=same", "OK mem=0", // live c0, finalized
		"INVALID_STATE mem=0", "INVALID_STATE mem=0", "null mem=0", // finalized c0
		"done", "done",
	})
	if f := failures(fs); len(f) > 0 {
		t.Errorf("%v", f)
	}
}

// The runner calls no slot it does not know to hold an allocation of the
// op's context on a context with a live init: a read of an empty slot, a
// read of another context's allocation and a second dev_alloc into a held
// slot are skipped, and the allocation is still there after them.
func TestDeviceMemorySlotsTheRunnerSkips_EPROG(t *testing.T) {
	ops := op.MustParseScript(`
create c0
create c1
pinit c0 dev=0
pinit c1 dev=1
dev_read c0 a=2
dev_alloc c0 a=0 size=64
dev_alloc c1 a=0 size=64
dev_read c1 a=0
dev_write c0 a=0 seed=9
dev_read c0 a=0
dev_free c0 a=0
dev_read c0 a=0
`)
	h, fs := conformance.Run(target.SimTarget(sim.TMR), ops)
	wantResults(t, "sim", h, []string{"ok mem=0", "ok mem=0", "OK mem=0", "OK mem=0",
		"skipped", "nonnull mem=up", "skipped", "skipped", "OK mem=same", "same mem=same", "done mem=0", "skipped"})
	for _, i := range []int{4, 6, 7, 11} {
		if h.Entries[i].Skipped == "" {
			t.Errorf("#%d %s ran", i, h.Entries[i].Op)
		}
	}
	if f := failures(fs); len(f) > 0 {
		t.Errorf("%v", f)
	}
}

// The probes of a refused destroy of a program context holding
// allocations read every one back and take its outstanding run on (E-DESTROY:
// the context behaves as though destroy had never been called).
func TestRefusedDestroyProbesReadDeviceMemory_EDESTROY(t *testing.T) {
	c := catalogueCheck(t, devCheck)
	caps := conformance.CapsOf(target.SimTarget(sim.TMR))
	var found bool
	for _, pc := range conformance.ProbeCases(c, model.ProfileTMR, caps) {
		if pc.Refused.Kind != op.KindDestroy {
			continue
		}
		found = true
		got := op.FormatOps(pc.Ops[pc.At+1:])
		want := "committed c0\ndev_read c0 a=0\ndev_read c0 a=1\nlaunch_run c0 st=0\nwait_run c0 st=0\n" +
			"pinit c0 dev=7\nsetdev 7\nkinit c0 dev=7 gen=97\n" // the attachment, then the latch
		if got != want {
			t.Errorf("%s probes:\n%swant\n%s", pc.Name, got, want)
		}
		h, fs := conformance.Run(target.SimTarget(sim.TMR), pc.Ops)
		if f := failures(fs); len(f) > 0 {
			t.Errorf("%s on sim: %v\n%s", pc.Name, f, h)
		}
	}
	if !found {
		t.Errorf("no probe case after the refused destroy of %s", devCheck)
	}
}

// The directed checks of E-PROG.30-34 and what each call answers, on sim
// and on the emitted runtime alike (tmr; legacy answers -1, read as
// INTERNAL, where tmr answers INVALID_ARGUMENT).
var devArgumentResults = map[string][]string{
	"e-prog/copy-past-end": {"ok mem=0", "OK mem=0", "nonnull mem=up", "nonnull mem=up", "OK mem=same", "OK mem=same", "mem=same",
		"IA mem=same", "same mem=same", // off=0 len=65 (E-PROG.30), then a0 as it was
		"IA mem=same", "same mem=same", // off=56 len=72
		"IA mem=same", "same mem=same", // a1 off=8 len=huge
		"IA mem=same", // a1 off=100 len=8: from the end
		"IA mem=same", // cross=1
		"same mem=same", "same mem=same",
		"IA mem=same", "IA mem=same", "IA mem=same", // the reads past the end
		"same mem=same", "same mem=same", // inside: ending at the end, the whole by its span
		"OK mem=same", "same mem=same", // a1's own pattern over [90,100)
		"mem=same", "done mem=down", "done mem=0", "OK mem=0", "done"},
	"e-prog/copy-zero-bytes": {"ok mem=0", "OK mem=0", "nonnull mem=up", "OK mem=same",
		"OK mem=same", "OK mem=same", "read mem=same", "read mem=same", // 0 bytes (E-PROG.31)
		"same mem=same", "done mem=0", "OK mem=0", "done"},
	"e-prog/free-not-an-allocation": {"ok mem=0", "ok mem=0", "OK mem=0", "OK mem=0",
		"nonnull mem=up", "nonnull mem=up", "nonnull mem=up", "OK mem=same", "OK mem=same", "done mem=down", "mem=same", "mem=same",
		"done mem=same", "same mem=same", // at=8 (E-PROG.32)
		"done mem=same", "done mem=same", "done mem=same", "done mem=same", // at=63, unknown, freed, foreign
		"mem=same", "same mem=same", "same mem=same",
		"done mem=0", "done mem=0", "OK mem=0", "OK mem=0", "done", "done"},
	"e-prog/malloc-zero": {"ok mem=0", "OK mem=0", "mem=0",
		"nonnull mem=0", "read mem=0", "OK mem=0", "done mem=0", // E-PROG.33
		"OK mem=0", "done"},
	"e-prog/malloc-huge": {"ok mem=0", "OK mem=0", "mem=0",
		"null mem=0", // E-PROG.34
		"nonnull mem=up", "done mem=0", "OK mem=0", "done"},
}

// E-PROG.30-34: sim and the emitted runtimes (tmr, legacy) answer every
// argument of the device memory entries alike, call for call, and the
// model finds nothing.
func TestDeviceMemoryArguments_EPROG(t *testing.T) {
	type build struct {
		name string
		t    func(t *testing.T) (conformance.Target, func())
		ia   string
		p    model.Profile
	}
	emitted := func(p emit.Profile) func(t *testing.T) (conformance.Target, func()) {
		return func(t *testing.T) (conformance.Target, func()) {
			et, release, err := targettest.EmittedFactory(t, emittest.Build(t, emit.Config{Profile: p}))()
			if err != nil {
				t.Fatal(err)
			}
			return et, release
		}
	}
	builds := []build{{"sim", func(*testing.T) (conformance.Target, func()) { return target.SimTarget(sim.TMR), func() {} }, "INVALID_ARGUMENT", model.ProfileTMR}}
	if !testing.Short() {
		builds = append(builds, build{"emitted-tmr", emitted(emit.ProfileTMR), "INVALID_ARGUMENT", model.ProfileTMR},
			build{"emitted-legacy", emitted(emit.ProfileLegacy), "INTERNAL", model.ProfileLegacy})
	}
	for _, b := range builds {
		t.Run(b.name, func(t *testing.T) {
			tg, release := b.t(t)
			defer release()
			for name, want := range devArgumentResults {
				want = slices.Clone(want)
				for i := range want {
					want[i] = strings.Replace(want[i], "IA ", b.ia+" ", 1)
				}
				r := conformance.NewRunner(tg, conformance.Options{Profile: &b.p})
				res := r.Run(catalogueCheck(t, name).Ops())
				r.Close()
				h, fs := res.History, res.Findings
				wantResults(t, name, h, want)
				if f := failures(fs); len(f) > 0 {
					t.Errorf("%s: %v", name, f)
				}
			}
		})
	}
}

// E-PROG.30: after each refused span the probes read every allocation of
// the context back (and the registry takes a callable), so a refusal that
// wrote part of its span is seen even where the check reads nothing.
func TestSpanRefusalProbesReadEveryAllocation_EPROG(t *testing.T) {
	c := catalogueCheck(t, "e-prog/copy-past-end")
	caps := conformance.CapsOf(target.SimTarget(sim.TMR))
	var n int
	for _, pc := range conformance.ProbeCases(c, model.ProfileTMR, caps) {
		n++
		got := op.FormatOps(pc.Ops[pc.At+1:])
		if !strings.HasPrefix(got, "committed c0\ndev_read c0 a=0\ndev_read c0 a=1\n") {
			t.Errorf("%s (after %s) probes:\n%s", pc.Name, pc.Refused, got)
		}
	}
	if n != 8 {
		t.Errorf("%d probe cases, want one per refused copy: 8", n)
	}
}

// E-PROG.30: the mutant that copies the part of a span inside the
// allocation before it refuses answers the expected IA; the read after it
// finds other bytes, under E-PROG.
func TestCopyPrefixThenRefuseIsSeen_EPROG(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant")
	}
	et, release, err := targettest.EmittedFactory(t, emittest.Build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: "copy-prefix-then-refuse"}))()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	h, fs := conformance.Run(et, catalogueCheck(t, "e-prog/copy-past-end").Ops())
	if got := results(h); got[7] != "INVALID_ARGUMENT mem=same" || got[8] != "differs mem=same" {
		t.Errorf("off=0 len=65 then the read: %q, %q; want INVALID_ARGUMENT mem=same, differs mem=same\n%s", got[7], got[8], h)
	}
	f := failures(fs)
	if len(f) == 0 || f[0].Rule != model.REProg || f[0].Op.String() != "dev_read c0 a=0" {
		t.Errorf("first failure %v, want E-PROG at dev_read c0 a=0", f)
	}
}
