package conformance_test

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/target"
	"github.com/simabi/simabi/conformance/target/targettest"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// The scenarios: fixed call sequences, each run on two Targets (sim in
// process, the emitted .so through onboard), whose observations must be
// identical call for call (F-1: the emitted runtime implements the rules as
// sim does). They record what happened, not what a rule expects (the model
// predicts results elsewhere), so a divergence is a bug in one of the
// backends or in onboard.
//
// A scenario is a script of the op grammar in testdata/scenarios, one file
// per scenario (a replayable repro: abicheck -replay FILE), run by the
// engine's Runner; its "# profiles:" line names the profiles it runs on.
// The few the op grammar cannot say are Go (goScenarios): a kernel's
// numbers read back through the caller's ACL memory, ACL counter deltas,
// the program memory entries with real buffers, and the comm and sizing
// entries.

// scenarioDir holds the scripts.
const scenarioDir = "testdata/scenarios"

// scenarioScript is one script of scenarioDir.
type scenarioScript struct {
	name string
	ops  []op.Op
	// profiles are the profiles the script runs on (tmr, refusing).
	profiles []model.Profile
}

// parseScenario reads a script: ops as ParseScript reads them and one
// "# profiles: P..." line naming where it runs.
func parseScenario(name, text string) (scenarioScript, error) {
	sc := scenarioScript{name: name}
	for i, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, "# profiles:")
		if !ok {
			continue
		}
		if sc.profiles != nil {
			return sc, fmt.Errorf("%s line %d: a second profiles line", name, i+1)
		}
		for _, f := range strings.Fields(rest) {
			p := model.Profile(f)
			if p != model.ProfileTMR && p != model.ProfileRefusing {
				return sc, fmt.Errorf("%s line %d: profile %q (want tmr or refusing: the emitted runtime's profiles)", name, i+1, f)
			}
			sc.profiles = append(sc.profiles, p)
		}
		if len(sc.profiles) == 0 {
			return sc, fmt.Errorf("%s line %d: a profiles line naming no profile", name, i+1)
		}
	}
	if sc.profiles == nil {
		return sc, fmt.Errorf("%s: no \"# profiles:\" line", name)
	}
	ops, err := op.ParseScript(text)
	if err != nil {
		return sc, fmt.Errorf("%s: %w", name, err)
	}
	if len(ops) == 0 {
		return sc, fmt.Errorf("%s: no ops", name)
	}
	sc.ops = ops
	return sc, nil
}

// loadScenarios reads every script of scenarioDir.
func loadScenarios(tb testing.TB) []scenarioScript {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*.ops"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no scenario scripts in %s (%v)", scenarioDir, err)
	}
	var out []scenarioScript
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		sc, err := parseScenario(strings.TrimSuffix(filepath.Base(f), ".ops"), string(text))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, sc)
	}
	return out
}

// scriptStep is one op of a script's run: its history line (op, status,
// out, value, committed-memory direction) and everything the runner saw of
// the call, the exact committed memory of the op's context (Mem) included.
type scriptStep struct {
	Line string
	Obs  op.Observation
}

// scriptOptions: the steps are compared between two targets, whatever the
// model predicted, so a run goes on after the model lost track.
var scriptOptions = conformance.Options{ContinueAfterLoss: true}

// runScript runs ops with r on its target, reset first to the state of a
// fresh load (simabi_reset; TestControlReset_indistinguishableFromAFreshLoad
// is what makes it stand for a fresh copy): one loaded instance serves every
// script, as in Library.Reusable and the fuzz workers.
func runScript(r *conformance.Runner, ops []op.Op) ([]scriptStep, *conformance.Result, error) {
	if !r.ResetTarget() {
		return nil, nil, errors.New("the target has no simabi_reset, or it failed")
	}
	res := r.Run(ops)
	steps := make([]scriptStep, len(res.History.Entries))
	for i := range res.History.Entries {
		e := &res.History.Entries[i]
		steps[i] = scriptStep{Line: e.Line(i), Obs: e.Obs}
	}
	return steps, res, nil
}

