package conformance

import (
	"encoding/binary"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/internal/safemem"
	"github.com/simabi/simabi/internal/scratch"
)

// The comm family (E-COMM) on the runner. Sessions are named by the parent
// process and the path, and global domains live for the process, so every
// run maps p0..p7, a=N and d=N to values no other run uses (d=0 stays 0).
// A CommContext is read through the simulation hooks only (CapPeek). A call
// that waits for peers is parked when later ops bring them
// (ops_commpark.go), otherwise not made.

// commRunSerial numbers the runs of this process.
var commRunSerial atomic.Uint64

// commRun is the runner's side of the comm family in one run.
type commRun struct {
	serial  uint64
	handles [op.MaxCommHandles]abi.CommHandle
	nranks  [op.MaxCommHandles]int32
	windows [op.MaxCommHandles]bool // a comm_alloc_windows was called on the handle
	ctxs    [op.MaxCommHandles]commCtxs
	paths   [op.MaxCommPaths][]byte
	// Per domain: its last gprep's descriptor, local window, imported context.
	descs    map[uint8][]byte
	local    map[uint8]uint64
	imported map[uint8]uint64
	ids      []uint32 // rank_ids, 256 entries
	// maps counts the calls that may have mapped memory; last is where each
	// ccopy reference last resolved, passed after its window went unless
	// memory was mapped since (E-PROG.28).
	maps uint64
	last map[op.CommRecipe]lastAddr
	// The comm timeout (ops_commtimeout.go): the run's last ctimeout, and
	// the bound it found, to restore once set.
	boundMs    int32
	boundFound int32
	boundSet   bool
	// segments are the names the run's calls may have made a segment under
	// (E-COMM's names), removed when the run ends, each held in the
	// process's scratch registry until then (its release).
	sessions [op.MaxCommHandles]string
	segments map[string]func()
}

type lastAddr struct{ addr, maps uint64 }

// commCtxs are the contexts a handle's calls returned.
type commCtxs struct {
	base    uint64
	derived []uint64
	domains map[uint8]uint64
}

// reset starts a run: new paths and ids, nothing held.
func (c *commRun) reset() {
	*c = commRun{serial: commRunSerial.Add(1), ids: c.ids, descs: map[uint8][]byte{}, local: map[uint8]uint64{}, imported: map[uint8]uint64{},
		last: map[op.CommRecipe]lastAddr{}, segments: map[string]func(){}}
	if c.ids == nil {
		c.ids = make([]uint32, 256)
	}
}

// path is rootinfo path p's C string in this run.
func (c *commRun) path(p int8) unsafe.Pointer {
	if p < 0 {
		return nil
	}
	if c.paths[p] == nil {
		c.paths[p] = []byte("/simabi/comm/" + strconv.Itoa(os.Getpid()) + "/" + strconv.FormatUint(c.serial, 10) + "/p" + strconv.Itoa(int(p)) + "\x00")
	}
	return unsafe.Pointer(&c.paths[p][0])
}

// id is allocation id or domain n in this run; domain 0 stays 0.
func (c *commRun) id(n uint8, domain bool) uint64 {
	if domain && n == 0 {
		return 0
	}
	return uint64(os.Getpid())<<32 | (c.serial&0xFFFFFF)<<8 | uint64(n)
}

// rankIDs is the recipe's array in the runner's memory, or with own in
// memory of its own (a parked call may read it while later calls fill the
// runner's); nil for NULL.
func (c *commRun) rankIDs(r op.IDsRecipe, own bool) unsafe.Pointer {
	if r.Null {
		return nil
	}
	ids := c.ids
	if own {
		ids = make([]uint32, len(c.ids))
	}
	for i := range ids {
		ids[i] = r.Entry(i)
	}
	return unsafe.Pointer(&ids[0])
}

// commAbsentName is what name=bad puts in a descriptor's handle.
const commAbsentName = "/simabi_absent_window"

// descriptors is gimport's array: count entries (at most 64), those the
// recipe names from the domains' last prepares, changed as it says.
func (c *commRun) descriptors(r op.DescsRecipe, count uint64) unsafe.Pointer {
	if r.Null {
		return nil
	}
	n := min(max(count, uint64(r.N), 1), abi.CommMaxRankNum)
	b := abi.AlignedBytes(int(n)*abi.CommDescSize, abi.CommDescAlign)
	for i := 0; i < int(r.N) && i < int(n); i++ {
		d := b[i*abi.CommDescSize : (i+1)*abi.CommDescSize]
		copy(d, c.descs[r.D[i].Src])
		v, f, le := r.D[i].Val, r.D[i].Field, binary.LittleEndian
		if off, ok := descWordOff[f]; ok {
			le.PutUint32(d[off:], uint32(v))
		} else if f == op.DescSize {
			le.PutUint64(d[abi.CommDescMappingSizeOff:], v)
		} else if f == op.DescBadName {
			clear(d[abi.CommDescHandleOff:])
			copy(d[abi.CommDescHandleOff:], commAbsentName)
			le.PutUint32(d[abi.CommDescHandleSizeOff:], uint32(len(commAbsentName)))
		}
	}
	return unsafe.Pointer(&b[0])
}

