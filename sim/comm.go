package sim

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/semantics"
)

// The comm family (docs/contract.md E-COMM, docs/semantics.md §14): the
// simulated comm backend, as upstream's comm_sim.cpp at 6ebaf77 behaves.
// Every int entry returns 0 or -1 (upstream's comm.h: nonzero on failure),
// not a code of the contract's status table. Windows are POSIX shared
// memory (commshm_*.go), so ranks in other processes, Go or C, share them;
// a wait for peers gives up after Options.CommTimeout.

// commFail is the comm backend's one failure code.
const commFail abi.Status = -1

// commCtx is one CommContext (abi.CommContextSize bytes, 8-aligned) that an
// entry hands out by address. Its owner keeps it reachable until upstream
// would free it; the Go heap never moves an object, so the address stays
// good that long.
type commCtx [abi.CommContextSize / 8]uint64

// Word indexes of the CommContext fields (abi.CommCtx*Off / 8).
const (
	ctxWorkSpace     = abi.CommCtxWorkSpaceOff / 8
	ctxWorkSpaceSize = abi.CommCtxWorkSpaceSizeOff / 8
	ctxRanks         = abi.CommCtxRankIDOff / 8 // rankId, then rankNum, in one word
	ctxWinSize       = abi.CommCtxWinSizeOff / 8
	ctxIn            = abi.CommCtxWindowsInOff / 8
	ctxOut           = abi.CommCtxWindowsOutOff / 8
)

func (c *commCtx) addr() uint64 { return uint64(uintptr(unsafe.Pointer(c))) }

// setRanks writes rankId and rankNum (two uint32 in the C layout).
func (c *commCtx) setRanks(id, num uint32) {
	p := unsafe.Pointer(&c[ctxRanks])
	*(*uint32)(p) = id
	*(*uint32)(unsafe.Add(p, 4)) = num
}

// setWindow sets windowsIn[i] and windowsOut[i] (the simulated backend has
// no separate remote-write channel: both name one window).
func (c *commCtx) setWindow(i int, addr uint64) { c[ctxIn+i], c[ctxOut+i] = addr, addr }

// shmSegment is one mapped segment: a session's or a domain allocation's
// header and windows, or a global domain's window.
type shmSegment struct {
	name string
	data []byte
}

func (s *shmSegment) base() uint64 { return uint64(uintptr(unsafe.Pointer(&s.data[0]))) }

func (s *shmSegment) hdr(off int) *int32 { return i32At(s.data, off) }

// commHandle is one communicator handle (upstream's CommHandle_).
type commHandle struct {
	rank, nranks int32
	session      string // the session's segment name
	// seg is the base windows' mapping (upstream's mmap_base), kept from
	// the moment comm_alloc_windows mapped it, even when a later wait of
	// that call timed out; older are mappings a repeated comm_alloc_windows
	// replaced, which upstream leaks and this runtime unmaps at destroy.
	seg     *shmSegment
	older   []*shmSegment
	ctx     *commCtx // the base context, zero until comm_alloc_windows fills it
	derived []*commCtx
	domains map[uint64]*domainAlloc
}

// domainAlloc is one comm_alloc_domain_windows allocation.
type domainAlloc struct {
	rank, nranks int32
	seg          *shmSegment
	ctx          *commCtx
}

// globalDomain is one prepared (and perhaps imported) global domain.
type globalDomain struct {
	rank, nranks uint32
	local        *shmSegment
	mappingSize  uint64
	peers        [][]byte
	ctx          *commCtx // nil until imported
}

// commState is an instance's comm backend: its handles and its global
// domains (upstream's map is the library's, one per loaded copy).
type commState struct {
	mu      sync.Mutex
	handles map[abi.CommHandle]*commHandle
	serial  uint64
	global  map[uint64]*globalDomain
	// initial is Options.CommTimeout (or the default); timeout, in
	// nanoseconds, the bound in force (SimCommTimeoutMs), which a wait
	// reads when it starts.
	initial time.Duration
	timeout atomic.Int64
	log     func(msg string, args ...any)
	invalid atomic.Uint64
	// windows are the windows mapped now: every unmap goes through it, so
	// that a copy reaches only live ones (commwindows.go).
	windows commWindows
}