// scenarioProfiles are the profiles both backends run.
var scenarioProfiles = []struct {
	sim  sim.Profile
	emit emit.Profile
	p    model.Profile
}{{sim.TMR, emit.ProfileTMR, model.ProfileTMR}, {sim.Refusing, emit.ProfileRefusing, model.ProfileRefusing}}

// TestScenarios runs every scenario on sim in-process and on the emitted
// runtime through onboard, for the tmr and refusing profiles, and requires
// identical steps (F-1). The scripts share one instance of each backend per
// profile, reset before each; a Go scenario gets a fresh sim and a fresh
// copy of the .so. Every op of a script must run on sim (an op the runner
// skipped would no longer check its call).
func TestScenarios(t *testing.T) {
	scripts := loadScenarios(t)
	for _, p := range scenarioProfiles {
		f := targettest.EmittedFactory(t, emittest.Build(t, emit.Config{Profile: p.emit}))
		// One instance of each backend per profile, reset before every
		// script (runScript).
		et, release, err := f()
		if err != nil {
			t.Fatal(err)
		}
		sr, er := conformance.NewRunner(target.SimTarget(p.sim), scriptOptions), conformance.NewRunner(et, scriptOptions)
		for _, sc := range scripts {
			if !slices.Contains(sc.profiles, p.p) {
				continue
			}
			t.Run(string(p.sim)+"/"+sc.name, func(t *testing.T) {
				// The sim run goes alongside the emitted one: each waits
				// mostly on its runner's thread.
				var want []scriptStep
				var res *conformance.Result
				var serr error
				done := make(chan struct{})
				go func() {
					defer close(done)
					want, res, serr = runScript(sr, sc.ops)
				}()
				got, _, err := runScript(er, sc.ops)
				<-done
				if serr != nil || err != nil {
					t.Fatalf("sim: %v; emitted: %v", serr, err)
				}
				for i, e := range res.History.Entries {
					if e.Skipped != "" {
						t.Errorf("#%d %s was not run on sim: %s", i, e.Op, e.Skipped)
					}
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("scenario %s: steps differ (-sim +emitted):\n%s", sc.name, d)
				}
			})
		}
		er.Close()
		release()
		sr.Close()
		for _, sc := range goScenarios() {
			if p.sim == sim.Refusing && !sc.refusing {
				continue
			}
			t.Run(string(p.sim)+"/"+sc.name, func(t *testing.T) {
				want := runScenario(t, "sim:"+string(p.sim), target.SimTarget(p.sim), sc)
				et, release, err := f()
				if err != nil {
					t.Fatal(err)
				}
				got := runScenario(t, "emitted:"+string(p.emit), et, sc)
				release()
				if d := diffSteps(want, got); d != "" {
					t.Errorf("scenario %s: traces differ (-sim +emitted):\n%s", sc.name, d)
				}
				if len(want) == 0 {
					t.Error("empty trace")
				}
			})
		}
	}
}

