package sim

import (
	"bytes"
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/simabi/simabi/abi"
)

// E-PROG.28: copy_to_device_ctx and copy_from_device_ctx reach every comm
// window the instance has mapped and not unmapped (base windows, every
// rank's; derived windows; domain windows; a global domain's own window
// and the peers' it imported), and refuse with IA, changing nothing, any
// span that is inside neither such a window nor an allocation of the
// context.

// bytesAt views n bytes at a mapped window's address.
func bytesAt(addr uint64, n int) []byte {
	p := uintptr(addr)
	return unsafe.Slice(*(**byte)(unsafe.Pointer(&p)), n)
}

// copyRig is a comm rig with a live program context.
type copyRig struct {
	*commRig
	ctx abi.Ctx
}

func newCopyRig(t *testing.T) *copyRig {
	c := newCommRig(t, 20*time.Second)
	return &copyRig{commRig: c, ctx: programCtx(t, c.rt, 0)}
}

// put copies b to dev; get copies n bytes back (nil when refused).
func (c *copyRig) put(dev uint64, b []byte) abi.Status {
	return c.rt.CopyToDevice(c.ctx, abi.DevicePtr(dev), unsafe.Pointer(&b[0]), uintptr(len(b)))
}

func (c *copyRig) get(dev uint64, n int) ([]byte, abi.Status) {
	b := bytes.Repeat([]byte{0xEE}, n)
	st := c.rt.CopyFromDevice(c.ctx, unsafe.Pointer(&b[0]), abi.DevicePtr(dev), uintptr(n))
	return b, st
}

// roundTrip copies a pattern of n bytes to dev and back, and checks both
// answer 0 and the window holds the pattern.
func (c *copyRig) roundTrip(t *testing.T, what string, dev uint64, n int) {
	t.Helper()
	pat := make([]byte, n)
	for i := range pat {
		pat[i] = byte(i*7 + 1)
	}
	if st := c.put(dev, pat); st != okS {
		t.Errorf("%s: copy_to_device_ctx = %d, want 0 (E-PROG.28)", what, st)
		return
	}
	got, st := c.get(dev, n)
	if st != okS {
		t.Errorf("%s: copy_from_device_ctx = %d, want 0 (E-PROG.28)", what, st)
		return
	}
	if d := cmp.Diff(pat, got); d != "" {
		t.Errorf("%s: copy_from_device_ctx read back (-wrote +read):\n%s", what, d)
	}
	if w := bytesAt(dev, n); !bytes.Equal(w, pat) {
		t.Errorf("%s: the window holds % x, want % x", what, w, pat)
	}
}

// refused checks both copies of n bytes at dev answer IA and change
// nothing: the host buffer of copy_from keeps its bytes, and watch (a view
// of memory the span would have reached, or nil) keeps its.
func (c *copyRig) refused(t *testing.T, what string, dev uint64, n int, watch []byte) {
	t.Helper()
	before := append([]byte(nil), watch...)
	if st := c.put(dev, bytes.Repeat([]byte{0x5C}, n)); st != iaS {
		t.Errorf("%s: copy_to_device_ctx = %d, want IA %d (E-PROG.28)", what, st, iaS)
	}
	got, st := c.get(dev, n)
	if st != iaS {
		t.Errorf("%s: copy_from_device_ctx = %d, want IA %d (E-PROG.28)", what, st, iaS)
	}
	if !bytes.Equal(got, bytes.Repeat([]byte{0xEE}, n)) {
		t.Errorf("%s: a refused copy_from_device_ctx wrote the host buffer: % x", what, got)
	}
	if !bytes.Equal(watch, before) {
		t.Errorf("%s: a refused copy changed the memory it named: % x, was % x", what, watch, before)
	}
}

