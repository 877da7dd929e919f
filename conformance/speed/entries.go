package speed

import (
	"encoding/binary"
	"fmt"
	"time"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/validation"
)

// The entries Compare times, in the order it measures and reports them.
const (
	EntryCreateDestroy = "create+destroy"
	EntryKernelPrepare = "kernel_prepare"
	EntryKernelLaunch  = "kernel_launch"
	EntryRegister      = "register+unregister"
	EntryRun           = "run"
	EntryPrepareRun    = "prepare_run"
	EntryLaunchRun     = "launch_run"
	EntryPollRun       = "poll_run"
	EntryWaitRun       = "wait_run"
)

// Entries lists every entry Compare times, in its order.
var Entries = []string{EntryCreateDestroy, EntryKernelPrepare, EntryKernelLaunch, EntryRegister, EntryRun,
	EntryPrepareRun, EntryLaunchRun, EntryPollRun, EntryWaitRun}

// The fixtures' devices: a kernel context claims its device (E-CLAIM).
const (
	launchDev  int32 = 0
	prepareDev int32 = 1
	progDev    int32 = 2
)

// maxResidents is how many residents a prepare context holds before it is
// replaced (M-4 allows 8192; fewer keep an emitted fake's memory small).
const maxResidents = 1024

// MaxCalls bounds the calls of one batch (Options.Calls): a batch of
// prepares must fit one context (M-4).
const MaxCalls = 8192

// epoch is now's origin: time.Since of a time with a monotonic reading is
// one read of the monotonic clock.
var epoch = time.Now()

func now() int64 { return int64(time.Since(epoch)) }

// kfix is a kernel-initialized context on its own device.
type kfix struct {
	h   abi.Ctx
	dev int32
	ids int // residents it holds
}

// bench is the child's side: the build, the state its entries run on, and
// the buffers the calls pass (made once; a call allocates nothing).
type bench struct {
	rt        abi.Runtime
	hooks     abi.SimHooks
	acl       conformance.ACL
	kernel    bool // the build runs kernel mode (tmr)
	simulated bool // the simulation hooks: the canonical image runs
	user      bool // a -callable image was given
	bins      [4][]byte
	filler    []byte

	img      []byte // the canonical image (valid()), at 16-byte alignment
	kcfg     []byte // the kernel init's CallConfig
	args     []byte // launch args for img (no tensors, no scalars)
	stream   abi.Stream
	aclMade  bool // stream is an ACL stream to destroy
	launch   kfix
	prepare  kfix
	out      *int32
	progImg  []byte // what register passes: the -callable image or img
	prog     abi.Ctx
	storage  []byte
	desc     []byte
	accepted []int32
	runArgs  []byte
	runCfg   []byte
	closeLib func() // unloads the library (nil: the simulator)
}

func newBench(t conformance.Target, kernel bool, bins [4][]byte, callable []byte) *bench {
	b := &bench{rt: t.Runtime(), kernel: kernel, bins: bins, filler: make([]byte, 64), out: new(int32),
		launch: kfix{dev: launchDev}, prepare: kfix{dev: prepareDev}}
	b.hooks, b.simulated = t.Hooks()
	b.acl, _ = t.ACL()
	for i := range b.filler {
		b.filler[i] = byte(0xA0 + i)
	}
	im := op.ImageOf(op.ImageRecipe{})
	b.img = abi.AlignedBytes(len(im.Bytes), abi.CallableChildAlign)
	copy(b.img, im.Bytes)
	b.kcfg = op.CfgBytes(op.CfgRecipe{}, false)
	b.args = abi.AlignedBytes(abi.TaskArgsSize, abi.TaskArgsAlign)
	b.progImg = b.img
	if callable != nil {
		b.user = true
		b.progImg = abi.AlignedBytes(len(callable), abi.CallableChildAlign)
		copy(b.progImg, callable)
	}
	return b
}

// entry is how one entry is timed: begin before a batch of n calls, pre
// before and post after each timed call, end after the batch (all
// untimed); call is timed. Each returns an error when a call answers what
// the entry does not expect; abort puts the state back after one did.
type entry struct {
	needs func(b *bench) string // why the build cannot run it, or ""
	begin func(b *bench, n int) error
	pre   func(b *bench) error
	call  func(b *bench) error
	post  func(b *bench) error
	end   func(b *bench) error
	abort func(b *bench)
}