// TestScenariosSeeMutants: a scenario fails when the emitted runtime breaks
// a rule one of its calls shows: each mutant here changes what one script's
// op returns (V-SPAN.4, E-CLAIM.1, S-2.4), and TestScenarios' comparison
// names that op.
func TestScenariosSeeMutants(t *testing.T) {
	scripts := map[string]scenarioScript{}
	for _, sc := range loadScenarios(t) {
		scripts[sc.name] = sc
	}
	for _, c := range []struct {
		mutant, script, op string
	}{
		{"span-half-ok", "v-init", "kinit c1 dev=0 gen=1 aicpu=halfptr"},
		{"claim-not-released", "claim", "kinit c3 dev=0 gen=1"},
		{"hostlog-null-ok", "null-ctx-s3", "hostlog null"},
	} {
		t.Run(c.mutant, func(t *testing.T) {
			sc, ok := scripts[c.script]
			if !ok {
				t.Fatalf("no script %s", c.script)
			}
			et, release, err := targettest.EmittedFactory(t, emittest.Build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: c.mutant}))()
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			sr, er := conformance.NewRunner(target.SimTarget(sim.TMR), scriptOptions), conformance.NewRunner(et, scriptOptions)
			defer sr.Close()
			defer er.Close()
			want, _, serr := runScript(sr, sc.ops)
			got, _, err := runScript(er, sc.ops)
			if serr != nil || err != nil {
				t.Fatalf("sim: %v; emitted: %v", serr, err)
			}
			d := cmp.Diff(want, got)
			if d == "" || !strings.Contains(d, c.op+" -> ") {
				t.Errorf("mutant %s: %s's steps differ in no %q line:\n%s", c.mutant, c.script, c.op, d)
			}
		})
	}
}

// TestScenarioScriptHeader: a script names the profiles it runs on, once,
// from those the emitted runtime has; anything else is refused naming the
// file and line.
func TestScenarioScriptHeader(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []model.Profile
		err        string // a substring of the error; "" for none
	}{
		{"ok", "# profiles: tmr refusing\ncreate c0\n", []model.Profile{model.ProfileTMR, model.ProfileRefusing}, ""},
		{"tmr only", "# a comment\n# profiles: tmr\ncreate c0\n", []model.Profile{model.ProfileTMR}, ""},
		{"missing", "create c0\n", nil, `missing: no "# profiles:" line`},
		{"empty", "# profiles:\ncreate c0\n", nil, "empty line 1: a profiles line naming no profile"},
		{"legacy", "# profiles: tmr legacy\ncreate c0\n", nil, `legacy line 1: profile "legacy"`},
		{"twice", "# profiles: tmr\n# profiles: refusing\ncreate c0\n", nil, "twice line 2: a second profiles line"},
		{"bad op", "# profiles: tmr\ncreate c99\n", nil, "bad op: line 2:"},
		{"no ops", "# profiles: tmr\n", nil, "no ops: no ops"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, err := parseScenario(c.name, c.text)
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("error %v, want one containing %q", err, c.err)
			case c.err == "" && !slices.Equal(sc.profiles, c.want):
				t.Fatalf("profiles %v, want %v", sc.profiles, c.want)
			}
			if c.name == "bad op" && !errors.Is(err, op.ErrSyntax) {
				t.Errorf("error %v does not wrap ErrSyntax", err)
			}
		})
	}
}

// scenarioStep is one recorded call of a Go scenario.
type scenarioStep struct {
	Call      string
	Status    string
	Out       int64
	Committed uint64
}

// line renders step i as Diff renders an entry: "#i call -> result".
func (s scenarioStep) line(i int) string {
	return fmt.Sprintf("#%d %s -> %s out=%d committed=%d", i, s.Call, s.Status, s.Out, s.Committed)
}

// diffSteps lists the differing steps of two traces, Diff's way ("- " the
// first trace's line, "+ " the second's); "" when they agree.
func diffSteps(a, b []scenarioStep) string {
	var out strings.Builder
	for i := range max(len(a), len(b)) {
		var la, lb string
		if i < len(a) {
			la = a[i].line(i)
		}
		if i < len(b) {
			lb = b[i].line(i)
		}
		if la != lb {
			if la != "" {
				out.WriteString("- " + la + "\n")
			}
			if lb != "" {
				out.WriteString("+ " + lb + "\n")
			}
		}
	}
	return out.String()
}

// rec drives one scenario on one target and records its trace.
type rec struct {
	tb     testing.TB
	name   string
	target conformance.Target
	rt     abi.Runtime
	hooks  abi.SimHooks
	ctx    map[string]abi.Ctx
	dead   map[string]bool
	steps  []scenarioStep
	// Scenario-owned memory, kept alive for the whole run.
	keep []any
}