// commHandleBase is where the handle values start: any nonzero value no
// other handle of the instance has will do, since the runtime never
// dereferences one.
const commHandleBase = 0xC0DE_0000_0000

func newCommState(timeout time.Duration, log func(string, ...any)) *commState {
	if timeout <= 0 {
		timeout = semantics.CommTimeoutMs * time.Millisecond
	}
	s := &commState{handles: map[abi.CommHandle]*commHandle{}, global: map[uint64]*globalDomain{}, initial: timeout, log: log}
	s.timeout.Store(int64(timeout))
	return s
}

// SimCommTimeoutMs is simabi_comm_timeout_ms (docs/contract.md F-1): ms >= 1
// bounds every wait of the comm family that starts later; it returns the
// bound in force before, in milliseconds (rounded up, at most 2^31-1).
func (r *Runtime) SimCommTimeoutMs(ms int32) int32 {
	prev := time.Duration(r.comm.timeout.Load())
	if ms >= 1 {
		r.comm.timeout.Store(int64(time.Duration(ms) * time.Millisecond))
	}
	return int32(min((prev+time.Millisecond-1)/time.Millisecond, 1<<31-1))
}

// lookup resolves a handle; one comm_init never returned, or comm_destroy
// freed, is counted and resolves to nil, like NULL (semantics §2).
func (s *commState) lookup(h abi.CommHandle) *commHandle {
	if h == 0 {
		return nil
	}
	s.mu.Lock()
	c := s.handles[h]
	s.mu.Unlock()
	if c == nil {
		s.invalid.Add(1)
	}
	return c
}

// waitUntil polls check every poll until it holds (true) or the timeout
// passed (false); it looks once more at the deadline, as upstream's loop
// does, so a timeout of zero looks exactly once.
func (s *commState) waitUntil(check func() bool, poll time.Duration) bool {
	deadline := time.Now().Add(time.Duration(s.timeout.Load()))
	for !check() {
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(poll)
	}
	return true
}

const (
	attachPoll  = semantics.CommAttachPollMicros * time.Microsecond
	barrierPoll = semantics.CommBarrierPollMicros * time.Microsecond
)

// openSegment creates segment name of total bytes, or attaches to the one
// a peer created and waits until the peer sized it. creator reports which;
// unlinkOnMapFailure is upstream's comm_alloc_domain_windows, which unlinks
// a segment it created and could not map (comm_alloc_windows does not).
func (s *commState) openSegment(name string, total uint64, who string, unlinkOnMapFailure bool) (seg *shmSegment, creator, ok bool) {
	fd, exists, err := shmCreate(name)
	switch {
	case err == nil:
		creator = true
		if shmTruncate(fd, total) != nil {
			shmClose(fd)
			shmUnlink(name)
			return nil, false, false
		}
	case exists:
		if fd, err = shmAttach(name); err != nil {
			return nil, false, false
		}
		sized := s.waitUntil(func() bool {
			n, ok := shmSize(fd)
			return ok && n >= total
		}, attachPoll)
		if !sized {
			s.log(who+": the segment never reached its size (timeout)", "segment", name)
			shmClose(fd)
			return nil, false, false
		}
	default:
		return nil, false, false
	}
	data, err := shmMap(fd, total)
	shmClose(fd)
	if err != nil {
		if creator && unlinkOnMapFailure {
			shmUnlink(name)
		}
		return nil, false, false
	}
	return &shmSegment{name: name, data: data}, creator, true
}

// publish is the creator's header: the window size and zero counters, then
// nranks and alloc_done with release order.
func publish(seg *shmSegment, nranks int32, winSize uint64) {
	atomic.StoreUint64(u64At(seg.data, semantics.CommHdrWinSize), winSize)
	for _, off := range []int{semantics.CommHdrReadyCount, semantics.CommHdrBarrierCount, semantics.CommHdrBarrierPhase, semantics.CommHdrDestroyCount} {
		atomic.StoreInt32(seg.hdr(off), 0)
	}
	atomic.StoreInt32(seg.hdr(semantics.CommHdrNRanks), nranks)
	atomic.StoreInt32(seg.hdr(semantics.CommHdrAllocDone), 1)
}