var entries = map[string]*entry{
	EntryCreateDestroy: {call: (*bench).createDestroy},
	EntryKernelPrepare: {needs: (*bench).needsKernel, begin: (*bench).beginPrepare, call: (*bench).kernelPrepare},
	EntryKernelLaunch: {needs: (*bench).needsKernel, begin: (*bench).beginLaunch, call: (*bench).kernelLaunch,
		end: (*bench).sync},
	EntryRegister:   {needs: (*bench).needsProgram, begin: (*bench).beginProgram, call: (*bench).registerPair},
	EntryRun:        {needs: (*bench).needsProgram, begin: (*bench).beginProgram, call: (*bench).run},
	EntryPrepareRun: {needs: (*bench).needsProgram, begin: (*bench).beginProgram, call: (*bench).prepareRun, post: (*bench).finalizeRun, abort: (*bench).dropRun},
	EntryLaunchRun: {needs: (*bench).needsProgram, begin: (*bench).beginProgram, pre: (*bench).prepareRun,
		call: (*bench).launchRun, post: (*bench).waitFinalize, abort: (*bench).dropRun},
	EntryPollRun: {needs: (*bench).needsProgram, begin: (*bench).beginCompleted, call: (*bench).pollRun,
		end: (*bench).finalizeRun, abort: (*bench).dropRun},
	EntryWaitRun: {needs: (*bench).needsProgram, begin: (*bench).beginCompleted, call: (*bench).waitRun,
		end: (*bench).finalizeRun, abort: (*bench).dropRun},
}

// measure runs a batch of len(ns) calls of e, writing each call's time to
// ns, and returns how long the batch took, its untimed steps included.
func (b *bench) measure(e *entry, ns []int64) (int64, error) {
	start := now()
	err := b.batch(e, ns)
	if err != nil && e.abort != nil {
		e.abort(b)
	}
	return now() - start, err
}

func (b *bench) batch(e *entry, ns []int64) error {
	if e.begin != nil {
		if err := e.begin(b, len(ns)); err != nil {
			return err
		}
	}
	for i := range ns {
		if e.pre != nil {
			if err := e.pre(b); err != nil {
				return err
			}
		}
		t0 := now()
		err := e.call(b)
		ns[i] = now() - t0
		if err != nil {
			return fmt.Errorf("call %d of %d: %w", i+1, len(ns), err)
		}
		if e.post != nil {
			if err := e.post(b); err != nil {
				return err
			}
		}
	}
	if e.end != nil {
		return e.end(b)
	}
	return nil
}

// statusErr is a call that answered st where want was expected.
func statusErr(call string, st, want abi.Status) error {
	return fmt.Errorf("%s returned %s (want %s)", call, op.StatusName(st), op.StatusName(want))
}

func expect(call string, st, want abi.Status) error {
	if st != want {
		return statusErr(call, st, want)
	}
	return nil
}

// span is what an init passes for span i: the binary given for it, else
// filler bytes where the checker's runs pass bytes (fill), else nothing.
func (b *bench) span(i int, fill bool) (unsafe.Pointer, uintptr) {
	s := b.bins[i]
	if s == nil && fill {
		s = b.filler
	}
	if s == nil {
		return nil, 0
	}
	return unsafe.Pointer(unsafe.SliceData(s)), uintptr(len(s))
}

// setDevice makes dev the calling thread's current device, as the runner
// does: the simulation hook, else the ACL.
func (b *bench) setDevice(dev int32) error {
	switch {
	case b.hooks != nil:
		return expect(abi.EntrySimSetCurrentDevice.Name(), b.hooks.SimSetCurrentDevice(dev), abi.OK)
	case b.acl != nil:
		if rc := b.acl.SetDevice(dev); rc != 0 {
			return fmt.Errorf("aclrtSetDevice(%d) returned %d", dev, rc)
		}
		return nil
	}
	return fmt.Errorf("no means to set the current device")
}

func (b *bench) needsKernel() string {
	if !b.kernel {
		return "the build does not run kernel mode (not a tmr build)"
	}
	if b.hooks == nil && b.acl == nil {
		return "no means to set the current device and synchronize a stream (no simulation hooks, no ACL library)"
	}
	return ""
}

func (b *bench) needsProgram() string {
	if !b.simulated && !b.user {
		return "a real build runs only a -callable image, and none was given"
	}
	return ""
}

func (b *bench) createDestroy() error {
	h := b.rt.CreateDeviceContext()
	if h == 0 {
		return fmt.Errorf("%s returned NULL", abi.EntryCreateDeviceContext)
	}
	b.rt.DestroyDeviceContext(h)
	return nil
}