// descWordOff is where each 32-bit field a recipe changes lies.
var descWordOff = map[op.DescField]int{op.DescVersion: abi.CommDescVersionOff, op.DescProfile: abi.CommDescProfileOff,
	op.DescRank: abi.CommDescDomainRankOff, op.DescCount: abi.CommDescRankCountOff, op.DescHandle: abi.CommDescHandleSizeOff}

// peekCtx reads the CommContext at addr into o (CapPeek only).
func (r *Runner) peekCtx(addr uint64, o *op.CommObs) {
	if !r.caps.Has(catalogue.CapPeek) {
		return
	}
	b := make([]byte, abi.CommContextSize)
	if safemem.Read(uintptr(addr), b) != nil {
		o.Unreadable = true
		return
	}
	o.Ctx = b
}

// outPtr is an out argument prefilled so that a call that does not write
// it shows (nil for NULL).
func outPtr[T uint64 | uintptr](v *T, null bool) *T {
	if null {
		return nil
	}
	*v = T(op.CommUnwritten)
	return v
}

func newCommObs() *op.CommObs { return &op.CommObs{Out: op.CommUnwritten, Base: op.CommUnwritten} }

func (r *Runner) commHandle(o op.Op) abi.CommHandle {
	if o.Comm.H < 0 {
		return 0
	}
	return r.comm.handles[o.Comm.H]
}

// commReady says why a comm op is not made ("" when it is).
func commReady(r *Runner, o op.Op) string {
	if o.Kind == op.KindCommInit && r.comm.handles[o.Comm.H] != 0 {
		return "h" + strconv.Itoa(int(o.Comm.H)) + " holds a live handle"
	}
	if why := r.view().CommBusyWhy(o); why != "" {
		return why
	}
	if o.Kind == op.KindCommMem {
		return r.view().CommMemReady(o)
	}
	if why := r.view().CommWaits(o); why != "" && !r.view().CommTimesOut(o) && !r.view().CommParkable(r.ops[r.at:]) {
		return "not run: " + why + ", and no later op of the sequence brings them (the runtime's timeout)"
	}
	return ""
}

// commResult renders an int comm entry's answer (the backend's -1 is no
// code of the status table).
func commResult(e *Entry) string {
	if st := e.Obs.Call.Status; st == -1 {
		return "-1"
	}
	return op.StatusName(e.Obs.Call.Status)
}

// commClass is what every int comm entry shares (result nil: commResult).
func commClass(call func(r *Runner, o op.Op, cobs *op.CommObs) abi.Status, result func(e *Entry) string) opClass {
	if result == nil {
		result = commResult
	}
	return opClass{
		memProbe: memNone,
		needs:    commNeeds,
		rule:     model.REComm,
		ready:    commReady,
		call: func(r *Runner, o op.Op, _ abi.Ctx, obs *op.Observation) {
			obs.Comm = newCommObs()
			obs.Call.Status = call(r, o, obs.Comm)
		},
		result: result,
	}
}

var commNeeds = need(catalogue.CapComm, model.REComm, "E-COMM describes the simulated comm backend; a build on silicon links HCCL's (no simulation hooks and an ACL given)")

