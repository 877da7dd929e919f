package conformance

import (
	"slices"
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// Refusal probes: a refusal leaves no trace, and a failure leaves what the
// contract says survives it.
//
// A refused call must change nothing: not the latch, the attachment, the
// phase, the claim, the next id, committed memory, what the context's
// allocations hold or its outstanding runs. An injected failure (a fault
// site) changes only what its rule says and leaves the rest. A directed
// check sees a refusal or failure that did change something only where its
// script happens to look. So after every refused or failed call of a
// directed check the suite runs a probe case: the check's ops up to and
// including that call, then probe ops chosen from the state the model says
// the context is in, which read every survivor: committed memory first,
// then the latch in both directions (the other mode's init answers IS on a
// latched context; an unlatched one takes an init), the attachment (a
// program init answers IS while one is attached and attaches one that is
// not), the phase and the next id (a kernel context's next prepare), each
// published id, the next init of the same mode, the device claim (a second
// context's kernel init), and a program context's allocations, runs and
// registry. A destroy returns nothing: one the model takes as refused is
// probed the same way. A synchronize that delivers an asynchronous failure
// (fault site 8) changes no context (E-LAUNCH-ASYNC.4): every context whose
// last launch used that stream is probed after it. A probe that answers
// otherwise is reported under the refused entry's rule, and under L-4 or
// L-5 where the refusal was an init's (a latch moved), with the survivor
// it read.

// probeDevice is the device probes initialize on: one no op of the
// catalogue uses, so no claim of the check's stands in the way.
const probeDevice = 7

// probeCallableID is the id a probe registers: in range for a legacy
// registry too (ids below 64), and one no check registers.
const probeCallableID = 63

// probeGen is the context generation of a probe's kernel init.
const probeGen = 97

// Survivor is what one probe op reads of the state a refused or failed
// call left, as a report names it ("reads the latch ...").
type Survivor string

// The survivors probes read, and the ops that only set up or close a
// probe.
const (
	ReadsCommitted  Survivor = "reads committed memory"
	ReadsFreeLatch  Survivor = "reads the latch: an unlatched context takes an init"
	ReadsOtherMode  Survivor = "reads the latch: the other mode's init answers IS"
	ReadsAttachment Survivor = "reads the attachment: a program init attaches a detached context"
	ReadsAttached   Survivor = "reads the attachment: a program init answers IS while one is attached"
	ReadsPhase      Survivor = "reads the phase: the next prepare"
	ReadsNextID     Survivor = "reads the phase and the next id: the next prepare"
	ReadsResident   Survivor = "reads a published id: its launch"
	ReadsPhaseByID  Survivor = "reads the phase: a launch of a published id"
	ReadsSameMode   Survivor = "reads the next init of the same mode"
	ReadsQuarantine Survivor = "reads the quarantine: finalize answers IS (D-4.2)"
	ReadsClaim      Survivor = "reads the device claim: a second context's kernel init"
	ReadsAllocation Survivor = "reads an allocation's contents"
	ReadsRun        Survivor = "reads an outstanding run"
	ReadsRegistry   Survivor = "reads the callable registry"
	SetsDevice      Survivor = "sets the thread's device for the next probe"
	CreatesContext  Survivor = "creates a second context for the claim probe"
	ClosesProbe     Survivor = "closes what the previous probe opened"
)

// ProbeCase is one probe of a directed check.
type ProbeCase struct {
	Name    string
	Ops     []op.Op // the check's ops up to the refusal, then the probes
	At      int     // the refused op's index
	Refused op.Op
	// Reads says, for each probe op (Ops[At+1+i]), what it reads.
	Reads []Survivor
}

// ReadAt is what op i of the case reads ("" for an op of the check's own).
func (pc ProbeCase) ReadAt(i int) Survivor {
	if j := i - pc.At - 1; j >= 0 && j < len(pc.Reads) {
		return pc.Reads[j]
	}
	return ""
}

// probeList is a probe case's ops, each with what it reads.
type probeList struct {
	ops   []op.Op
	reads []Survivor
}

func (l *probeList) add(s Survivor, o op.Op) {
	l.ops = append(l.ops, o)
	l.reads = append(l.reads, s)
}

// kinit adds a kernel init of slot on probeDevice, made current first,
// that reads s.
func (l *probeList) kinit(s Survivor, slot int8) {
	l.add(SetsDevice, op.Op{Kind: op.KindSetDev, Dev: probeDevice})
	l.add(s, op.Op{Kind: op.KindKInit, C: slot, Dev: probeDevice, Gen: probeGen})
}

// refusedCall reports whether e, the model's expectation of op, is a
// refusal of a call on a context: failing statuses only, nothing open.
func refusedCall(op op.Op, e model.Expectation) bool {
	if op.C < 0 || !op.StatusCall() || e.Unchecked || e.Status.Any || e.Status.Has(abi.OK) {
		return false
	}
	return !op.Kind.TwoThread() && !e.Status.Empty()
}

// failedSync reports whether e, the model's expectation of op, is a
// synchronize that delivers an asynchronous failure (fault site 8).
func failedSync(o op.Op, e model.Expectation) bool {
	return o.Kind == op.KindSync && o.Stream >= 0 && !e.Unchecked && !e.Status.Any && !e.Status.Has(abi.OK) && !e.Status.Empty()
}

// refusedDestroy reports whether op is a destroy the model took as
// refused (the context is still live after it, E-DESTROY): it returns
// nothing, so only the calls after it tell that it changed nothing.
func refusedDestroy(m *model.Model, o op.Op) bool {
	return o.Kind == op.KindDestroy && o.C >= 0 && m.SlotLive(o.C)
}

// ProbeCases are the probe cases of check c on a target of profile p with
// capabilities caps: one per refused or failed call (by the model's
// prediction).
func ProbeCases(c *Check, p model.Profile, caps Caps) []ProbeCase {
	if p == "" {
		p = model.ProfileTMR
	}
	ops := c.Ops()
	st := model.NewState(checkModelOptions(p, caps))
	var out []ProbeCase
	for i, o := range ops {
		if need, _, _ := needs(o); !caps.Has(need) || (p == model.ProfileLegacy && o.Kind.Kernel()) {
			return out // the check is cut here on this target
		}
		e := model.Expect(st, o)
		for rep := 0; rep < o.Reps(); rep++ { // each call of a repeated op, as the runner steps it
			st, _ = model.Step(st, i, rep, o, nil)
		}
		m := st.Model()
		if lost, _ := m.Lost(); lost {
			return out
		}
		var l probeList
		switch {
		case refusedCall(o, e) || refusedDestroy(m, o):
			probesFor(&l, m, o.C, p, caps)
		case failedSync(o, e):
			for _, slot := range launchedOn(m, o.Stream) {
				probesFor(&l, m, slot, p, caps)
			}
		}
		if len(l.ops) == 0 {
			continue
		}
		seq := append(append([]op.Op(nil), ops[:i+1]...), l.ops...)
		out = append(out, ProbeCase{Name: "probe/" + c.Name + "#" + strconv.Itoa(i), Ops: seq, At: i, Refused: o, Reads: l.reads})
	}
	return out
}

// launchedOn are the slots of the live kernel contexts whose last launch
// used stream s.
func launchedOn(m *model.Model, s int8) []int8 {
	var out []int8
	for slot := range int8(op.MaxSlots) {
		if c, ok := m.Context(slot); ok && c.Live && c.LastStream == s {
			out = append(out, slot)
		}
	}
	return out
}

// probesFor adds to l the ops that read every survivor of slot's context,
// as the model has it now, from the states a trace of the refusal or
// failure would leave. It adds nothing for a context whose state the model
// does not know.
func probesFor(l *probeList, m *model.Model, slot int8, p model.Profile, caps Caps) {
	c, ok := m.Context(slot)
	if !ok || !c.Live || c.Unknown {
		return
	}
	// The kernel init that reads a program latch needs the thread on an
	// unclaimed device: a runtime whose latch was cleared then takes it,
	// where a device mismatch would answer the IS the latch owes.
	kinitReadsLatch := p == model.ProfileTMR && caps.Has(CapSetDevice) && !m.DeviceClaimed(probeDevice)
	start := len(l.ops)
	l.add(ReadsCommitted, op.Op{Kind: op.KindCommitted, C: slot})
	switch {
	case c.Latch == model.Unlatched && kinitReadsLatch:
		// Still unlatched: a kernel init takes it (a latch of either mode
		// would refuse it), and a finalize closes it again.
		l.kinit(ReadsFreeLatch, slot)
		l.add(ClosesProbe, op.Op{Kind: op.KindFinalize, C: slot})
	case c.Latch == model.Unlatched:
		l.add(ReadsFreeLatch, op.Op{Kind: op.KindPInit, C: slot, Dev: probeDevice})
		l.add(ClosesProbe, op.Op{Kind: op.KindFinalize, C: slot})
	case c.Latch == model.LatchProgram && !c.Attached:
		// Latched PROGRAM, nothing attached (a failed teardown, site 10,
		// leaves this): a kernel init answers IS (L-2.3), a program init
		// attaches it (E-FIN.7, E-PINIT.14).
		if kinitReadsLatch {
			l.kinit(ReadsOtherMode, slot)
		}
		l.add(ReadsAttachment, op.Op{Kind: op.KindPInit, C: slot, Dev: probeDevice})
		l.add(ClosesProbe, op.Op{Kind: op.KindFinalize, C: slot})
	case c.Latch == model.LatchProgram:
		programProbes(l, m, slot, c)
		if p != model.ProfileLegacy {
			// A second init answers IS while one is attached (E-PINIT.11;
			// legacy builds decide otherwise, E-PINIT "Profiles").
			l.add(ReadsAttached, op.Op{Kind: op.KindPInit, C: slot, Dev: probeDevice})
		}
		if kinitReadsLatch {
			l.kinit(ReadsOtherMode, slot)
		}
	case caps.Has(CapSetDevice) && p == model.ProfileTMR:
		kernelProbes(l, m, slot, c)
	}
	if len(l.ops) == start+1 { // committed memory alone: this target cannot probe the context
		l.ops, l.reads = l.ops[:start], l.reads[:start]
	}
}

// kernelProbes read a kernel context: the next prepare tells the phase,
// the next id, the committed memory and, near a full budget, its
// headroom; a launch of each resident the refusal kept (none on a context
// without one: a launch would show nothing the prepare did not); a kernel
// init of the context the next init of the same mode (IS on a latched
// context, K-2.2, also after a rolled-back one, E-KINIT.6); a program
// init the latch (IS, L-2.2, L-3); a second context's init the claim. A
// quarantined context (D-4) is not dispatched (the contract does not say
// what a dispatch answers there): its finalize, after the inits, answers
// IS instead.
func kernelProbes(l *probeList, m *model.Model, slot int8, c model.Context) {
	dev := c.Dev
	if dev < 0 {
		dev = probeDevice
	}
	l.add(SetsDevice, op.Op{Kind: op.KindSetDev, Dev: dev})
	if !c.DispatchAny {
		img := op.ImageRecipe{X: 99}
		if b, ok := m.ExactFit(slot); ok {
			// Little budget is left: the probe fills its largest place
			// exactly, which a refusal that charged anything makes BYTES.
			img.B = b
		}
		prep, launch := ReadsPhase, ReadsPhaseByID
		if c.Dispatch {
			prep, launch = ReadsNextID, ReadsResident
		}
		l.add(prep, op.Op{Kind: op.KindPrepare, C: slot, Img: img})
		for _, id := range probeResidents(c.IDs) {
			l.add(launch, op.Op{Kind: op.KindLaunch, C: slot, ID: id, Stream: 0})
		}
	}
	l.add(ReadsSameMode, op.Op{Kind: op.KindKInit, C: slot, Dev: dev, Gen: probeGen})
	l.add(ReadsOtherMode, op.Op{Kind: op.KindPInit, C: slot, Dev: probeDevice})
	if c.DispatchAny {
		l.add(ReadsQuarantine, op.Op{Kind: op.KindFinalize, C: slot})
	}
	if free := freeSlot(m); free >= 0 && c.Dev >= 0 {
		l.add(CreatesContext, op.Op{Kind: op.KindCreate, C: free})
		l.add(ReadsClaim, op.Op{Kind: op.KindKInit, C: free, Dev: c.Dev, Gen: probeGen})
	}
}

// probeMaxLaunches bounds a probe's launches: a context with more
// residents (M-4's 8192) is probed at its first, last and a few between.
const probeMaxLaunches = 16

// probeResidents are the ids a probe launches of a context that published
// n: all of them, or probeMaxLaunches spread over them.
func probeResidents(n int) []int32 {
	if n <= probeMaxLaunches {
		ids := make([]int32, n)
		for i := range ids {
			ids[i] = int32(i)
		}
		return ids
	}
	ids := make([]int32, probeMaxLaunches)
	for i := range ids {
		ids[i] = int32(i * (n - 1) / (probeMaxLaunches - 1))
	}
	return ids
}

// freeSlot is a slot that never held a context, or -1.
func freeSlot(m *model.Model) int8 {
	for i := op.MaxSlots - 1; i >= 0; i-- {
		if _, held := m.Context(int8(i)); !held {
			return int8(i)
		}
	}
	return -1
}

// ProbeRules are the rules a trace of refused op is reported under: the
// entry's, and the latch rule of an init (L-4 for simpler_init and
// ensure_acl_ready_ctx, which latch PROGRAM only after their argument
// checks; L-5 for a kernel init, which latches only after V-INIT, V-CFG and
// the capability decision).
func ProbeRules(op op.Op) []model.Rule {
	rs := []model.Rule{EntryRule(op)}
	if c := classOf(op.Kind); c != nil && c.latchRule != model.RuleNone {
		rs = append(rs, c.latchRule)
	}
	return rs
}

// programProbes read what an attached program context still holds after
// a refusal: a read of every live allocation (E-DESTROY.3: it holds what
// the model says was written), then each outstanding run taken one step
// on, as far as is safe: a prepared run launches, a launched one is waited
// for, a completed one polls 1. On a build that is not simulated a run's
// kernel is the user's and may never complete, so there the run is polled
// instead of waited for (a poll answers at once). Its registry takes a
// callable (on a real build only after an init that gave it the binaries).
func programProbes(l *probeList, m *model.Model, slot int8, c model.Context) {
	for _, a := range m.Allocations(slot) {
		l.add(ReadsAllocation, op.Op{Kind: op.KindDevRead, C: slot, A: a})
	}
	settle := op.KindWaitRun
	if !m.Options().Simulated {
		settle = op.KindPollRun
	}
	for st := range int8(op.MaxStorages) {
		state, holder := m.Storage(st)
		if holder != slot {
			continue
		}
		switch state {
		case model.StoragePrepared:
			l.add(ReadsRun, op.Op{Kind: op.KindLaunchRun, C: slot, St: st})
			l.add(ReadsRun, op.Op{Kind: settle, C: slot, St: st})
		case model.StorageLaunched:
			l.add(ReadsRun, op.Op{Kind: settle, C: slot, St: st})
		case model.StorageCompleted:
			l.add(ReadsRun, op.Op{Kind: op.KindPollRun, C: slot, St: st})
		}
	}
	if used := slices.Contains(m.Registered(slot), probeCallableID); c.Runs == 0 && !used && (c.Bins || m.Options().Simulated) {
		l.add(ReadsRegistry, op.Op{Kind: op.KindRegister, C: slot, ID: probeCallableID, Img: op.ImageRecipe{Base: op.ImgProgram}})
		l.add(ClosesProbe, op.Op{Kind: op.KindUnregister, C: slot, ID: probeCallableID})
	}
}