// newRec records on t, which must export the simulation hooks: the
// scenarios set the device, sync streams and inject faults through them.
func newRec(tb testing.TB, name string, t conformance.Target) *rec {
	tb.Helper()
	hooks, ok := t.Hooks()
	if !ok {
		tb.Fatalf("%s exports no simulation hooks", name)
	}
	return &rec{tb: tb, name: name, target: t, rt: t.Runtime(), hooks: hooks,
		ctx: map[string]abi.Ctx{"NULL": 0}, dead: map[string]bool{}}
}

// c names a context of the scenario.
func (r *rec) c(name string) abi.Ctx {
	if name == "" {
		return 0 // a call that takes no context
	}
	h, ok := r.ctx[name]
	if !ok {
		panic(fmt.Sprintf("%s: scenario names unknown context %q", r.name, name))
	}
	if r.dead[name] {
		panic(fmt.Sprintf("%s: scenario uses destroyed context %q", r.name, name))
	}
	return h
}

// add records a step; committed memory is read for a live, non-NULL ctx.
func (r *rec) add(call, ctxName string, st abi.Status, out int64) {
	s := scenarioStep{Call: call, Status: st.String(), Out: out}
	if ctxName != "" && ctxName != "NULL" && !r.dead[ctxName] {
		s.Committed = uint64(r.rt.CommittedDeviceMemory(r.ctx[ctxName]))
	}
	r.steps = append(r.steps, s)
}

// memory is the target's caller-side device memory, if it has any.
func (r *rec) memory() (conformance.DeviceMemory, bool) {
	if m, ok := r.target.(conformance.MemoryTarget); ok {
		return m.Memory()
	}
	return nil, false
}

func (r *rec) create(name string) {
	h := r.rt.CreateDeviceContext()
	r.ctx[name] = h
	out := int64(0)
	if h != 0 {
		out = 1
	}
	r.add("create "+name, name, abi.OK, out)
}

func (r *rec) destroy(name string) {
	r.rt.DestroyDeviceContext(r.c(name))
	if name != "NULL" {
		r.dead[name] = true
	}
	r.add("destroy "+name, "", abi.OK, 0)
}

func (r *rec) kinitWith(name string, dev int32, cfg []byte, gen uint64, spans ...[]byte) {
	var p [3]unsafe.Pointer
	var n [3]uintptr
	for i, s := range spans {
		p[i], n[i] = abi.Span(s)
	}
	var cp unsafe.Pointer
	if cfg != nil {
		cp = abi.Ptr(cfg)
	}
	st := r.rt.KernelModeInit(r.c(name), dev, p[0], n[0], p[1], n[1], p[2], n[2], cp, gen)
	r.add(fmt.Sprintf("kinit %s dev=%d gen=%d cfg=%v", name, dev, gen, cfg != nil), name, st, 0)
}

func (r *rec) kinit(name string, dev int32) { r.kinitWith(name, dev, defaultConfig(), 1) }

func (r *rec) prepare(name string, img []byte) {
	id := new(int32)
	*id = 12345
	st := r.rt.KernelModePrepareCallable(r.c(name), abi.Ptr(img), uintptr(len(img)), id)
	r.add(fmt.Sprintf("prepare %s size=%d", name, len(img)), name, st, int64(*id))
}

func (r *rec) launch(name string, id int32, args *abi.TaskArgs, s abi.Stream) {
	var p unsafe.Pointer
	if args != nil {
		p = args.Pointer()
	}
	st := r.rt.KernelModeLaunch(r.c(name), id, p, s)
	r.add(fmt.Sprintf("launch %s id=%d args=%v stream=%#x", name, id, args != nil, uintptr(s)), name, st, 0)
}

func (r *rec) finalize(name string) {
	r.add("finalize "+name, name, r.rt.FinalizeDevice(r.c(name)), 0)
}

func (r *rec) setDev(dev int32) {
	r.add(fmt.Sprintf("hook set_current_device %d", dev), "", r.hooks.SimSetCurrentDevice(dev), 0)
}

