package emit

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
	"github.com/simabi/simabi/internal/scratch"
	"github.com/simabi/simabi/onboard"
)

// Consumer sessions driven through onboard, against the emitted fake
// directly or through the recorder over it: what the consumer observes is
// returned as text, so that the two can be compared (the recorder never
// changes a result), and the trace of the recorded run is compared line by
// line with the exact text docs/trace.md prescribes.

// copyInto copies files into a fresh directory and returns the copies: a
// library at a path of its own is a runtime instance of its own.
func copyInto(t testing.TB, dir string, files ...string) []string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		p := filepath.Join(dir, filepath.Base(f))
		if err := scratch.CopyFile(f, p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// freshFake is a private copy of the emitted fake of cfg (runtime and ACL);
// it returns the runtime's path.
func freshFake(t testing.TB, cfg Config) string {
	t.Helper()
	art := buildFake(t, cfg)
	dir, err := os.MkdirTemp(testWorkDir, "fake-")
	if err != nil {
		t.Fatal(err)
	}
	return copyInto(t, dir, art.RuntimePath, art.ACLPath)[0]
}

// freshRecorder is a private copy of the recorder of cfg: it reads its
// environment when it is loaded, so every test loads a copy of its own.
func freshRecorder(t testing.TB, cfg RecorderConfig) string {
	t.Helper()
	art := buildRecorder(t, cfg)
	dir, err := os.MkdirTemp(testWorkDir, "rec-")
	if err != nil {
		t.Fatal(err)
	}
	return copyInto(t, dir, art.RuntimePath)[0]
}

// onFreshThread runs f on a goroutine locked to a new OS thread that exits
// with it: no current device, and the recorder numbers it at its first call.
func onFreshThread(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		f()
	}()
	<-done
}

// recordEnv points the recorder at target and the trace at a fresh file.
func recordEnv(t *testing.T, target string) (trace string) {
	t.Helper()
	trace = filepath.Join(t.TempDir(), "trace-%p.ops")
	t.Setenv("SIMABI_RECORD_TARGET", target)
	t.Setenv("SIMABI_RECORD_FILE", trace)
	t.Setenv("SIMABI_RECORD_PRELOAD", "")
	t.Setenv("SIMABI_RECORD_IMAGE_LIMIT", "")
	return strings.ReplaceAll(trace, "%p", fmt.Sprint(os.Getpid()))
}

const sessionStream abi.Stream = 0x5A00

// kernelFixture holds the caller memory of the kernel session.
type kernelFixture struct {
	img, misaligned, short []byte
	cfg                    []byte
	args                   *abi.TaskArgs
}

func newKernelFixture(tb testing.TB) *kernelFixture {
	spec := abi.ChipCallableSpec{
		Signature: []abi.ArgDirection{abi.DirIn, abi.DirOut, abi.DirScalar},
		FuncName:  "noop",
		Binary:    []byte("orchestration"),
		Children:  []abi.ChildKernel{{FuncID: 3, Signature: []abi.ArgDirection{abi.DirIn}, Binary: []byte{1, 2, 3}}},
	}
	n, err := spec.Size()
	if err != nil {
		tb.Fatal(err)
	}
	f := &kernelFixture{img: abi.AlignedBytes(n, 64), cfg: (&abi.CallConfig{}).Bytes()}
	if err := spec.EncodeTo(f.img); err != nil {
		tb.Fatal(err)
	}
	f.misaligned = abi.AlignedBytes(n+8, 64)[8:]
	copy(f.misaligned, f.img)
	f.short = abi.AlignedBytes(100, 64)
	copy(f.short, f.img)
	f.args = abi.NewTaskArgs()
	for _, addr := range []uint64{0x1000, 0x2000} {
		tn, err := abi.ContiguousTensor(addr, abi.Float32, 4)
		if err != nil {
			tb.Fatal(err)
		}
		if err := f.args.AddTensor(tn); err != nil {
			tb.Fatal(err)
		}
	}
	if err := f.args.AddScalarFloat32(1); err != nil {
		tb.Fatal(err)
	}
	return f
}

// observed collects what a consumer sees, one line per call.
type observed []string

