package conformance

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime"
	"slices"
	"strconv"
	"time"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/internal/osthread"
	"github.com/simabi/simabi/internal/scratch"
)

// Options tune a Runner.
type Options struct {
	// Binaries passed for a `bytes` span of kinit/pinit (aicpu, aicore,
	// dispatcher, sdma); nil: 64 filler bytes, which only a simulated build
	// accepts (V-INIT).
	Binaries [4][]byte
	// Profile forces the build profile instead of asking supported(NULL);
	// legacy must be given this way.
	Profile *model.Profile
	// NoCleanup leaves the contexts a run created alive.
	NoCleanup bool
	// ContinueAfterLoss executes the ops after the model lost track, for
	// complete histories in differential runs; by default they are not
	// executed (a handle the runtime freed would abort it, F-3).
	ContinueAfterLoss bool
	// Callable is the image register img=prog passes (abicheck -callable);
	// nil leaves those ops unrun.
	Callable []byte
	// BeforeOp is called on the runner's thread before op i, with AtSetup
	// before the setup and len(ops) before the cleanup: a child streams
	// these to its parent so the op log survives a crash.
	BeforeOp func(i int)
	// OnCallerThread runs each sequence on the calling goroutine locked to
	// its thread (two thread switches less per run, for fuzz workers); a
	// sequence that unloads (U-1) still runs on the runner's thread.
	OnCallerThread bool
}

// Result is everything one run produced.
type Result struct {
	History  History
	Findings []model.Finding
	Tally    model.Tally
	Checked  int    // calls the model checked
	Lost     string // why the model stopped predicting, "" if it never did
	// Generic counts per rule the passes a legacy build earned with its
	// generic -1.
	Generic [model.NumRules]uint32
	// RunClauses counts per rule the outstanding-run clauses checked.
	RunClauses [model.NumRules]uint32
	// Divergences counts calls the model did not predict (each a failure).
	Divergences int
}

// Failed reports whether any finding is a failure.
func (r *Result) Failed() bool {
	return slices.ContainsFunc(r.Findings, func(f model.Finding) bool { return f.Verdict == model.Fail })
}

// lockedThread runs jobs on one goroutine locked to its OS thread, so the
// current device (D-2, per thread) is stable across a sequence. exit ends
// the thread and its thread-exit destructors run (U-1).
type lockedThread struct {
	jobs chan func()
	tid  int           // the kernel thread id
	done chan struct{} // closed when the goroutine returned
}

func newLockedThread() *lockedThread {
	t := &lockedThread{jobs: make(chan func()), done: make(chan struct{})}
	started := make(chan bool)
	for {
		go func() {
			runtime.LockOSThread()
			t.tid = osthread.Current().TID
			if t.tid == os.Getpid() {
				// Go wedges the main thread rather than exit it: leave it
				// and lock another.
				started <- false
				return
			}
			defer close(t.done)
			started <- true
			for j := range t.jobs {
				j()
			}
		}()
		if <-started {
			return t
		}
	}
}

// exit ends the thread and waits until the OS thread is gone, so its
// thread-exit work has run before the caller goes on (U-1).
func (t *lockedThread) exit() {
	close(t.jobs)
	<-t.done
	osthread.WaitGone(t.tid, 2*time.Second)
}

func (t *lockedThread) do(f func()) {
	done := make(chan struct{})
	t.jobs <- func() { f(); close(done) }
	<-done
}

func (t *lockedThread) async(f func()) { t.jobs <- f }

type slotState struct {
	h    abi.Ctx
	mem  uint64
	dev  int32
	ids  []uint32 // observed: tensors<<16 | scalars of the callable behind each id
	used bool
}

type imgBuf struct {
	img   model.PassedImage
	raw   []byte
	ptr   unsafe.Pointer
	size  uintptr
	dirty bool
}

const outSentinel int32 = 0x3C3C3C3C

// Runner executes sequences on one target instance, checking every call
// against a fresh Model, on OS-thread-locked goroutines. Images, configs and
// args are built once and reused. Use it from one goroutine at a time.
type Runner struct {
	alienAt int       // the tensor a launch put in space 2 or HOST (Alien, HostLast)
	progBuf [128]byte // the host memory a prog op's copy or memory info passes
	t       Target
	rt      abi.Runtime
	hooks   abi.SimHooks
	acl     ACL
	caps    catalogue.Caps
	opt     Options
	main    *lockedThread
	// extra are the helper of pairs and races and a parked hold's third
	// thread, each started on first use: most runs need neither, and a
	// thread costs a creation and an awaited exit per run.
	extra [2]*lockedThread
	ctl   abi.SimControl
	bound abi.SimCommTimeout // simabi_comm_timeout_ms (CapCommTimeout)

	images  map[op.ImageRecipe]*imgBuf
	lastRec op.ImageRecipe // the recipe image() looked up last, and its buffer
	lastImg *imgBuf
	args    []byte
	junk    []byte // args 8 bytes past alignment, garbage in unread fields
	out     *int32
	out2    *int32
	streams [op.MaxStreams]abi.Stream
	filler  []byte
	obs     op.Observation
	tainted []int32

	slots  [op.MaxSlots]slotState
	leaked []slotState
	comm   commRun // the comm family's handles, paths and ids (ops_comm.go)
	dev    devRun  // the allocation slots' pointers and buffers (ops_devmem.go)
	st     model.State

	// Program runs (ops_runs.go): each storage has a descriptor whose
	// accepted_state is its word in accepted; userImg is Options.Callable.
	storage   [op.MaxStorages][]byte
	storeErr  string
	desc      [op.MaxStorages][]byte
	accepted  []int32
	runArgs   []byte
	runCfg    []byte
	userImg   []byte
	userCount [2]int32
	progIDs   [op.MaxSlots]map[int32][2]int32 // per slot: registered id -> counts
	dirty     bool
	pre       []model.Finding // findings of the run's setup

	// unloadAt is the unload op that ended the run (-1: none), judged once
	// the thread exited (finishUnload).
	unloadAt  int
	unloadErr error

	// The comm ranks as threads (ops_commpark.go): parked are the calls in
	// flight by op index; stuckWhy says which released call never returned
	// (the instance must not be used again).
	ops      []op.Op
	at       int
	parked   map[int]*parkedRun
	stuckAt  int
	stuckWhy string
}

