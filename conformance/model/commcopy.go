package model

import (
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

// ccopy: a word of a comm window copied by a program context's
// copy_to_device_ctx (put) or copy_from_device_ctx (E-PROG.28): a span
// inside one mapped window is taken, every other span refused as an
// argument no entry may act on (past a window's end, or after its release:
// the runner passes the address it last had).

const (
	upCopyWindow = "upstream: common/platform/sim/host/c_api_shared.cpp:317-333, device_runner_base.cpp:346-354 (a memcpy); its Worker copies into a global domain's window, python/simpler/worker.py:2588, :2597"
	// gLegacyWildCopy grounds a legacy build's -1 for a span in no window.
	gLegacyWildCopy = "common/platform/sim/host/c_api_shared.cpp:317-333: the legacy copies answer -1 for an argument they refuse; upstream's memcpy (device_runner_base.cpp:346-354) takes any address, and one past a released window is unmapped memory"
)

// windowWord is where a ccopy's word lies, and whether inside a window.
type windowWord struct {
	live     bool // the reference names a window of a live context
	inWindow bool
	key      memKey
}

// commCopyWord resolves a ccopy reference (an idx past the rank count is
// windowsIn[idx] = 0: the offset alone, in no window).
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

// CommCopyReady says why a ccopy cannot be made ("" when it can).
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
		step:   func(m *Model, o Op, c *mctx, _ *Observation) func() { return m.commCopy(o, c) },
		resync: commLost,
	})
	defineRefusers(op.KindCommCopy, commCopyRefusers)
}

// commCopyRefusers: with a live init, a word in no live window.
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
