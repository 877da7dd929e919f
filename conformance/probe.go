package conformance

import (
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"

	"slices"
	"strconv"

	"github.com/simabi/simabi/abi"
)

// Refusal probes: a refusal leaves no trace.
//
// A refused call must change nothing: not the latch, the attachment, the
// phase, the claim, the next id, committed memory, what the context's
// allocations hold or its outstanding runs. A directed check sees a
// refusal that did change something only where its script happens to look.
// So after every refused call of a directed check the suite runs a probe
// case: the check's ops up to and including the refusal, then probe ops
// chosen from the state the model says the context is in, whose answers
// tell that state from the ones a trace would leave (an unlatched context
// takes a kernel or program init, a dispatching kernel context mints the
// next id and keeps its claim, an attached program context reads back what
// was written into each allocation, ...). A destroy returns nothing: one
// the model takes as refused is probed the same way. A probe that answers
// otherwise is reported under the refused entry's rule, and under L-4 or
// L-5 where the refusal was an init's (a latch moved).

// probeDevice is the device probes initialize on: one no op of the
// catalogue uses, so no claim of the check's stands in the way.
const probeDevice = 7

// probeCallableID is the id a probe registers: in range for a legacy
// registry too (ids below 64), and one no check registers.
const probeCallableID = 63

// probeGen is the context generation of a probe's kernel init.
const probeGen = 97

// ProbeCase is one probe of a directed check.
type ProbeCase struct {
	Name    string
	Ops     []op.Op // the check's ops up to the refusal, then the probes
	At      int     // the refused op's index
	Refused op.Op
}

// refusedCall reports whether e, the model's expectation of op, is a
// refusal of a call on a context: failing statuses only, nothing open.
func refusedCall(op op.Op, e model.Expectation) bool {
	if op.C < 0 || !op.StatusCall() || e.Unchecked || e.Status.Any || e.Status.Has(abi.OK) {
		return false
	}
	return !twoThreadOp(op) && !e.Status.Empty()
}

// refusedDestroy reports whether op is a destroy the model took as
// refused (the context is still live after it, E-DESTROY): it returns
// nothing, so only the calls after it tell that it changed nothing.
func refusedDestroy(m *model.Model, o op.Op) bool {
	return o.Kind == op.KindDestroy && o.C >= 0 && m.SlotLive(o.C)
}

// ProbeCases are the probe cases of check c on a target of profile p with
// capabilities caps: one per refused call (by the model's prediction).
func ProbeCases(c *Check, p model.Profile, caps Caps) []ProbeCase {
	if p == "" {
		p = model.ProfileTMR
	}
	ops := c.Ops()
	st := model.NewState(checkModelOptions(p, caps))
	m := st.Model()
	var out []ProbeCase
	for i, o := range ops {
		if need, _, _ := needs(o); !caps.Has(need) || (p == model.ProfileLegacy && kernelOp(o)) {
			return out // the check is cut here on this target
		}
		e := model.Expect(st, o)
		for rep := 0; rep < o.Reps(); rep++ { // each call of a repeated op, as the runner steps it
			st, _ = model.Step(st, i, rep, o, nil)
		}
		if lost, _ := m.Lost(); lost {
			return out
		}
		if !refusedCall(o, e) && !refusedDestroy(m, o) {
			continue
		}
		probes := probesFor(m, o, p, caps)
		if len(probes) == 0 {
			continue
		}
		seq := append(append([]op.Op(nil), ops[:i+1]...), probes...)
		out = append(out, ProbeCase{Name: "probe/" + c.Name + "#" + strconv.Itoa(i), Ops: seq, At: i, Refused: o})
	}
	return out
}