// Dirty reports whether an earlier run left contexts the runner could not
// clean up (the model lost track): use a fresh instance, or ResetTarget.
func (r *Runner) Dirty() bool { return r.dirty || r.stuckWhy != "" }

// onMain runs f on the runner's main thread, or with OnCallerThread when
// inline allows it on the caller's goroutine locked to its thread.
func (r *Runner) onMain(f func(), inline bool) {
	if !r.opt.OnCallerThread || !inline {
		r.main.do(f)
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f()
}

// Unloads reports whether ops unload the library (U-1).
func Unloads(ops []op.Op) bool { return UnloadAt(ops) >= 0 }

// UnloadAt is the index of ops' unload op (U-1), or -1.
func UnloadAt(ops []op.Op) int {
	return slices.IndexFunc(ops, func(o op.Op) bool { return o.Kind == op.KindUnload })
}

// ResetTarget returns the target to a fresh load's state (simabi_reset,
// CapReset) and forgets the claims earlier runs left; false without reset.
func (r *Runner) ResetTarget() bool {
	if r.ctl == nil || !r.caps.Has(catalogue.CapReset) {
		return false
	}
	var st abi.Status
	r.onMain(func() { st = r.ctl.SimReset() }, true)
	if st != abi.OK {
		return false
	}
	r.tainted, r.dirty = r.tainted[:0], false
	return true
}

// NewRunner prepares a runner for t. Close it when done.
func NewRunner(t Target, opt Options) *Runner {
	r := &Runner{t: t, rt: t.Runtime(), caps: CapsOf(t), opt: opt, main: newLockedThread(),
		images: map[op.ImageRecipe]*imgBuf{}, out: new(int32), out2: new(int32), filler: make([]byte, 64), unloadAt: -1}
	r.hooks, _ = t.Hooks()
	r.acl, _ = t.ACL()
	if r.caps.Has(catalogue.CapGate) {
		r.ctl, _ = t.(ControlTarget).Control()
	}
	if r.caps.Has(catalogue.CapCommTimeout) {
		r.bound, _ = t.(CommTimeoutTarget).CommTimeout()
	}
	for i := range r.filler {
		r.filler[i] = byte(0xA0 + i)
	}
	r.args = abi.AlignedBytes(abi.TaskArgsSize, abi.TaskArgsAlign)
	tensor, _ := abi.ContiguousTensor(0x10000, abi.Float32, 16)
	for i := 0; i < abi.ChipMaxTensorArgs; i++ {
		_ = tensor.Encode(r.args[abi.TaskArgsTensorsOff+abi.ChipTensorSize*i:])
	}
	r.junk = abi.AlignedBytes(abi.TaskArgsSize+64, abi.TaskArgsAlign)[8 : 8+abi.TaskArgsSize]
	x := uint32(0x9E3779B9)
	for i := range r.junk {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		r.junk[i] = byte(x)
	}
	for i := 0; i < abi.ChipMaxTensorArgs; i++ {
		r.junk[abi.TaskArgsTensorsOff+abi.ChipTensorSize*i+abi.TensorAddressSpaceOff] = byte(abi.DeviceSpace)
	}
	if r.hooks != nil {
		for i := range r.streams {
			r.streams[i] = abi.Stream(0x5EED0000 + 0x100*uintptr(i))
		}
	}
	return r
}

// Caps is what the runner can drive on its target.
func (r *Runner) Caps() catalogue.Caps { return r.caps }

// Do runs f on the OS thread the runner's ops run on (D-2).
func (r *Runner) Do(f func()) { r.main.do(f) }

// Close stops the runner's threads and releases ACL streams it created.
func (r *Runner) Close() {
	if r.acl != nil && r.hooks == nil {
		r.main.do(func() {
			for _, s := range r.streams {
				if s != 0 {
					r.acl.DestroyStream(s)
				}
			}
		})
	}
	r.main.exit()
	for _, t := range r.extra {
		if t != nil {
			t.exit()
		}
	}
}

// Run executes ops on t with a fresh runner.
func Run(t Target, ops []op.Op) (History, []model.Finding) {
	r := NewRunner(t, Options{})
	defer r.Close()
	res := r.Run(ops)
	return res.History, res.Findings
}

// inFlightWait bounds how long a signal's cleanup waits for a run in this
// process to stop (it stops before its next op once the cleanup began).
const inFlightWait = time.Second

// Run executes one sequence and checks it. While it runs, the process's
// cleanup waits for it (up to inFlightWait): a call in flight when the
// cleanup began may make a comm segment, whose name is removed once the
// call returns, but only if the process has not exited by then.
func (r *Runner) Run(ops []op.Op) *Result {
	done := make(chan struct{})
	if release, err := scratch.Hold(nil, func() {
		select {
		case <-done:
		case <-time.After(inFlightWait):
		}
	}); err == nil {
		defer release()
	}
	defer close(done)
	var res *Result
	r.onMain(func() { res = r.run(ops) }, !Unloads(ops))
	if r.unloadAt >= 0 {
		r.finishUnload(ops, res)
	}
	return res
}

// finishUnload completes a run that ended with unload (U-1): the calling
// thread exits, then the op is judged on a fresh thread (a library whose
// thread-exit code outlives it crashes the process here).
func (r *Runner) finishUnload(ops []op.Op, res *Result) {
	i := r.unloadAt
	r.unloadAt = -1
	r.main.exit()
	r.main = newLockedThread()
	r.main.do(func() {
		o := &r.obs
		*o = op.Observation{}
		if r.unloadErr != nil {
			o.Call.Status = abi.Internal
		}
		r.st, _ = model.Step(r.st, i, 0, ops[i], o)
		res.History.Entries[i].Obs = *o
		r.collect(res)
	})
}

func (r *Runner) stream(s int8) abi.Stream {
	if s < 0 {
		return 0
	}
	if r.streams[s] == 0 && r.acl != nil {
		st, rc := r.acl.CreateStream()
		if rc == 0 {
			r.streams[s] = st
		}
	}
	return r.streams[s]
}

func (r *Runner) span(i int, s op.SpanRecipe) (unsafe.Pointer, uintptr) {
	b := r.opt.Binaries[i]
	if b == nil {
		b = r.filler
	}
	switch s {
	case op.SpanBytes:
		return unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b))
	case op.SpanHalfPtr:
		return unsafe.Pointer(unsafe.SliceData(b)), 0
	case op.SpanHalfSize:
		return nil, uintptr(len(b))
	}
	return nil, 0
}