func init() {
	ini := commClass(nil, func(e *Entry) string {
		if e.Obs.Call.Value != 0 {
			return "handle"
		}
		return "null"
	})
	ini.call, ini.gen = (*Runner).commInit, genCommOps
	defineOp(op.KindCommInit, ini)
	defineOp(op.KindCommBase, commClass(func(r *Runner, o op.Op, co *op.CommObs) abi.Status {
		return r.rt.CommGetLocalWindowBase(r.commHandle(o), outPtr(&co.Out, o.Comm.NullOut))
	}, commBaseResult))
	defineOp(op.KindCommSize, commClass(func(r *Runner, o op.Op, co *op.CommObs) abi.Status {
		// The out is a uintptr; a NULL one leaves co.Out CommUnwritten.
		v := uintptr(co.Out)
		st := r.rt.CommGetWindowSize(r.commHandle(o), outPtr(&v, o.Comm.NullOut))
		co.Out = uint64(v)
		return st
	}, func(e *Entry) string {
		if co := e.Obs.Comm; e.Obs.Call.Status == abi.OK && co != nil {
			return "OK size=" + strconv.FormatUint(co.Out, 10)
		}
		return commResult(e)
	}))
	defineOp(op.KindCommDerive, commClass(func(r *Runner, o op.Op, co *op.CommObs) abi.Status {
		c := o.Comm
		st := r.rt.CommDeriveContext(r.commHandle(o), r.comm.rankIDs(c.IDs, false), uintptr(c.N), uint32(c.Rank), uintptr(c.Off), uintptr(c.Win), outPtr(&co.Out, c.NullOut))
		if st == abi.OK && c.H >= 0 {
			r.comm.ctxs[c.H].derived = append(r.comm.ctxs[c.H].derived, co.Out)
			r.peekCtx(co.Out, co)
		}
		return st
	}, nil))
	defineOp(op.KindCommGlobalPrepare, commClass((*Runner).commGlobalPrepare, commPrepareResult))
	defineOp(op.KindCommGlobalImport, commClass(func(r *Runner, o op.Op, co *op.CommObs) abi.Status {
		c := o.Comm
		st := r.rt.CommGlobalDomainImport(r.comm.id(c.ID, true), r.comm.descriptors(c.Descs, c.DescCount()), uintptr(c.DescCount()), outPtr(&co.Out, c.NullOut))
		if st == abi.OK {
			r.comm.maps++
			r.comm.imported[c.ID] = co.Out
			r.peekCtx(co.Out, co)
		}
		return st
	}, nil))
	defineOp(op.KindCommGlobalRelease, commClass(func(r *Runner, o op.Op, _ *op.CommObs) abi.Status {
		st := r.rt.CommGlobalDomainRelease(r.comm.id(o.Comm.ID, true))
		delete(r.comm.local, o.Comm.ID)
		delete(r.comm.imported, o.Comm.ID)
		return st
	}, nil))
	mem := commClass(nil, func(e *Entry) string {
		switch co := e.Obs.Comm; {
		case e.Op.Comm.Put:
			return "done"
		case co == nil || co.Unreadable:
			return "unreadable"
		default:
			return strconv.FormatUint(co.Word, 10)
		}
	})
	mem.call = (*Runner).commMem
	mem.needs = need(catalogue.CapComm|catalogue.CapPeek, model.REComm, "a comm window is read through the simulation hooks only (on silicon it is device memory)")
	defineOp(op.KindCommMem, mem)
}

// commInit makes comm_init; a handle that came back answers value 1.
func (r *Runner) commInit(o op.Op, _ abi.Ctx, obs *op.Observation) {
	c := o.Comm
	h := r.rt.CommInit(int32(c.Rank), c.NRanks, r.stream(c.Stream), r.comm.path(c.Path))
	r.comm.handles[c.H], r.comm.nranks[c.H] = h, c.NRanks
	r.comm.ctxs[c.H] = commCtxs{}
	if h != 0 {
		obs.Call.Value = 1
		if c.Path >= 0 {
			p := r.comm.paths[c.Path]
			r.comm.sessions[c.H] = r.comm.names(abi.CommSessionName(uint32(os.Getppid()), string(p[:len(p)-1])))
		}
	}
}

// names notes that the run may have made a segment called name. The name
// is held in the scratch registry too, so a run that never ends (stopped
// by a signal, or stuck in the runtime) has it removed by the process's
// cleanup: a session's segment is named after this process's parent, and
// the cleanup's sweep by this process's own name misses it.
func (c *commRun) names(name string) string {
	if _, ok := c.segments[name]; !ok {
		release, err := scratch.Hold(nil, func() { removeSegment(name) })
		if err != nil { // the cleanup passed by while the call was made
			removeSegment(name)
			release = func() {}
		}
		c.segments[name] = release
	}
	return name
}

func removeSegment(name string) { _ = os.Remove("/dev/shm/" + name[1:]) }

// removeSegments removes what a rank whose peers never came (E-COMM.9,
// .59), or a broken runtime, left in /dev/shm. It runs once no thread of
// the run is in the runtime; the names are the run's alone.
func (c *commRun) removeSegments() {
	for name, release := range c.segments {
		removeSegment(name)
		release()
	}
	clear(c.segments)
}

func commBaseResult(e *Entry) string {
	if co := e.Obs.Comm; e.Obs.Call.Status == abi.OK && co != nil {
		if co.Out == 0 {
			return "OK base=0"
		}
		return "OK base=window"
	}
	return commResult(e)
}