func (o *observed) add(format string, a ...any) { *o = append(*o, fmt.Sprintf(format, a...)) }

// kernelSession: hooks, supported, kernel init, prepares (valid, NULL,
// short, misaligned, NULL out, an injected failure), launches (valid, NULL
// args, NULL stream), sync, committed memory, finalize, destroy.
func kernelSession(l *onboard.Library, f *kernelFixture) observed {
	var o observed
	hooks, ok := l.Hooks()
	if !ok {
		o.add("no hooks")
		return o
	}
	o.add("getdev %d", hooks.SimCurrentDevice())
	o.add("setdev %d", hooks.SimSetCurrentDevice(0))
	o.add("supported(NULL) %d", l.KernelModeSupported(0))
	c := l.CreateDeviceContext()
	o.add("create non-NULL %v", c != 0)
	o.add("supported %d", l.KernelModeSupported(c))
	o.add("kinit %d", l.KernelModeInit(c, 0, nil, 0, nil, 0, nil, 0, abi.Ptr(f.cfg), 1))
	prepare := func(img []byte, n int) {
		id := int32(1234)
		st := l.KernelModePrepareCallable(c, abi.Ptr(img), uintptr(n), &id)
		o.add("prepare %d out %d", st, id)
	}
	prepare(nil, 0)
	prepare(f.short, len(f.short))
	prepare(f.misaligned, len(f.misaligned))
	prepare(f.img, len(f.img))
	o.add("prepare out=NULL %d", l.KernelModePrepareCallable(c, abi.Ptr(f.img), uintptr(len(f.img)), nil))
	o.add("inject %d", hooks.SimInject(abi.SitePrepareCopy, 1, int32(abi.Internal)))
	prepare(f.img, len(f.img))
	o.add("launch %d", l.KernelModeLaunch(c, 0, f.args.Pointer(), sessionStream))
	o.add("launch args=NULL %d", l.KernelModeLaunch(c, 0, nil, sessionStream))
	o.add("launch stream=NULL %d", l.KernelModeLaunch(c, 0, f.args.Pointer(), 0))
	o.add("sync %d", hooks.SimSyncStream(sessionStream))
	o.add("committed %d", l.CommittedDeviceMemory(c))
	o.add("finalize %d", l.FinalizeDevice(c))
	l.DestroyDeviceContext(c)
	o.add("finalize(NULL) %d", l.FinalizeDevice(0))
	o.add("runtime size %d", l.GetRuntimeSize())
	return o
}

// kernelTrace is the trace kernelSession leaves after onboard's bind
// (without the "@B-E tT " prefixes, which recorded adds).
func kernelTrace(f *kernelFixture, committed string) []string {
	img := func(b []byte) string {
		return fmt.Sprintf("raw(%d,%d,%s)", len(b), uintptr(unsafe.Pointer(unsafe.SliceData(b)))%64, hex.EncodeToString(b))
	}
	cfg := "raw(" + hex.EncodeToString(f.cfg) + ")"
	return []string{
		"dev=none getdev -> -1",
		"dev=none setdev 0 -> 0",
		"dev=0 supported null -> 1",
		"dev=0 create -> c1",
		"dev=0 supported c1 -> 1",
		"dev=0 kinit c1 dev=0 gen=1 cfg=" + cfg + " aicpu=none aicore=none disp=none -> 0",
		"dev=0 prepare c1 img=null -> -1004 out=-1",
		"dev=0 prepare c1 img=" + img(f.short) + " -> -1004 out=-1",
		"dev=0 prepare c1 img=" + img(f.misaligned) + " -> -1004 out=-1",
		"dev=0 prepare c1 img=" + img(f.img) + " -> 0 out=0",
		"dev=0 prepare c1 img=" + img(f.img) + " out=null -> -1004",
		"dev=0 inject site=2 count=1 code=-1000 -> 0",
		"dev=0 prepare c1 img=" + img(f.img) + " -> -1000 out=-1",
		"dev=0 launch c1 id=0 args=raw(t=2,s=1,as=0101) stream=s0 -> 0",
		"dev=0 launch c1 id=0 args=null stream=s0 -> -1004",
		"dev=0 launch c1 id=0 args=raw(t=2,s=1,as=0101) stream=null -> -1004",
		"dev=0 sync s0 -> 0",
		"dev=0 committed c1 -> " + committed,
		"dev=0 finalize c1 -> 0",
		"dev=0 destroy c1 -> done",
		"dev=0 finalize null -> -1000",
		"dev=0 call get_runtime_size -> " + fmt.Sprint(abi.PipelineSingle.Spec().RuntimeSize),
	}
}