func (r *Runner) image(rec op.ImageRecipe) *imgBuf {
	b := r.lastImg
	if b == nil || r.lastRec != rec {
		// A fill (8193 prepares of one recipe) skips the map lookup.
		if b = r.images[rec]; b == nil {
			b = r.newImage(rec)
		}
		r.lastRec, r.lastImg = rec, b
	}
	if b.dirty {
		copy(b.raw[rec.Mis:], b.img.Bytes)
		b.dirty = false
	}
	return b
}

// newImage builds rec's buffer and keeps it for the runner's life.
func (r *Runner) newImage(rec op.ImageRecipe) *imgBuf {
	f := model.Passed(rec)
	b := &imgBuf{img: f, size: uintptr(f.Size)}
	switch {
	case f.Null:
	case f.Huge:
		b.ptr = hugeSpan()
	case f.Wrap: // nothing is mapped there (V-IMG step 1)
		addr := ^uintptr(0) &^ 0xFFF
		b.ptr = *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	default:
		if rec.Edge {
			b.raw = edgeSpan(int(f.Size)+int(rec.Mis), b)
		}
		if b.raw == nil {
			b.raw = abi.AlignedBytes(len(f.Bytes)+16, 16)
		}
		copy(b.raw[rec.Mis:], f.Bytes)
		b.ptr = unsafe.Pointer(&b.raw[rec.Mis])
	}
	r.images[rec] = b
	return b
}

// cfgPtr is r's CallConfig (nil: NULL).
func cfgPtr(r op.CfgRecipe) unsafe.Pointer {
	return unsafe.Pointer(unsafe.SliceData(op.CfgBytes(r, false)))
}