// commGlobalPrepare makes gprep with the descriptor prefilled, so that a
// byte it did not write shows.
func (r *Runner) commGlobalPrepare(o op.Op, co *op.CommObs) abi.Status {
	c := o.Comm
	var d unsafe.Pointer
	if !c.NullOut {
		co.Desc = abi.AlignedBytes(abi.CommDescSize, abi.CommDescAlign)
		for i := range co.Desc {
			co.Desc[i] = op.CommUnwrittenByte
		}
		d = unsafe.Pointer(&co.Desc[0])
	}
	if c.ID != 0 {
		r.comm.names(abi.CommGlobalName(uint32(os.Getpid()), r.comm.id(c.ID, true), uint32(c.Rank)))
	}
	st := r.rt.CommGlobalDomainPrepare(r.comm.id(c.ID, true), uint32(c.Rank), uint32(c.N), uintptr(c.Win), c.GPProfile(), d, outPtr(&co.Base, c.NullBase))
	if st == abi.OK {
		r.comm.maps++
		r.comm.descs[c.ID] = append([]byte(nil), co.Desc...)
		r.comm.local[c.ID] = co.Base
	}
	return st
}

// commPrepareResult renders gprep's descriptor fields.
func commPrepareResult(e *Entry) string {
	co := e.Obs.Comm
	if e.Obs.Call.Status != abi.OK || co == nil || len(co.Desc) < abi.CommDescSize {
		return commResult(e)
	}
	d, le := co.Desc, binary.LittleEndian
	u := func(off int) string { return strconv.FormatUint(uint64(le.Uint32(d[off:])), 10) }
	return "OK v=" + u(abi.CommDescVersionOff) + " p=" + u(abi.CommDescProfileOff) + " rank=" + u(abi.CommDescDomainRankOff) +
		" n=" + u(abi.CommDescRankCountOff) + " size=" + strconv.FormatUint(le.Uint64(d[abi.CommDescMappingSizeOff:]), 10) +
		" hs=" + u(abi.CommDescHandleSizeOff)
}

func init() {
	defineOp(op.KindCommCopy, opClass{
		needs: need(catalogue.CapComm|catalogue.CapPeek, model.REProg, "a comm window's address is read from its CommContext through the simulation hooks (on silicon it is device memory)"),
		rule:  model.REProg,
		ready: commCopyReady,
		call:  (*Runner).commCopy,
		result: func(e *Entry) string {
			if e.Op.Comm.Put || e.Obs.Call.Status != abi.OK {
				return op.StatusName(e.Obs.Call.Status)
			}
			return "OK " + strconv.FormatUint(e.Obs.Call.Value, 10)
		},
	})
}

// copyRef is a ccopy's reference to a word: its recipe's fields that place it.
func copyRef(c op.CommRecipe) op.CommRecipe {
	return op.CommRecipe{Ref: c.Ref, H: c.H, K: c.K, ID: c.ID, Idx: c.Idx, Off: c.Off}
}

// commCopyReady says why a ccopy is not made: the model cannot place its
// word; its window went and the run never saw its address, or memory was
// mapped since; a legacy context without a live init (no init gate).
func commCopyReady(r *Runner, o op.Op) string {
	if why := r.view().CommCopyReady(o); why != "" {
		return why
	}
	if c, _ := r.view().Context(o.C); r.view().Profile() == model.ProfileLegacy && (c.Latch != model.LatchProgram || !c.Attached) {
		return "legacy build: no init gate, so a copy without a live program init is not E-PROG's to judge"
	}
	if r.view().CommCopyLive(o) {
		return ""
	}
	switch last, ok := r.comm.last[copyRef(o.Comm)]; {
	case !ok:
		return "the reference names no live window, and the run never copied through it"
	case last.maps != r.comm.maps:
		return "the reference's window went, and memory was mapped since: its last address may be another window's now"
	}
	return ""
}

// commCopy copies the word through the op's context at the address the
// reference resolves to, or after its window went the one it last had.
func (r *Runner) commCopy(o op.Op, h abi.Ctx, obs *op.Observation) {
	key := copyRef(o.Comm)
	addr, ok := uint64(0), false
	if r.view().CommCopyLive(o) {
		if addr, ok = r.commWordAddr(o.Comm); ok {
			r.comm.last[key] = lastAddr{addr, r.comm.maps}
		}
	} else {
		addr = r.comm.last[key].addr
	}
	var w [8]byte
	host := unsafe.Pointer(&w[0])
	if o.Comm.Put {
		binary.LittleEndian.PutUint64(w[:], o.Comm.Val)
		obs.Call.Status = r.rt.CopyToDevice(h, abi.DevicePtr(addr), host, 8)
		return
	}
	obs.Call.Status = r.rt.CopyFromDevice(h, host, abi.DevicePtr(addr), 8)
	obs.Call.Value = binary.LittleEndian.Uint64(w[:])
}