// awaitPublished is an attacher's wait for the creator's alloc_done.
func (s *commState) awaitPublished(seg *shmSegment) bool {
	return s.waitUntil(func() bool { return atomic.LoadInt32(seg.hdr(semantics.CommHdrAllocDone)) != 0 }, attachPoll)
}

// awaitCount waits until the header counter at off reaches n.
func (s *commState) awaitCount(seg *shmSegment, off int, n int32, poll time.Duration) bool {
	return s.waitUntil(func() bool { return atomic.LoadInt32(seg.hdr(off)) >= n }, poll)
}

// CommInit is comm_init: NULL rootinfo_path, rank < 0, nranks <= 0,
// rank >= nranks or nranks > 64 → NULL; else a new handle of the session
// the path names. It touches no shared memory; the stream is ignored.
func (r *Runtime) CommInit(rank, nranks int32, stream abi.Stream, rootinfoPath unsafe.Pointer) abi.CommHandle {
	if rootinfoPath == nil || rank < 0 || nranks <= 0 || rank >= nranks || uint32(nranks) > abi.CommMaxRankNum {
		return 0
	}
	h := &commHandle{rank: rank, nranks: nranks, ctx: new(commCtx),
		session: abi.CommSessionName(uint32(os.Getppid()), cString(rootinfoPath))}
	s := r.comm
	s.mu.Lock()
	defer s.mu.Unlock()
	s.serial++
	v := abi.CommHandle(commHandleBase + s.serial*16)
	s.handles[v] = h
	return v
}

// CommAllocWindows is comm_alloc_windows: create or join the session's
// segment (a 4096-byte header and nranks windows of winSize bytes), fill
// the handle's context, write its address, then wait until every rank
// arrived.
func (r *Runtime) CommAllocWindows(hv abi.CommHandle, winSize uintptr, deviceCtxOut *uint64) abi.Status {
	h := r.comm.lookup(hv)
	if h == nil || deviceCtxOut == nil {
		return commFail
	}
	s := r.comm
	win := uint64(winSize)
	total := semantics.CommHeaderBytes + win*uint64(h.nranks)
	seg, creator, ok := s.openSegment(h.session, total, "comm_alloc_windows", false)
	if !ok {
		return commFail
	}
	if h.seg != nil {
		h.older = append(h.older, h.seg)
	}
	h.seg = seg
	s.windows.add(seg.data, semantics.CommHeaderBytes, win, uint64(h.nranks))
	if creator {
		publish(seg, h.nranks, win)
	} else if !s.awaitPublished(seg) {
		s.log("comm_alloc_windows: the segment's creator never published it (timeout)", "rank", h.rank)
		return commFail
	}
	c := h.ctx
	c[ctxWorkSpace], c[ctxWorkSpaceSize] = 0, 0
	c.setRanks(uint32(h.rank), uint32(h.nranks))
	c[ctxWinSize] = win
	for i := range int(h.nranks) {
		c.setWindow(i, seg.base()+semantics.CommHeaderBytes+uint64(i)*win)
	}
	*deviceCtxOut = c.addr()
	atomic.AddInt32(seg.hdr(semantics.CommHdrReadyCount), 1)
	if !s.awaitCount(seg, semantics.CommHdrReadyCount, h.nranks, barrierPoll) {
		s.log("comm_alloc_windows: not every rank arrived (timeout)", "rank", h.rank)
		return commFail
	}
	return abi.OK
}

// CommGetLocalWindowBase is comm_get_local_window_base: NULL handle or out
// → -1; else the context's windowsIn[rank] (0 before comm_alloc_windows).
func (r *Runtime) CommGetLocalWindowBase(hv abi.CommHandle, baseOut *uint64) abi.Status {
	h := r.comm.lookup(hv)
	if h == nil || baseOut == nil {
		return commFail
	}
	*baseOut = h.ctx[ctxIn+int(h.rank)]
	return abi.OK
}