// formArgs writes the counts into the shared args buffer.
func (r *Runner) formArgs(o op.Op, slot *slotState) (unsafe.Pointer, int32, int32, bool) {
	if o.Args.Mode == op.ArgsNull {
		return nil, 0, 0, false
	}
	var t, s int32
	switch o.Args.Mode {
	case op.ArgsExact:
		t, s = int32(o.Args.T), int32(o.Args.S)
	case op.ArgsMatch:
		if o.ID >= 0 && int(o.ID) < len(slot.ids) {
			t, s = int32(slot.ids[o.ID]>>16), int32(slot.ids[o.ID]&0xFFFF)
		}
		t += int32(o.Args.T)
		s += int32(o.Args.S)
	}
	buf := r.args
	if o.Args.Junk {
		buf = r.junk
	}
	binary.LittleEndian.PutUint32(buf[abi.TaskArgsTensorCountOff:], uint32(t))
	binary.LittleEndian.PutUint32(buf[abi.TaskArgsScalarCountOff:], uint32(s))
	space := byte(abi.DeviceSpace)
	if o.Args.Host {
		space = byte(abi.HostSpace)
	}
	buf[abi.TaskArgsTensorsOff+abi.TensorAddressSpaceOff] = space
	alien := (o.Args.Alien || o.Args.HostLast) && t >= 1 && t <= abi.ChipMaxTensorArgs
	if alien {
		last := byte(2)
		if o.Args.HostLast {
			last = byte(abi.HostSpace)
		}
		buf[abi.TaskArgsTensorsOff+abi.ChipTensorSize*int(t-1)+abi.TensorAddressSpaceOff] = last
		r.alienAt = int(t - 1)
	}
	return unsafe.Pointer(unsafe.SliceData(buf)), t, s, o.Args.Host || alien
}

// restoreArgs puts tensor 0 (and an alien or hostlast tensor) back in
// DEVICE space after a launch with a tensor outside it.
func (r *Runner) restoreArgs() {
	for _, b := range [2][]byte{r.args, r.junk} {
		b[abi.TaskArgsTensorsOff+abi.TensorAddressSpaceOff] = byte(abi.DeviceSpace)
		b[abi.TaskArgsTensorsOff+abi.ChipTensorSize*r.alienAt+abi.TensorAddressSpaceOff] = byte(abi.DeviceSpace)
	}
	r.alienAt = 0
}

func (r *Runner) handle(c int8) abi.Ctx {
	if c < 0 {
		return 0
	}
	return r.slots[c].h
}

func (r *Runner) run(ops []op.Op) *Result {
	before := r.opt.BeforeOp
	if before == nil {
		before = func(int) {}
	}
	before(AtSetup)
	r.slots = [op.MaxSlots]slotState{}
	r.leaked = r.leaked[:0]
	r.unloadAt, r.unloadErr = -1, nil
	r.resetStorage()
	r.comm.reset()
	r.dev.reset()
	r.ops, r.parked = ops, nil
	res := &Result{History: History{Entries: make([]Entry, len(ops))}}
	mo := model.ModelOptions{DrivenCompletion: r.caps.Has(catalogue.CapDriven), Claimed: append([]int32(nil), r.tainted...),
		Simulated: r.hooks != nil, UserCallable: r.opt.Callable != nil}
	var pre []model.Finding
	if r.opt.Profile != nil {
		mo.Profile = *r.opt.Profile
	} else {
		switch v := r.rt.KernelModeSupported(0); v {
		case 1:
			mo.Profile = model.ProfileTMR
		case 0:
			mo.Profile = model.ProfileRefusing
		default:
			mo.Profile = model.ProfileTMR
			pre = append(pre, model.Finding{Index: -1, Rule: model.RESup, Verdict: model.Fail,
				Detail: "simpler_kernel_mode_supported(NULL) returned " + itoa(v) + ", neither 1 (tmr) nor 0 (refusing)"})
		}
	}
	res.History.Profile = mo.Profile
	switch {
	case r.hooks != nil:
		r.hooks.SimSetCurrentDevice(-1)
		r.disarm()
		mo.DeviceKnown, mo.Device = true, -1
	case r.acl != nil:
		if r.acl.SetDevice(0) == 0 {
			mo.DeviceKnown, mo.Device = true, 0
		}
	}
	r.st = model.NewState(mo)
	r.pre = pre
	for i := range ops {
		// The process is ending (a signal's cleanup began): a call made
		// now could leave what the cleanup already passed by (a comm
		// segment).
		if scratch.Ending() {
			return res
		}
		before(i)
		r.exec(i, ops[i], &res.History.Entries[i])
		if r.unloadAt >= 0 { // the library is gone: no cleanup
			return res
		}
	}
	before(len(ops))
	r.drainParked()
	if !r.opt.NoCleanup {
		r.cleanup()
	}
	r.restoreCommTimeout()
	r.collect(res)
	return res
}

// view is the model of the run so far, read-only (it changes by Step).
func (r *Runner) view() *model.Model { return r.st.Model() }

// unmadeStep tells the model why the runner did not make cur's call.
func (r *Runner) unmadeStep(i int, cur op.Op, rule model.Rule, why string) {
	r.st, _ = model.Step(r.st, i, 0, cur, &op.Observation{Unmade: why, UnmadeRule: uint8(rule)})
}

// collect copies the model's verdicts into res.
func (r *Runner) collect(res *Result) {
	m := r.view()
	res.Findings = append(append([]model.Finding(nil), r.pre...), m.Findings()...)
	res.Tally = m.Tally()
	for _, f := range r.pre {
		res.Tally[f.Rule][f.Verdict]++
	}
	res.Checked = m.Checked()
	_, res.Lost = m.Lost()
	res.Generic = m.Generic()
	res.RunClauses = m.RunClauses()
	res.Divergences = m.Divergences()
}