// commMem reads or writes the word a reference names (commWordAddr).
func (r *Runner) commMem(o op.Op, _ abi.Ctx, obs *op.Observation) {
	co := newCommObs()
	obs.Comm = co
	a, ok := r.commWordAddr(o.Comm)
	if !ok {
		co.Unreadable = true
		return
	}
	addr := uintptr(a)
	var w [8]byte
	if o.Comm.Put {
		binary.LittleEndian.PutUint64(w[:], o.Comm.Val)
		co.Unreadable = safemem.Write(addr, w[:]) != nil
		return
	}
	co.Unreadable = safemem.Read(addr, w[:]) != nil
	co.Word = binary.LittleEndian.Uint64(w[:])
}

// commWordAddr is the address of the word a reference names: its
// context's windowsIn[idx] or the domain's local window, plus the offset;
// false when the context cannot be read.
func (r *Runner) commWordAddr(c op.CommRecipe) (uint64, bool) {
	var ctx uint64
	switch c.Ref {
	case op.RefBase:
		ctx = r.comm.ctxs[c.H].base
	case op.RefDerived:
		if d := r.comm.ctxs[c.H].derived; int(c.K) < len(d) {
			ctx = d[c.K]
		}
	case op.RefDomain:
		ctx = r.comm.ctxs[c.H].domains[c.K]
	case op.RefGlobal:
		ctx = r.comm.imported[c.ID]
	}
	win := r.comm.local[c.ID]
	if c.Ref != op.RefLocal {
		var w [8]byte
		if ctx == 0 || safemem.Read(uintptr(ctx)+abi.CommCtxWindowsInOff+8*uintptr(c.Idx), w[:]) != nil {
			return 0, false
		}
		win = binary.LittleEndian.Uint64(w[:])
	}
	return win + c.Off, true
}

// commCleanup releases what a run left of the comm family: the live
// handles whose destroys, made together, all return (after a loss only
// those that never wait; with the timeout hook the rest too, under 1 ms),
// every global domain the run prepared, and unless a call is stuck in the
// runtime, the run's segments.
func (r *Runner) commCleanup() {
	lost, _ := r.view().Lost()
	var leave []abi.CommHandle
	for _, h := range r.view().CommLeaveTogether() {
		if v := r.comm.handles[h]; v != 0 && (!lost || r.comm.nranks[h] == 1 || !r.comm.windows[h]) {
			leave = append(leave, v)
		}
	}
	if lost {
		for h, v := range r.comm.handles {
			if v != 0 && (r.comm.nranks[h] == 1 || !r.comm.windows[h]) && !slices.Contains(leave, v) {
				leave = append(leave, v)
			}
		}
	}
	r.destroyTogether(leave)
	if !lost && r.shortCleanupBound() {
		// Their destroy barrier gives up within 1 ms (E-COMM.59).
		for _, v := range r.comm.handles {
			if v != 0 && !slices.Contains(leave, v) {
				r.rt.CommDestroy(v)
			}
		}
	}
	r.comm.handles = [op.MaxCommHandles]abi.CommHandle{}
	for id := range r.comm.descs {
		r.rt.CommGlobalDomainRelease(r.comm.id(id, true))
	}
	if r.stuckWhy == "" {
		r.comm.removeSegments()
	}
}

// destroyTogether destroys hs, each on a thread of its own, and waits for
// them up to joinTimeout (one that does not return makes the run stuck).
func (r *Runner) destroyTogether(hs []abi.CommHandle) {
	if len(hs) == 1 {
		r.rt.CommDestroy(hs[0])
		return
	}
	done := make(chan struct{}, len(hs))
	for _, h := range hs {
		onRankThread(func() {
			r.rt.CommDestroy(h)
			done <- struct{}{}
		})
	}
	t := time.NewTimer(joinTimeout)
	defer t.Stop()
	for range hs {
		select {
		case <-done:
		case <-t.C:
			r.stuck(len(r.ops)-1, "a comm_destroy of the run's cleanup did not return within "+joinTimeout.String()+
				" of its session's other ranks' destroys: its thread is still in the runtime")
			return
		}
	}
}

// ---- the generator (GenOptions.Comm) ----