// programFixture holds the caller memory of the program session.
type programFixture struct {
	img      []byte
	args     *abi.TaskArgs
	cfg      []byte
	desc     []byte
	accepted *int32
	storage  []byte
}

const sessionAcceptedValue = 9

func newProgramFixture(tb testing.TB) *programFixture {
	spec := abi.ChipCallableSpec{
		FuncName: "noop",
		Binary:   []byte("orchestration"),
		Children: []abi.ChildKernel{{FuncID: 1, Binary: []byte{1, 2, 3}}, {FuncID: 2, Binary: []byte{4, 5}}},
	}
	n, err := spec.Size()
	if err != nil {
		tb.Fatal(err)
	}
	f := &programFixture{img: abi.AlignedBytes(n, 64), args: abi.NewTaskArgs(), cfg: (&abi.CallConfig{}).Bytes(),
		desc: abi.AlignedBytes(abi.NativeRunDescSize, 64), accepted: new(int32)}
	if err := spec.EncodeTo(f.img); err != nil {
		tb.Fatal(err)
	}
	*f.accepted = -1
	d := abi.NativeRunDescriptor{PipelineSlot: 0, ArenaBank: 0, RunID: 1, Generation: 2, DispatchID: 3, RunEpoch: 4,
		AcceptedState: uintptr(unsafe.Pointer(f.accepted)), AcceptedValue: sessionAcceptedValue}
	if err := d.Encode(f.desc); err != nil {
		tb.Fatal(err)
	}
	return f
}

// programSession: program init, sizing, register (NULL, valid), the run
// family on storage sized by get_runtime_size (prepare_run with NULL args,
// prepare, launch, poll, wait, finalize, then simpler_run), device memory,
// unregister, finalize, destroy.
func programSession(l *onboard.Library, f *programFixture) observed {
	var o observed
	c := l.CreateDeviceContext()
	o.add("create non-NULL %v", c != 0)
	o.add("pinit %d", l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0))
	size, align := l.GetRuntimeSize(), l.GetRuntimeAlignment()
	o.add("runtime size %d align %d", size, align)
	if f.storage == nil {
		f.storage = abi.AlignedBytes(int(size), int(align))
	}
	rt := abi.RunHandle(uintptr(unsafe.Pointer(unsafe.SliceData(f.storage))))
	o.add("register NULL %d", l.RegisterCallable(c, 0, nil))
	o.add("register %d", l.RegisterCallable(c, 0, abi.Ptr(f.img)))
	o.add("aicpu dlopen count %d", l.AicpuDlopenCount(c))
	o.add("prepare_run args=NULL %d", l.PrepareRun(c, rt, 0, nil, abi.Ptr(f.cfg), abi.Ptr(f.desc)))
	o.add("prepare_run %d", l.PrepareRun(c, rt, 0, f.args.Pointer(), abi.Ptr(f.cfg), abi.Ptr(f.desc)))
	o.add("launch_run %d accepted %d", l.LaunchRun(c, rt), *f.accepted)
	o.add("poll_run %d", l.PollRun(c, rt))
	o.add("wait_run %d", l.WaitRun(c, rt))
	o.add("finalize_run %d", l.FinalizeRun(c, rt))
	o.add("run cfg=NULL %d", l.Run(c, rt, 0, f.args.Pointer(), nil, abi.Ptr(f.desc))) // refused, as upstream does
	o.add("run %d", l.Run(c, rt, 0, f.args.Pointer(), abi.Ptr(f.cfg), abi.Ptr(f.desc)))
	p := l.DeviceMalloc(c, 64)
	o.add("malloc non-NULL %v", p != 0)
	l.DeviceFree(c, p)
	o.add("unregister %d", l.UnregisterCallable(c, 0))
	o.add("finalize %d", l.FinalizeDevice(c))
	l.DestroyDeviceContext(c)
	return o
}