func TestCopy_EPROG28_reachesEveryMappedWindow(t *testing.T) {
	c := newCopyRig(t)
	h, base, _ := c.windows(256)
	var derived uint64
	if st := c.rt.CommDeriveContext(h, ids(0), 1, 0, 64, 128, &derived); st != okS {
		t.Fatalf("comm_derive_context = %d", st)
	}
	var dctx, dbase uint64
	if st := c.rt.CommAllocDomainWindows(h, 7, ids(0), 1, 0, 128, &dctx, &dbase); st != okS {
		t.Fatalf("comm_alloc_domain_windows = %d", st)
	}
	var gdesc descriptor
	var gbase uint64
	if st := c.rt.CommGlobalDomainPrepare(41, 0, 1, 64, 1, unsafe.Pointer(&gdesc), &gbase); st != okS {
		t.Fatalf("comm_global_domain_prepare = %d", st)
	}
	da, db, _, baseB := globalPair(t, c.commRig, 42, 43, 96)
	var imported uint64
	if st := c.rt.CommGlobalDomainImport(42, unsafe.Pointer(&[2]descriptor{da, db}), 2, &imported); st != okS {
		t.Fatalf("comm_global_domain_import = %d", st)
	}
	peer := ctxAt(imported)[ctxIn+1]
	for _, tc := range []struct {
		what string
		dev  uint64
		n    int
	}{
		{"the base window, whole", base[ctxIn], 256},
		{"the base window, its last word", base[ctxIn] + 248, 8},
		{"a derived window", ctxAt(derived)[ctxIn], 128},
		{"a domain window", dbase, 128},
		{"a global domain's own window (the issue's case)", gbase, 64},
		{"a peer's window a global import mapped", peer, 96},
		{"the peer's own mapping of it", baseB + 8, 16},
	} {
		c.roundTrip(t, tc.what, tc.dev, tc.n)
	}
	// The import maps the peer's window: what the copy wrote there, the
	// peer's own mapping reads.
	if got := *word(baseB + 8); got != *word(peer + 8) {
		t.Errorf("the peer's window reads %#x, its import %#x", got, *word(peer + 8))
	}
	c.rt.CommGlobalDomainRelease(41)
	c.rt.CommGlobalDomainRelease(42)
	c.rt.CommGlobalDomainRelease(43)
	if st := c.rt.CommReleaseDomainWindows(h, 7, 1, 0); st != okS {
		t.Fatal(st)
	}
	c.destroy(h)
}

// Every rank's window of a session's segment, not only the local one: two
// handles of one session, ranks 0 and 1.
func TestCopy_EPROG28_everyRanksBaseWindow(t *testing.T) {
	c := newCopyRig(t)
	p := c.path()
	hs := []abi.CommHandle{c.init(0, 2, p), c.init(1, 2, p)}
	outs := make([]uint64, 2)
	ranks(t, 2, func(r int) string {
		if st := c.rt.CommAllocWindows(hs[r], 64, &outs[r]); st != okS {
			return fmt.Sprintf("comm_alloc_windows = %d", st)
		}
		return ""
	})
	x := ctxAt(outs[0])
	c.roundTrip(t, "rank 1's window through rank 0's mapping", x[ctxIn+1], 64)
	c.refused(t, "a span straddling rank 0's and rank 1's windows", x[ctxIn]+60, 8, bytesAt(x[ctxIn]+60, 8))
	c.refused(t, "the segment's header", x[ctxIn]-4096, 8, nil)
	ranks(t, 2, func(r int) string {
		if st := c.rt.CommDestroy(hs[r]); st != okS {
			return fmt.Sprintf("comm_destroy = %d", st)
		}
		return ""
	})
}