// CommGetWindowSize is comm_get_window_size: NULL handle or out → -1; else
// the context's winSize (0 before comm_alloc_windows).
func (r *Runtime) CommGetWindowSize(hv abi.CommHandle, sizeOut *uintptr) abi.Status {
	h := r.comm.lookup(hv)
	if h == nil || sizeOut == nil {
		return commFail
	}
	*sizeOut = uintptr(h.ctx[ctxWinSize])
	return abi.OK
}

// u32s reads rank_ids[i].
func u32s(p unsafe.Pointer, i uint64) uint32 { return *(*uint32)(unsafe.Add(p, 4*i)) }

// CommDeriveContext is comm_derive_context: a context of rankCount domain
// ranks over the base windows, each rank_ids[i]'s window moved by
// windowOffset, owned by the handle until comm_destroy.
func (r *Runtime) CommDeriveContext(hv abi.CommHandle, rankIDs unsafe.Pointer, rankCount uintptr, domainRank uint32, windowOffset, windowSize uintptr, deviceCtxOut *uint64) abi.Status {
	h := r.comm.lookup(hv)
	if h == nil || rankIDs == nil || deviceCtxOut == nil {
		return commFail
	}
	n := uint64(rankCount)
	switch {
	case h.seg == nil:
		r.comm.log("comm_derive_context: base windows are not allocated", "rank", h.rank)
		return commFail
	case n == 0 || n > abi.CommMaxRankNum || uint64(domainRank) >= n:
		return commFail
	case abi.CommDeriveRangeRefused(uint64(windowOffset), uint64(windowSize), h.ctx[ctxWinSize]):
		return commFail
	}
	c := new(commCtx)
	c[ctxWorkSpace], c[ctxWorkSpaceSize] = h.ctx[ctxWorkSpace], h.ctx[ctxWorkSpaceSize]
	c.setRanks(domainRank, uint32(n))
	c[ctxWinSize] = uint64(windowSize)
	for i := range n {
		base := u32s(rankIDs, i)
		if base >= uint32(h.nranks) {
			return commFail
		}
		c[ctxIn+int(i)] = h.ctx[ctxIn+int(base)] + uint64(windowOffset)
		c[ctxOut+int(i)] = h.ctx[ctxOut+int(base)] + uint64(windowOffset)
	}
	h.derived = append(h.derived, c)
	*deviceCtxOut = c.addr()
	return abi.OK
}

// CommBarrier is comm_barrier: a sense-reversing barrier over the session
// header (snapshot the phase, count in, the last rank resets the count and
// advances the phase, the others wait for the phase to move).
func (r *Runtime) CommBarrier(hv abi.CommHandle) abi.Status {
	h := r.comm.lookup(hv)
	if h == nil || h.seg == nil {
		return commFail
	}
	seg := h.seg
	phase := atomic.LoadInt32(seg.hdr(semantics.CommHdrBarrierPhase))
	if atomic.AddInt32(seg.hdr(semantics.CommHdrBarrierCount), 1) == h.nranks {
		atomic.StoreInt32(seg.hdr(semantics.CommHdrBarrierCount), 0)
		atomic.AddInt32(seg.hdr(semantics.CommHdrBarrierPhase), 1)
		return abi.OK
	}
	if !r.comm.waitUntil(func() bool { return atomic.LoadInt32(seg.hdr(semantics.CommHdrBarrierPhase)) != phase }, barrierPoll) {
		r.comm.log("comm_barrier: not every rank arrived (timeout)", "rank", h.rank)
		return commFail
	}
	return abi.OK
}