// The hex of the descriptor with accepted_state (an address) masked.
const descMask = "________________"

func maskDescriptor(line string) string {
	i := strings.Index(line, "desc=raw(")
	if i < 0 {
		return line
	}
	at := i + len("desc=raw(") + 2*abi.DescAcceptedStateOff
	if at+16 > len(line) {
		return line
	}
	return line[:at] + descMask + line[at+16:]
}

func programTrace(f *programFixture, poll string) []string {
	desc := maskDescriptor("desc=raw(" + hex.EncodeToString(f.desc) + ")")
	cfg := "raw(" + hex.EncodeToString(f.cfg) + ")"
	img := fmt.Sprintf("raw(%d,0,%s)", len(f.img), hex.EncodeToString(f.img))
	args := "raw(t=0,s=0,as=)"
	return []string{
		"dev=none create -> c1",
		"dev=none pinit c1 dev=0 aicpu=none aicore=none disp=none prewarm=null sdma=none sdmaon=0 -> 0",
		"dev=0 call get_runtime_size -> " + fmt.Sprint(abi.PipelineSingle.Spec().RuntimeSize),
		"dev=0 call get_runtime_alignment -> " + fmt.Sprint(abi.PipelineSingle.Spec().RuntimeAlignment),
		"dev=0 register c1 id=0 img=null -> -1004",
		"dev=0 register c1 id=0 img=" + img + " -> 0",
		"dev=0 prog c1 fn=aicpu_dlopen -> 1",
		"dev=0 prepare_run c1 st=0 id=0 args=null cfg=" + cfg + " " + desc + " -> -1004",
		"dev=0 prepare_run c1 st=0 id=0 args=" + args + " cfg=" + cfg + " " + desc + " -> 0",
		fmt.Sprintf("dev=0 launch_run c1 st=0 -> 0 accepted=%d", sessionAcceptedValue),
		"dev=0 poll_run c1 st=0 -> " + poll,
		"dev=0 wait_run c1 st=0 -> 0",
		"dev=0 finalize_run c1 st=0 -> 0",
		"dev=0 run c1 st=0 id=0 args=" + args + " cfg=null " + desc + " -> -1004",
		"dev=0 run c1 st=0 id=0 args=" + args + " cfg=" + cfg + " " + desc + " -> 0",
		"dev=0 prog c1 fn=malloc -> ptr",
		"dev=0 prog c1 fn=free -> done",
		"dev=0 unregister c1 id=0 -> 0",
		"dev=0 finalize c1 -> 0",
		"dev=0 destroy c1 -> done",
	}
}

// bindTrace is what onboard.Open leaves: the host-log binding, the
// supported probe on a fresh context, the pipeline contract.
var bindTrace = []string{
	"dev=none call simpler_host_log_bind_state -> 0",
	"dev=none create -> c0",
	"dev=none supported c0 -> 1",
	"dev=none destroy c0 -> done",
	"dev=none contract -> ptr",
}

// recorded numbers the lines of one thread's calls: @1-2 t0, @3-4 t0, ...
func recorded(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = fmt.Sprintf("@%d-%d t0 %s", 2*i+1, 2*i+2, l)
	}
	return out
}

func traceHeader(target string, rev string, limit uint64) []string {
	return []string{
		tracevocab.Magic(TraceVersion),
		"# target: " + target,
		"# revision: " + rev,
		fmt.Sprintf("# pid: %d", os.Getpid()),
		fmt.Sprintf("# image-limit: %d", limit),
	}
}

func readTrace(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.HasSuffix(s, "\n") {
		t.Errorf("trace %s does not end in a newline", path)
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i := range lines {
		lines[i] = maskDescriptor(lines[i])
	}
	return lines
}

// runSession loads path through onboard on a fresh OS thread, runs the
// session on that thread and unloads the library again.
func runSession(t *testing.T, path string, session func(*onboard.Library) observed) observed {
	t.Helper()
	var o observed
	var err error
	onFreshThread(func() {
		var l *onboard.Library
		if l, err = onboard.Open(path, onboard.Options{}); err != nil {
			return
		}
		o = session(l)
		err = l.Close()
	})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return o
}