// kinit makes f a fresh kernel-initialized context on its device.
func (b *bench) kinit(f *kfix) error {
	if err := b.setDevice(f.dev); err != nil {
		return err
	}
	h := b.rt.CreateDeviceContext()
	if h == 0 {
		return fmt.Errorf("%s returned NULL", abi.EntryCreateDeviceContext)
	}
	p0, n0 := b.span(0, false)
	p1, n1 := b.span(1, false)
	p2, n2 := b.span(2, false)
	st := b.rt.KernelModeInit(h, f.dev, p0, n0, p1, n1, p2, n2, ptr(b.kcfg), 1)
	if st != abi.OK {
		b.rt.DestroyDeviceContext(h)
		return statusErr(abi.EntryKernelInit.Name(), st, abi.OK)
	}
	f.h, f.ids = h, 0
	return nil
}

// release finalizes and destroys f's context.
func (b *bench) release(f *kfix) error {
	if f.h == 0 {
		return nil
	}
	if err := b.setDevice(f.dev); err != nil {
		return err
	}
	st := b.rt.FinalizeDevice(f.h)
	b.rt.DestroyDeviceContext(f.h)
	f.h = 0
	return expect(abi.EntryFinalizeDevice.Name(), st, abi.OK)
}

func (b *bench) prepareImage(f *kfix) error {
	st := b.rt.KernelModePrepareCallable(f.h, ptr(b.img), uintptr(len(b.img)), b.out)
	if st != abi.OK {
		return statusErr(abi.EntryKernelPrepare.Name(), st, abi.OK)
	}
	f.ids++
	return nil
}

func (b *bench) beginPrepare(n int) error {
	f := &b.prepare
	if f.h != 0 && f.ids+n > max(maxResidents, n) {
		if err := b.release(f); err != nil {
			return err
		}
	}
	if f.h == 0 {
		return b.kinit(f)
	}
	return b.setDevice(f.dev)
}

func (b *bench) kernelPrepare() error { return b.prepareImage(&b.prepare) }

func (b *bench) beginLaunch(int) error {
	f := &b.launch
	if f.h == 0 {
		if err := b.kinit(f); err != nil {
			return err
		}
		if err := b.prepareImage(f); err != nil {
			return err
		}
		if *b.out != 0 {
			return fmt.Errorf("the first prepare of a context minted id %d (want 0)", *b.out)
		}
	}
	if b.stream == 0 {
		if b.hooks != nil {
			b.stream = abi.Stream(0x5EED0000)
		} else {
			s, rc := b.acl.CreateStream()
			if rc != 0 {
				return fmt.Errorf("aclrtCreateStream returned %d", rc)
			}
			b.stream, b.aclMade = s, true
		}
	}
	return b.setDevice(f.dev)
}

func (b *bench) kernelLaunch() error {
	return expect(abi.EntryKernelLaunch.Name(), b.rt.KernelModeLaunch(b.launch.h, 0,
		ptr(b.args), b.stream), abi.OK)
}

// sync completes the launches of a batch.
func (b *bench) sync() error {
	if b.hooks != nil {
		return expect(abi.EntrySimSyncStream.Name(), b.hooks.SimSyncStream(b.stream), abi.OK)
	}
	if rc := b.acl.SynchronizeStream(b.stream); rc != 0 {
		return fmt.Errorf("aclrtSynchronizeStream returned %d", rc)
	}
	return nil
}

// beginProgram makes the program context (once): a program init on its
// device, the image registered as id 0, run storage, args, CallConfig and
// descriptor as the runner makes them.
func (b *bench) beginProgram(int) error {
	if b.prog != 0 {
		if b.hooks != nil || b.acl != nil {
			return b.setDevice(progDev)
		}
		return nil
	}
	size, align := b.rt.GetRuntimeSize(), b.rt.GetRuntimeAlignment()
	if size == 0 || size > 64<<20 || align < 8 || align > 4096 || align&(align-1) != 0 {
		return fmt.Errorf("%s %d / %s %d is no run storage this tool can make", abi.EntryGetRuntimeSize, size, abi.EntryGetRuntimeAlignment, align)
	}
	h := b.rt.CreateDeviceContext()
	if h == 0 {
		return fmt.Errorf("%s returned NULL", abi.EntryCreateDeviceContext)
	}
	p0, n0 := b.span(0, true)
	p1, n1 := b.span(1, true)
	p2, n2 := b.span(2, false)
	p3, n3 := b.span(3, false)
	if st := b.rt.SimplerInit(h, progDev, p0, n0, p1, n1, p2, n2, nil, 0, p3, uint64(n3)); st != abi.OK {
		b.rt.DestroyDeviceContext(h)
		return statusErr(abi.EntrySimplerInit.Name(), st, abi.OK)
	}
	if st := b.rt.RegisterCallable(h, 0, ptr(b.progImg)); st != abi.OK {
		b.rt.FinalizeDevice(h)
		b.rt.DestroyDeviceContext(h)
		return statusErr(abi.EntryRegisterCallable.Name(), st, abi.OK)
	}
	b.prog = h
	b.storage = abi.AlignedBytes(int(size), int(align))
	b.accepted = make([]int32, 1)
	b.desc = abi.AlignedBytes(abi.NativeRunDescSize, 8)
	d := abi.NativeRunDescriptor{RunID: 1, Generation: 1, DispatchID: 1, RunEpoch: 1,
		AcceptedState: uintptr(unsafe.Pointer(&b.accepted[0])), AcceptedValue: op.AcceptedValue(0)}
	if err := d.Encode(b.desc); err != nil {
		return err
	}
	b.runArgs = abi.AlignedBytes(abi.TaskArgsSize, abi.TaskArgsAlign)
	t, s := validation.SignatureCounts(b.progImg)
	binary.LittleEndian.PutUint32(b.runArgs[abi.TaskArgsTensorCountOff:], uint32(t))
	binary.LittleEndian.PutUint32(b.runArgs[abi.TaskArgsScalarCountOff:], uint32(s))
	b.runCfg = make([]byte, abi.CallConfigSize)
	return nil
}