// CommAllocDomainWindows is comm_alloc_domain_windows: a segment of its
// own for the subset (named by the session and allocationID), this rank's
// window zeroed before the subset's ready barrier. The base windows are
// not needed.
func (r *Runtime) CommAllocDomainWindows(hv abi.CommHandle, allocationID uint64, rankIDs unsafe.Pointer, rankCount uintptr, domainRank uint32, windowSize uintptr, deviceCtxOut, localWindowBaseOut *uint64) abi.Status {
	h := r.comm.lookup(hv)
	if h == nil || rankIDs == nil || deviceCtxOut == nil || localWindowBaseOut == nil {
		return commFail
	}
	n, win := uint64(rankCount), uint64(windowSize)
	switch {
	case n == 0 || n > abi.CommMaxRankNum || uint64(domainRank) >= n || win == 0:
		return commFail
	case h.domains[allocationID] != nil:
		return commFail
	case u32s(rankIDs, uint64(domainRank)) != uint32(h.rank):
		return commFail
	}
	s := r.comm
	name := abi.CommAllocName(uint32(os.Getppid()), h.session, allocationID)
	total := semantics.CommHeaderBytes + win*n
	seg, creator, ok := s.openSegment(name, total, "comm_alloc_domain_windows", true)
	if !ok {
		return commFail
	}
	if creator {
		publish(seg, int32(n), win)
	} else if !s.awaitPublished(seg) {
		s.log("comm_alloc_domain_windows: the segment's creator never published it (timeout)", "rank", h.rank)
		s.windows.unmap(seg.data)
		return commFail
	}
	c := new(commCtx)
	c.setRanks(domainRank, uint32(n))
	c[ctxWinSize] = win
	for i := range n {
		c.setWindow(int(i), seg.base()+semantics.CommHeaderBytes+i*win)
	}
	local := semantics.CommHeaderBytes + uint64(domainRank)*win
	clear(seg.data[local : local+win])
	atomic.AddInt32(seg.hdr(semantics.CommHdrReadyCount), 1)
	if !s.awaitCount(seg, semantics.CommHdrReadyCount, int32(n), barrierPoll) {
		s.log("comm_alloc_domain_windows: not every rank arrived (timeout)", "rank", h.rank)
		s.windows.unmap(seg.data)
		return commFail
	}
	s.windows.add(seg.data, semantics.CommHeaderBytes, win, n)
	*deviceCtxOut = c.addr()
	*localWindowBaseOut = seg.base() + local
	if h.domains == nil {
		h.domains = map[uint64]*domainAlloc{}
	}
	h.domains[allocationID] = &domainAlloc{rank: int32(domainRank), nranks: int32(n), seg: seg, ctx: c}
	return abi.OK
}

// CommReleaseDomainWindows is comm_release_domain_windows: the subset's
// release barrier (the last rank unlinks the segment), then the
// allocation is gone, even when the barrier timed out.
func (r *Runtime) CommReleaseDomainWindows(hv abi.CommHandle, allocationID uint64, rankCount uintptr, domainRank uint32) abi.Status {
	h := r.comm.lookup(hv)
	if h == nil {
		return commFail
	}
	a := h.domains[allocationID]
	switch {
	case a == nil:
		return commFail
	case uint64(a.nranks) != uint64(rankCount) || uint32(a.rank) != domainRank:
		return commFail
	}
	st := r.comm.leave(a.seg, a.nranks, "comm_release_domain_windows")
	delete(h.domains, allocationID)
	return st
}

// leave is the destroy barrier of a segment: count out; the last rank out
// unmaps and unlinks it, the others wait (bounded) for the rest, then
// unmap. A timeout is -1, with the segment unmapped all the same.
func (s *commState) leave(seg *shmSegment, nranks int32, who string) abi.Status {
	if atomic.AddInt32(seg.hdr(semantics.CommHdrDestroyCount), 1) >= nranks {
		s.windows.unmap(seg.data)
		shmUnlink(seg.name)
		return abi.OK
	}
	drained := s.awaitCount(seg, semantics.CommHdrDestroyCount, nranks, attachPoll)
	s.windows.unmap(seg.data)
	if !drained {
		s.log(who+": not every rank left (timeout); local teardown done", "segment", seg.name)
		return commFail
	}
	return abi.OK
}

