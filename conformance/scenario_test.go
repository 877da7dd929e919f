package conformance

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// The scenarios: a fixed list of hand-written call sequences, each run on
// two Targets (sim in-process, the emitted .so through onboard); every call
// is recorded as a step (call, status, out value, committed memory of the
// context it named) and the two traces must be identical. Steps record what
// happened, not what a rule expects (the model predicts results elsewhere),
// so a divergence is a bug in one of the backends or in onboard.

// TestScenarios runs the fixed scenario list on sim in-process and on a
// fresh copy of the emitted runtime through onboard, for the tmr and
// refusing profiles, and requires identical traces (F-1: the emitted runtime
// implements the rules call for call as sim does).
func TestScenarios(t *testing.T) {
	for _, p := range []struct {
		sim  sim.Profile
		emit emit.Profile
	}{{sim.TMR, emit.ProfileTMR}, {sim.Refusing, emit.ProfileRefusing}} {
		f := emittedFactory(t, emittedBuild(t, emit.Config{Profile: p.emit}))
		for _, sc := range scenarios() {
			if p.sim == sim.Refusing && !sc.refusing {
				continue
			}
			t.Run(string(p.sim)+"/"+sc.name, func(t *testing.T) {
				want := runScenario(t, "sim:"+string(p.sim), SimTarget(p.sim), sc)
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

// scenarioStep is one recorded call.
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
	target Target
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
func newRec(tb testing.TB, name string, t Target) *rec {
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
func (r *rec) memory() (DeviceMemory, bool) {
	if m, ok := r.target.(MemoryTarget); ok {
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

// destroyRefused calls destroy on a context the scenario expects destroy to
// refuse (E-DESTROY), so it stays usable. Should a backend free it anyway,
// the emitted runtime aborts on the next use with an F-3 message naming the
// handle.
func (r *rec) destroyRefused(name string) {
	r.rt.DestroyDeviceContext(r.c(name))
	r.add("destroy "+name, name, abi.OK, 0)
}

func (r *rec) supported(name string) {
	r.add("supported "+name, name, abi.OK, int64(r.rt.KernelModeSupported(r.c(name))))
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

// kinitRaw calls kernel init with an explicit (possibly inconsistent) span.
func (r *rec) kinitRaw(name string, label string, aicpu unsafe.Pointer, aicpuSize uintptr, cfg []byte) {
	st := r.rt.KernelModeInit(r.c(name), 0, aicpu, aicpuSize, nil, 0, nil, 0, abi.Ptr(cfg), 1)
	r.add("kinit "+name+" "+label, name, st, 0)
}

func (r *rec) kinit(name string, dev int32) { r.kinitWith(name, dev, defaultConfig(), 1) }

func (r *rec) prepare(name string, img []byte) {
	id := new(int32)
	*id = 12345
	st := r.rt.KernelModePrepareCallable(r.c(name), abi.Ptr(img), uintptr(len(img)), id)
	r.add(fmt.Sprintf("prepare %s size=%d", name, len(img)), name, st, int64(*id))
}

// prepareRaw calls prepare with explicit arguments.
func (r *rec) prepareRaw(name, label string, p unsafe.Pointer, size uintptr, withOut bool) {
	id := new(int32)
	*id = 12345
	var out *int32
	if withOut {
		out = id
	}
	st := r.rt.KernelModePrepareCallable(r.c(name), p, size, out)
	r.add("prepare "+name+" "+label, name, st, int64(*id))
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

func (r *rec) inject(site, count, code int32) {
	r.add(fmt.Sprintf("hook inject site=%d count=%d code=%d", site, count, code), "", r.hooks.SimInject(site, count, code), 0)
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

func configWith(f func(c *abi.CallConfig)) []byte {
	var c abi.CallConfig
	f(&c)
	return c.Bytes()
}

func checksum(b []byte) int64 {
	h := fnv.New64a()
	h.Write(b)
	return int64(h.Sum64() & math.MaxInt64)
}

const (
	streamA abi.Stream = 0x5A00
	streamB abi.Stream = 0x5B00
	code1   int32      = -1200
	code2   int32      = -1300
)

// scenario is one fixed call sequence.
type scenario struct {
	name string
	// refusing marks scenarios that also run on the refusing profile.
	refusing bool
	run      func(r *rec)
}

// scenarios is the fixed list.
func scenarios() []scenario {
	return []scenario{
		{"supported-null-fresh", true, func(r *rec) {
			r.supported("NULL")
			r.create("c1")
			r.supported("c1")
			r.destroy("c1")
		}},
		{"supported-initialized", true, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.kinit("c1", 0)
			r.supported("c1")
			img := emittest.Image("noop")
			r.prepare("c1", img)
			r.supported("c1")
			r.finalize("c1")
			r.supported("c1")
			r.destroy("c1")
		}},
		{"v-init", true, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			cfg := defaultConfig()
			r.kinitWith("NULL", 0, cfg, 1)
			r.kinitWith("c1", 0, nil, 1)
			r.kinitWith("c1", -1, cfg, 1)
			r.kinitWith("c1", 0, cfg, 0)
			half := []byte{1, 2, 3}
			r.kinitRaw("c1", "ptr-without-size", abi.Ptr(half), 0, cfg)
			r.kinitRaw("c1", "size-without-ptr", nil, 16, cfg)
			r.keep = append(r.keep, half)
			// The refusals left the context unlatched (L-5): program init works.
			r.pinit("c1", 0)
			r.finalize("c1")
			r.destroy("c1")
		}},
		{"v-cfg", true, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			for _, cfg := range [][]byte{
				configWith(func(c *abi.CallConfig) { c.AicpuThreadNum = 1 }),
				configWith(func(c *abi.CallConfig) { c.AicpuThreadNum = 5 }),
				configWith(func(c *abi.CallConfig) { c.EnablePMU = 1 }),
				configWith(func(c *abi.CallConfig) { c.EnableDumpArgs = 1 }),
				configWith(func(c *abi.CallConfig) { c.CaptureClockAnchors = 1 }),
				configWith(func(c *abi.CallConfig) { c.EnableChipSwimlane = 5 }),
				configWith(func(c *abi.CallConfig) { c.EnableDepGen = 1 }),
				configWith(func(c *abi.CallConfig) {
					for i := range c.OutputPrefix {
						c.OutputPrefix[i] = 'p'
					}
				}),
				configWith(func(c *abi.CallConfig) { c.RingTaskWindow[0] = 3 }),
				configWith(func(c *abi.CallConfig) { c.RingHeap[1] = 1000 }),
				configWith(func(c *abi.CallConfig) { c.RingDepPool[2] = 2 }),
				configWith(func(c *abi.CallConfig) {
					c.AicpuThreadNum = 4
					c.RingTaskWindow[3] = 1024
					c.RingHeap[3] = 4096
					c.RingDepPool[3] = 64
				}),
			} {
				r.kinitWith("c1", 0, cfg, 1)
			}
			r.finalize("c1")
			r.destroy("c1")
		}},
		{"v-prep-2", true, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			img := emittest.Image("noop")
			r.prepareRaw("NULL", "null-ctx", abi.Ptr(img), uintptr(len(img)), true)
			r.prepareRaw("c1", "null-callable", nil, uintptr(len(img)), true)
			r.prepareRaw("c1", "null-out", abi.Ptr(img), uintptr(len(img)), false)
			r.prepareRaw("c1", "short", abi.Ptr(img), abi.ChipCallableSize-1, true)
			mis := abi.AlignedBytes(len(img)+8, 64)[8:]
			copy(mis, img)
			r.prepareRaw("c1", "misaligned", abi.Ptr(mis), uintptr(len(img)), true)
			r.keep = append(r.keep, mis)
			// Not a kernel context yet: IS after the structural checks.
			r.prepare("c1", img)
			r.destroy("c1")
		}},
		{"v-launch", true, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			r.launch("NULL", 0, args, streamA)
			r.launch("c1", 0, nil, streamA)
			r.launch("c1", 0, args, 0)
			r.launch("c1", -1, args, streamA)
			r.launch("c1", abi.MaxRegisteredCallableIDs, args, streamA)
			r.launch("c1", abi.MaxRegisteredCallableIDs-1, args, streamA)
			r.destroy("c1")
		}},
		{"kernel-lifecycle", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.kinit("c1", 0)
			r.kinit("c1", 0)
			img := emittest.Image("noop")
			r.prepare("c1", img)
			r.prepare("c1", img)
			args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			r.launch("c1", 0, args, streamA)
			r.launch("c1", 1, args, streamA)
			r.sync(streamA)
			r.launch("c1", 2, args, streamA)
			r.finalize("c1")
			r.finalize("c1")
			r.prepare("c1", img)
			r.launch("c1", 0, args, streamA)
			r.kinit("c1", 0)
			r.pinit("c1", 0)
			r.destroy("c1")
		}},
		{"launch-refusals", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			img := emittest.Image("noop")
			args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			r.launch("c1", 0, args, streamA) // not a kernel context
			r.kinit("c1", 0)
			r.launch("c1", 0, args, streamA) // no prepare yet
			r.prepare("c1", img)
			r.launch("c1", 5, args, streamA) // never published
			bad := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			bad.SetCounts(1, 1)
			r.launch("c1", 0, bad, streamA)
			host := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			host.Bytes()[abi.ChipTensorSize+abi.TensorAddressSpaceOff] = byte(abi.HostSpace)
			r.launch("c1", 0, host, streamA)
			r.launch("c1", 0, args, streamA)
			r.sync(streamA)
			r.finalize("c1")
			r.destroy("c1")
		}},
		{"mode-latch", false, func(r *rec) {
			r.setDev(0)
			r.create("k")
			r.create("p")
			r.kinit("k", 0)
			r.pinit("k", 0)
			r.status("ensure_acl_ready", "k", func(c abi.Ctx) abi.Status { return r.rt.EnsureACLReady(c, 0) })
			r.pinit("p", 1)
			r.kinit("p", 1)
			r.pinit("p", 1)
			r.finalize("p")
			r.pinit("p", 1)
			r.finalize("p")
			r.destroy("p")
			r.finalize("k")
			r.destroy("k")
		}},
		{"claim", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.create("c2")
			r.kinit("c1", 0)
			r.kinit("c2", 0)
			r.destroyRefused("c2") // init failed, no finalize yet
			r.create("c3")
			r.finalize("c1")
			r.kinit("c3", 0)
			r.finalize("c3")
			r.destroy("c3")
			r.destroy("c1")
			r.finalize("c2")
			r.destroy("c2")
		}},
		{"device-d2", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.kinit("c1", 0)
			img := emittest.Image("noop")
			args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			r.prepare("c1", img)
			r.setDev(1)
			r.curDev()
			r.prepare("c1", img)
			r.launch("c1", 0, args, streamA)
			r.finalize("c1")
			r.setDev(-1)
			r.curDev()
			r.launch("c1", 0, args, streamA)
			r.setDev(0)
			r.launch("c1", 0, args, streamA)
			r.prepare("c1", img)
			r.sync(streamA)
			r.finalize("c1")
			r.destroy("c1")
		}},
		{"no-device-init", false, func(r *rec) {
			r.setDev(-1)
			r.create("c1")
			r.kinit("c1", 0)
			r.kinit("c1", 0)
			r.pinit("c1", 0)
			r.destroyRefused("c1") // kernel-latched, not finalized
			r.create("c2")
			r.setDev(2)
			r.kinit("c2", 2) // the failed init released its claim
			r.setDev(0)
			r.finalize("c1")
			r.destroy("c1")
			r.setDev(2)
			r.finalize("c2")
			r.destroy("c2")
		}},
		{"null-ctx-s3", true, func(r *rec) {
			rt := r.rt
			r.status("simpler_init", "NULL", func(c abi.Ctx) abi.Status {
				return rt.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0)
			})
			r.status("finalize_device", "NULL", rt.FinalizeDevice)
			r.value("device_malloc", "NULL", func(c abi.Ctx) int64 { return int64(rt.DeviceMalloc(c, 64)) })
			r.value("committed", "NULL", func(c abi.Ctx) int64 { return int64(rt.CommittedDeviceMemory(c)) })
			info := make([]byte, abi.DeviceMemoryInfoSize)
			host := make([]byte, 64)
			r.status("device_memory_info", "NULL", func(c abi.Ctx) abi.Status { return rt.DeviceMemoryInfo(c, abi.Ptr(info)) })
			r.status("copy_to_device", "NULL", func(c abi.Ctx) abi.Status { return rt.CopyToDevice(c, 0x1000, abi.Ptr(host), 64) })
			r.status("copy_from_device", "NULL", func(c abi.Ctx) abi.Status { return rt.CopyFromDevice(c, abi.Ptr(host), 0x1000, 64) })
			img := emittest.Image("noop")
			r.status("register_callable", "NULL", func(c abi.Ctx) abi.Status { return rt.RegisterCallable(c, 0, abi.Ptr(img)) })
			r.status("unregister_callable", "NULL", func(c abi.Ctx) abi.Status { return rt.UnregisterCallable(c, 0) })
			store := abi.AlignedBytes(256, 64)
			rh := abi.RunHandle(uintptr(abi.Ptr(store)))
			args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			desc := make([]byte, abi.NativeRunDescSize)
			r.status("run", "NULL", func(c abi.Ctx) abi.Status { return rt.Run(c, rh, 0, args.Pointer(), nil, abi.Ptr(desc)) })
			r.status("prepare_run", "NULL", func(c abi.Ctx) abi.Status {
				return rt.PrepareRun(c, rh, 0, args.Pointer(), nil, abi.Ptr(desc))
			})
			r.status("launch_run", "NULL", func(c abi.Ctx) abi.Status { return rt.LaunchRun(c, rh) })
			r.status("poll_run", "NULL", func(c abi.Ctx) abi.Status { return rt.PollRun(c, rh) })
			r.status("wait_run", "NULL", func(c abi.Ctx) abi.Status { return rt.WaitRun(c, rh) })
			r.status("finalize_run", "NULL", func(c abi.Ctx) abi.Status { return rt.FinalizeRun(c, rh) })
			r.value("aicpu_dlopen_count", "NULL", func(c abi.Ctx) int64 { return int64(rt.AicpuDlopenCount(c)) })
			r.value("host_dlopen_count", "NULL", func(c abi.Ctx) int64 { return int64(rt.HostDlopenCount(c)) })
			r.value("run_stream_set_create_count", "NULL", func(c abi.Ctx) int64 { return int64(rt.RunStreamSetCreateCount(c)) })
			r.value("supports_concurrent_prepare", "NULL", func(c abi.Ctx) int64 { return int64(rt.SupportsConcurrentNativePrepare(c)) })
			r.value("arena_bank_gm_heap_base", "NULL", func(c abi.Ctx) int64 { return int64(rt.ArenaBankGMHeapBase(c, 0)) })
			r.value("retained_temp_addr", "NULL", func(c abi.Ctx) int64 { return int64(rt.RetainedTempAddr(c, 0)) })
			r.status("ensure_acl_ready", "NULL", func(c abi.Ctx) abi.Status { return rt.EnsureACLReady(c, 0) })
			r.value("create_comm_stream", "NULL", func(c abi.Ctx) int64 { return int64(rt.CreateCommStream(c)) })
			r.status("destroy_comm_stream", "NULL", func(c abi.Ctx) abi.Status { return rt.DestroyCommStream(c, streamA) })
			r.destroy("NULL")
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
			r.status("host_log_bind_state(NULL)", "", func(abi.Ctx) abi.Status { return rt.HostLogBindState(nil) })
			st := make([]byte, abi.HostLogStateSize)
			_ = abi.DefaultHostLogState().Encode(st)
			r.status("host_log_bind_state(default)", "", func(abi.Ctx) abi.Status { return rt.HostLogBindState(abi.Ptr(st)) })
			r.value("pipeline_contract", "", func(abi.Ctx) int64 {
				p := rt.GetPipelineContract()
				if p == nil {
					return 0
				}
				return checksum(unsafe.Slice((*byte)(p), abi.PipelineContractSize))
			})
			r.keep = append(r.keep, info, host, img, store, args, desc, st)
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
			r.value("device_malloc(0)", "c1", func(c abi.Ctx) int64 { return int64(rt.DeviceMalloc(c, 0)) })
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
		{"program-runs", true, func(r *rec) {
			rt := r.rt
			r.create("c1")
			img := emittest.Image("noop")
			r.status("register_callable(fresh)", "c1", func(c abi.Ctx) abi.Status { return rt.RegisterCallable(c, 3, abi.Ptr(img)) })
			r.pinit("c1", 0)
			r.status("register_callable", "c1", func(c abi.Ctx) abi.Status { return rt.RegisterCallable(c, 3, abi.Ptr(img)) })
			r.status("register_callable(again)", "c1", func(c abi.Ctx) abi.Status { return rt.RegisterCallable(c, 3, abi.Ptr(img)) })
			r.status("register_callable(8192)", "c1", func(c abi.Ctx) abi.Status { return rt.RegisterCallable(c, 8192, abi.Ptr(img)) })
			r.value("aicpu_dlopen_count", "c1", func(c abi.Ctx) int64 { return int64(rt.AicpuDlopenCount(c)) })
			size := rt.GetRuntimeSize()
			align := rt.GetRuntimeAlignment()
			store := abi.AlignedBytes(int(size), int(align))
			rh := abi.RunHandle(uintptr(abi.Ptr(store)))
			args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			accepted := new(int32)
			desc := make([]byte, abi.NativeRunDescSize)
			_ = abi.NativeRunDescriptor{RunID: 1, Generation: 1, AcceptedState: uintptr(unsafe.Pointer(accepted)), AcceptedValue: 77}.Encode(desc)
			r.status("prepare_run(unregistered)", "c1", func(c abi.Ctx) abi.Status {
				return rt.PrepareRun(c, rh, 4, args.Pointer(), nil, abi.Ptr(desc))
			})
			r.status("poll_run(no run)", "c1", func(c abi.Ctx) abi.Status { return rt.PollRun(c, rh) })
			r.status("prepare_run", "c1", func(c abi.Ctx) abi.Status { return rt.PrepareRun(c, rh, 3, args.Pointer(), nil, abi.Ptr(desc)) })
			r.status("prepare_run(busy)", "c1", func(c abi.Ctx) abi.Status { return rt.PrepareRun(c, rh, 3, args.Pointer(), nil, abi.Ptr(desc)) })
			r.status("poll_run(prepared)", "c1", func(c abi.Ctx) abi.Status { return rt.PollRun(c, rh) })
			r.status("wait_run(prepared)", "c1", func(c abi.Ctx) abi.Status { return rt.WaitRun(c, rh) })
			r.status("finalize_device(outstanding)", "c1", rt.FinalizeDevice)
			r.status("unregister(outstanding)", "c1", func(c abi.Ctx) abi.Status { return rt.UnregisterCallable(c, 3) })
			r.status("launch_run", "c1", func(c abi.Ctx) abi.Status { return rt.LaunchRun(c, rh) })
			r.value("accepted_state", "", func(abi.Ctx) int64 { return int64(*accepted) })
			r.status("launch_run(again)", "c1", func(c abi.Ctx) abi.Status { return rt.LaunchRun(c, rh) })
			r.status("poll_run", "c1", func(c abi.Ctx) abi.Status { return rt.PollRun(c, rh) })
			r.status("wait_run", "c1", func(c abi.Ctx) abi.Status { return rt.WaitRun(c, rh) })
			r.status("finalize_run", "c1", func(c abi.Ctx) abi.Status { return rt.FinalizeRun(c, rh) })
			r.status("run", "c1", func(c abi.Ctx) abi.Status { return rt.Run(c, rh, 3, args.Pointer(), nil, abi.Ptr(desc)) })
			bad := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			bad.SetCounts(2, 0)
			r.status("run(count mismatch)", "c1", func(c abi.Ctx) abi.Status { return rt.Run(c, rh, 3, bad.Pointer(), nil, abi.Ptr(desc)) })
			r.status("unregister_callable", "c1", func(c abi.Ctx) abi.Status { return rt.UnregisterCallable(c, 3) })
			r.status("unregister_callable(8192)", "c1", func(c abi.Ctx) abi.Status { return rt.UnregisterCallable(c, 8192) })
			r.finalize("c1")
			r.destroy("c1")
			r.keep = append(r.keep, img, store, args, accepted, desc, bad)
		}},
		{"prog-on-kernel-e-prog", false, func(r *rec) {
			rt := r.rt
			r.setDev(0)
			r.create("c1")
			r.kinit("c1", 0)
			img := emittest.Image("noop")
			r.status("register_callable", "c1", func(c abi.Ctx) abi.Status { return rt.RegisterCallable(c, 1, abi.Ptr(img)) })
			r.value("device_malloc", "c1", func(c abi.Ctx) int64 { return int64(rt.DeviceMalloc(c, 64)) })
			r.status("device_memory_info", "c1", func(c abi.Ctx) abi.Status { return rt.DeviceMemoryInfo(c, nil) })
			r.status("copy_to_device", "c1", func(c abi.Ctx) abi.Status { return rt.CopyToDevice(c, 0, nil, 0) })
			r.finalize("c1")
			r.destroy("c1")
			r.keep = append(r.keep, img)
		}},
		{"inject-args", true, func(r *rec) {
			r.inject(0, 1, code1)
			r.inject(10, 1, code1)
			r.inject(1, -1, code1)
			r.inject(2, 1, 0)
			r.inject(6, 1, 0)
			r.inject(7, 1, 0)
			r.inject(2, 0, 0)
			r.sync(0)
			r.sync(streamA)
		}},
		{"fault-1-init-create", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.inject(abi.SiteInitCreate, 1, code1)
			r.kinit("c1", 0)
			r.kinit("c1", 0)
			r.pinit("c1", 0)
			r.destroyRefused("c1")
			r.finalize("c1")
			r.create("c2")
			r.kinit("c2", 0)
			r.finalize("c2")
			r.destroy("c2")
			r.destroy("c1")
		}},
		{"fault-9-rollback", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.inject(abi.SiteInitCreate, 1, code1)
			r.inject(abi.SiteInitRollbackFails, 1, code2)
			r.kinit("c1", 0)
			r.create("c2")
			r.kinit("c2", 0) // the claim was released
			r.finalize("c1")
			r.finalize("c1")
			r.destroy("c1")
			r.finalize("c2")
			r.destroy("c2")
		}},
		{"fault-2-prepare-copy", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.kinit("c1", 0)
			img := emittest.Image("noop")
			r.inject(abi.SitePrepareCopy, 2, code1)
			r.prepare("c1", img)
			r.prepare("c1", img)
			r.prepare("c1", img)
			r.prepare("c1", img)
			r.finalize("c1")
			r.destroy("c1")
		}},
		{"fault-3-register-poison", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.kinit("c1", 0)
			img := emittest.Image("noop")
			args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			r.prepare("c1", img)
			r.inject(abi.SitePrepareRegister, 1, code1)
			r.prepare("c1", img)
			r.prepare("c1", img)
			r.launch("c1", 0, args, streamA)
			r.finalize("c1")
			r.destroy("c1")
		}},
		{"fault-4-launch-poison", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.kinit("c1", 0)
			img := emittest.Image("noop")
			args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			r.prepare("c1", img)
			r.inject(abi.SiteLaunchEnqueue, 1, code1)
			r.launch("c1", 0, args, streamA)
			r.launch("c1", 0, args, streamA)
			r.prepare("c1", img)
			r.sync(streamA)
			r.finalize("c1")
			r.destroy("c1")
		}},
		{"fault-5-finalize-release", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.kinit("c1", 0)
			img := emittest.Image("noop")
			r.prepare("c1", img)
			r.inject(abi.SiteFinalizeRelease, 3, code1)
			r.finalize("c1")
			r.launch("c1", 0, emittest.TaskArgs(0x1000, 0x2000, 4, 1), streamA)
			r.destroyRefused("c1") // Closing
			r.finalize("c1")
			r.finalize("c1")
			r.finalize("c1")
			r.finalize("c1")
			r.destroy("c1")
		}},
		{"fault-6-quarantine", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.kinit("c1", 0)
			r.prepare("c1", emittest.Image("noop"))
			r.inject(abi.SiteFinalizeFatal, 1, 0)
			r.finalize("c1")
			r.finalize("c1")
			r.create("c2")
			r.kinit("c2", 0) // the quarantined context keeps the claim
			r.finalize("c2")
			r.destroy("c2")
		}},
		{"fault-8-async", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.kinit("c1", 0)
			img := emittest.Image("noop")
			args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			r.prepare("c1", img)
			r.inject(abi.SiteAsyncDeviceFail, 1, code1)
			r.sync(streamA) // no pending work: consumes no pass
			r.launch("c1", 0, args, streamA)
			r.launch("c1", 0, args, streamA)
			r.sync(streamA)
			r.sync(streamA)
			r.launch("c1", 0, args, streamA)
			r.sync(streamA)
			r.finalize("c1")
			r.destroy("c1")
		}},
		{"fault-7-hold-gate", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.kinit("c1", 0)
			r.inject(abi.SitePrepareHoldGate, 1, 5)
			r.prepare("c1", emittest.Image("noop"))
			r.finalize("c1")
			r.destroy("c1")
		}},
		{"stream-switch-pi", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.create("c2")
			r.kinit("c1", 0)
			r.setDev(1)
			r.kinit("c2", 1)
			r.setDev(0)
			img := emittest.Image("noop")
			args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			r.prepare("c1", img)
			r.launch("c1", 0, args, streamA)
			r.launch("c1", 0, args, streamB)
			r.launch("c1", 0, args, streamA)
			r.sync(streamA)
			r.launch("c1", 0, args, streamB)
			r.setDev(1)
			r.prepare("c2", img)
			r.launch("c2", 0, args, streamB) // another context on the same stream
			r.sync(streamB)
			r.finalize("c2")
			r.destroy("c2")
			r.setDev(0)
			r.finalize("c1")
			r.destroy("c1")
		}},
		{"ids-and-committed", false, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.create("c2")
			r.kinit("c1", 0)
			r.setDev(1)
			r.kinit("c2", 1)
			r.setDev(0)
			small := emittest.Image("noop")
			spec := abi.ChipCallableSpec{Signature: []abi.ArgDirection{abi.DirIn}, FuncName: "big", Binary: make([]byte, 3<<20)}
			big, err := spec.Build()
			if err != nil {
				panic(err)
			}
			r.keep = append(r.keep, big)
			for range 3 {
				r.prepare("c1", small)
			}
			r.prepare("c1", big)
			r.prepare("c1", small)
			broken := append(abi.AlignedBytes(0, 16), small...)
			broken = append(broken, 0) // a trailing byte: V-IMG step 6
			r.keep = append(r.keep, broken)
			r.prepareRaw("c1", "trailing-byte", abi.Ptr(broken), uintptr(len(broken)), true)
			r.prepare("c1", small)
			r.setDev(1)
			r.prepare("c2", small)
			r.finalize("c2")
			r.destroy("c2")
			r.setDev(0)
			r.finalize("c1")
			r.destroy("c1")
		}},
		{"refusing-kernel-entries", true, func(r *rec) {
			r.setDev(0)
			r.create("c1")
			r.kinit("c1", 0)
			r.prepare("c1", emittest.Image("noop"))
			r.launch("c1", 0, emittest.TaskArgs(0x1000, 0x2000, 4, 1), streamA)
			r.inject(abi.SiteInitCreate, 1, code1)
			r.pinit("c1", 0)
			r.finalize("c1")
			r.destroy("c1")
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
func runScenario(tb testing.TB, name string, t Target, sc scenario) []scenarioStep {
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