// genCommOps offers the comm family's candidates: single-rank sessions with
// their refusals, and sessions of ranks whose collectives are drawn whole
// (ops_commranks.go).
func genCommOps(g *Generator, s *genState) {
	if !g.o.Comm {
		return
	}
	s.commLive, s.commFree = s.commLive[:0], s.commFree[:0]
	for h := int8(0); h < op.MaxCommHandles; h++ {
		switch {
		case g.st.Model().CommBusy(h) || g.owes(h):
		case g.st.Model().CommHandleLive(h):
			s.commLive = append(s.commLive, h)
		default:
			s.commFree = append(s.commFree, h)
		}
	}
	if len(s.commFree) >= 2 {
		g.add(8, (*Generator).genCommSession)
	}
	if g.sessionOfRanks() >= 0 {
		g.add(30, (*Generator).genCommCollective)
	}
	if len(s.commFree) > 0 {
		w := 20
		if len(s.commLive) == 0 {
			w = 200
		}
		g.add(w, (*Generator).genCommInit)
	}
	if len(s.commLive) > 0 {
		g.add(25, (*Generator).genCommAlloc)
		g.add(10, (*Generator).genCommQuery)
		g.add(20, (*Generator).genCommDerive)
		g.add(8, (*Generator).genCommBarrier)
		g.add(6, (*Generator).genCommDestroy)
		g.add(20, (*Generator).genCommDomainAlloc)
		g.add(10, (*Generator).genCommDomainRelease)
		if g.o.Caps.Has(catalogue.CapPeek) {
			g.add(25, (*Generator).genCommMem)
		}
	}
	g.add(3, (*Generator).genCommNull)
	g.add(15, (*Generator).genCommPrepare)
	g.add(12, (*Generator).genCommImport)
	g.add(6, (*Generator).genCommRelease)
}

var (
	genCommWins    = []uint64{0, 8, 64, 256, 4096}
	genCommOffs    = []uint64{0, 8, 32, 64, 1 << 63}
	genCommCounts  = []uint64{1, 1, 1, 2, 64, 65, 0, 1<<32 + 1}
	genCommDomains = []uint8{1, 2, 3, 4, 0}
)

func pickU64(ch Chooser, label string, xs []uint64) uint64 { return xs[ch.IntN(len(xs), label)] }

// commSafe is o, or a query of its handle when o would wait for peers.
func (g *Generator) commSafe(o op.Op) op.Op {
	if g.st.Model().CommWaits(o) != "" && !g.st.Model().CommTimesOut(o) {
		return op.Op{Kind: op.KindCommSize, Comm: op.CommRecipe{H: o.Comm.H}}
	}
	return o
}

func (g *Generator) genCommInit(ch Chooser) op.Op {
	h := g.pick(ch, "h", g.gs.commFree)
	c := op.CommRecipe{H: h, Rank: 0, NRanks: 1, Path: h % op.MaxCommPaths, Stream: op.NullRef}
	switch ch.IntN(12, "cinit") {
	case 0:
		c.Path = int8(ch.IntN(2, "shared")) // a session another handle may have
	case 1:
		c.Path = op.NullRef
	case 2:
		c.Rank, c.NRanks = int64(ch.IntN(3, "rank"))-1, int32(ch.IntN(3, "nranks"))
	case 3:
		c.NRanks = int32(64 + ch.IntN(2, "nranks"))
		c.Rank = int64(c.NRanks) - 1
	case 4:
		c.NRanks = int32(2 + ch.IntN(3, "nranks"))
		c.Rank = int64(ch.IntN(int(c.NRanks), "rank"))
	case 5:
		c.Stream = int8(ch.IntN(3, "stream"))
	}
	for p := c.Path; p >= 0 && g.pathHeld(c.Path, true); { // not into a session of ranks
		c.Path = (c.Path + 1) % op.MaxCommPaths
		if c.Path == p {
			c.Path = op.NullRef
		}
	}
	return op.Op{Kind: op.KindCommInit, Comm: c}
}

func (g *Generator) genCommAlloc(ch Chooser) op.Op {
	c := op.CommRecipe{H: g.pick(ch, "h", g.gs.commLive), Win: pickU64(ch, "win", genCommWins)}
	c.NullOut = ch.IntN(16, "nullout") == 0
	return g.commSafe(op.Op{Kind: op.KindCommAlloc, Comm: c})
}

func (g *Generator) genCommQuery(ch Chooser) op.Op {
	k := [2]op.Kind{op.KindCommBase, op.KindCommSize}[ch.IntN(2, "query")]
	return op.Op{Kind: k, Comm: op.CommRecipe{H: g.pick(ch, "h", g.gs.commLive), NullOut: ch.IntN(10, "nullout") == 0}}
}

func (g *Generator) genCommDerive(ch Chooser) op.Op {
	h := g.pick(ch, "h", g.gs.commLive)
	v := g.st.Model().CommHandleOf(h)
	n := pickU64(ch, "n", genCommCounts)
	c := op.CommRecipe{H: h, N: n, Win: pickU64(ch, "win", genCommWins), Off: pickU64(ch, "off", genCommOffs)}
	if n > 0 && n <= 64 {
		c.Rank = int64(ch.IntN(int(n)+1, "rank")) // rank_count itself now and then
		if c.Rank > 0 && ch.IntN(2, "lastrank") == 0 {
			c.Rank = int64(n) - 1
		}
	}
	if v.Win > 0 && ch.IntN(3, "fits") != 0 {
		c.Off = uint64(ch.IntN(int(min(v.Win, 1<<20)), "off")) &^ 7
		c.Win = v.Win - c.Off - uint64(ch.IntN(2, "edge"))*min(8, v.Win-c.Off)
	}
	switch ch.IntN(10, "ids") {
	case 0:
		c.IDs = op.IDsRecipe{Null: true}
	case 1:
		c.IDs = op.IDsRecipe{AtSet: true, At: uint8(ch.IntN(3, "at")), Val: uint32(v.NRanks)}
	}
	c.NullOut = ch.IntN(16, "nullout") == 0
	return op.Op{Kind: op.KindCommDerive, Comm: c}
}

func (g *Generator) genCommBarrier(ch Chooser) op.Op {
	return g.commSafe(op.Op{Kind: op.KindCommBarrier, Comm: op.CommRecipe{H: g.pick(ch, "h", g.gs.commLive)}})
}

func (g *Generator) genCommDestroy(ch Chooser) op.Op {
	return g.commSafe(op.Op{Kind: op.KindCommDestroy, Comm: op.CommRecipe{H: g.pick(ch, "h", g.gs.commLive)}})
}

// genCommNull calls an entry with a NULL handle.
func (g *Generator) genCommNull(ch Chooser) op.Op {
	ks := []op.Kind{op.KindCommAlloc, op.KindCommBase, op.KindCommSize, op.KindCommDerive, op.KindCommBarrier,
		op.KindCommDestroy, op.KindCommDomainAlloc, op.KindCommDomainRelease}
	return op.Op{Kind: ks[ch.IntN(len(ks), "nullkind")], Comm: op.CommRecipe{H: op.NullRef, N: 1, Win: 64}}
}

func (g *Generator) genCommDomainAlloc(ch Chooser) op.Op {
	h := g.pick(ch, "h", g.gs.commLive)
	v := g.st.Model().CommHandleOf(h)
	c := op.CommRecipe{H: h, ID: uint8(ch.IntN(4, "a")), N: 1, Win: pickU64(ch, "win", genCommWins[1:]),
		IDs: op.IDsRecipe{Fill: uint32(v.Rank)}}
	switch ch.IntN(14, "dalloc") {
	case 0:
		c.N = pickU64(ch, "n", genCommCounts)
	case 1:
		c.Rank = 1
	case 2:
		c.Win = 0
	case 3:
		c.IDs.Fill++
	case 4:
		c.IDs = op.IDsRecipe{Null: true}
	case 5:
		c.NullBase = true
	case 6:
		c.NullOut = true
	}
	return g.commSafe(op.Op{Kind: op.KindCommDomainAlloc, Comm: c})
}

func (g *Generator) genCommDomainRelease(ch Chooser) op.Op {
	h := g.pick(ch, "h", g.gs.commLive)
	c := op.CommRecipe{H: h, ID: uint8(ch.IntN(4, "a")), N: 1}
	if ds := g.st.Model().CommHandleOf(h).Domains; len(ds) > 0 && ch.IntN(4, "known") != 0 {
		c.ID = ds[ch.IntN(len(ds), "d")]
	}
	switch ch.IntN(10, "drelease") {
	case 0:
		c.N = 2
	case 1:
		c.Rank = 1
	}
	return g.commSafe(op.Op{Kind: op.KindCommDomainRelease, Comm: c})
}

func (g *Generator) genCommPrepare(ch Chooser) op.Op {
	c := op.CommRecipe{ID: genCommDomains[ch.IntN(len(genCommDomains), "d")], N: 1, Win: pickU64(ch, "win", genCommWins[1:4])}
	switch ch.IntN(12, "gprep") {
	case 0, 1, 2, 3:
		c.N, c.Rank = 2, int64(ch.IntN(2, "rank"))
	case 4:
		c.N = pickU64(ch, "n", genCommCounts) & 0xFFFFFFFF
		if c.N > 0 {
			c.Rank = int64(c.N) - int64(ch.IntN(2, "past"))
		}
	case 5:
		c.Win = 0
	case 6:
		c.Profile = []uint32{1, 0xFFFFFFFF, 5}[ch.IntN(3, "profile")] // profile 2 (A3_FABRIC), 0, 6
	case 7:
		c.NullOut = ch.IntN(2, "which") == 0
		c.NullBase = !c.NullOut
	}
	return op.Op{Kind: op.KindCommGlobalPrepare, Comm: c}
}

func (g *Generator) genCommImport(ch Chooser) op.Op {
	d := genCommDomains[ch.IntN(len(genCommDomains)-1, "d")]
	v := g.st.Model().CommDomainOf(d)
	c := op.CommRecipe{ID: d}
	// One descriptor per rank from the domains that fit, now and then one changed.
	n := max(int(v.N), 1)
	for r := 0; r < n && int(c.Descs.N) < op.MaxCommDescs; r++ {
		for _, x := range genCommDomains[:4] {
			if w := g.st.Model().CommDomainOf(x); w.Described && int(w.Rank) == r && w.N == v.N && w.Win == v.Win {
				c.Descs.D[c.Descs.N] = op.DescRecipe{Src: x}
				c.Descs.N++
				break
			}
		}
	}
	if c.Descs.N > 1 && ch.IntN(2, "swap") == 0 {
		c.Descs.D[0], c.Descs.D[1] = c.Descs.D[1], c.Descs.D[0]
	}
	if c.Descs.N > 0 && ch.IntN(3, "change") == 0 {
		i := ch.IntN(int(c.Descs.N), "which")
		f := op.DescField(1 + ch.IntN(int(op.DescBadName), "field"))
		vals := map[op.DescField][]uint64{op.DescVersion: {1, 3}, op.DescProfile: {0, 2}, op.DescRank: {0, 1, 2},
			op.DescCount: {1, 3}, op.DescSize: {0, 257}, op.DescHandle: {0, 5, 256, 257}}
		c.Descs.D[i].Field = f
		if vs := vals[f]; len(vs) > 0 {
			c.Descs.D[i].Val = vs[ch.IntN(len(vs), "val")]
		}
	}
	switch ch.IntN(16, "gimport") {
	case 0:
		c.Descs = op.DescsRecipe{Null: true}
	case 1:
		c.NullOut = true
	case 2:
		c.CountSet, c.Count = true, uint64(ch.IntN(4, "count"))
	}
	return op.Op{Kind: op.KindCommGlobalImport, Comm: c}
}

func (g *Generator) genCommRelease(ch Chooser) op.Op {
	return op.Op{Kind: op.KindCommGlobalRelease, Comm: op.CommRecipe{ID: genCommDomains[ch.IntN(len(genCommDomains), "d")]}}
}

// genCommMem reads or writes a word of a window the model knows.
func (g *Generator) genCommMem(ch Chooser) op.Op {
	c := op.CommRecipe{Idx: uint8(ch.IntN(2, "idx")), Off: uint64(ch.IntN(8, "off")) * 8}
	switch ch.IntN(4, "ref") {
	case 0, 1:
		h := g.pick(ch, "h", g.gs.commLive)
		v := g.st.Model().CommHandleOf(h)
		c.H = h
		switch {
		case v.Derived > 0 && ch.IntN(3, "derived") == 0:
			c.Ref, c.K = op.RefDerived, uint8(ch.IntN(v.Derived, "k"))
		case len(v.Domains) > 0 && ch.IntN(2, "domain") == 0:
			c.Ref, c.K = op.RefDomain, v.Domains[ch.IntN(len(v.Domains), "a")]
		}
	case 2:
		c.Ref, c.ID = op.RefGlobal, genCommDomains[ch.IntN(4, "d")]
	case 3:
		c.Ref, c.ID, c.Idx = op.RefLocal, genCommDomains[ch.IntN(4, "d")], 0
	}
	if ch.IntN(2, "put") == 0 {
		c.Put, c.Val = true, uint64(1+ch.IntN(1000, "val"))
	}
	o := op.Op{Kind: op.KindCommMem, Comm: c}
	if g.st.Model().CommMemReady(o) != "" {
		return op.Op{Kind: op.KindCommGlobalRelease, Comm: op.CommRecipe{ID: 7}} // a call that does nothing
	}
	return o
}