// probesFor chooses the ops that tell the state of op's context, as the
// model has it after op, from the states a trace of the refusal would leave.
func probesFor(m *model.Model, o op.Op, p model.Profile, caps Caps) []op.Op {
	slot := o.C
	c, ok := m.Context(slot)
	if !ok || !c.Live || c.Unknown || c.DispatchAny {
		return nil
	}
	out := []op.Op{{Kind: op.KindCommitted, C: slot}}
	setdev := func(d int32) {
		if caps.Has(CapSetDevice) {
			out = append(out, op.Op{Kind: op.KindSetDev, Dev: d})
		}
	}
	switch {
	case c.Latch == model.Unlatched && p == model.ProfileTMR && caps.Has(CapSetDevice) && !m.DeviceClaimed(probeDevice):
		// Still unlatched: a kernel init takes it (a latch of either mode
		// would refuse it), and a finalize closes it again.
		setdev(probeDevice)
		out = append(out, op.Op{Kind: op.KindKInit, C: slot, Dev: probeDevice, Gen: probeGen}, op.Op{Kind: op.KindFinalize, C: slot})
	case c.Latch == model.Unlatched, c.Latch == model.LatchProgram && !c.Attached:
		// A program init attaches it (a kernel latch or an attachment left
		// behind would refuse it).
		out = append(out, op.Op{Kind: op.KindPInit, C: slot, Dev: probeDevice}, op.Op{Kind: op.KindFinalize, C: slot})
	case c.Latch == model.LatchProgram:
		// Still attached and live: every allocation still holds what was
		// written into it, every outstanding run still runs, and its
		// registry takes a callable (on a real build only after an init
		// that gave it the binaries).
		out = append(out, programProbes(m, slot)...)
		if used := slices.Contains(m.Registered(slot), probeCallableID); c.Runs == 0 && !used && (c.Bins || m.Options().Simulated) {
			out = append(out, op.Op{Kind: op.KindRegister, C: slot, ID: probeCallableID, Img: op.ImageRecipe{Base: op.ImgProgram}},
				op.Op{Kind: op.KindUnregister, C: slot, ID: probeCallableID})
		}
	case caps.Has(CapSetDevice) && p == model.ProfileTMR:
		// A kernel context: the next prepare tells the phase, the next id,
		// the committed memory and, near a full budget, its headroom; a
		// launch of each resident the refusal kept (none on a context
		// without one: a launch would show nothing the prepare did not); a
		// second context's init tells the claim.
		setdev(c.Dev)
		img := op.ImageRecipe{X: 99}
		if b, ok := m.ExactFit(slot); ok {
			// Little budget is left: the probe fills its largest place
			// exactly, which a refusal that charged anything makes BYTES.
			img.B = b
		}
		out = append(out, op.Op{Kind: op.KindPrepare, C: slot, Img: img})
		for _, id := range probeResidents(c.IDs) {
			out = append(out, op.Op{Kind: op.KindLaunch, C: slot, ID: id, Stream: 0})
		}
		if free := freeSlot(m); free >= 0 && c.Dev >= 0 {
			out = append(out, op.Op{Kind: op.KindCreate, C: free}, op.Op{Kind: op.KindKInit, C: free, Dev: c.Dev, Gen: probeGen})
		}
	default:
		return nil
	}
	return out
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

// programProbes tell what a program context with a live init still holds
// after a refusal: a read of every live allocation (E-DESTROY.3: it holds
// what the model says was written), then each outstanding run taken one
// step on, as far as is safe: a prepared run launches, a launched one is
// waited for, a completed one polls 1. On a build that is not simulated a
// run's kernel is the user's and may never complete, so there the run is
// polled instead of waited for (a poll answers at once).
func programProbes(m *model.Model, slot int8) []op.Op {
	var out []op.Op
	for _, a := range m.Allocations(slot) {
		out = append(out, op.Op{Kind: op.KindDevRead, C: slot, A: a})
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
			out = append(out, op.Op{Kind: op.KindLaunchRun, C: slot, St: st}, op.Op{Kind: settle, C: slot, St: st})
		case model.StorageLaunched:
			out = append(out, op.Op{Kind: settle, C: slot, St: st})
		case model.StorageCompleted:
			out = append(out, op.Op{Kind: op.KindPollRun, C: slot, St: st})
		}
	}
	return out
}