func (r *Runner) counters() (ACLCounts, bool) {
	if !r.caps.Has(catalogue.CapCounters) {
		return ACLCounts{}, false
	}
	return r.t.Counters()
}

func (r *Runner) exec(i int, cur op.Op, e *Entry) {
	e.Op, r.at = cur, i
	m := r.view()
	if lost, _ := m.Lost(); lost && !r.opt.ContinueAfterLoss {
		e.Skipped = "not run: the model lost track earlier"
		return
	}
	if rule, why := r.unmade(cur); why != "" {
		e.Skipped = why
		r.unmadeStep(i, cur, rule, why)
		return
	}
	cls := classOf(cur.Kind)
	if cls.run != nil {
		cls.run(r, i, cur, e)
		return
	}
	if cls.park != nil && cls.park(r, i, cur, e) {
		return
	}
	a, _ := cur.Slots()
	for rep := 0; rep < cur.Reps(); rep++ {
		o := &r.obs
		*o = op.Observation{}
		before, probe, entry := ACLCounts{}, false, cur.Kind.Entry()
		if entry {
			before, probe = r.counters()
		}
		r.releasing()
		r.call(cur, o)
		if m.Profile() == model.ProfileLegacy && entry && !cur.Kind.CommCodes() {
			o.Call.Status = abi.TranslateLegacy(o.Call.Status)
		}
		if probe {
			after, _ := r.t.Counters()
			o.ACLProbed, o.ACLForbidden = true, after.ForbiddenSince(before)
		}
		if cur.C >= 0 && cls.memProbe != memNone && a >= 0 {
			sl := &r.slots[cur.C]
			if cls.memProbe != memFromCall {
				o.Mem = uint64(r.rt.CommittedDeviceMemory(sl.h))
			}
			o.MemProbed, o.MemPrev = true, sl.mem
			if cls.memProbe == memFromZero {
				o.MemPrev = 0
			}
			sl.mem = o.Mem
		}
		r.st, _ = model.Step(r.st, i, rep, cur, o)
		if rep == 0 {
			e.Obs = *o
			if o.MemProbed {
				e.memDir = memDirOf(o.MemPrev, o.Mem)
			}
		} else if o.MemProbed {
			e.memDir = memDirOf(e.Obs.MemPrev, o.Mem)
		}
		if cur.Rep > 1 && cls.reps != nil {
			cls.reps(e, o)
		}
	}
	r.joinReleased()
}

// unmade says why the runner does not make op's call now and the rule that
// leaves undriven ("" when it makes it).
func (r *Runner) unmade(cur op.Op) (model.Rule, string) {
	m := r.view()
	if need, rule, why := needs(cur); !r.caps.Has(need) {
		if m.Profile() == model.ProfileLegacy && rule != model.RU1 {
			rule = model.RuleNone // the environment drives kernel rules only
		}
		return rule, why
	}
	if m.Profile() == model.ProfileLegacy {
		if why := legacyUnavailable(cur); why != "" {
			if cur.Kind.Kernel() {
				return model.REKInit, why
			}
			return model.RuleNone, why
		}
	}
	if !cur.Kind.MakesContext() {
		a, b := cur.Slots()
		for _, s := range [2]int8{a, b} {
			if s >= 0 && !m.SlotLive(s) {
				return model.RuleNone, "c" + itoa(int32(s)) + " holds no live context"
			}
		}
	}
	cls := classOf(cur.Kind)
	if cls.ready != nil {
		if why := cls.ready(r, cur); why != "" {
			return model.RuleNone, why
		}
	}
	if cur.Kind.RunFamily() && cls.run == nil {
		return model.RuleNone, r.runReady(cur)
	}
	return model.RuleNone, ""
}

// call makes the op's one call and fills o.
func (r *Runner) call(op op.Op, o *op.Observation) {
	classOf(op.Kind).call(r, op, r.handle(op.C), o)
}

// prepare calls prepare with a recipe's buffer and records the counts behind
// a minted id (args=match).
func (r *Runner) prepare(h abi.Ctx, op op.Op, rec op.ImageRecipe, out *int32) (abi.Status, int32) {
	b := r.image(rec)
	st, got, written := r.prepareRaw(h, op.OutNull, b, out)
	r.noteWritten(b, written)
	r.recordID(op.C, st, got, b)
	return st, got
}

// prepareRaw makes the call and touches nothing of the runner's (the second
// thread runs it).
func (r *Runner) prepareRaw(h abi.Ctx, outNull bool, b *imgBuf, out *int32) (abi.Status, int32, bool) {
	var outp *int32
	if !outNull {
		*out = outSentinel
		outp = out
	}
	st := r.rt.KernelModePrepareCallable(h, b.ptr, b.size, outp)
	written := false
	if b.raw != nil && len(b.img.Bytes) <= 1<<16 {
		mis := int(uintptr(b.ptr) - uintptr(unsafe.Pointer(unsafe.SliceData(b.raw))))
		written = !bytes.Equal(b.raw[mis:mis+len(b.img.Bytes)], b.img.Bytes)
	}
	if outp == nil {
		return st, outSentinel, written
	}
	return st, *outp, written
}