func (r *rec) curDev() {
	r.add("hook current_device", "", abi.OK, int64(r.hooks.SimCurrentDevice()))
}

func (r *rec) sync(s abi.Stream) {
	r.add(fmt.Sprintf("hook sync_stream %#x", uintptr(s)), "", r.hooks.SimSyncStream(s), 0)
}

// status records a status-returning call on a context.
func (r *rec) status(label, name string, f func(abi.Ctx) abi.Status) {
	r.add(label+" "+name, name, f(r.c(name)), 0)
}

// value records a value-returning call on a context.
func (r *rec) value(label, name string, f func(abi.Ctx) int64) {
	r.add(label+" "+name, name, abi.OK, f(r.c(name)))
}

func (r *rec) pinit(name string, dev int32) {
	st := r.rt.SimplerInit(r.c(name), dev, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0)
	r.add(fmt.Sprintf("simpler_init %s dev=%d", name, dev), name, st, 0)
}

// --- fixtures ---------------------------------------------------------------

func defaultConfig() []byte { return (&abi.CallConfig{}).Bytes() }

const streamA abi.Stream = 0x5A00

func checksum(b []byte) int64 {
	h := fnv.New64a()
	h.Write(b)
	return int64(h.Sum64() & math.MaxInt64)
}

// scenario is a Go scenario.
type scenario struct {
	name string
	// refusing marks scenarios that also run on the refusing profile.
	refusing bool
	run      func(r *rec)
}

