package conformance

import (
	"slices"
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// Refusal probes. A refused call must change nothing (latch, attachment,
// phase, claim, next id, committed memory, allocations, runs), and an
// injected failure only what its rule says. After every refused or failed
// call of a directed check (a destroy the model takes as refused, a sync
// that delivers an asynchronous failure, E-LAUNCH-ASYNC.4) the suite runs a
// probe case: the check's ops up to that call, then ops chosen from the
// model's state that read every survivor. A probe that answers otherwise
// is reported under the entry's rule, and L-4 or L-5 for an init's.

const (
	probeDevice     = 7  // no check uses it, so no claim of the check's is in the way
	probeCallableID = 63 // in a legacy registry's range (below 64), used by no check
	probeGen        = 97 // the context generation of a probe's kernel init
)

// Survivor is what one probe op reads of the state a refused or failed
// call left, as a report names it.
type Survivor string

// The survivors probes read, and the ops that set up or close a probe.
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
	Reads   []Survivor // what each probe op (Ops[At+1+i]) reads
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

// kinit adds a kernel init of slot on probeDevice that reads s.
func (l *probeList) kinit(s Survivor, slot int8) {
	l.add(SetsDevice, op.Op{Kind: op.KindSetDev, Dev: probeDevice})
	l.add(s, op.Op{Kind: op.KindKInit, C: slot, Dev: probeDevice, Gen: probeGen})
}

// refuses reports whether e expects a failure and nothing else.
func refuses(e model.Expectation) bool {
	return !e.Unchecked && !e.Status.Any && !e.Status.Has(abi.OK) && !e.Status.Empty()
}

// refusedCall reports whether e, the expectation of op, is a refusal of a
// call on a context.
func refusedCall(op op.Op, e model.Expectation) bool {
	return op.C >= 0 && op.StatusCall() && !op.Kind.TwoThread() && refuses(e)
}

// failedSync reports whether e is a sync that delivers an asynchronous
// failure (fault site 8).
func failedSync(o op.Op, e model.Expectation) bool {
	return o.Kind == op.KindSync && o.Stream >= 0 && refuses(e)
}

// refusedDestroy reports whether op is a destroy the model took as refused
// (the context is still live after it, E-DESTROY).
func refusedDestroy(m *model.Model, o op.Op) bool {
	return o.Kind == op.KindDestroy && o.C >= 0 && m.SlotLive(o.C)
}

// ProbeCases are check c's probe cases on a target of profile p with caps:
// one per refused or failed call the model predicts.
func ProbeCases(c *catalogue.Check, p model.Profile, caps catalogue.Caps) []ProbeCase {
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

// launchedOn are the live contexts whose last launch used stream s.
func launchedOn(m *model.Model, s int8) []int8 {
	var out []int8
	for slot := range int8(op.MaxSlots) {
		if c, ok := m.Context(slot); ok && c.Live && c.LastStream == s {
			out = append(out, slot)
		}
	}
	return out
}

// probesFor adds to l the ops that read every survivor of slot's context
// as the model has it (none when its state is unknown).
func probesFor(l *probeList, m *model.Model, slot int8, p model.Profile, caps catalogue.Caps) {
	c, ok := m.Context(slot)
	if !ok || !c.Live || c.Unknown {
		return
	}
	// A kernel init reads a latch only on an unclaimed device (a mismatch
	// would answer the IS the latch owes).
	kinitReadsLatch := p == model.ProfileTMR && caps.Has(catalogue.CapSetDevice) && !m.DeviceClaimed(probeDevice)
	start := len(l.ops)
	l.add(ReadsCommitted, op.Op{Kind: op.KindCommitted, C: slot})
	switch {
	case c.Latch == model.Unlatched && kinitReadsLatch:
		l.kinit(ReadsFreeLatch, slot)
		l.add(ClosesProbe, op.Op{Kind: op.KindFinalize, C: slot})
	case c.Latch == model.Unlatched:
		l.add(ReadsFreeLatch, op.Op{Kind: op.KindPInit, C: slot, Dev: probeDevice})
		l.add(ClosesProbe, op.Op{Kind: op.KindFinalize, C: slot})
	case c.Latch == model.LatchProgram && !c.Attached:
		// A failed teardown (site 10): a kernel init answers IS (L-2.3), a
		// program init attaches it (E-FIN.7, E-PINIT.14).
		if kinitReadsLatch {
			l.kinit(ReadsOtherMode, slot)
		}
		l.add(ReadsAttachment, op.Op{Kind: op.KindPInit, C: slot, Dev: probeDevice})
		l.add(ClosesProbe, op.Op{Kind: op.KindFinalize, C: slot})
	case c.Latch == model.LatchProgram:
		programProbes(l, m, slot, c)
		if p != model.ProfileLegacy { // E-PINIT.11 (legacy decides otherwise)
			l.add(ReadsAttached, op.Op{Kind: op.KindPInit, C: slot, Dev: probeDevice})
		}
		if kinitReadsLatch {
			l.kinit(ReadsOtherMode, slot)
		}
	case caps.Has(catalogue.CapSetDevice) && p == model.ProfileTMR:
		kernelProbes(l, m, slot, c)
	}
	if len(l.ops) == start+1 { // committed memory alone: nothing to probe here
		l.ops, l.reads = l.ops[:start], l.reads[:start]
	}
}

// kernelProbes read a kernel context: the next prepare (phase, next id,
// memory, headroom), a launch of each resident kept, the next kernel init
// (K-2.2, E-KINIT.6), a program init (L-2.2, L-3), a second context's init
// (the claim). A quarantined context (D-4) is not dispatched: its finalize
// answers IS instead.
func kernelProbes(l *probeList, m *model.Model, slot int8, c model.Context) {
	dev := c.Dev
	if dev < 0 {
		dev = probeDevice
	}
	l.add(SetsDevice, op.Op{Kind: op.KindSetDev, Dev: dev})
	if !c.DispatchAny {
		img := op.ImageRecipe{X: 99}
		if b, ok := m.ExactFit(slot); ok { // fill the largest place exactly
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

// probeMaxLaunches bounds a probe's launches (M-4's 8192 residents).
const probeMaxLaunches = 16

// probeResidents are the ids a probe launches of n: all, or
// probeMaxLaunches spread over them.
func probeResidents(n int) []int32 {
	ids := make([]int32, min(n, probeMaxLaunches))
	for i := range ids {
		ids[i] = int32(i)
		if n > probeMaxLaunches {
			ids[i] = int32(i * (n - 1) / (probeMaxLaunches - 1))
		}
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
// entry's, and an init's latch rule (L-4 program, L-5 kernel).
func ProbeRules(op op.Op) []model.Rule {
	rs := []model.Rule{EntryRule(op)}
	if c := classOf(op.Kind); c != nil && c.latchRule != model.RuleNone {
		rs = append(rs, c.latchRule)
	}
	return rs
}

// programProbes read an attached program context: every live allocation
// (E-DESTROY.3), each outstanding run one step on (polled, not waited for,
// on a real build whose kernel may never complete), and its registry (on
// a real build only after an init that gave it the binaries).
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