func ptr(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }

func (b *bench) rh() abi.RunHandle { return abi.RunHandle(ptr(b.storage)) }

func (b *bench) registerPair() error {
	if st := b.rt.RegisterCallable(b.prog, 1, ptr(b.progImg)); st != abi.OK {
		return statusErr(abi.EntryRegisterCallable.Name(), st, abi.OK)
	}
	return expect(abi.EntryUnregisterCallable.Name(), b.rt.UnregisterCallable(b.prog, 1), abi.OK)
}

type runStart = func(abi.Ctx, abi.RunHandle, int32, unsafe.Pointer, unsafe.Pointer, unsafe.Pointer) abi.Status

// startRun calls simpler_run or simpler_prepare_run of id 0 on the storage.
func (b *bench) startRun(e abi.Entry, f runStart) error {
	return expect(e.Name(), f(b.prog, b.rh(), 0, ptr(b.runArgs), ptr(b.runCfg), ptr(b.desc)), abi.OK)
}

// onRun calls a run entry that takes only the storage, wanting want.
func (b *bench) onRun(e abi.Entry, f func(abi.Ctx, abi.RunHandle) abi.Status, want abi.Status) error {
	return expect(e.Name(), f(b.prog, b.rh()), want)
}

func (b *bench) run() error          { return b.startRun(abi.EntryRun, b.rt.Run) }
func (b *bench) prepareRun() error   { return b.startRun(abi.EntryPrepareRun, b.rt.PrepareRun) }
func (b *bench) launchRun() error    { return b.onRun(abi.EntryLaunchRun, b.rt.LaunchRun, abi.OK) }
func (b *bench) finalizeRun() error  { return b.onRun(abi.EntryFinalizeRun, b.rt.FinalizeRun, abi.OK) }
func (b *bench) pollRun() error      { return b.onRun(abi.EntryPollRun, b.rt.PollRun, abi.PollComplete) }
func (b *bench) waitRun() error      { return b.onRun(abi.EntryWaitRun, b.rt.WaitRun, abi.OK) }
func (b *bench) waitFinalize() error { return steps(b.waitRun, b.finalizeRun) }

// steps runs fs in turn up to the first error.
func steps(fs ...func() error) error {
	for _, f := range fs {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// dropRun finalizes whatever run a failed batch left in the storage.
func (b *bench) dropRun() {
	if b.prog != 0 {
		b.rt.FinalizeRun(b.prog, b.rh())
	}
}

// beginCompleted leaves a completed run in the storage: prepared, launched
// and waited for.
func (b *bench) beginCompleted(n int) error {
	return steps(func() error { return b.beginProgram(n) }, b.prepareRun, b.launchRun, b.waitRun)
}

// close releases what the bench made (the program context, the kernel
// contexts, the ACL stream) and unloads the library.
func (b *bench) close() {
	if b.prog != 0 {
		if b.hooks != nil || b.acl != nil {
			_ = b.setDevice(progDev)
		}
		b.rt.UnregisterCallable(b.prog, 0)
		b.rt.FinalizeDevice(b.prog)
		b.rt.DestroyDeviceContext(b.prog)
		b.prog = 0
	}
	if b.launch.h != 0 && b.stream != 0 {
		_ = b.setDevice(b.launch.dev)
		_ = b.sync()
	}
	_ = b.release(&b.launch)
	_ = b.release(&b.prepare)
	if b.aclMade {
		b.acl.DestroyStream(b.stream)
		b.aclMade = false
	}
	if b.closeLib != nil {
		b.closeLib()
	}
}