// goScenarios are the scenarios the op grammar cannot say: the program
// memory entries with real buffers and their data, a kernel's numbers read
// back through the caller's ACL memory, the ACL counters' deltas over whole
// paths (the runner reads only the D-1-forbidden calls of each op), and the
// comm and sizing entries, which take no context and have no rule of their
// own.
func goScenarios() []scenario {
	return []scenario{
		{"null-ctx-s3-buffers", true, func(r *rec) {
			// S-3 with real buffers (the op grammar passes the program-side
			// entries arguments no runtime may act on), then the comm and
			// sizing entries, which take no context and have no rule of
			// their own (null-ctx-s3.ops has the rest).
			rt := r.rt
			info := make([]byte, abi.DeviceMemoryInfoSize)
			host := make([]byte, 64)
			r.status("device_memory_info", "NULL", func(c abi.Ctx) abi.Status { return rt.DeviceMemoryInfo(c, abi.Ptr(info)) })
			r.status("copy_to_device", "NULL", func(c abi.Ctx) abi.Status { return rt.CopyToDevice(c, 0x1000, abi.Ptr(host), 64) })
			r.status("copy_from_device", "NULL", func(c abi.Ctx) abi.Status { return rt.CopyFromDevice(c, abi.Ptr(host), 0x1000, 64) })
			r.status("destroy_comm_stream", "NULL", func(c abi.Ctx) abi.Status { return rt.DestroyCommStream(c, streamA) })
			r.value("runtime_size", "", func(abi.Ctx) int64 { return int64(rt.GetRuntimeSize()) })
			r.value("runtime_alignment", "", func(abi.Ctx) int64 { return int64(rt.GetRuntimeAlignment()) })
			r.value("comm_init", "", func(abi.Ctx) int64 { return int64(rt.CommInit(0, 1, streamA, nil)) })
			var u64 uint64
			var sz uintptr
			r.status("comm_alloc_windows(0)", "", func(abi.Ctx) abi.Status { return rt.CommAllocWindows(0, 64, &u64) })
			r.status("comm_get_local_window_base(0)", "", func(abi.Ctx) abi.Status { return rt.CommGetLocalWindowBase(0, &u64) })
			r.status("comm_get_window_size(0)", "", func(abi.Ctx) abi.Status { return rt.CommGetWindowSize(0, &sz) })
			r.status("comm_barrier(0)", "", func(abi.Ctx) abi.Status { return rt.CommBarrier(0) })
			r.status("comm_destroy(0)", "", func(abi.Ctx) abi.Status { return rt.CommDestroy(0) })
			r.keep = append(r.keep, info, host)
		}},
		{"program-memory", true, func(r *rec) {
			rt := r.rt
			r.create("c1")
			r.status("device_memory_info", "c1", func(c abi.Ctx) abi.Status {
				return rt.DeviceMemoryInfo(c, abi.Ptr(make([]byte, 16)))
			})
			r.value("device_malloc", "c1", func(c abi.Ctx) int64 { return int64(rt.DeviceMalloc(c, 64)) })
			r.pinit("c1", 0)
			var dev abi.DevicePtr
			r.value("device_malloc", "c1", func(c abi.Ctx) int64 {
				dev = rt.DeviceMalloc(c, 1000)
				return b2i(dev != 0)
			})
			r.value("device_malloc(0)", "c1", func(c abi.Ctx) int64 { return b2i(rt.DeviceMalloc(c, 0) != 0) })
			src := make([]byte, 1000)
			for i := range src {
				src[i] = byte(i * 7)
			}
			dst := make([]byte, 1000)
			r.status("copy_to_device", "c1", func(c abi.Ctx) abi.Status { return rt.CopyToDevice(c, dev, abi.Ptr(src), 1000) })
			r.status("copy_to_device(overrun)", "c1", func(c abi.Ctx) abi.Status { return rt.CopyToDevice(c, dev, abi.Ptr(src), 1001) })
			r.status("copy_to_device(null host)", "c1", func(c abi.Ctx) abi.Status { return rt.CopyToDevice(c, dev, nil, 10) })
			r.status("copy_to_device(size 0)", "c1", func(c abi.Ctx) abi.Status { return rt.CopyToDevice(c, 0, nil, 0) })
			var sum int64
			r.status("copy_from_device", "c1", func(c abi.Ctx) abi.Status {
				st := rt.CopyFromDevice(c, abi.Ptr(dst), dev, 1000)
				sum = checksum(dst)
				return st
			})
			r.value("checksum", "", func(abi.Ctx) int64 { return sum - checksum(src) })
			info := make([]byte, abi.DeviceMemoryInfoSize)
			r.status("device_memory_info", "c1", func(c abi.Ctx) abi.Status { return rt.DeviceMemoryInfo(c, abi.Ptr(info)) })
			r.value("device_memory_info.free", "", func(abi.Ctx) int64 { return int64(binary.LittleEndian.Uint64(info)) })
			r.value("device_memory_info.total", "", func(abi.Ctx) int64 { return int64(binary.LittleEndian.Uint64(info[8:])) })
			r.status("device_memory_info(NULL)", "c1", func(c abi.Ctx) abi.Status { return rt.DeviceMemoryInfo(c, nil) })
			r.value("device_free", "c1", func(c abi.Ctx) int64 { rt.DeviceFree(c, dev); return 0 })
			r.value("device_free(again)", "c1", func(c abi.Ctx) int64 { rt.DeviceFree(c, dev); return 0 })
			r.status("ensure_acl_ready", "c1", func(c abi.Ctx) abi.Status { return rt.EnsureACLReady(c, 1) })
			r.curDev()
			r.status("ensure_acl_ready(-1)", "c1", func(c abi.Ctx) abi.Status { return rt.EnsureACLReady(c, -1) })
			r.finalize("c1")
			r.finalize("c1")
			r.destroy("c1")
			r.keep = append(r.keep, src, dst, info)
		}},
		{"numeric-add-scalar", false, func(r *rec) {
			mem, ok := r.memory()
			if !ok {
				r.add("no caller device memory", "", abi.OK, 0)
				return
			}
			r.setDev(0)
			const n = 16
			in, _ := mem.Malloc(n * 4)
			out, _ := mem.Malloc(n * 4)
			r.add("acl malloc x2", "", abi.OK, b2i(in != 0 && out != 0))
			src := make([]byte, n*4)
			for i := range n {
				binary.LittleEndian.PutUint32(src[4*i:], math.Float32bits(float32(i)))
			}
			r.add("acl write", "", aclStatus(mem.CopyToDevice(in, src)), 0)
			r.create("c1")
			r.kinit("c1", 0)
			r.prepare("c1", emittest.Image("simabi.add_scalar_f32"))
			r.prepare("c1", emittest.Image("simabi.copy_bytes"))
			r.launch("c1", 0, emittest.TaskArgs(uint64(in), uint64(out), n, 2.5), streamA)
			r.sync(streamA)
			dst := make([]byte, n*4)
			r.add("acl read", "", aclStatus(mem.CopyFromDevice(dst, out)), 0)
			want := make([]byte, n*4)
			for i := range n {
				binary.LittleEndian.PutUint32(want[4*i:], math.Float32bits(float32(i)+2.5))
			}
			r.add("result == in + 2.5", "", abi.OK, b2i(string(dst) == string(want)))
			// A faulting kernel: out outside device memory.
			r.launch("c1", 0, emittest.TaskArgs(uint64(in), 0x10, n, 1), streamA)
			r.sync(streamA)
			r.launch("c1", 1, emittest.TaskArgs(uint64(in), uint64(out), n, 0), streamA)
			r.sync(streamA)
			r.add("acl read", "", aclStatus(mem.CopyFromDevice(dst, out)), 0)
			r.add("copy result == in", "", abi.OK, b2i(string(dst) == string(src)))
			r.finalize("c1")
			r.destroy("c1")
			r.add("acl free", "", aclStatus(mem.Free(in)), 0)
			r.add("acl free", "", aclStatus(mem.Free(out)), 0)
		}},
		{"acl-counters-kernel-path", false, func(r *rec) {
			counters := func() [len(abi.ACLCounterNames)]uint64 {
				c, _ := r.target.Counters()
				return c.Values()
			}
			if _, ok := r.target.Counters(); !ok {
				r.add("no counters", "", abi.OK, 0)
				return
			}
			before := counters()
			r.setDev(0)
			r.create("c1")
			r.kinit("c1", 0)
			r.prepare("c1", emittest.Image("noop"))
			r.launch("c1", 0, emittest.TaskArgs(0x1000, 0x2000, 4, 1), streamA)
			r.sync(streamA)
			r.finalize("c1")
			r.destroy("c1")
			after := counters()
			for i := range after {
				r.add(fmt.Sprintf("acl counter %d delta (kernel path, D-1)", i), "", abi.OK, int64(after[i]-before[i]))
			}
			r.create("p")
			r.pinit("p", 0)
			r.status("ensure_acl_ready", "p", func(c abi.Ctx) abi.Status { return r.rt.EnsureACLReady(c, 0) })
			r.finalize("p")
			r.destroy("p")
			final := counters()
			for i := range final {
				r.add(fmt.Sprintf("acl counter %d delta (program path)", i), "", abi.OK, int64(final[i]-after[i]))
			}
		}},
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// aclStatus records an ACL code as a step's status: an ACL code is no
// runtime status, so a step records only whether the ACL call failed.
func aclStatus(code int32) abi.Status {
	if code != 0 {
		return abi.Internal
	}
	return abi.OK
}

// runScenario runs sc on t in a goroutine locked to a fresh OS thread (the
// current device is per thread, D-2): the thread ends with the goroutine,
// taking its device with it.
func runScenario(tb testing.TB, name string, t conformance.Target, sc scenario) []scenarioStep {
	r := newRec(tb, name, t)
	done := make(chan any)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		defer func() { done <- recover() }()
		sc.run(r)
	}()
	if p := <-done; p != nil {
		tb.Fatalf("%s on %s: %v", sc.name, name, p)
	}
	runtime.KeepAlive(r.keep)
	return r.steps
}