// CommGlobalDomainPrepare is comm_global_domain_prepare: this process's
// zeroed window of the domain, and the descriptor peers import it by.
func (r *Runtime) CommGlobalDomainPrepare(domainID uint64, domainRank, rankCount uint32, windowSize uintptr, profile uint32, descriptorOut unsafe.Pointer, localWindowBaseOut *uint64) abi.Status {
	win := uint64(windowSize)
	if domainID == 0 || rankCount == 0 || rankCount > abi.CommMaxRankNum || domainRank >= rankCount || win == 0 ||
		profile != abi.CommProfileSimShm || descriptorOut == nil || localWindowBaseOut == nil {
		return commFail
	}
	s := r.comm
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.global[domainID] != nil {
		return commFail
	}
	name := abi.CommGlobalName(uint32(os.Getpid()), domainID, domainRank)
	fd, _, err := shmCreate(name)
	if err != nil {
		return commFail
	}
	if shmTruncate(fd, win) != nil {
		shmClose(fd)
		shmUnlink(name)
		return commFail
	}
	data, err := shmMap(fd, win)
	shmClose(fd)
	if err != nil {
		shmUnlink(name)
		return commFail
	}
	clear(data)
	seg := &shmSegment{name: name, data: data}
	s.windows.add(data, 0, win, 1)
	d := unsafe.Slice((*byte)(descriptorOut), abi.CommDescSize)
	clear(d)
	le.PutUint32(d[abi.CommDescVersionOff:], abi.CommGlobalDomainVersion)
	le.PutUint32(d[abi.CommDescProfileOff:], abi.CommProfileSimShm)
	le.PutUint32(d[abi.CommDescDomainRankOff:], domainRank)
	le.PutUint32(d[abi.CommDescRankCountOff:], rankCount)
	le.PutUint64(d[abi.CommDescMappingSizeOff:], win)
	le.PutUint32(d[abi.CommDescHandleSizeOff:], uint32(len(name)))
	copy(d[abi.CommDescHandleOff:], name)
	*localWindowBaseOut = seg.base()
	s.global[domainID] = &globalDomain{rank: domainRank, nranks: rankCount, local: seg, mappingSize: win}
	return abi.OK
}

// CommGlobalDomainImport is comm_global_domain_import: every rank's
// descriptor, in any order, each rank once; the peers' windows mapped and
// a context over them published. A refused import leaves the domain
// prepared, and may be tried again.
func (r *Runtime) CommGlobalDomainImport(domainID uint64, descriptors unsafe.Pointer, descriptorCount uintptr, deviceCtxOut *uint64) abi.Status {
	s := r.comm
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.global[domainID]
	if g == nil || descriptors == nil || deviceCtxOut == nil {
		return commFail
	}
	if uint64(descriptorCount) != uint64(g.nranks) || g.ctx != nil {
		return commFail
	}
	order := make([][]byte, g.nranks)
	for i := range uint64(descriptorCount) {
		d := unsafe.Slice((*byte)(unsafe.Add(descriptors, i*abi.CommDescSize)), abi.CommDescSize)
		rank, hs := le.Uint32(d[abi.CommDescDomainRankOff:]), le.Uint32(d[abi.CommDescHandleSizeOff:])
		if le.Uint32(d[abi.CommDescVersionOff:]) != abi.CommGlobalDomainVersion ||
			le.Uint32(d[abi.CommDescProfileOff:]) != abi.CommProfileSimShm ||
			le.Uint32(d[abi.CommDescRankCountOff:]) != g.nranks || rank >= g.nranks ||
			le.Uint64(d[abi.CommDescMappingSizeOff:]) != g.mappingSize ||
			hs == 0 || hs > abi.CommDescHandleBytes || order[rank] != nil {
			return commFail
		}
		order[rank] = d
	}
	c := new(commCtx)
	c.setRanks(g.rank, g.nranks)
	c[ctxWinSize] = g.mappingSize
	var peers [][]byte
	unmapAll := func() {
		for _, p := range peers {
			s.windows.unmap(p)
		}
	}
	for rank := range g.nranks {
		base := g.local.base()
		if rank != g.rank {
			d := order[rank]
			handle := d[abi.CommDescHandleOff : abi.CommDescHandleOff+le.Uint32(d[abi.CommDescHandleSizeOff:])]
			fd, err := shmAttach(cStringOf(handle))
			if err != nil {
				unmapAll()
				return commFail
			}
			data, err := shmMap(fd, g.mappingSize)
			shmClose(fd)
			if err != nil {
				unmapAll()
				return commFail
			}
			peers = append(peers, data)
			base = uint64(uintptr(unsafe.Pointer(&data[0])))
		}
		c.setWindow(int(rank), base)
	}
	for _, p := range peers {
		s.windows.add(p, 0, g.mappingSize, 1)
	}
	g.peers, g.ctx = peers, c
	*deviceCtxOut = c.addr()
	return abi.OK
}

