package model

import (
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

// ccopy: a word of a comm window copied by a program context's
// copy_to_device_ctx (put) or copy_from_device_ctx (docs/contract.md
// E-PROG.28). rules.md says nothing of which device spans a copy takes;
// upstream's copies are a memcpy to any pointer
// (common/platform/sim/host/c_api_shared.cpp:317-333 →
// device_runner_base.cpp:346-354 at 6ebaf77), and its Worker copies into a
// global domain's window (python/simpler/worker.py:2588, :2597). The
// contract takes a span inside one window the runtime has mapped and not
// unmapped, every rank's, and refuses every other span as an argument no
// entry may act on: past a window's end, and a window after its release
// (the runner passes the address the window last had).

const (
	upCopyWindow = "upstream: common/platform/sim/host/c_api_shared.cpp:317-333, device_runner_base.cpp:346-354 (a memcpy); its Worker copies into a global domain's window, python/simpler/worker.py:2588, :2597"
	// gLegacyWildCopy grounds a legacy build's -1 for a span in no window
	// and no allocation: the status the legacy revision gives every
	// refused argument. Upstream's memcpy does not refuse it; past a
	// released window it reaches unmapped memory.
	gLegacyWildCopy = "common/platform/sim/host/c_api_shared.cpp:317-333: the legacy copies answer -1 for an argument they refuse; upstream's memcpy (device_runner_base.cpp:346-354) takes any address, and one past a released window is unmapped memory"
)

// windowWord is where a ccopy's word lies: the segment and offset of the
// mapping the reference goes through, and whether the span is inside one
// of that mapping's windows.
type windowWord struct {
	live     bool // the reference names a window of a live context
	inWindow bool
	key      memKey
}

// commCopyWord resolves a ccopy reference. A window of a context of rank
// count n whose idx is n or more is windowsIn[idx] = 0: the copy's address
// is the offset alone, in no window.
func (m *Model) commCopyWord(c op.CommRecipe) windowWord {
	w, ok := m.comm().window(c)
	if !ok {
		return windowWord{}
	}
	at := w.at + c.Off // a local window's copy reads no idx
	if (c.Ref != op.RefLocal && uint64(c.Idx) >= w.n) || at < c.Off || w.mwin == 0 {
		return windowWord{live: true}
	}
	i := at / w.mwin
	in := i < w.mn && at+8 <= (i+1)*w.mwin && at+8 > at
	return windowWord{live: true, inWindow: in, key: memKey{w.seg, w.first + at}}
}

// CommCopyReady says why a ccopy cannot be made ("" when it can): the
// model must know where the word lies, and a word it keeps is aligned.
func (m *Model) CommCopyReady(o Op) string {
	if m.lost {
		return "the model lost track"
	}
	if w := m.commCopyWord(o.Comm); w.inWindow && w.key.off%8 != 0 {
		return "the word is not 8-byte aligned in its segment"
	}
	return ""
}

// CommCopyLive reports whether a ccopy's reference names a window of a
// live context (else the runner passes the address the window last had).
func (m *Model) CommCopyLive(o Op) bool { return m.commCopyWord(o.Comm).live }

func (m *Model) commCopy(o Op, c *mctx) func() {
	if c = m.runEntry(o, c); c == nil {
		return nil
	}
	cm := m.comm()
	if cm.unknown {
		m.anything("a copy into a comm window after a recorded comm call the model could not judge")
		return nil
	}
	w := m.commCopyWord(o.Comm)
	if !w.inWindow {
		what := "past the window's end"
		if !w.live {
			what = "in a window that was released (the address it last had)"
		}
		m.refuseArgument("a copy of a word "+what+": inside no allocation and no mapped comm window (E-PROG.28)", gLegacyWildCopy)
		return nil
	}
	if o.Comm.Put {
		m.expect(REProg, one(abi.OK), "a copy into a mapped comm window (E-PROG.28; "+upCopyWindow+")")
		return func() {
			if st, seen := m.observed(); !seen || st == abi.OK {
				cm.mem[w.key] = o.Comm.Val
			}
		}
	}
	m.expect(REProg, one(abi.OK), "a copy out of a mapped comm window (E-PROG.28; "+upCopyWindow+")")
	want := cm.mem[w.key]
	m.value(REProg, want, "the window holds "+strconv.FormatUint(want, 10)+
		" (the last word written there through any mapping of its segment, else 0: a new segment is zeroed)")
	return nil
}

func init() {
	defineStep(op.KindCommCopy, stepDef{
		step: func(m *Model, o Op, c *mctx, _ *Observation) func() { return m.commCopy(o, c) },
		// An unpredicted answer: whether the word was written is not
		// known, nor what the windows hold.
		resync: commLost,
	})
	defineRefusers(op.KindCommCopy, commCopyRefusers)
}

// commCopyRefusers: with a live init, a word in no window of the mapping
// the reference goes through (past its end), or in a window that went.
func commCopyRefusers(m *Model, o Op, c *mctx, rs *refusals) {
	if live, _ := noLiveInit(m, c, rs); !live || m.comm().unknown {
		return
	}
	if w := m.commCopyWord(o.Comm); !w.inWindow {
		cond := "a span past its window's end"
		if !w.live {
			cond = "a window's span after its release"
		}
		rs.add(OnAll, "E-PROG.28", cond, iaSet)
	}
}