// noteWritten records a prepare that wrote into the caller's image (M-6);
// the buffer is restored before its next use.
func (r *Runner) noteWritten(b *imgBuf, written bool) {
	if written {
		b.dirty = true
		r.obs.ImageWritten = true
	}
}

func (r *Runner) recordID(c int8, st abi.Status, got int32, b *imgBuf) {
	if st != abi.OK || c < 0 || got < 0 || got >= model.MaxIDs {
		return
	}
	sl := &r.slots[c]
	for len(sl.ids) <= int(got) {
		sl.ids = append(sl.ids, 0)
	}
	sl.ids[got] = uint32(b.img.Tensors)<<16 | uint32(b.img.Scalars)&0xFFFF
}

// prog calls a program-side entry with deliberately bad arguments.
func (r *Runner) prog(h abi.Ctx, fn op.ProgFn, o *op.Observation) {
	rt := r.rt
	var st abi.Status
	switch fn {
	case op.FnRegister:
		st = rt.RegisterCallable(h, -1, nil)
	case op.FnUnregister:
		st = rt.UnregisterCallable(h, -1)
	case op.FnRun:
		st = rt.Run(h, 0, -1, nil, nil, nil)
	case op.FnPrepareRun:
		st = rt.PrepareRun(h, 0, -1, nil, nil, nil)
	case op.FnLaunchRun:
		st = rt.LaunchRun(h, 0)
	case op.FnPollRun:
		st = rt.PollRun(h, 0)
	case op.FnWaitRun:
		st = rt.WaitRun(h, 0)
	case op.FnFinalizeRun:
		st = rt.FinalizeRun(h, 0)
	case op.FnMemInfo:
		// One bad argument each: a NULL info on a context (E-PROG.24), a
		// NULL context with valid memory (S-3 alone).
		var info unsafe.Pointer
		if h == 0 {
			info = unsafe.Pointer(&r.progBuf[0])
		}
		st = rt.DeviceMemoryInfo(h, info)
	case op.FnCopyTo:
		st = rt.CopyToDevice(h, progDevice(h), unsafe.Pointer(&r.progBuf[0]), 64)
	case op.FnCopyFrom:
		st = rt.CopyFromDevice(h, unsafe.Pointer(&r.progBuf[0]), progDevice(h), 64)
	case op.FnMalloc:
		if p := rt.DeviceMalloc(h, 64); p != 0 {
			o.Call.Value = 1
			rt.DeviceFree(h, p)
		}
	case op.FnFree:
		rt.DeviceFree(h, 0)
	case op.FnAicpuDlopen:
		o.Call.Value = uint64(rt.AicpuDlopenCount(h))
	case op.FnHostDlopen:
		o.Call.Value = uint64(rt.HostDlopenCount(h))
	case op.FnStreamSets:
		o.Call.Value = uint64(rt.RunStreamSetCreateCount(h))
	case op.FnConcurrentPrepare:
		o.Call.Value = uint64(int64(rt.SupportsConcurrentNativePrepare(h)))
	case op.FnArenaBase:
		o.Call.Value = rt.ArenaBankGMHeapBase(h, 0)
	case op.FnRetainedTemp:
		o.Call.Value = rt.RetainedTempAddr(h, 0)
	case op.FnCommCreate:
		if s := rt.CreateCommStream(h); s != 0 {
			o.Call.Value = 1
			rt.DestroyCommStream(h, s)
		}
	case op.FnCommDestroy:
		st = rt.DestroyCommStream(h, 0)
	}
	o.Call.Status = st
}

// progDevice is the device address a prog op's copy passes: 0 on a context
// (E-PROG.24), and on a NULL context one no runtime reads (S-3 first).
func progDevice(h abi.Ctx) abi.DevicePtr {
	if h == 0 {
		return 0x1000
	}
	return 0
}

// threadDevice is the device the second thread must set to match this one.
func (r *Runner) threadDevice() (int32, bool) {
	if dev, known := r.view().Device(); known {
		return dev, true
	}
	if r.hooks != nil {
		return r.hooks.SimCurrentDevice(), true
	}
	return 0, false
}

func (r *Runner) setThreadDevice(dev int32) {
	switch {
	case r.hooks != nil:
		r.hooks.SimSetCurrentDevice(dev)
	case r.acl != nil && dev >= 0:
		r.acl.SetDevice(dev)
	}
}