func TestCopy_EPROG28_refusesEveryOtherSpan(t *testing.T) {
	c := newCopyRig(t)
	// Two handles of one session map its segment twice: what the first
	// mapping's address no longer reaches, the second still reads.
	h0, x0, p := c.windows(64)
	h1 := c.init(0, 1, p)
	var out1 uint64
	if st := c.rt.CommAllocWindows(h1, 64, &out1); st != okS {
		t.Fatal(st)
	}
	w0, w1 := x0[ctxIn], ctxAt(out1)[ctxIn]
	view1 := bytesAt(w1, 64)
	c.refused(t, "past the base window's end", w0+60, 8, nil)
	c.refused(t, "just after the base window", w0+64, 8, nil)
	for _, n := range []uintptr{1 << 63, ^uintptr(0)} {
		b := make([]byte, 8)
		if st := c.rt.CopyToDevice(c.ctx, abi.DevicePtr(w0), unsafe.Pointer(&b[0]), n); st != iaS {
			t.Errorf("copy_to_device_ctx of %#x bytes into a window = %d, want IA %d (E-PROG.28)", n, st, iaS)
		}
	}
	heap := make([]byte, 64)
	c.refused(t, "an unknown pointer (the host heap)", uint64(uintptr(unsafe.Pointer(&heap[0]))), 8, heap)

	// A domain allocation of both handles: one segment, mapped twice.
	var d0ctx, d0, d1ctx, d1 uint64
	if st := c.rt.CommAllocDomainWindows(h0, 3, ids(0), 1, 0, 64, &d0ctx, &d0); st != okS {
		t.Fatal(st)
	}
	if st := c.rt.CommAllocDomainWindows(h1, 3, ids(0), 1, 0, 64, &d1ctx, &d1); st != okS {
		t.Fatal(st)
	}
	c.roundTrip(t, "the domain window before its release", d0, 64)
	if st := c.rt.CommReleaseDomainWindows(h0, 3, 1, 0); st != okS {
		t.Fatal(st)
	}
	dview1 := bytesAt(d1, 64)
	c.refused(t, "a domain window after comm_release_domain_windows", d0, 8, dview1)
	c.roundTrip(t, "the other handle's mapping of the domain window", d1, 64)

	c.roundTrip(t, "the base window before comm_destroy", w0, 64)
	c.destroy(h0)
	c.refused(t, "a base window after comm_destroy", w0, 8, view1)
	c.refused(t, "a derived subrange after comm_destroy", w0+16, 8, view1)
	c.roundTrip(t, "the other handle's mapping of the base window", w1, 64)

	// A global domain and a peer's import of it: after the release, the
	// own window is gone; the importer's mapping lives on until its own.
	da, db, baseA, baseB := globalPair(t, c.commRig, 51, 52, 64)
	var imported uint64
	if st := c.rt.CommGlobalDomainImport(51, unsafe.Pointer(&[2]descriptor{da, db}), 2, &imported); st != okS {
		t.Fatal(st)
	}
	peer := ctxAt(imported)[ctxIn+1]
	c.roundTrip(t, "domain 52's own window", baseB, 64)
	c.rt.CommGlobalDomainRelease(52)
	c.refused(t, "a global domain's window after comm_global_domain_release", baseB, 8,
		bytesAt(peer, 64))
	c.roundTrip(t, "the importer's mapping of the released peer", peer, 64)
	c.rt.CommGlobalDomainRelease(51)
	c.refused(t, "an own window after comm_global_domain_release", baseA, 8, nil)
	c.refused(t, "a peer's mapping after the importer's release", peer, 8, nil)

	if st := c.rt.CommReleaseDomainWindows(h1, 3, 1, 0); st != okS {
		t.Fatal(st)
	}
	c.destroy(h1)
	c.refused(t, "the last mapping of the session after comm_destroy", w1, 8, nil)
}

// A context without a live program init refuses first (E-PROG.1), window
// or not; NULL pointers stay E-PROG.24's.
func TestCopy_EPROG28_stateAndNullsFirst(t *testing.T) {
	c := newCopyRig(t)
	h, x, _ := c.windows(64)
	w := x[ctxIn]
	b := make([]byte, 8)
	fresh := c.rt.CreateDeviceContext()
	if st := c.rt.CopyToDevice(fresh, abi.DevicePtr(w), unsafe.Pointer(&b[0]), 8); st != isS {
		t.Errorf("copy_to_device_ctx into a window on a fresh context = %d, want IS %d (E-PROG.1)", st, isS)
	}
	if st := c.rt.CopyToDevice(c.ctx, abi.DevicePtr(w), nil, 8); st != iaS {
		t.Errorf("copy_to_device_ctx into a window from NULL = %d, want IA %d (E-PROG.24)", st, iaS)
	}
	if st := c.rt.CopyFromDevice(c.ctx, unsafe.Pointer(&b[0]), abi.DevicePtr(w), 0); st != okS {
		t.Errorf("copy_from_device_ctx of 0 bytes = %d, want 0", st)
	}
	c.destroy(h)
}
