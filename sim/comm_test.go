package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/semantics"
)

// The comm family (E-COMM): each test names the clause it holds, with the
// exact codes of upstream's comm_sim.cpp (0, -1, NULL).

const fail = commFail

// commRig is a runtime with a short comm timeout and rootinfo paths of its
// own: every path names a session no other test, process or repetition
// shares, and the test fails if a segment of its sessions outlives it.
type commRig struct {
	t     *testing.T
	rt    *Runtime
	keep  [][]byte
	names []string
}

var commPathSerial atomic.Uint64

func newCommRig(t *testing.T, timeout time.Duration) *commRig {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the simulated comm backend needs POSIX shared memory")
	}
	c := &commRig{t: t, rt: New(TMR, Options{CommTimeout: timeout})}
	t.Cleanup(func() {
		c.rt.SimReset() // an instance's unload: its global domains go
		for _, n := range c.names {
			if _, err := os.Stat(shmPathOf(t, n)); err == nil {
				t.Errorf("segment %s outlived the test", n)
				shmUnlink(n)
			}
		}
	})
	return c
}

// path is a new rootinfo path (a C string); its session's segment is
// watched.
func (c *commRig) path() unsafe.Pointer {
	s := fmt.Sprintf("/tmp/simabi-comm-test-%d-%s-%d", os.Getpid(), c.t.Name(), commPathSerial.Add(1))
	b := append([]byte(s), 0)
	c.keep = append(c.keep, b)
	c.names = append(c.names, c.session(unsafe.Pointer(&b[0])))
	return unsafe.Pointer(&b[0])
}

// session is the session name of path.
func (c *commRig) session(path unsafe.Pointer) string {
	return abi.CommSessionName(uint32(os.Getppid()), cString(path))
}

// alloc is the segment of allocation id of path's session.
func (c *commRig) allocName(path unsafe.Pointer, id uint64) string {
	n := abi.CommAllocName(uint32(os.Getppid()), c.session(path), id)
	c.names = append(c.names, n)
	return n
}

func (c *commRig) init(rank, nranks int32, path unsafe.Pointer) abi.CommHandle {
	c.t.Helper()
	h := c.rt.CommInit(rank, nranks, 0, path)
	if h == 0 {
		c.t.Fatalf("comm_init(%d, %d) = NULL", rank, nranks)
	}
	return h
}

// windows is a single-rank session's handle with windows of win bytes and
// its context.
func (c *commRig) windows(win uintptr) (abi.CommHandle, *commCtx, unsafe.Pointer) {
	c.t.Helper()
	p := c.path()
	h := c.init(0, 1, p)
	var out uint64
	if st := c.rt.CommAllocWindows(h, win, &out); st != abi.OK {
		c.t.Fatalf("comm_alloc_windows = %d", st)
	}
	return h, ctxAt(out), p
}

func (c *commRig) destroy(h abi.CommHandle) {
	c.t.Helper()
	if st := c.rt.CommDestroy(h); st != abi.OK {
		c.t.Fatalf("comm_destroy = %d", st)
	}
}