// hold runs X-2: a prepare holds the context's gate while a second call
// (launch or prepare) on another thread with the same device tries to take
// it. With the control hooks the prepare parks on the gate and the runner
// watches the second call (parkedPair: certain, no sleeps); without them
// site 7 holds the gate op.Ms ms and the second call starts a little later
// (timedPair).
func (r *Runner) hold(i int, cur op.Op, e *Entry) {
	o := &r.obs
	*o = op.Observation{Parked: r.ctl != nil}
	if !o.Parked {
		if st := r.hooks.SimInject(7, 1, cur.Ms); st != abi.OK {
			e.Skipped = "simabi_inject(7) returned " + op.StatusName(st)
			r.unmadeStep(i, cur, model.RX2, "X-2: the target does not model fault site 7 ("+op.StatusName(st)+")")
			return
		}
	}
	dev, ok := r.threadDevice()
	if !ok {
		e.Skipped = "the current device is unknown"
		r.unmadeStep(i, cur, model.RX2, e.Skipped)
		return
	}
	h := r.handle(cur.C)
	p := pairCalls{h: h, dev: dev, op: cur, first: r.image(cur.Img), stream: r.stream(cur.Stream)}
	if cur.Kind == op.KindHoldLaunch {
		p.args, o.Second.ArgT, o.Second.ArgS, o.Second.ArgHost = r.formArgs(cur, &r.slots[cur.C])
	} else {
		p.second = r.image(cur.Img2)
	}
	if o.Parked {
		r.parkedPair(&p)
	} else {
		r.timedPair(&p, time.Duration(cur.Ms)*time.Millisecond)
	}
	r.noteWritten(p.first, p.written1)
	r.recordID(cur.C, o.Call.Status, o.Call.Out, p.first)
	if p.second != nil {
		r.noteWritten(p.second, p.written2)
		r.recordID(cur.C, o.Second.Status, o.Second.Out, p.second)
	}
	if cur.Kind == op.KindHoldLaunch && o.Second.ArgHost {
		r.restoreArgs()
	}
	sl := &r.slots[cur.C]
	o.Mem = uint64(r.rt.CommittedDeviceMemory(h))
	o.MemProbed, o.MemPrev = true, sl.mem
	sl.mem = o.Mem
	r.st, _ = model.Step(r.st, i, 0, cur, o)
	e.Obs = *o
	e.memDir = memDirOf(o.MemPrev, o.Mem)
}

// pairCalls are the two calls of a hold op: a prepare of first, then a
// launch (second == nil) or a prepare of second.
type pairCalls struct {
	h                  abi.Ctx
	dev                int32
	op                 op.Op
	first, second      *imgBuf
	args               unsafe.Pointer
	stream             abi.Stream
	written1, written2 bool
}

// secondCall makes the pair's second call on the calling thread.
func (r *Runner) secondCall(p *pairCalls) {
	o := &r.obs
	if p.second == nil {
		o.Second.Status = r.rt.KernelModeLaunch(p.h, p.op.ID, p.args, p.stream)
	} else {
		o.Second.Status, o.Second.Out, p.written2 = r.prepareRaw(p.h, p.op.OutNull, p.second, r.out2)
	}
}

// parkedPair: the prepare parks holding the gate on the helper thread; the
// second call then runs on a third, and the prepare is released when that
// call returned or waits for the gate (SecondLate). A prepare refused
// before the gate leaves the calls sequential.
func (r *Runner) parkedPair(p *pairCalls) {
	o := &r.obs
	armed := r.ctl.SimHoldGate(p.h, 1) == abi.OK
	firstDone, secondDone := make(chan struct{}), make(chan struct{})
	r.helper().async(func() {
		r.setThreadDevice(p.dev)
		o.Call.Status, o.Call.Out, p.written1 = r.prepareRaw(p.h, p.op.OutNull, p.first, r.out)
		close(firstDone)
	})
	parked := armed && r.awaitGate(p.h, firstDone, func(s int32) bool { return s&abi.GateParked != 0 })
	if armed && !parked {
		r.ctl.SimHoldGate(p.h, 0) // disarm: the prepare never took the gate
	}
	r.third().async(func() {
		r.setThreadDevice(p.dev)
		r.secondCall(p)
		close(secondDone)
	})
	if parked {
		o.Overlap = true
		o.SecondLate = r.awaitGate(p.h, secondDone, func(s int32) bool { return s/abi.GateWaiter > 0 })
		r.ctl.SimHoldGate(p.h, 0)
	}
	<-firstDone
	<-secondDone
}

// awaitGate polls h's gate state until cond holds (true) or done is closed
// first (false).
func (r *Runner) awaitGate(h abi.Ctx, done <-chan struct{}, cond func(int32) bool) bool {
	for spin := 0; ; spin++ {
		select {
		case <-done:
			return cond(r.ctl.SimGateState(h))
		default:
		}
		if cond(r.ctl.SimGateState(h)) {
			return true
		}
		if spin < 1000 {
			runtime.Gosched()
		} else {
			time.Sleep(10 * time.Microsecond) // a loaded machine: yield the core
		}
	}
}

// helper is the second thread of pairs and races.
func (r *Runner) helper() *lockedThread { return r.thread(0) }

// third is the third thread of parked holds.
func (r *Runner) third() *lockedThread { return r.thread(1) }

func (r *Runner) thread(n int) *lockedThread {
	if r.extra[n] == nil {
		r.extra[n] = newLockedThread()
	}
	return r.extra[n]
}