// CommGlobalDomainRelease is comm_global_domain_release: 0 for any id;
// a live domain's windows are unmapped and its own window unlinked.
func (r *Runtime) CommGlobalDomainRelease(domainID uint64) abi.Status {
	s := r.comm
	s.mu.Lock()
	g := s.global[domainID]
	delete(s.global, domainID)
	s.mu.Unlock()
	if g != nil {
		s.release(g)
	}
	return abi.OK
}

// release unmaps a global domain's windows and unlinks its own.
func (s *commState) release(g *globalDomain) {
	s.windows.unmap(g.local.data)
	shmUnlink(g.local.name)
	for _, p := range g.peers {
		s.windows.unmap(p)
	}
}

// CommDestroy is comm_destroy: the handle's domain allocations are freed
// locally (unmapped and unlinked, no barrier), its derived contexts freed,
// then, with base windows, the destroy barrier (the last rank unlinks the
// session). The handle is gone whatever it returns; -1 only when the
// barrier timed out.
func (r *Runtime) CommDestroy(hv abi.CommHandle) abi.Status {
	s := r.comm
	if hv == 0 {
		return commFail
	}
	s.mu.Lock()
	h := s.handles[hv]
	delete(s.handles, hv)
	s.mu.Unlock()
	if h == nil {
		s.invalid.Add(1)
		return commFail
	}
	return s.teardown(h, true)
}

// teardown frees h as comm_destroy does; without wait the destroy
// barrier counts this rank out and does not wait for the others.
func (s *commState) teardown(h *commHandle, wait bool) abi.Status {
	for _, a := range h.domains {
		s.windows.unmap(a.seg.data)
		shmUnlink(a.seg.name)
	}
	h.domains, h.derived = nil, nil
	for _, o := range h.older {
		s.windows.unmap(o.data)
	}
	h.older = nil
	st := abi.OK
	if seg := h.seg; seg != nil {
		h.seg = nil
		if wait {
			st = s.leave(seg, h.nranks, "comm_destroy")
		} else if atomic.AddInt32(seg.hdr(semantics.CommHdrDestroyCount), 1) >= h.nranks {
			s.windows.unmap(seg.data)
			shmUnlink(seg.name)
		} else {
			s.windows.unmap(seg.data)
		}
	}
	return st
}

// releaseAll is what a fresh load leaves of the comm backend: every
// global domain released (upstream's map is destroyed when the library is
// unloaded) and every handle freed as comm_destroy frees it, without
// waiting for peers. SimReset and the instance's collection run it.
func (s *commState) releaseAll() {
	s.mu.Lock()
	handles, global := s.handles, s.global
	s.handles, s.global = map[abi.CommHandle]*commHandle{}, map[uint64]*globalDomain{}
	s.serial = 0
	s.mu.Unlock()
	for _, g := range global {
		s.release(g)
	}
	for _, h := range handles {
		s.teardown(h, false)
	}
}

// CommInvalidHandleCalls counts comm entry calls that passed a non-NULL
// handle comm_init never returned or comm_destroy freed; each was treated
// like NULL (semantics §2, §14).
func (r *Runtime) CommInvalidHandleCalls() uint64 { return r.comm.invalid.Load() }

// LiveCommHandles is the number of comm handles initialized and not
// destroyed.
func (r *Runtime) LiveCommHandles() int {
	r.comm.mu.Lock()
	defer r.comm.mu.Unlock()
	return len(r.comm.handles)
}

// LiveGlobalDomains is the number of global domains prepared and not
// released.
func (r *Runtime) LiveGlobalDomains() int {
	r.comm.mu.Lock()
	defer r.comm.mu.Unlock()
	return len(r.comm.global)
}

// cString is the NUL-terminated string at p.
func cString(p unsafe.Pointer) string {
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}

// cStringOf is b up to its first NUL: what shm_open of a name with an
// embedded NUL sees.
func cStringOf(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// keepComm registers the release of s when r is collected: an instance's
// collection is its unload.
func keepComm(r *Runtime, s *commState) { runtime.AddCleanup(r, (*commState).releaseAll, s) }