func shmPathOf(t *testing.T, name string) string {
	t.Helper()
	p, err := shmFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ctxAt is the CommContext at addr.
func ctxAt(addr uint64) *commCtx {
	p := uintptr(addr)
	return *(**commCtx)(unsafe.Pointer(&p))
}

// word is the uint64 at addr.
func word(addr uint64) *uint64 {
	p := uintptr(addr)
	return *(**uint64)(unsafe.Pointer(&p))
}

func (c *commCtx) ranks() (id, num uint32) {
	p := unsafe.Pointer(&c[ctxRanks])
	return *(*uint32)(p), *(*uint32)(unsafe.Add(p, 4))
}

func ids(v ...uint32) unsafe.Pointer {
	b := make([]uint32, 256)
	copy(b, v)
	return unsafe.Pointer(&b[0])
}

func TestComm_ECOMM1_nullPathIsRefused(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	if h := c.rt.CommInit(0, 1, 0, nil); h != 0 {
		t.Fatalf("comm_init(NULL path) = %#x, want NULL", h)
	}
}

func TestComm_ECOMM2_ranksOutOfRangeAreRefused(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	p := c.path()
	for _, tc := range [][2]int32{{-1, 1}, {0, 0}, {0, -1}, {1, 1}, {2, 1}, {-1, -1}} {
		if h := c.rt.CommInit(tc[0], tc[1], 0, p); h != 0 {
			t.Errorf("comm_init(%d, %d) = %#x, want NULL", tc[0], tc[1], h)
		}
	}
}

func TestComm_ECOMM3_64RanksAtMost(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	p := c.path()
	if h := c.rt.CommInit(0, 65, 0, p); h != 0 {
		t.Errorf("comm_init(0, 65) = %#x, want NULL", h)
	}
	if h := c.rt.CommInit(64, 65, 0, p); h != 0 {
		t.Errorf("comm_init(64, 65) = %#x, want NULL", h)
	}
	c.destroy(c.init(63, 64, p))
}

func TestComm_ECOMM4_initMakesDistinctHandlesAndNoSegment(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	p := c.path()
	a := c.init(0, 2, p)
	b := c.rt.CommInit(1, 2, 0xBEEF, p) // any stream: the simulated backend ignores it
	if b == 0 || a == b {
		t.Fatalf("two comm_init = %#x, %#x: want distinct handles", a, b)
	}
	if _, err := os.Stat(shmPathOf(t, c.session(p))); err == nil {
		t.Error("comm_init created the session's segment")
	}
	c.destroy(a)
	c.destroy(b)
	if n := c.rt.LiveCommHandles(); n != 0 {
		t.Errorf("%d handles live after destroying both", n)
	}
}

func TestComm_ECOMM5_allocRefusesNulls(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	var out uint64
	if st := c.rt.CommAllocWindows(0, 64, &out); st != fail {
		t.Errorf("comm_alloc_windows(NULL) = %d, want -1", st)
	}
	h := c.init(0, 1, c.path())
	if st := c.rt.CommAllocWindows(h, 64, nil); st != fail {
		t.Errorf("comm_alloc_windows(out NULL) = %d, want -1", st)
	}
	c.destroy(h)
}

// Two handles of one session (and one handle allocating twice) share the
// windows' memory through their own mappings.
func TestComm_ECOMM6_aSessionSharesItsWindows(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	h0, ctx0, p := c.windows(128)
	h1 := c.init(0, 1, p)
	var out uint64
	if st := c.rt.CommAllocWindows(h1, 128, &out); st != abi.OK {
		t.Fatalf("the second handle's comm_alloc_windows = %d", st)
	}
	ctx1 := ctxAt(out)
	if ctx0[ctxIn] == ctx1[ctxIn] {
		t.Fatal("two handles got one mapping, want a mapping each")
	}
	*word(ctx0[ctxIn] + 8) = 0xFEED
	if got := *word(ctx1[ctxIn] + 8); got != 0xFEED {
		t.Errorf("read %#x through the other handle's window, want 0xFEED", got)
	}
	// Allocating again joins the session again: the same memory, a new
	// mapping, the same context.
	var again uint64
	if st := c.rt.CommAllocWindows(h0, 128, &again); st != abi.OK || ctxAt(again) != ctx0 {
		t.Fatalf("a repeated comm_alloc_windows = %d, context %#x (want 0 and %#x)", st, again, ctx0.addr())
	}
	if got := *word(ctx0[ctxIn] + 8); got != 0xFEED {
		t.Errorf("the repeated allocation reads %#x, want 0xFEED", got)
	}
	c.destroy(h0)
	c.destroy(h1)
}

func TestComm_ECOMM7_theContextDescribesTheWindows(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	p := c.path()
	h := c.init(0, 1, p)
	var out uint64 = 1
	if st := c.rt.CommAllocWindows(h, 4096, &out); st != abi.OK {
		t.Fatalf("comm_alloc_windows = %d", st)
	}
	ctx := ctxAt(out)
	runtime.GC() // the context stays where it is, alive
	if id, num := ctx.ranks(); id != 0 || num != 1 || ctx[ctxWinSize] != 4096 || ctx[ctxWorkSpace] != 0 || ctx[ctxWorkSpaceSize] != 0 {
		t.Errorf("context: rankId %d rankNum %d winSize %d workSpace %d/%d", id, num, ctx[ctxWinSize], ctx[ctxWorkSpace], ctx[ctxWorkSpaceSize])
	}
	if ctx[ctxIn] == 0 || ctx[ctxOut] != ctx[ctxIn] || ctx[ctxIn+1] != 0 {
		t.Errorf("windows: in[0] %#x out[0] %#x in[1] %#x", ctx[ctxIn], ctx[ctxOut], ctx[ctxIn+1])
	}
	c.destroy(h)

	// Several ranks: consecutive windows of win_size bytes (rank 2 of 3,
	// whose peers are all counted ready already: a stale count of this
	// test's own making).
	p = c.path()
	h = c.init(2, 3, p)
	prepareReady(t, c.session(p), 3, 3, 100)
	if st := c.rt.CommAllocWindows(h, 100, &out); st != abi.OK {
		t.Fatalf("comm_alloc_windows with every peer ready = %d", st)
	}
	ctx = ctxAt(out)
	if id, num := ctx.ranks(); id != 2 || num != 3 {
		t.Errorf("rankId %d rankNum %d, want 2 and 3", id, num)
	}
	for i := 1; i < 3; i++ {
		if ctx[ctxIn+i] != ctx[ctxIn]+uint64(i)*100 || ctx[ctxOut+i] != ctx[ctxIn+i] {
			t.Errorf("window %d at %#x, want %#x", i, ctx[ctxIn+i], ctx[ctxIn]+uint64(i)*100)
		}
	}
	c.rt.comm.timeout.Store(int64(time.Millisecond))
	if st := c.rt.CommDestroy(h); st != fail { // its peers never count out
		t.Errorf("comm_destroy with peers that never leave = %d, want -1", st)
	}
	shmUnlink(c.session(p))
}

// prepareReady makes the segment name as a creator that published it,
// with ready ranks counted ready already (a session whose peers came
// first).
func prepareReady(t *testing.T, name string, nranks, ready int32, win uint64) {
	t.Helper()
	fd, _, err := shmCreate(name)
	if err != nil {
		t.Fatal(err)
	}
	total := semantics.CommHeaderBytes + win*uint64(nranks)
	if err := shmTruncate(fd, total); err != nil {
		t.Fatal(err)
	}
	data, err := shmMap(fd, total)
	shmClose(fd)
	if err != nil {
		t.Fatal(err)
	}
	seg := &shmSegment{name: name, data: data}
	publish(seg, nranks, win)
	atomic.StoreInt32(seg.hdr(semantics.CommHdrReadyCount), ready-1)
	shmUnmap(data)
}

// A missing peer: every wait ends at the timeout with -1. The ready wait
// comes after the context is written, and the handle keeps its windows.
func TestComm_ECOMM9_waitsEndAtTheTimeout(t *testing.T) {
	c := newCommRig(t, 20*time.Millisecond)
	p := c.path()
	h := c.init(0, 2, p)
	out := uint64(0)
	start := time.Now()
	if st := c.rt.CommAllocWindows(h, 64, &out); st != fail {
		t.Fatalf("comm_alloc_windows without the peer = %d, want -1", st)
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("gave up after %v, before the timeout", d)
	}
	if out == 0 || ctxAt(out)[ctxWinSize] != 64 {
		t.Fatalf("the context was not written before the ready wait: out %#x", out)
	}
	var size uintptr
	if st := c.rt.CommGetWindowSize(h, &size); st != abi.OK || size != 64 {
		t.Errorf("comm_get_window_size after the timeout = %d, %d", st, size)
	}
	var d uint64
	if st := c.rt.CommDeriveContext(h, ids(0, 1), 2, 0, 0, 64, &d); st != abi.OK {
		t.Errorf("comm_derive_context on the windows kept = %d, want 0", st)
	}
	if st := c.rt.CommDestroy(h); st != fail {
		t.Errorf("comm_destroy without the peer = %d, want -1", st)
	}
	shmUnlink(c.session(p)) // no rank unlinked it: the peer never left

	// The size: a segment that exists and never grows.
	p = c.path()
	h = c.init(0, 1, p)
	fd, _, err := shmCreate(c.session(p))
	if err != nil {
		t.Fatal(err)
	}
	shmClose(fd)
	out = 0
	if st := c.rt.CommAllocWindows(h, 64, &out); st != fail || out != 0 {
		t.Errorf("comm_alloc_windows on a segment that never grows = %d, out %#x; want -1 and nothing written", st, out)
	}
	if st := c.rt.CommBarrier(h); st != fail {
		t.Errorf("comm_barrier after a size timeout = %d, want -1 (no windows)", st)
	}
	c.destroy(h)
	shmUnlink(c.session(p))

	// The publication: a segment of the right size whose creator never
	// published it. Upstream keeps the mapping from before this wait, so
	// the handle has windows (comm_barrier works) and a zeroed context.
	p = c.path()
	h = c.init(0, 1, p)
	fd, _, err = shmCreate(c.session(p))
	if err != nil {
		t.Fatal(err)
	}
	if err := shmTruncate(fd, semantics.CommHeaderBytes+64); err != nil {
		t.Fatal(err)
	}
	shmClose(fd)
	if st := c.rt.CommAllocWindows(h, 64, &out); st != fail {
		t.Errorf("comm_alloc_windows on an unpublished segment = %d, want -1", st)
	}
	if st := c.rt.CommBarrier(h); st != abi.OK {
		t.Errorf("comm_barrier on the mapping an unpublished segment left = %d, want 0", st)
	}
	if st := c.rt.CommGetWindowSize(h, &size); st != abi.OK || size != 0 {
		t.Errorf("comm_get_window_size = %d, %d; want 0 and 0 (the context was never filled)", st, size)
	}
	c.destroy(h) // destroy_count reaches nranks: it unlinks
}

func TestComm_ECOMM10_queriesRefuseNulls(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	var v uint64
	var s uintptr
	h := c.init(0, 1, c.path())
	for name, st := range map[string]abi.Status{
		"base(NULL)":     c.rt.CommGetLocalWindowBase(0, &v),
		"base(out NULL)": c.rt.CommGetLocalWindowBase(h, nil),
		"size(NULL)":     c.rt.CommGetWindowSize(0, &s),
		"size(out NULL)": c.rt.CommGetWindowSize(h, nil),
	} {
		if st != fail {
			t.Errorf("%s = %d, want -1", name, st)
		}
	}
	c.destroy(h)
}

func TestComm_ECOMM11_queriesReadTheContext(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	h := c.init(0, 1, c.path())
	v, s := uint64(7), uintptr(7)
	if c.rt.CommGetLocalWindowBase(h, &v) != abi.OK || c.rt.CommGetWindowSize(h, &s) != abi.OK || v != 0 || s != 0 {
		t.Errorf("before comm_alloc_windows: base %#x size %d, want 0 and 0", v, s)
	}
	c.destroy(h)
	h, ctx, _ := c.windows(256)
	if c.rt.CommGetLocalWindowBase(h, &v) != abi.OK || c.rt.CommGetWindowSize(h, &s) != abi.OK || v != ctx[ctxIn] || s != 256 {
		t.Errorf("base %#x size %d, want %#x and 256", v, s, ctx[ctxIn])
	}
	c.destroy(h)
}

func TestComm_ECOMM12to16_deriveRefusals(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	bare := c.init(0, 1, c.path())
	h, _, _ := c.windows(64)
	var out uint64
	zero := ids()
	for _, tc := range []struct {
		clause   string
		h        abi.CommHandle
		ids      unsafe.Pointer
		n        uintptr
		rank     uint32
		off, win uintptr
		out      *uint64
	}{
		{"E-COMM.12 NULL h", 0, zero, 1, 0, 0, 64, &out},
		{"E-COMM.12 NULL rank_ids", h, nil, 1, 0, 0, 64, &out},
		{"E-COMM.12 NULL out", h, zero, 1, 0, 0, 64, nil},
		{"E-COMM.13 no windows", bare, zero, 1, 0, 0, 0, &out},
		{"E-COMM.14 rank_count 0", h, zero, 0, 0, 0, 64, &out},
		{"E-COMM.14 rank_count 65", h, zero, 65, 0, 0, 64, &out},
		{"E-COMM.14 rank_count 2^32+1", h, zero, 1<<32 + 1, 0, 0, 64, &out},
		{"E-COMM.14 domain_rank = rank_count", h, zero, 2, 2, 0, 64, &out},
		{"E-COMM.15 offset+size = winSize+1", h, zero, 1, 0, 1, 64, &out},
		{"E-COMM.15 size = winSize+1", h, zero, 1, 0, 0, 65, &out},
		{"E-COMM.15 offset+size wraps past 2^64", h, zero, 1, 0, ^uintptr(0), 1, &out},
		{"E-COMM.15 size wraps past 2^64", h, zero, 1, 0, 1, ^uintptr(0), &out},
		{"E-COMM.16 rank_ids[1] = nranks", h, ids(0, 1), 2, 0, 0, 64, &out},
	} {
		out = 0
		if st := c.rt.CommDeriveContext(tc.h, tc.ids, tc.n, tc.rank, tc.off, tc.win, tc.out); st != fail || out != 0 {
			t.Errorf("%s: comm_derive_context = %d, out %#x; want -1 and nothing written", tc.clause, st, out)
		}
	}
	c.destroy(bare)
	c.destroy(h)
}

func TestComm_ECOMM17_deriveMovesTheBaseWindows(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	h, base, _ := c.windows(64)
	var out uint64
	// Both sides of each bound: 64 ranks, domain_rank 63, offset + size =
	// winSize (a sum that wraps past 2^64 is refused: the refusals above).
	for _, tc := range []struct {
		n        uintptr
		rank     uint32
		off, win uintptr
	}{{64, 63, 0, 64}, {1, 0, 63, 1}, {1, 0, 64, 0}, {2, 1, 32, 32}} {
		if st := c.rt.CommDeriveContext(h, ids(), tc.n, tc.rank, tc.off, tc.win, &out); st != abi.OK {
			t.Fatalf("derive %+v = %d, want 0", tc, st)
		}
		d := ctxAt(out)
		if id, num := d.ranks(); id != tc.rank || uint64(num) != uint64(tc.n) || d[ctxWinSize] != uint64(tc.win) {
			t.Errorf("derive %+v: rankId %d rankNum %d winSize %d", tc, id, num, d[ctxWinSize])
		}
		for i := 0; i < int(tc.n); i++ {
			if want := base[ctxIn] + uint64(tc.off); d[ctxIn+i] != want || d[ctxOut+i] != want {
				t.Fatalf("derive %+v: window %d at %#x/%#x, want %#x", tc, i, d[ctxIn+i], d[ctxOut+i], want)
			}
		}
		if tc.n < 64 && d[ctxIn+int(tc.n)] != 0 {
			t.Errorf("derive %+v: window %d set", tc, tc.n)
		}
	}
	var again uint64
	if c.rt.CommDeriveContext(h, ids(), 1, 0, 0, 64, &again); again == out {
		t.Error("two derives returned one context")
	}
	c.destroy(h)
}

func TestComm_ECOMM18_19_barrier(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	if st := c.rt.CommBarrier(0); st != fail {
		t.Errorf("comm_barrier(NULL) = %d, want -1", st)
	}
	bare := c.init(0, 1, c.path())
	if st := c.rt.CommBarrier(bare); st != fail {
		t.Errorf("comm_barrier without windows = %d, want -1", st)
	}
	h, _, _ := c.windows(64)
	for i := 0; i < 3; i++ {
		if st := c.rt.CommBarrier(h); st != abi.OK {
			t.Fatalf("barrier %d of a single rank = %d, want 0", i, st)
		}
	}
	c.destroy(bare)
	c.destroy(h)
}

func TestComm_ECOMM21_barrierTimesOut(t *testing.T) {
	c := newCommRig(t, 10*time.Millisecond)
	p := c.path()
	h := c.init(0, 2, p)
	var out uint64
	prepareReady(t, c.session(p), 2, 2, 64)
	if st := c.rt.CommAllocWindows(h, 64, &out); st != abi.OK {
		t.Fatalf("comm_alloc_windows = %d", st)
	}
	if st := c.rt.CommBarrier(h); st != fail {
		t.Errorf("comm_barrier without the peer = %d, want -1", st)
	}
	if st := c.rt.CommDestroy(h); st != fail {
		t.Errorf("comm_destroy without the peer = %d, want -1", st)
	}
	shmUnlink(c.session(p))
}

func TestComm_ECOMM22to26_domainRefusals(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	p := c.path()
	h := c.init(3, 8, p) // rank 3; no base windows
	var ctx, base uint64
	one := ids(3)
	if st := c.rt.CommAllocDomainWindows(h, 1, one, 1, 0, 64, &ctx, &base); st != abi.OK {
		t.Fatalf("comm_alloc_domain_windows = %d", st)
	}
	c.allocName(p, 1)
	for _, tc := range []struct {
		clause    string
		h         abi.CommHandle
		id        uint64
		ids       unsafe.Pointer
		n         uintptr
		rank      uint32
		win       uintptr
		ctx, base *uint64
	}{
		{"E-COMM.22 NULL h", 0, 2, one, 1, 0, 64, &ctx, &base},
		{"E-COMM.22 NULL rank_ids", h, 2, nil, 1, 0, 64, &ctx, &base},
		{"E-COMM.22 NULL ctx out", h, 2, one, 1, 0, 64, nil, &base},
		{"E-COMM.22 NULL base out", h, 2, one, 1, 0, 64, &ctx, nil},
		{"E-COMM.23 rank_count 0", h, 2, one, 0, 0, 64, &ctx, &base},
		{"E-COMM.23 rank_count 65", h, 2, one, 65, 0, 64, &ctx, &base},
		{"E-COMM.23 domain_rank = rank_count", h, 2, one, 1, 1, 64, &ctx, &base},
		{"E-COMM.24 window_size 0", h, 2, one, 1, 0, 0, &ctx, &base},
		{"E-COMM.25 live id", h, 1, one, 1, 0, 64, &ctx, &base},
		{"E-COMM.26 another rank", h, 2, ids(2), 1, 0, 64, &ctx, &base},
	} {
		ctx, base = 0, 0
		if st := c.rt.CommAllocDomainWindows(tc.h, tc.id, tc.ids, tc.n, tc.rank, tc.win, tc.ctx, tc.base); st != fail || ctx != 0 || base != 0 {
			t.Errorf("%s: comm_alloc_domain_windows = %d (out %#x, %#x), want -1 and nothing written", tc.clause, st, ctx, base)
		}
	}
	c.destroy(h)
}

func TestComm_ECOMM27_28_domainWindows(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	p := c.path()
	a := c.init(0, 1, p)
	b := c.init(0, 1, p) // a second handle of the session: the same allocation's segment
	var ca, ba, cb, bb uint64
	if st := c.rt.CommAllocDomainWindows(a, 9, ids(0), 1, 0, 128, &ca, &ba); st != abi.OK {
		t.Fatalf("comm_alloc_domain_windows = %d", st)
	}
	c.allocName(p, 9)
	ctx := ctxAt(ca)
	if id, num := ctx.ranks(); id != 0 || num != 1 || ctx[ctxWinSize] != 128 || ctx[ctxIn] != ba || ctx[ctxOut] != ba || ctx[ctxWorkSpace] != 0 {
		t.Errorf("domain context: rank %d of %d, winSize %d, in %#x out %#x, base %#x", id, num, ctx[ctxWinSize], ctx[ctxIn], ctx[ctxOut], ba)
	}
	*word(ba) = 0x5555
	if st := c.rt.CommAllocDomainWindows(b, 9, ids(0), 1, 0, 128, &cb, &bb); st != abi.OK {
		t.Fatalf("the second handle's comm_alloc_domain_windows = %d", st)
	}
	if got := *word(ba); got != 0 {
		t.Errorf("the second allocation did not zero its window first: %#x", got)
	}
	*word(bb) = 0x77
	if got := *word(ba); got != 0x77 {
		t.Errorf("one allocation's window reads %#x through the other handle, want 0x77", got)
	}
	// Several ranks: windows of window_size bytes, the local one at
	// domain_rank (rank 1 of 2 in a subset whose other rank came first).
	p2 := c.path()
	h := c.init(5, 8, p2)
	prepareReady(t, c.allocName(p2, 3), 2, 2, 64)
	var cx, bx uint64
	if st := c.rt.CommAllocDomainWindows(h, 3, ids(2, 5), 2, 1, 64, &cx, &bx); st != abi.OK {
		t.Fatalf("comm_alloc_domain_windows with the peer ready = %d", st)
	}
	ctx = ctxAt(cx)
	if ctx[ctxIn+1] != ctx[ctxIn]+64 || bx != ctx[ctxIn+1] {
		t.Errorf("windows %#x %#x, local %#x", ctx[ctxIn], ctx[ctxIn+1], bx)
	}
	c.destroy(a)
	c.destroy(b)
	c.destroy(h)
}

func TestComm_ECOMM29_domainWaitTimesOut(t *testing.T) {
	c := newCommRig(t, 10*time.Millisecond)
	p := c.path()
	h := c.init(0, 2, p)
	var ctx, base uint64
	if st := c.rt.CommAllocDomainWindows(h, 4, ids(0, 1), 2, 0, 64, &ctx, &base); st != fail || ctx != 0 || base != 0 {
		t.Fatalf("comm_alloc_domain_windows without the peer = %d (%#x, %#x), want -1 and nothing written", st, ctx, base)
	}
	if st := c.rt.CommReleaseDomainWindows(h, 4, 2, 0); st != fail {
		t.Errorf("comm_release_domain_windows of the failed allocation = %d, want -1 (the id is free)", st)
	}
	shmUnlink(c.allocName(p, 4)) // its creator timed out: nothing unlinked it
	c.destroy(h)
}

func TestComm_ECOMM30to33_release(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	p := c.path()
	h := c.init(0, 1, p)
	c.allocName(p, 7)
	var ctx, base uint64
	if st := c.rt.CommAllocDomainWindows(h, 7, ids(0), 1, 0, 64, &ctx, &base); st != abi.OK {
		t.Fatalf("comm_alloc_domain_windows = %d", st)
	}
	for _, tc := range []struct {
		clause string
		h      abi.CommHandle
		id     uint64
		n      uintptr
		rank   uint32
	}{
		{"E-COMM.30 NULL h", 0, 7, 1, 0},
		{"E-COMM.31 not live", h, 8, 1, 0},
		{"E-COMM.32 rank_count", h, 7, 2, 0},
		{"E-COMM.32 domain_rank", h, 7, 1, 1},
	} {
		if st := c.rt.CommReleaseDomainWindows(tc.h, tc.id, tc.n, tc.rank); st != fail {
			t.Errorf("%s: comm_release_domain_windows = %d, want -1", tc.clause, st)
		}
	}
	if st := c.rt.CommReleaseDomainWindows(h, 7, 1, 0); st != abi.OK {
		t.Fatalf("comm_release_domain_windows = %d, want 0 (the refusals kept the allocation)", st)
	}
	if _, err := os.Stat(shmPathOf(t, c.allocName(p, 7))); err == nil {
		t.Error("the last rank out did not unlink the allocation's segment")
	}
	if st := c.rt.CommReleaseDomainWindows(h, 7, 1, 0); st != fail {
		t.Errorf("a second release = %d, want -1", st)
	}
	if st := c.rt.CommAllocDomainWindows(h, 7, ids(0), 1, 0, 64, &ctx, &base); st != abi.OK {
		t.Errorf("comm_alloc_domain_windows of the released id = %d, want 0", st)
	}
	c.destroy(h)
}

func TestComm_ECOMM34_releaseTimesOut(t *testing.T) {
	c := newCommRig(t, 10*time.Millisecond)
	p := c.path()
	h := c.init(1, 2, p)
	prepareReady(t, c.allocName(p, 2), 2, 2, 64)
	var ctx, base uint64
	if st := c.rt.CommAllocDomainWindows(h, 2, ids(0, 1), 2, 1, 64, &ctx, &base); st != abi.OK {
		t.Fatalf("comm_alloc_domain_windows = %d", st)
	}
	if st := c.rt.CommReleaseDomainWindows(h, 2, 2, 1); st != fail {
		t.Errorf("comm_release_domain_windows without the peer = %d, want -1", st)
	}
	if st := c.rt.CommReleaseDomainWindows(h, 2, 2, 1); st != fail {
		t.Errorf("the allocation is still live after a timed-out release: %d", st)
	}
	shmUnlink(c.allocName(p, 2))
	c.destroy(h)
}

// descriptor is a 288-byte CommGlobalDomainDescriptor.
type descriptor [abi.CommDescSize]byte

func (d *descriptor) set32(off int, v uint32) { le.PutUint32(d[off:], v) }

func TestComm_ECOMM35to40_prepareRefusals(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	var d descriptor
	var base uint64
	if st := c.rt.CommGlobalDomainPrepare(77, 0, 1, 64, 1, unsafe.Pointer(&d), &base); st != abi.OK {
		t.Fatalf("prepare = %d", st)
	}
	for _, tc := range []struct {
		clause  string
		id      uint64
		rank, n uint32
		win     uintptr
		profile uint32
		d       unsafe.Pointer
		base    *uint64
	}{
		{"E-COMM.35 domain 0", 0, 0, 1, 64, 1, unsafe.Pointer(&d), &base},
		{"E-COMM.36 rank_count 0", 78, 0, 0, 64, 1, unsafe.Pointer(&d), &base},
		{"E-COMM.36 rank_count 65", 78, 0, 65, 64, 1, unsafe.Pointer(&d), &base},
		{"E-COMM.36 domain_rank = rank_count", 78, 2, 2, 64, 1, unsafe.Pointer(&d), &base},
		{"E-COMM.37 window 0", 78, 0, 1, 0, 1, unsafe.Pointer(&d), &base},
		{"E-COMM.38 profile 2", 78, 0, 1, 64, 2, unsafe.Pointer(&d), &base},
		{"E-COMM.38 profile 0", 78, 0, 1, 64, 0, unsafe.Pointer(&d), &base},
		{"E-COMM.39 NULL descriptor", 78, 0, 1, 64, 1, nil, &base},
		{"E-COMM.39 NULL base", 78, 0, 1, 64, 1, unsafe.Pointer(&d), nil},
		{"E-COMM.40 live", 77, 0, 1, 64, 1, unsafe.Pointer(&d), &base},
	} {
		if st := c.rt.CommGlobalDomainPrepare(tc.id, tc.rank, tc.n, tc.win, tc.profile, tc.d, tc.base); st != fail {
			t.Errorf("%s: prepare = %d, want -1", tc.clause, st)
		}
	}
	if n := c.rt.LiveGlobalDomains(); n != 1 {
		t.Errorf("%d global domains live, want 1", n)
	}
	c.rt.CommGlobalDomainRelease(77)
}

func TestComm_ECOMM41_prepareWritesTheDescriptor(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	var d descriptor
	for i := range d {
		d[i] = 0xAA
	}
	var base uint64
	if st := c.rt.CommGlobalDomainPrepare(5, 63, 64, 4096, 1, unsafe.Pointer(&d), &base); st != abi.OK {
		t.Fatalf("prepare rank 63 of 64 = %d", st)
	}
	name := abi.CommGlobalName(uint32(os.Getpid()), 5, 63)
	want := descriptor{}
	want.set32(abi.CommDescVersionOff, 2)
	want.set32(abi.CommDescProfileOff, 1)
	want.set32(abi.CommDescDomainRankOff, 63)
	want.set32(abi.CommDescRankCountOff, 64)
	le.PutUint64(want[abi.CommDescMappingSizeOff:], 4096)
	want.set32(abi.CommDescHandleSizeOff, uint32(len(name)))
	copy(want[abi.CommDescHandleOff:], name)
	if d != want {
		t.Errorf("descriptor %x\nwant       %x", d, want)
	}
	if len(name) != abi.CommShmNameLen || base == 0 || *word(base) != 0 || *word(base + 4088) != 0 {
		t.Errorf("name %q, window at %#x", name, base)
	}
	c.rt.CommGlobalDomainRelease(5)
	if _, err := os.Stat(shmPathOf(t, name)); err == nil {
		t.Error("release left the window's name")
	}
}

// globalPair prepares domains a (rank 0 of 2) and b (rank 1 of 2) in this
// process: b's descriptor stands for a's peer.
func globalPair(t *testing.T, c *commRig, a, b uint64, win uintptr) (da, db descriptor, baseA, baseB uint64) {
	t.Helper()
	if st := c.rt.CommGlobalDomainPrepare(a, 0, 2, win, 1, unsafe.Pointer(&da), &baseA); st != abi.OK {
		t.Fatalf("prepare %d = %d", a, st)
	}
	if st := c.rt.CommGlobalDomainPrepare(b, 1, 2, win, 1, unsafe.Pointer(&db), &baseB); st != abi.OK {
		t.Fatalf("prepare %d = %d", b, st)
	}
	return
}

func TestComm_ECOMM42to52_import(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	da, db, baseA, baseB := globalPair(t, c, 11, 12, 256)
	good := [2]descriptor{da, db}
	var out uint64
	imp := func(id uint64, ds []descriptor, n uintptr, out *uint64) abi.Status {
		var p unsafe.Pointer
		if ds != nil {
			p = unsafe.Pointer(&ds[0])
		}
		return c.rt.CommGlobalDomainImport(id, p, n, out)
	}
	mod := func(i int, f func(d *descriptor)) []descriptor {
		ds := append([]descriptor(nil), good[:]...)
		f(&ds[i])
		return ds
	}
	for _, tc := range []struct {
		clause string
		id     uint64
		ds     []descriptor
		n      uintptr
		out    *uint64
	}{
		{"E-COMM.42 unknown domain", 13, good[:], 2, &out},
		{"E-COMM.42 NULL descriptors", 11, nil, 2, &out},
		{"E-COMM.42 NULL out", 11, good[:], 2, nil},
		{"E-COMM.43 count 1", 11, good[:], 1, &out},
		{"E-COMM.45 version 3", 11, mod(1, func(d *descriptor) { d.set32(abi.CommDescVersionOff, 3) }), 2, &out},
		{"E-COMM.45 profile 2", 11, mod(0, func(d *descriptor) { d.set32(abi.CommDescProfileOff, 2) }), 2, &out},
		{"E-COMM.46 rank_count 3", 11, mod(1, func(d *descriptor) { d.set32(abi.CommDescRankCountOff, 3) }), 2, &out},
		{"E-COMM.46 domain_rank 2", 11, mod(1, func(d *descriptor) { d.set32(abi.CommDescDomainRankOff, 2) }), 2, &out},
		{"E-COMM.47 mapping_size", 11, mod(1, func(d *descriptor) { le.PutUint64(d[abi.CommDescMappingSizeOff:], 257) }), 2, &out},
		{"E-COMM.48 handle_size 0", 11, mod(0, func(d *descriptor) { d.set32(abi.CommDescHandleSizeOff, 0) }), 2, &out},
		{"E-COMM.48 handle_size 257", 11, mod(1, func(d *descriptor) { d.set32(abi.CommDescHandleSizeOff, 257) }), 2, &out},
		{"E-COMM.49 rank twice", 11, mod(1, func(d *descriptor) { d.set32(abi.CommDescDomainRankOff, 0) }), 2, &out},
		{"E-COMM.50 a peer's name", 11, mod(1, func(d *descriptor) { d[abi.CommDescHandleOff+10] ^= 1 }), 2, &out},
	} {
		out = 0
		if st := imp(tc.id, tc.ds, tc.n, tc.out); st != fail || out != 0 {
			t.Errorf("%s: import = %d (out %#x), want -1 and nothing written", tc.clause, st, out)
		}
	}
	// E-COMM.52: the refusals changed nothing; the own rank's handle is
	// never opened, and a handle_size of 256 reads the name up to its NUL.
	ds := mod(0, func(d *descriptor) { d[abi.CommDescHandleOff] = 'x' })
	ds[1].set32(abi.CommDescHandleSizeOff, 256)
	if st := imp(11, ds, 2, &out); st != abi.OK {
		t.Fatalf("import = %d, want 0", st)
	}
	ctx := ctxAt(out)
	if id, num := ctx.ranks(); id != 0 || num != 2 || ctx[ctxWinSize] != 256 || ctx[ctxIn] != baseA || ctx[ctxOut] != baseA || ctx[ctxIn+1] == 0 || ctx[ctxOut+1] != ctx[ctxIn+1] {
		t.Errorf("import context: rank %d of %d, winSize %d, windows %#x %#x (own %#x)", id, num, ctx[ctxWinSize], ctx[ctxIn], ctx[ctxIn+1], baseA)
	}
	*word(baseB + 8) = 0xB0B
	if got := *word(ctx[ctxIn+1] + 8); got != 0xB0B {
		t.Errorf("the peer's window reads %#x through the import, want 0xB0B", got)
	}
	if st := imp(11, good[:], 2, &out); st != fail {
		t.Errorf("E-COMM.44: a second import = %d, want -1", st)
	}
	// A peer that released its window: its name is gone.
	dc, dd, _, _ := globalPair(t, c, 21, 22, 64)
	c.rt.CommGlobalDomainRelease(22)
	if st := imp(21, []descriptor{dc, dd}, 2, &out); st != fail {
		t.Errorf("E-COMM.50: import of a released peer = %d, want -1", st)
	}
	for _, id := range []uint64{11, 12, 21} {
		c.rt.CommGlobalDomainRelease(id)
	}
}

func TestComm_ECOMM53to55_globalRelease(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	for _, id := range []uint64{0, 1, 1 << 63} {
		if st := c.rt.CommGlobalDomainRelease(id); st != abi.OK {
			t.Errorf("release of unknown domain %d = %d, want 0", id, st)
		}
	}
	var d descriptor
	var base uint64
	for i := 0; i < 2; i++ {
		if st := c.rt.CommGlobalDomainPrepare(31, 0, 1, 64, 1, unsafe.Pointer(&d), &base); st != abi.OK {
			t.Fatalf("prepare %d of domain 31 = %d (a release frees the id)", i, st)
		}
		if st := c.rt.CommGlobalDomainRelease(31); st != abi.OK {
			t.Fatalf("release = %d", st)
		}
	}
	var out uint64
	if st := c.rt.CommGlobalDomainImport(31, unsafe.Pointer(&d), 1, &out); st != fail {
		t.Errorf("import of a released domain = %d, want -1", st)
	}
	// An instance's unload (SimReset, or its collection) releases every
	// live domain: the next instance prepares the same ids.
	if st := c.rt.CommGlobalDomainPrepare(32, 0, 1, 64, 1, unsafe.Pointer(&d), &base); st != abi.OK {
		t.Fatal(st)
	}
	c.rt.SimReset()
	if st := c.rt.CommGlobalDomainPrepare(32, 0, 1, 64, 1, unsafe.Pointer(&d), &base); st != abi.OK {
		t.Fatalf("prepare after the reset = %d, want 0", st)
	}
	func() {
		other := New(TMR, Options{})
		if st := other.CommGlobalDomainPrepare(33, 0, 1, 64, 1, unsafe.Pointer(&d), &base); st != abi.OK {
			t.Fatal(st)
		}
	}()
	name := abi.CommGlobalName(uint32(os.Getpid()), 33, 0)
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		if _, err := os.Stat(shmPathOf(t, name)); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a collected instance kept its global domain's window")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestComm_ECOMM56to58_destroy(t *testing.T) {
	c := newCommRig(t, time.Millisecond)
	if st := c.rt.CommDestroy(0); st != fail {
		t.Errorf("comm_destroy(NULL) = %d, want -1", st)
	}
	h, ctx, p := c.windows(64)
	var dctx, dbase uint64
	if st := c.rt.CommAllocDomainWindows(h, 1, ids(0), 1, 0, 64, &dctx, &dbase); st != abi.OK {
		t.Fatal(st)
	}
	dname := c.allocName(p, 1)
	*word(ctx[ctxIn]) = 0x42
	c.destroy(h)
	for _, n := range []string{dname, c.session(p)} {
		if _, err := os.Stat(shmPathOf(t, n)); err == nil {
			t.Errorf("comm_destroy left segment %s", n)
		}
	}
	// A later session of the path starts from a new, zeroed segment.
	h = c.init(0, 1, p)
	var out uint64
	if st := c.rt.CommAllocWindows(h, 64, &out); st != abi.OK {
		t.Fatal(st)
	}
	if got := *word(ctxAt(out)[ctxIn]); got != 0 {
		t.Errorf("the next session reads %#x, want a zeroed segment", got)
	}
	c.destroy(h)
	if n := c.rt.CommInvalidHandleCalls(); n != 0 {
		t.Errorf("%d invalid handle calls", n)
	}
	if st := c.rt.CommBarrier(h); st != fail || c.rt.CommInvalidHandleCalls() != 1 {
		t.Errorf("comm_barrier of a destroyed handle = %d (counted %d), want -1 and counted", st, c.rt.CommInvalidHandleCalls())
	}
}

// The shm names: glibc's rules for a name shm_open refuses.
func TestComm_shmNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{{"/simpler_1", true}, {"simpler_1", true}, {"//x", true}, {"/", false}, {"", false}, {"/a/b", false},
		{"/" + string(slices.Repeat([]byte{'a'}, 253)), true}, {"/" + string(slices.Repeat([]byte{'a'}, 254)), false}} {
		_, err := shmFile(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("shmFile(%q): %v, want ok %v", tc.name, err, tc.ok)
		}
	}
	if dir, err := shmDir(); err == nil && runtime.GOOS == "linux" && dir != "/dev/shm" {
		t.Errorf("shm dir %s", dir)
	} else if err == nil && runtime.GOOS != "linux" && filepath.Base(dir) != "simabi-shm" {
		t.Errorf("shm dir %s", dir)
	}
}