// timedPair: site 7 makes this thread's prepare hold the gate for hold; the
// second call starts a little later on the helper. It overlapped iff it
// started before the prepare returned, waited iff it took over hold/2.
func (r *Runner) timedPair(p *pairCalls, hold time.Duration) {
	o := &r.obs
	delay := min(hold/4, 20*time.Millisecond)
	var t1, t2 time.Time
	ready, start, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	r.helper().async(func() {
		r.setThreadDevice(p.dev)
		close(ready)
		<-start
		time.Sleep(delay)
		t1 = time.Now()
		r.secondCall(p)
		t2 = time.Now()
		close(done)
	})
	<-ready
	close(start)
	o.Call.Status, o.Call.Out, p.written1 = r.prepareRaw(p.h, p.op.OutNull, p.first, r.out)
	p1 := time.Now()
	<-done
	o.Overlap = t1.Before(p1)
	o.SecondLate = t2.Sub(t1) > hold/2
}

// race runs X-1: both threads wait at a barrier, then initialize their own
// context for one device.
func (r *Runner) race(i int, cur op.Op, e *Entry) {
	dev, ok := r.threadDevice()
	if !ok {
		e.Skipped = "the current device is unknown"
		r.unmadeStep(i, cur, model.RX1, e.Skipped)
		return
	}
	o := &r.obs
	*o = op.Observation{}
	cfg := cfgPtr(cur.Cfg)
	ha, hb := r.handle(cur.C), r.handle(cur.C2)
	ready, start, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	r.helper().async(func() {
		r.setThreadDevice(dev)
		close(ready)
		<-start
		o.Second.Status = r.rt.KernelModeInit(hb, cur.Dev, nil, 0, nil, 0, nil, 0, cfg, cur.Gen)
		close(done)
	})
	<-ready
	close(start)
	o.Call.Status = r.rt.KernelModeInit(ha, cur.Dev, nil, 0, nil, 0, nil, 0, cfg, cur.Gen)
	<-done
	r.slots[cur.C].dev, r.slots[cur.C2].dev = cur.Dev, cur.Dev
	r.st, _ = model.Step(r.st, i, 0, cur, o)
	e.Obs = *o
}

// unload is U-1's op: with no context left, streams drained and faults
// disarmed, the instance is unloaded and the run ends (finishUnload).
func (r *Runner) unload(i int, cur op.Op, e *Entry) {
	r.drainParked() // no rank's thread may be inside the library it unloads
	for s := int8(0); s < op.MaxSlots; s++ {
		if r.view().SlotLive(s) {
			r.obs = op.Observation{}
			r.st, _ = model.Step(r.st, i, 0, cur, &r.obs)
			e.Skipped = "not run: c" + itoa(int32(s)) + " is still live"
			return
		}
	}
	r.quiesce()
	u, _ := r.t.(Unloader)
	r.unloadErr = u.Unload()
	r.unloadAt = i
	e.Op = cur
}

// disarm disarms every fault site (hooks only).
func (r *Runner) disarm() {
	for s := abi.FirstSite; r.hooks != nil && s <= abi.LastSite; s++ {
		r.hooks.SimInject(s, 0, 0)
	}
}

// quiesce disarms the fault sites and drains every stream the run used.
func (r *Runner) quiesce() {
	r.disarm()
	for _, s := range r.streams {
		switch {
		case s == 0:
		case r.hooks != nil:
			r.hooks.SimSyncStream(s)
		case r.acl != nil:
			r.acl.SynchronizeStream(s)
		}
	}
}

// cleanup releases what a run left: faults disarmed, streams drained, every
// live context finalized (its device current) and destroyed. A context
// whose finalize never returns 0 keeps its claim, remembered for later runs
// (tainted). After the model lost track the contexts are left.
func (r *Runner) cleanup() {
	r.commCleanup()
	r.quiesce()
	if lost, _ := r.view().Lost(); lost { // a handle may be freed (F-3)
		r.dirty = true
		if r.hooks != nil {
			r.hooks.SimSetCurrentDevice(-1)
		}
		return
	}
	// Outstanding runs hold their contexts (E-FIN, E-DESTROY): finalize them.
	for st := range int8(op.MaxStorages) {
		if state, i := r.view().Storage(st); state != model.StorageFree && i >= 0 && r.view().SlotLive(i) {
			r.rt.FinalizeRun(r.slots[i].h, abi.RunHandle(unsafe.Pointer(unsafe.SliceData(r.storage[st]))))
		}
	}
	type leftover struct {
		slotState
		claim bool // the model says it holds a device claim
	}
	var live []leftover
	for i := range r.slots {
		if r.slots[i].used && r.view().SlotLive(int8(i)) {
			c, _ := r.view().Context(int8(i))
			live = append(live, leftover{r.slots[i], c.Claim})
		}
	}
	for _, s := range r.leaked {
		live = append(live, leftover{s, true})
	}
	for _, s := range live {
		if s.h == 0 {
			continue
		}
		if s.dev >= 0 {
			r.setThreadDevice(s.dev)
		}
		ok := false
		for try := 0; try < 4 && !ok; try++ {
			ok = r.rt.FinalizeDevice(s.h) == abi.OK
		}
		if ok {
			r.rt.DestroyDeviceContext(s.h)
		} else if s.dev >= 0 && s.claim && !slices.Contains(r.tainted, s.dev) {
			r.tainted = append(r.tainted, s.dev)
		}
	}
	if r.hooks != nil {
		r.hooks.SimSetCurrentDevice(-1)
	}
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }
