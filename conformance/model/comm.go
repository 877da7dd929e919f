package model

import (
	"maps"
	"slices"
	"strconv"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
)

// The comm family (E-COMM): every int entry answers 0 or -1, comm_init a
// handle or NULL. The model keeps the handles and their windows, the
// segments the sequence made with their header counters (which call
// completes at once, which waits for peers), the global domains, and the
// words written into windows per segment (what a window reads through any
// context that maps it). A segment shared with other processes (a recorded
// session) has counters the model does not know: a wait there answers 0 or
// -1.

// commFail is the comm backend's one failure.
const commFail abi.Status = -1

// commHeader is the size of a session's (or domain allocation's) header
// before its windows (E-COMM).
const commHeader = 4096

// commSeg is one segment: a session's or a domain allocation's header and
// windows, or a global domain's window.
type commSeg struct {
	linked bool // its name exists and names this segment
	shared bool // other processes may use it: its counters are not known
	// unsure: its counters are not known for a rank of several (unsureWaits).
	unsure bool
	// multi: a handle of several ranks mapped it, so its counters may stay
	// nonzero between calls; a single rank's barrier is unknown once unsure.
	multi                       bool
	nranks                      int32 // the header's
	size                        uint64
	ready, barrier, phase, left int32
	// name: a session's (path, -1), a domain allocation's (path, id), a
	// global domain's window (-1, -1: unlinked only by its release).
	name [2]int16
}

// commDerived is one derived context of a handle.
type commDerived struct {
	seg           int    // the base windows' segment
	base          uint64 // the base windows' size
	ids           op.IDsRecipe
	n, off, win   uint64
	addr, basein0 uint64 // (hooks) its address, and the base windowsIn[0] it moved
}

// commDomain is one live domain allocation of a handle.
type commDomain struct {
	id           uint8
	rank, nranks int32
	seg          int
	win          uint64
	addr         uint64 // (hooks) its context
	in0          uint64
}

// commHandle is the model of one handle slot.
type commHandle struct {
	live         bool
	rank, nranks int32
	path         int8
	seg          int    // the base windows' segment; -1: no windows
	win          uint64 // the base context's winSize (0 before comm_alloc_windows)
	ctxAddr, in0 uint64 // (hooks) the base context and its windowsIn[0]
	derived      []commDerived
	domains      []commDomain
	here         bool // (recorded) every rank of its session is a handle of the trace
}

// commGlobal is one prepared global domain of the loaded copy.
type commGlobal struct {
	rank, nranks uint32
	win          uint64
	seg          int
	base         uint64 // the local window, as gprep wrote it
	imported     bool
	peers        []int // per rank, the segment its window maps (imported)
	addr         uint64
}

type memKey struct {
	seg int
	off uint64
}

// commModel is the model's comm state (nil until the first comm op).
type commModel struct {
	h        [op.MaxCommHandles]commHandle
	segs     []commSeg
	sessions [op.MaxCommPaths]int // each path's linked session segment, -1 none
	domSegs  map[[2]int16]int     // (path, allocation id) → linked segment
	globals  map[uint8]*commGlobal
	descs    map[uint8]commDesc // each domain's descriptor as its last gprep wrote it
	mem      map[memKey]uint64
	shared   bool // a recorded session: every segment may have ranks elsewhere
	// unknown: a recorded comm call could not be judged: later comm calls
	// are not judged, only their handles followed.
	unknown   bool
	park      parkState // the calls of ranks that wait for peers (commpark.go)
	timeoutMs int32     // the last ctimeout's bound (0: the build's; commtimeout.go)
	// probe: a scratch copy's step notes in why why its call waits (CommWaits).
	probe bool
	why   string
}

// commDesc is what the model knows of a descriptor gprep wrote.
type commDesc struct {
	rank, nranks uint32
	win          uint64
	seg          int
	hs, nameLen  uint32 // handle_size and its name's length, as observed (26 until then)
}

func newCommModel() *commModel {
	cm := &commModel{domSegs: map[[2]int16]int{}, globals: map[uint8]*commGlobal{}, descs: map[uint8]commDesc{}, mem: map[memKey]uint64{}}
	for i := range cm.sessions {
		cm.sessions[i] = -1
	}
	return cm
}

func (cm *commModel) copy() *commModel {
	n := *cm
	for i := range n.h {
		n.h[i].derived = append([]commDerived(nil), cm.h[i].derived...)
		n.h[i].domains = append([]commDomain(nil), cm.h[i].domains...)
	}
	n.segs = append([]commSeg(nil), cm.segs...)
	n.domSegs, n.descs, n.mem = maps.Clone(cm.domSegs), maps.Clone(cm.descs), maps.Clone(cm.mem)
	n.globals = make(map[uint8]*commGlobal, len(cm.globals))
	for k, g := range cm.globals {
		c := *g
		c.peers = append([]int(nil), g.peers...)
		n.globals[k] = &c
	}
	n.park = cm.park.copy()
	return &n
}

// comm is the model's comm state, made on first use.
func (m *Model) comm() *commModel {
	if m.cm == nil {
		m.cm = newCommModel()
	}
	return m.cm
}

// newSeg is a segment the call created under name.
func (cm *commModel) newSeg(size uint64, nranks int32, name [2]int16) int {
	cm.segs = append(cm.segs, commSeg{linked: true, size: size, nranks: nranks, name: name})
	return len(cm.segs) - 1
}

// elsewhere reports whether a wait of h, a rank of nranks, on segment s
// may depend on other processes: a recorded segment of several ranks
// unless every rank of h's session is in the trace (h.here).
func (cm *commModel) elsewhere(s int, h *commHandle, nranks int64) bool {
	return cm.segs[s].shared || (cm.shared && nranks > 1 && !h.here)
}

// handle is slot h's handle when it is live.
func (cm *commModel) handle(h int8) *commHandle {
	if h < 0 || int(h) >= len(cm.h) || !cm.h[h].live {
		return nil
	}
	return &cm.h[h]
}

// commExpect records an int comm entry's expectation (S-2: 0 or -1).
func (m *Model) commExpect(ss StatusSet, note string) {
	m.expect(REComm, ss, note)
	m.e.CommCodes = true
}

func (m *Model) commRefuse(note string) { m.commExpect(one(commFail), note) }

// commRefused refuses a call of entry what, and returns the check that
// it wrote nothing through its out pointers.
func (m *Model) commRefused(obs *Observation, what, note string) func() {
	m.commRefuse(note)
	return m.unwritten(obs, what)
}

// outWritten reports whether the call wrote through an out pointer.
func outWritten(v uint64) bool { return v != op.CommUnwritten }

// commObs is the comm part of obs (nil when not observed).
func commObs(obs *Observation) *op.CommObs {
	if obs == nil {
		return nil
	}
	return obs.Comm
}

// unwritten checks that a failed call of entry what wrote nothing.
func (m *Model) unwritten(obs *Observation, what string) func() {
	return func() {
		if o := commObs(obs); o != nil && obs.Call.Status != abi.OK && (outWritten(o.Out) || outWritten(o.Base)) {
			m.finding(REComm, Fail, what+" failed and wrote through an out pointer: a refusal writes nothing")
		}
	}
}

// onCommOK returns f on the comm observation of a call that returned 0.
func onCommOK(obs *Observation, f func(co *op.CommObs)) func() {
	return func() {
		if co := commObs(obs); co != nil && obs.Call.Status == abi.OK {
			f(co)
		}
	}
}

// succeeded: the call returned 0 or was not observed.
func (m *Model) succeeded(obs *Observation) bool { return obs == nil || obs.Call.Status == abi.OK }

// commWait expects a call that completes at once (done) or needs peers
// the model cannot see: other processes', so 0 or -1 (a run of the checker
// parks such a call or does not make it: waitFor, CommWaits).
func (m *Model) commWait(done bool, note string) {
	if done {
		m.commExpect(one(abi.OK), note)
		return
	}
	m.commExpect(two(abi.OK, commFail), "it waits for peers in other processes: 0 when they came, -1 at the timeout")
}

// repeatAllocWaits: upstream's session creator re-initializes the header
// on every call (comm_sim.cpp:345-352), zeroing the ready count, and waits
// again; other ranks return at once; which one a handle is, the ABI does
// not tell.
const repeatAllocWaits = "a second comm_alloc_windows of a rank of several: the session's creator re-initializes its header and waits for every rank again (upstream comm_sim.cpp:345-352)"

// unsureWaits: a rank of several that may wait on unknown counters.
const unsureWaits = "its session's counters are not known: a handle allocated its windows again (upstream's creator re-initializes the header, comm_sim.cpp:345-352) or a handle of another nranks joined it"

// CommWaits says why op would wait for peers ("" when it returns at
// once), from a walk on a scratch copy: the runner parks such a call
// (CommParkable) or does not make it (it would end at the timeout).
func (m *Model) CommWaits(o Op) string {
	if !CommMayWait(o.Kind) {
		return ""
	}
	if m.lost {
		return "the model lost track: the call might wait for peers until the runtime's timeout"
	}
	c := m.scratch()
	c.comm().unknown, c.cm.probe = false, true
	c.step(0, 0, o, nil)
	return c.cm.why
}

// waitsIf notes why the probed call waits, when on (the first reason wins).
func (cm *commModel) waitsIf(on bool, why string) {
	if on && cm.probe && cm.why == "" {
		cm.why = why
	}
}

func (h *commHandle) domain(id uint8) *commDomain {
	if i := slices.IndexFunc(h.domains, func(d commDomain) bool { return d.id == id }); i >= 0 {
		return &h.domains[i]
	}
	return nil
}

func (m *Model) commInit(o Op) {
	cm, c, ok := m.comm(), o.Comm, false
	m.expect(REComm, anyStatus, "")
	switch {
	case c.Path < 0:
		m.value(REComm, 0, "comm_init with a NULL rootinfo_path returns NULL")
	case c.Rank < 0 || c.NRanks <= 0 || c.Rank >= int64(c.NRanks):
		m.value(REComm, 0, "comm_init with rank "+strconv.FormatInt(c.Rank, 10)+" of "+strconv.Itoa(int(c.NRanks))+" returns NULL")
	case c.NRanks > abi.CommMaxRankNum:
		m.value(REComm, 0, "comm_init with more than 64 ranks returns NULL")
	default:
		m.value(REComm, 1, "comm_init returns a new handle")
		ok = true
	}
	cm.h[c.H] = commHandle{live: ok, rank: int32(c.Rank), nranks: c.NRanks, path: c.Path, seg: -1}
}

func (m *Model) commAlloc(o Op, obs *Observation) func() {
	cm, c := m.comm(), o.Comm
	h := cm.handle(c.H)
	if h == nil || c.NullOut {
		return m.commRefused(obs, "comm_alloc_windows", "comm_alloc_windows with a NULL handle or device_ctx_out")
	}
	if h.seg >= 0 && h.nranks > 1 {
		cm.waitsIf(true, repeatAllocWaits)
		m.commWait(false, repeatAllocWaits)
		return nil
	}
	total := commHeader + c.Win*uint64(h.nranks)
	s := cm.sessions[h.path]
	if s >= 0 && (h.seg >= 0 || cm.segs[s].nranks != h.nranks) {
		cm.segs[s].unsure = true
	}
	if s >= 0 && h.nranks > 1 && cm.segs[s].unsure {
		cm.waitsIf(true, unsureWaits)
		m.commWait(false, unsureWaits)
		return nil
	}
	countWhy := "it would wait for the other ranks of its session"
	if s < 0 {
		s = cm.newSeg(total, h.nranks, [2]int16{int16(h.path), -1})
		cm.sessions[h.path] = s
	} else {
		countWhy = "its session has " + strconv.Itoa(int(cm.segs[s].ready)) + " rank(s) ready of " + strconv.Itoa(int(h.nranks)) + ": it would wait for the others"
	}
	// timedOut: its ready wait times out (E-COMM.9): the context is written.
	mapped, timedOut := m.joinReady(s, h, h.nranks, total, "its session's", countWhy, "comm_alloc_windows of a rank whose peers are all ready returns 0 at once")
	if !mapped {
		return m.unwritten(obs, "comm_alloc_windows") // the handle keeps what it had
	}
	h.seg, h.win = s, c.Win
	if h.nranks > 1 {
		cm.segs[s].multi = true
	}
	return func() {
		co := commObs(obs)
		if co == nil || (!m.succeeded(obs) && !(timedOut && obs.Call.Status == commFail)) {
			return
		}
		if !outWritten(co.Out) {
			if timedOut {
				m.finding(REComm, Fail, "comm_alloc_windows timed out at its ready wait and wrote no context: the context is written before the wait (E-COMM.9)")
			} else {
				m.finding(REComm, Fail, "comm_alloc_windows returned 0 and wrote no context")
			}
			return
		}
		if h.ctxAddr != 0 && co.Out != h.ctxAddr {
			m.finding(REComm, Fail, "comm_alloc_windows returned another context than its last call: the handle's context is its own, the same on every call")
		}
		h.ctxAddr = co.Out
		if in0, ok := m.commCheckCtx(co, "comm_alloc_windows", uint32(h.rank), uint32(h.nranks), c.Win, true); ok {
			h.in0 = in0
		}
	}
}

// joinReady is a rank's arrival at segment s's ready count, one of nranks
// whose windows take total bytes: mapped false when a too-small segment
// times out before mapping; timedOut when its ready wait times out. whose
// names the segment, countWhy why a sized one waits.
func (m *Model) joinReady(s int, h *commHandle, nranks int32, total uint64, whose, countWhy, doneNote string) (mapped, timedOut bool) {
	cm := m.comm()
	if cm.elsewhere(s, h, int64(nranks)) {
		cm.segs[s].shared = true
	}
	seg := &cm.segs[s]
	sized := seg.size >= total
	cm.waitsIf(!sized, whose+" segment is smaller than its windows: it would wait for a peer to size it")
	cm.waitsIf(seg.ready+1 < nranks, countWhy)
	done := !seg.shared && sized && seg.ready+1 >= nranks
	switch {
	case sized || seg.shared:
		m.waitFor(done, waitKey{waitReady, s, 0}, doneNote)
		seg.ready++
		return true, !done && !cm.park.parking && cm.timesOut()
	case cm.timesOut():
		m.commTimeout(whose + " segment is smaller than its windows and no peer sizes it")
		return false, false
	}
	m.commWait(false, "")
	return true, false
}

// commCheckCtx judges a returned CommContext (read through the hooks) and
// returns windowsIn[0].
func (m *Model) commCheckCtx(co *op.CommObs, what string, rank, n uint32, win uint64, consecutive bool) (uint64, bool) {
	if co.Unreadable {
		m.finding(REComm, Fail, what+" returned a context pointer that points at no readable memory")
		return 0, false
	}
	b := co.Ctx
	if len(b) < abi.CommContextSize {
		return 0, false
	}
	bad := func(f string) { m.finding(REComm, Fail, what+": the CommContext's "+f) }
	for _, f := range [...]struct {
		name      string
		got, want uint64
	}{{"rankId", uint64(le.Uint32(b[abi.CommCtxRankIDOff:])), uint64(rank)}, {"rankNum", uint64(le.Uint32(b[abi.CommCtxRankNumOff:])), uint64(n)},
		{"winSize", le.Uint64(b[abi.CommCtxWinSizeOff:]), win}} {
		if f.got != f.want {
			bad(f.name + " is " + strconv.FormatUint(f.got, 10) + ", want " + strconv.FormatUint(f.want, 10))
		}
	}
	if le.Uint64(b[abi.CommCtxWorkSpaceOff:]) != 0 || le.Uint64(b[abi.CommCtxWorkSpaceSizeOff:]) != 0 {
		bad("workSpace is set")
	}
	in := func(i int) uint64 { return le.Uint64(b[abi.CommCtxWindowsInOff+8*i:]) }
	out := func(i int) uint64 { return le.Uint64(b[abi.CommCtxWindowsOutOff+8*i:]) }
	for i := 0; i < abi.CommMaxRankNum; i++ {
		switch {
		case uint32(i) >= n && (in(i) != 0 || out(i) != 0):
			bad("window " + strconv.Itoa(i) + " is set, past rankNum")
			return in(0), false
		case uint32(i) >= n:
		case in(i) != out(i):
			bad("windowsOut[" + strconv.Itoa(i) + "] is not windowsIn[" + strconv.Itoa(i) + "]")
			return in(0), false
		case in(i) == 0:
			bad("windowsIn[" + strconv.Itoa(i) + "] is NULL")
			return in(0), false
		case consecutive && in(i) != in(0)+uint64(i)*win:
			bad("window " + strconv.Itoa(i) + " is not win_size bytes after the one before")
			return in(0), false
		}
	}
	return in(0), true
}

func (m *Model) commQuery(o Op, obs *Observation) func() {
	cm, c := m.comm(), o.Comm
	h := cm.handle(c.H)
	what := "comm_get_local_window_base"
	if o.Kind == op.KindCommSize {
		what = "comm_get_window_size"
	}
	if h == nil || c.NullOut {
		return m.commRefused(obs, what, what+" with a NULL handle or out")
	}
	m.commExpect(one(abi.OK), "")
	return onCommOK(obs, func(co *op.CommObs) {
		got := co.Out
		if o.Kind == op.KindCommSize {
			if got != h.win {
				m.finding(REComm, Fail, what+" wrote "+strconv.FormatUint(got, 10)+", want the context's winSize "+strconv.FormatUint(h.win, 10))
			}
			return
		}
		switch {
		case h.seg < 0 && got != 0:
			m.finding(REComm, Fail, what+" before comm_alloc_windows wrote a nonzero base: the handle's context starts zeroed")
		case h.seg >= 0 && h.in0 != 0 && got != h.in0+uint64(h.rank)*h.win:
			m.finding(REComm, Fail, what+" wrote another address than the context's windowsIn[rank]")
		case h.seg >= 0 && got == 0:
			m.finding(REComm, Fail, what+" wrote 0 for a handle with windows")
		}
	})
}

func (m *Model) commDerive(o Op, obs *Observation) func() {
	cm, c := m.comm(), o.Comm
	h := cm.handle(c.H)
	refused := func(note string) func() { return m.commRefused(obs, "comm_derive_context", note) }
	switch {
	case h == nil || c.IDs.Null || c.NullOut:
		return refused("comm_derive_context with a NULL handle, rank_ids or device_ctx_out")
	case h.seg < 0:
		return refused("comm_derive_context of a handle without windows")
	case c.N == 0 || c.N > abi.CommMaxRankNum || uint64(c.Rank) >= c.N:
		return refused("comm_derive_context with rank_count " + strconv.FormatUint(c.N, 10) + " and domain_rank " + strconv.FormatInt(c.Rank, 10))
	case abi.CommDeriveRangeRefused(c.Off, c.Win, h.win):
		return refused("comm_derive_context past the base window: offset + size > winSize, or wrapping past 2^64")
	}
	for i := 0; i < int(c.N); i++ {
		if c.IDs.Entry(i) >= uint32(h.nranks) {
			return refused("comm_derive_context with rank_ids[" + strconv.Itoa(i) + "] >= nranks")
		}
	}
	m.commExpect(one(abi.OK), "")
	d := commDerived{seg: h.seg, base: h.win, ids: c.IDs, n: c.N, off: c.Off, win: c.Win, basein0: h.in0}
	h.derived = append(h.derived, d)
	at := len(h.derived) - 1
	return onCommOK(obs, func(co *op.CommObs) {
		if !outWritten(co.Out) {
			m.finding(REComm, Fail, "comm_derive_context returned 0 and wrote no context")
			return
		}
		for _, x := range h.derived[:at] {
			if x.addr == co.Out {
				m.finding(REComm, Fail, "comm_derive_context returned a context an earlier derive returned: each is new")
			}
		}
		if co.Out == h.ctxAddr {
			m.finding(REComm, Fail, "comm_derive_context returned the base context")
		}
		h.derived[at].addr = co.Out
		if _, ok := m.commCheckCtx(co, "comm_derive_context", uint32(c.Rank), uint32(c.N), c.Win, false); !ok || h.in0 == 0 {
			return
		}
		for i := 0; i < int(c.N); i++ {
			want := h.in0 + uint64(c.IDs.Entry(i))*h.win + c.Off
			if got := le.Uint64(co.Ctx[abi.CommCtxWindowsInOff+8*i:]); got != want {
				m.finding(REComm, Fail, "comm_derive_context: window "+strconv.Itoa(i)+" is not the base windowsIn[rank_ids["+strconv.Itoa(i)+"]] + window_offset")
				return
			}
		}
	})
}

func (m *Model) commBarrier(o Op) {
	cm := m.comm()
	h := cm.handle(o.Comm.H)
	if h == nil || h.seg < 0 {
		m.commRefuse("comm_barrier with a NULL handle, or a handle without windows")
		return
	}
	seg := &cm.segs[h.seg]
	unsure := seg.unsure && (h.nranks > 1 || seg.multi)
	cm.waitsIf(unsure, unsureWaits)
	cm.waitsIf(seg.barrier+1 != h.nranks, "it would wait for the other ranks at the barrier")
	if unsure || cm.elsewhere(h.seg, h, int64(h.nranks)) {
		m.commWait(false, "")
		return
	}
	// Upstream's last arrival is the one that makes the count equal its
	// handle's nranks (comm_sim.cpp:505-512); an arrival past it waits.
	k := waitKey{waitBarrier, h.seg, seg.phase}
	seg.barrier++
	done := seg.barrier == h.nranks
	if done {
		seg.barrier = 0
		seg.phase++
	}
	m.waitFor(done, k, "the barrier's last arrival returns 0 at once, and releases the ranks that wait")
}

func (m *Model) commDestroy(o Op) {
	cm := m.comm()
	h := cm.handle(o.Comm.H)
	if h == nil {
		m.commRefuse("comm_destroy(NULL)")
		return
	}
	for _, d := range h.domains {
		cm.unlink(d.seg) // released locally, without the release barrier
	}
	done, k := true, waitKey{}
	if h.seg >= 0 {
		seg := &cm.segs[h.seg]
		cm.waitsIf(seg.unsure && h.nranks > 1, unsureWaits)
		cm.waitsIf(seg.left+1 < h.nranks, "its destroy barrier would wait for the other ranks")
		done, k = cm.leave(h.seg, h.nranks, cm.elsewhere(h.seg, h, int64(h.nranks))), waitKey{waitLeft, h.seg, 0}
	}
	m.waitFor(done, k, "comm_destroy returns 0 once the last rank is out, and releases the ranks that wait")
	cm.h[o.Comm.H] = commHandle{}
}

// leave counts a rank of nranks out of segment s; the last out unlinks it
// (not when peers may be elsewhere: away).
func (cm *commModel) leave(s int, nranks int32, away bool) (last bool) {
	cm.segs[s].left++
	if last = !away && cm.segs[s].left >= nranks; last {
		cm.unlink(s)
	}
	return last
}

// unlink removes segment s's name (shm_unlink) from whatever segment it
// names now.
func (cm *commModel) unlink(s int) {
	if s < 0 {
		return
	}
	name := cm.segs[s].name
	switch {
	case name[0] < 0:
		cm.segs[s].linked = false
	case name[1] < 0:
		if cur := cm.sessions[name[0]]; cur >= 0 {
			cm.segs[cur].linked = false
			cm.sessions[name[0]] = -1
		}
	default:
		if cur, ok := cm.domSegs[name]; ok {
			cm.segs[cur].linked = false
			delete(cm.domSegs, name)
		}
	}
}

func (m *Model) commDomainAlloc(o Op, obs *Observation) func() {
	cm, c := m.comm(), o.Comm
	h := cm.handle(c.H)
	refused := func(note string) func() { return m.commRefused(obs, "comm_alloc_domain_windows", note) }
	switch {
	case h == nil || c.IDs.Null || c.NullOut || c.NullBase:
		return refused("comm_alloc_domain_windows with a NULL handle, rank_ids or out pointer")
	case c.N == 0 || c.N > abi.CommMaxRankNum || uint64(c.Rank) >= c.N:
		return refused("comm_alloc_domain_windows with rank_count " + strconv.FormatUint(c.N, 10) + " and domain_rank " + strconv.FormatInt(c.Rank, 10))
	case c.Win == 0:
		return refused("comm_alloc_domain_windows with window_size 0")
	case h.domain(c.ID) != nil:
		return refused("comm_alloc_domain_windows of an allocation_id live on the handle")
	case c.IDs.Entry(int(c.Rank)) != uint32(h.rank):
		return refused("comm_alloc_domain_windows with rank_ids[domain_rank] other than the handle's rank")
	}
	total := commHeader + c.Win*c.N
	key := [2]int16{int16(h.path), int16(c.ID)}
	s, ok := cm.domSegs[key]
	if !ok {
		s = cm.newSeg(total, int32(c.N), key)
		cm.domSegs[key] = s
	}
	if mapped, _ := m.joinReady(s, h, int32(c.N), total, "the allocation's", "it would wait for the other ranks of the subset",
		"comm_alloc_domain_windows of a rank whose subset is all ready returns 0 at once"); !mapped {
		return m.unwritten(obs, "comm_alloc_domain_windows") // no window is zeroed
	}
	// The rank's own window is zeroed before it counts itself ready.
	lo := commHeader + uint64(c.Rank)*c.Win
	cm.zero(s, lo, lo+c.Win)
	return func() {
		if !m.succeeded(obs) {
			m.unwritten(obs, "comm_alloc_domain_windows")()
			return
		}
		d := commDomain{id: c.ID, rank: int32(c.Rank), nranks: int32(c.N), seg: s, win: c.Win}
		if co := commObs(obs); co != nil {
			if !outWritten(co.Out) || !outWritten(co.Base) {
				m.finding(REComm, Fail, "comm_alloc_domain_windows returned 0 and left an out pointer unwritten")
			}
			d.addr = co.Out
			if in0, ok := m.commCheckCtx(co, "comm_alloc_domain_windows", uint32(c.Rank), uint32(c.N), c.Win, true); ok {
				d.in0 = in0
				if co.Base != in0+uint64(c.Rank)*c.Win {
					m.finding(REComm, Fail, "comm_alloc_domain_windows: local_window_base_out is not windowsIn[domain_rank]")
				}
			}
		}
		h.domains = append(h.domains, d)
	}
}

// zero clears the words of segment s in [lo, hi).
func (cm *commModel) zero(s int, lo, hi uint64) {
	for k := range cm.mem {
		if k.seg == s && k.off+8 > lo && k.off < hi {
			delete(cm.mem, k)
		}
	}
}

func (m *Model) commDomainRelease(o Op) {
	cm, c := m.comm(), o.Comm
	h := cm.handle(c.H)
	if h == nil {
		m.commRefuse("comm_release_domain_windows(NULL)")
		return
	}
	d := h.domain(c.ID)
	switch {
	case d == nil:
		m.commRefuse("comm_release_domain_windows of an allocation_id not live on the handle")
		return
	case uint64(d.nranks) != c.N || uint32(d.rank) != uint32(c.Rank):
		m.commRefuse("comm_release_domain_windows with a rank_count or domain_rank other than the allocation's")
		return
	}
	cm.waitsIf(cm.segs[d.seg].left+1 < d.nranks, "its release barrier would wait for the other ranks of the subset")
	done := cm.leave(d.seg, d.nranks, cm.elsewhere(d.seg, h, int64(d.nranks)))
	m.waitFor(done, waitKey{waitLeft, d.seg, 0}, "comm_release_domain_windows returns 0 once the last rank of the subset is out")
	h.domains = slices.DeleteFunc(h.domains, func(d commDomain) bool { return d.id == c.ID })
}

func (m *Model) commGlobalPrepare(o Op, obs *Observation) func() {
	cm, c := m.comm(), o.Comm
	refused := func(note string) func() {
		m.commRefuse(note)
		return func() {
			co := commObs(obs)
			if co == nil || obs.Call.Status == abi.OK {
				return
			}
			if outWritten(co.Base) {
				m.finding(REComm, Fail, "comm_global_domain_prepare failed and wrote local_window_base_out")
			}
			if slices.ContainsFunc(co.Desc, func(b byte) bool { return b != op.CommUnwrittenByte }) {
				m.finding(REComm, Fail, "comm_global_domain_prepare failed and wrote the descriptor")
			}
		}
	}
	switch {
	case c.ID == 0:
		return refused("comm_global_domain_prepare of domain_id 0")
	case c.N == 0 || c.N > abi.CommMaxRankNum || uint64(c.Rank) >= c.N:
		return refused("comm_global_domain_prepare with rank_count " + strconv.FormatUint(c.N, 10) + " and domain_rank " + strconv.FormatInt(c.Rank, 10))
	case c.Win == 0:
		return refused("comm_global_domain_prepare with window_size 0")
	case c.GPProfile() != abi.CommProfileSimShm:
		return refused("comm_global_domain_prepare with profile " + strconv.FormatUint(uint64(c.GPProfile()), 10) + ", not SIM_SHM (1)")
	case c.NullOut || c.NullBase:
		return refused("comm_global_domain_prepare with a NULL descriptor_out or local_window_base_out")
	case cm.globals[c.ID] != nil:
		return refused("comm_global_domain_prepare of a domain_id prepared and not released")
	}
	m.commExpect(one(abi.OK), "")
	s := cm.newSeg(c.Win, int32(c.N), [2]int16{-1, -1})
	g := &commGlobal{rank: uint32(c.Rank), nranks: uint32(c.N), win: c.Win, seg: s}
	cm.globals[c.ID] = g
	cm.descs[c.ID] = commDesc{rank: uint32(c.Rank), nranks: uint32(c.N), win: c.Win, seg: s, hs: 26, nameLen: 26}
	return onCommOK(obs, func(co *op.CommObs) {
		if len(co.Desc) >= abi.CommDescSize {
			d := cm.descs[c.ID]
			d.hs = le.Uint32(co.Desc[abi.CommDescHandleSizeOff:])
			name := co.Desc[abi.CommDescHandleOff:abi.CommDescSize]
			d.nameLen = uint32(len(name))
			if i := slices.Index(name, 0); i >= 0 {
				d.nameLen = uint32(i)
			}
			cm.descs[c.ID] = d
		}
		g.base = co.Base
		if !outWritten(co.Base) || co.Base == 0 {
			m.finding(REComm, Fail, "comm_global_domain_prepare returned 0 and wrote no local window")
		}
		if why := descDefect(co.Desc, uint32(c.Rank), uint32(c.N), c.Win); why != "" {
			m.finding(REComm, Fail, "comm_global_domain_prepare's descriptor: "+why)
		}
	})
}

// descDefect says what is wrong with a descriptor gprep wrote ("" when
// nothing).
func descDefect(d []byte, rank, n uint32, win uint64) string {
	if len(d) < abi.CommDescSize {
		return ""
	}
	x := rawDesc(d)
	for _, f := range [...]struct {
		name      string
		got, want uint32
	}{{"version", x.ver, abi.CommGlobalDomainVersion}, {"profile", x.prof, abi.CommProfileSimShm}, {"domain_rank", x.rank, rank}, {"rank_count", x.n, n}} {
		if f.got != f.want {
			return f.name + " " + strconv.FormatUint(uint64(f.got), 10) + ", want " + strconv.FormatUint(uint64(f.want), 10)
		}
	}
	switch {
	case x.size != win:
		return "mapping_size " + strconv.FormatUint(x.size, 10) + ", want the window size " + strconv.FormatUint(win, 10)
	case le.Uint32(d[abi.CommDescReservedOff:]) != 0:
		return "reserved is not 0"
	case x.hs == 0 || x.hs > abi.CommDescHandleBytes:
		return "handle_size " + strconv.FormatUint(uint64(x.hs), 10) + ", want 1..256"
	}
	for i, b := range d[abi.CommDescHandleOff : abi.CommDescHandleOff+abi.CommDescHandleBytes] {
		switch {
		case uint32(i) < x.hs && b == 0:
			return "the handle has a NUL inside its handle_size bytes"
		case uint32(i) >= x.hs && b != 0:
			return "the handle is not zero after its handle_size bytes"
		}
	}
	return ""
}

func (m *Model) commGlobalImport(o Op, obs *Observation) func() {
	cm, c := m.comm(), o.Comm
	g := cm.globals[c.ID]
	refused := func(note string) func() { return m.commRefused(obs, "comm_global_domain_import", note) }
	switch {
	case g == nil || c.Descs.Null || c.NullOut:
		return refused("comm_global_domain_import of a domain not prepared, or with NULL descriptors or device_ctx_out")
	case c.DescCount() != uint64(g.nranks):
		return refused("comm_global_domain_import with descriptor_count other than the domain's rank_count")
	case g.imported:
		return refused("comm_global_domain_import of a domain imported already")
	}
	seen := make([]bool, g.nranks)
	for i := 0; i < int(c.DescCount()); i++ {
		d := cm.importDesc(c, i)
		for _, k := range importChecks {
			if k.bad(d, g) {
				return refused("descriptor " + strconv.Itoa(i) + "'s " + k.what)
			}
		}
		if seen[d.rank] {
			return refused("descriptor " + strconv.Itoa(i) + " names a rank an earlier one named")
		}
		seen[d.rank] = true
	}
	peers := make([]int, g.nranks)
	elsewhere := false
	for i := 0; i < int(c.DescCount()); i++ {
		d := cm.importDesc(c, i)
		peers[d.rank] = d.seg
		switch {
		case d.rank == g.rank:
			peers[d.rank] = g.seg
		case d.seg == -2:
			elsewhere = true
		case d.seg < 0 || !cm.segs[d.seg].linked:
			return refused("comm_global_domain_import: rank " + strconv.FormatUint(uint64(d.rank), 10) + "'s window cannot be opened")
		}
	}
	if elsewhere {
		// A recorded import: whether the peers' windows opened is the
		// other processes' to say.
		m.commExpect(two(abi.OK, commFail), "the peers' windows are other processes': 0 when they opened, -1 when not")
		if !m.succeeded(obs) {
			return nil
		}
	} else {
		m.commExpect(one(abi.OK), "")
	}
	g.imported, g.peers = true, peers
	return onCommOK(obs, func(co *op.CommObs) {
		if !outWritten(co.Out) {
			m.finding(REComm, Fail, "comm_global_domain_import returned 0 and wrote no context")
			return
		}
		g.addr = co.Out
		if _, ok := m.commCheckCtx(co, "comm_global_domain_import", g.rank, g.nranks, g.win, false); ok && g.base != 0 {
			if got := le.Uint64(co.Ctx[abi.CommCtxWindowsInOff+8*int(g.rank):]); got != g.base {
				m.finding(REComm, Fail, "comm_global_domain_import: the domain's own window is not the local window gprep returned")
			}
		}
	})
}

// importChecks are E-COMM's conditions on each descriptor gimport reads,
// in order.
var importChecks = [...]struct {
	clause, what string
	bad          func(d importDesc, g *commGlobal) bool
}{
	{"E-COMM.45", "version or profile", func(d importDesc, _ *commGlobal) bool {
		return d.ver != abi.CommGlobalDomainVersion || d.prof != abi.CommProfileSimShm
	}},
	{"E-COMM.46", "rank_count or domain_rank", func(d importDesc, g *commGlobal) bool { return d.n != g.nranks || d.rank >= g.nranks }},
	{"E-COMM.47", "mapping_size", func(d importDesc, g *commGlobal) bool { return d.size != g.win }},
	{"E-COMM.48", "handle_size", func(d importDesc, _ *commGlobal) bool { return d.hs == 0 || d.hs > abi.CommDescHandleBytes }},
}

// importDesc is descriptor i gimport recipe c passes (all zero past the
// recipe's, or for a domain no prepare wrote).
type importDesc struct {
	ver, prof, rank, n, hs uint32
	size                   uint64
	seg                    int // the window its name names (-1: none; -2: another process's, recorded)
}

// rawDesc is a descriptor's fields as bytes hold them (its window
// another process's: seg -2).
func rawDesc(d []byte) importDesc {
	return importDesc{ver: le.Uint32(d[abi.CommDescVersionOff:]), prof: le.Uint32(d[abi.CommDescProfileOff:]),
		rank: le.Uint32(d[abi.CommDescDomainRankOff:]), n: le.Uint32(d[abi.CommDescRankCountOff:]),
		size: le.Uint64(d[abi.CommDescMappingSizeOff:]), hs: le.Uint32(d[abi.CommDescHandleSizeOff:]), seg: -2}
}

func (cm *commModel) importDesc(c op.CommRecipe, i int) importDesc {
	if c.Descs.Raw != 0 {
		// Recorded fields: the window a peer's handle names is another
		// process's, which may or may not open (seg -2).
		b := c.Descs.RawBytes()
		if 32*i+32 > len(b) {
			return importDesc{seg: -1}
		}
		return rawDesc(b[32*i:])
	}
	if i >= int(c.Descs.N) {
		return importDesc{seg: -1}
	}
	r := c.Descs.D[i]
	src, ok := cm.descs[r.Src]
	if !ok {
		return importDesc{seg: -1}
	}
	d := importDesc{ver: abi.CommGlobalDomainVersion, prof: abi.CommProfileSimShm, rank: src.rank, n: src.nranks, size: src.win, hs: src.hs, seg: src.seg}
	switch r.Field {
	case op.DescVersion:
		d.ver = uint32(r.Val)
	case op.DescProfile:
		d.prof = uint32(r.Val)
	case op.DescRank:
		d.rank = uint32(r.Val)
	case op.DescCount:
		d.n = uint32(r.Val)
	case op.DescSize:
		d.size = r.Val
	case op.DescHandle:
		d.hs = uint32(r.Val)
		if d.hs < src.nameLen { // the name cut short names no window
			d.seg = -1
		}
	case op.DescBadName:
		d.seg = -1
	}
	return d
}

func (m *Model) commGlobalRelease(o Op) {
	cm := m.comm()
	m.commExpect(one(abi.OK), "comm_global_domain_release returns 0 for every domain_id")
	if g := cm.globals[o.Comm.ID]; g != nil {
		cm.unlink(g.seg)
		delete(cm.globals, o.Comm.ID)
	}
}

// commWindow is where a reference's window lies: from byte first+at of
// segment seg; win, n are the context's window size and count, mwin, mn the
// mapping's beneath it (a derived context's lie in its base's).
type commWindow struct {
	seg                         int
	first, at, win, n, mwin, mn uint64
}

// window resolves c's reference (false: no window of a live context).
func (cm *commModel) window(c op.CommRecipe) (w commWindow, ok bool) {
	idx := uint64(c.Idx)
	switch c.Ref {
	case op.RefBase, op.RefDerived, op.RefDomain:
		h := cm.handle(c.H)
		switch {
		case h == nil:
		case c.Ref == op.RefBase && h.seg >= 0:
			return commWindow{h.seg, commHeader, idx * h.win, h.win, uint64(h.nranks), h.win, uint64(h.nranks)}, true
		case c.Ref == op.RefDerived && int(c.K) < len(h.derived):
			d := h.derived[c.K]
			return commWindow{d.seg, commHeader, uint64(d.ids.Entry(int(c.Idx)))*d.base + d.off, d.win, d.n, d.base, uint64(h.nranks)}, true
		case c.Ref == op.RefDomain && h.domain(c.K) != nil:
			d := h.domain(c.K)
			return commWindow{d.seg, commHeader, idx * d.win, d.win, uint64(d.nranks), d.win, uint64(d.nranks)}, true
		}
	case op.RefGlobal, op.RefLocal:
		switch g := cm.globals[c.ID]; {
		case g == nil:
		case c.Ref == op.RefLocal:
			return commWindow{g.seg, 0, 0, g.win, 1, g.win, 1}, true
		case g.imported:
			return commWindow{g.peers[min(int(c.Idx), len(g.peers)-1)], 0, 0, g.win, uint64(g.nranks), g.win, 1}, true
		}
	}
	return commWindow{}, false
}

// commLoc resolves a cmem reference to its word, or says why there is none.
func (m *Model) commLoc(c op.CommRecipe) (memKey, string) {
	w, ok := m.comm().window(c)
	switch {
	case !ok:
		return memKey{}, "the reference names no window of a live context"
	case uint64(c.Idx) >= w.n || c.Off+8 > w.win || c.Off+8 < c.Off:
		return memKey{}, "the word lies outside the window"
	case (w.first+w.at+c.Off)%8 != 0:
		return memKey{}, "the word is not 8-byte aligned in its segment"
	}
	return memKey{w.seg, w.first + w.at + c.Off}, ""
}

// CommMemReady says why a cmem op cannot be made ("" when it can).
func (m *Model) CommMemReady(o Op) string {
	if m.lost {
		return "the model lost track"
	}
	_, why := m.commLoc(o.Comm)
	return why
}

func (m *Model) commMem(o Op, obs *Observation) func() {
	cm := m.comm()
	m.expect(REComm, anyStatus, "")
	k, why := m.commLoc(o.Comm)
	if why != "" {
		m.e.Unchecked = true
		return nil
	}
	if o.Comm.Put {
		cm.mem[k] = o.Comm.Val
		return nil
	}
	want := cm.mem[k]
	return func() {
		if co := commObs(obs); co != nil && co.Word != want {
			m.finding(REComm, Fail, "the window reads "+strconv.FormatUint(co.Word, 10)+", want "+strconv.FormatUint(want, 10)+
				" (the last word written there through any context that maps it, else 0: a new segment is zeroed)")
		}
	}
}

// CommHandleLive reports whether slot h holds a handle the runner may call.
func (m *Model) CommHandleLive(h int8) bool { return m.cm != nil && m.cm.handle(h) != nil }

// reset is simabi_reset (F-1): every global domain released, every handle
// freed as comm_destroy frees it, without waiting for peers.
func (cm *commModel) reset() {
	cm.unknown, cm.park, cm.timeoutMs = false, parkState{}, 0
	for i := range cm.h {
		h := &cm.h[i]
		if !h.live {
			continue
		}
		for _, d := range h.domains {
			cm.unlink(d.seg)
		}
		if h.seg >= 0 {
			cm.leave(h.seg, h.nranks, false)
		}
		cm.h[i] = commHandle{}
	}
	for id, g := range cm.globals {
		cm.unlink(g.seg)
		delete(cm.globals, id)
	}
}

// CommHandleView is what the model knows of a handle slot.
type CommHandleView struct {
	Live         bool
	Rank, NRanks int32
	Path         int8
	Windows      bool   // comm_alloc_windows mapped its windows
	Win          uint64 // its context's winSize
	Derived      int    // its derived contexts
	Domains      []uint8
}

// CommHandleOf is slot h's handle as the model knows it.
func (m *Model) CommHandleOf(h int8) CommHandleView {
	if m.cm == nil || h < 0 || int(h) >= len(m.cm.h) {
		return CommHandleView{}
	}
	x := &m.cm.h[h]
	v := CommHandleView{Live: x.live, Rank: x.rank, NRanks: x.nranks, Path: x.path, Windows: x.seg >= 0, Win: x.win, Derived: len(x.derived)}
	for _, d := range x.domains {
		v.Domains = append(v.Domains, d.id)
	}
	return v
}

// CommDomainView is what the model knows of a global domain.
type CommDomainView struct {
	Prepared, Imported bool
	Described          bool // a gprep of it succeeded: its descriptor is the runner's
	Rank, N            uint32
	Win                uint64
}

// CommDomainOf is global domain d as the model knows it.
func (m *Model) CommDomainOf(d uint8) CommDomainView {
	if m.cm == nil {
		return CommDomainView{}
	}
	var v CommDomainView
	if g := m.cm.globals[d]; g != nil {
		v.Prepared, v.Imported, v.Rank, v.N, v.Win = true, g.imported, g.rank, g.nranks, g.win
	}
	if desc, ok := m.cm.descs[d]; ok {
		v.Described = true
		if !v.Prepared {
			v.Rank, v.N, v.Win = desc.rank, desc.nranks, desc.win
		}
	}
	return v
}
