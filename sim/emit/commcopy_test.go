package emit

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
)

// E-PROG.28 on the emitted runtime, every profile: copy_to_device_ctx and
// copy_from_device_ctx reach the comm windows the loaded copy has mapped
// and not unmapped, and refuse every other span with IA (a legacy build:
// -1), changing nothing. The sim's own tests (sim/commwindows_test.go)
// hold the Go runtime to the same.

var copyPathSerial atomic.Uint64

// commCopyRig is a loaded fake with a live program context.
type commCopyRig struct {
	t    *testing.T
	lib  *onboard.Library
	ctx  abi.Ctx
	ia   abi.Status // the refusal's code on this profile
	keep [][]byte
}

func newCommCopyRig(t *testing.T, p Profile) *commCopyRig {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the comm windows are POSIX shared memory; the emitted runtime is tested on Linux")
	}
	// simpler_init binds the calling thread to device 0 in the process's one
	// fake ACL: the thread must die with this test, not serve the next one
	// (never unlocked, so it exits with the test's goroutine).
	runtime.LockOSThread()
	art := buildFake(t, Config{Profile: p})
	lib, err := onboard.Open(art.RuntimePath, onboard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lib.Close() })
	c := &commCopyRig{t: t, lib: lib, ia: abi.InvalidArgument}
	if p == ProfileLegacy {
		c.ia = abi.LegacyGeneric
	}
	c.ctx = lib.CreateDeviceContext()
	if st := lib.SimplerInit(c.ctx, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0); st != abi.OK {
		t.Fatalf("simpler_init = %d", st)
	}
	return c
}

// path is a rootinfo path no other test or process uses.
func (c *commCopyRig) path() unsafe.Pointer {
	b := fmt.Appendf(nil, "/simabi/commcopy/%d/%s/%d\x00", os.Getpid(), c.t.Name(), copyPathSerial.Add(1))
	c.keep = append(c.keep, b)
	return unsafe.Pointer(&b[0])
}

func (c *commCopyRig) ok(what string, st abi.Status) {
	c.t.Helper()
	if st != abi.OK {
		c.t.Fatalf("%s = %d, want 0", what, st)
	}
}

// window is the first window of the context at addr (windowsIn[i]).
func window(ctx uint64, i int) uint64 {
	p := uintptr(ctx)
	return (*(*[abi.CommContextSize / 8]uint64)(*(*unsafe.Pointer)(unsafe.Pointer(&p))))[abi.CommCtxWindowsInOff/8+i]
}

func (c *commCopyRig) roundTrip(what string, dev uint64, n int) {
	c.t.Helper()
	pat := make([]byte, n)
	for i := range pat {
		pat[i] = byte(3*i + 1)
	}
	if st := c.lib.CopyToDevice(c.ctx, abi.DevicePtr(dev), unsafe.Pointer(&pat[0]), uintptr(n)); st != abi.OK {
		c.t.Errorf("%s: copy_to_device_ctx = %d, want 0 (E-PROG.28)", what, st)
		return
	}
	back := make([]byte, n)
	if st := c.lib.CopyFromDevice(c.ctx, unsafe.Pointer(&back[0]), abi.DevicePtr(dev), uintptr(n)); st != abi.OK {
		c.t.Errorf("%s: copy_from_device_ctx = %d, want 0 (E-PROG.28)", what, st)
		return
	}
	if !bytes.Equal(back, pat) {
		c.t.Errorf("%s: read back % x, wrote % x", what, back, pat)
	}
}

func (c *commCopyRig) refused(what string, dev uint64) {
	c.t.Helper()
	b := bytes.Repeat([]byte{0xEE}, 8)
	if st := c.lib.CopyToDevice(c.ctx, abi.DevicePtr(dev), unsafe.Pointer(&b[0]), 8); st != c.ia {
		c.t.Errorf("%s: copy_to_device_ctx = %d, want %d (E-PROG.28)", what, st, c.ia)
	}
	if st := c.lib.CopyFromDevice(c.ctx, unsafe.Pointer(&b[0]), abi.DevicePtr(dev), 8); st != c.ia || !bytes.Equal(b, bytes.Repeat([]byte{0xEE}, 8)) {
		c.t.Errorf("%s: copy_from_device_ctx = %d with the host buffer % x, want %d and it unchanged (E-PROG.28)", what, st, b, c.ia)
	}
}

func TestCommCopy_EPROG28_windowsOfEveryKind(t *testing.T) {
	for _, p := range Profiles {
		t.Run(string(p), func(t *testing.T) {
			c := newCommCopyRig(t, p)
			l := c.lib
			path := c.path()
			h0, h1 := l.CommInit(0, 1, 0, path), l.CommInit(0, 1, 0, path)
			var x0, x1 uint64
			c.ok("comm_alloc_windows", l.CommAllocWindows(h0, 128, &x0))
			c.ok("comm_alloc_windows", l.CommAllocWindows(h1, 128, &x1))
			ids := make([]uint32, 256)
			var derived, dctx0, dbase0, dctx1, dbase1 uint64
			c.ok("comm_derive_context", l.CommDeriveContext(h0, unsafe.Pointer(&ids[0]), 1, 0, 64, 64, &derived))
			c.ok("comm_alloc_domain_windows", l.CommAllocDomainWindows(h0, 5, unsafe.Pointer(&ids[0]), 1, 0, 64, &dctx0, &dbase0))
			c.ok("comm_alloc_domain_windows", l.CommAllocDomainWindows(h1, 5, unsafe.Pointer(&ids[0]), 1, 0, 64, &dctx1, &dbase1))
			dom := uint64(os.Getpid())<<24 | 0x38
			desc := abi.AlignedBytes(2*abi.CommDescSize, abi.CommDescAlign)
			var gbase0, gbase1, imported uint64
			c.ok("comm_global_domain_prepare", l.CommGlobalDomainPrepare(dom, 0, 2, 64, abi.CommProfileSimShm, unsafe.Pointer(&desc[0]), &gbase0))
			c.ok("comm_global_domain_prepare", l.CommGlobalDomainPrepare(dom+1, 1, 2, 64, abi.CommProfileSimShm, unsafe.Pointer(&desc[abi.CommDescSize]), &gbase1))
			c.ok("comm_global_domain_import", l.CommGlobalDomainImport(dom, unsafe.Pointer(&desc[0]), 2, &imported))

			c.roundTrip("a global domain's own window (the issue's case)", gbase0, 64)
			c.roundTrip("the base window", window(x0, 0), 128)
			c.roundTrip("a derived window", window(derived, 0), 64)
			c.roundTrip("a domain window", dbase0, 64)
			peer := window(imported, 1)
			c.roundTrip("a peer's window the import mapped", peer, 64)
			c.refused("past the base window's end", window(x0, 0)+124)
			c.refused("the segment's header", window(x0, 0)-4096)
			heap := make([]byte, 8)
			c.refused("an unknown pointer", uint64(uintptr(unsafe.Pointer(&heap[0]))))

			c.ok("comm_release_domain_windows", l.CommReleaseDomainWindows(h0, 5, 1, 0))
			c.refused("a domain window after comm_release_domain_windows", dbase0)
			c.roundTrip("the other handle's mapping of it", dbase1, 64)
			c.ok("comm_global_domain_release", l.CommGlobalDomainRelease(dom+1))
			c.refused("a global domain's window after comm_global_domain_release", gbase1)
			c.roundTrip("the importer's mapping of the released peer", peer, 64)
			c.ok("comm_global_domain_release", l.CommGlobalDomainRelease(dom))
			c.refused("an imported peer's window after the importer's release", peer)
			w0 := window(x0, 0)
			c.ok("comm_destroy", l.CommDestroy(h0))
			c.refused("a base window after comm_destroy", w0)
			c.roundTrip("the other handle's mapping of the base window", window(x1, 0), 128)
			c.ok("comm_release_domain_windows", l.CommReleaseDomainWindows(h1, 5, 1, 0))
			c.ok("comm_destroy", l.CommDestroy(h1))
		})
	}
}

// Issue #38's case, as upstream's Python suite meets it on the legacy
// fake: the Worker copies into the local window comm_global_domain_prepare
// returned (upstream python/simpler/worker.py at 6ebaf77), which upstream's
// memcpy takes; before E-PROG.28 the fake answered -1.
func TestCommCopy_EPROG28_issue38GlobalDomainWindowOnLegacy(t *testing.T) {
	c := newCommCopyRig(t, ProfileLegacy)
	desc := abi.AlignedBytes(abi.CommDescSize, abi.CommDescAlign)
	dom := uint64(os.Getpid())<<24 | 0x3801
	var base uint64
	c.ok("comm_global_domain_prepare", c.lib.CommGlobalDomainPrepare(dom, 0, 1, 4096, abi.CommProfileSimShm, unsafe.Pointer(&desc[0]), &base))
	host := bytes.Repeat([]byte{0x38}, 4096)
	if st := c.lib.CopyToDevice(c.ctx, abi.DevicePtr(base), unsafe.Pointer(&host[0]), 4096); st != abi.OK {
		t.Errorf("copy_to_device_ctx into the global domain's window = %d, want 0 (E-PROG.28)", st)
	}
	c.ok("comm_global_domain_release", c.lib.CommGlobalDomainRelease(dom))
}

// Every rank's window of a session's segment, not only the local one, and
// no span straddling two of them: two handles of one session, ranks 0 and
// 1, allocate at once.
func TestCommCopy_EPROG28_everyRanksWindow(t *testing.T) {
	c := newCommCopyRig(t, ProfileTMR)
	l := c.lib
	path := c.path()
	hs := []abi.CommHandle{l.CommInit(0, 2, 0, path), l.CommInit(1, 2, 0, path)}
	outs := make([]uint64, 2)
	sts := make([]abi.Status, 2)
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sts[r] = l.CommAllocWindows(hs[r], 64, &outs[r])
		}()
	}
	wg.Wait()
	c.ok("comm_alloc_windows rank 0", sts[0])
	c.ok("comm_alloc_windows rank 1", sts[1])
	c.roundTrip("rank 1's window through rank 0's mapping", window(outs[0], 1), 64)
	c.refused("a span straddling rank 0's and rank 1's windows", window(outs[0], 0)+60)
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sts[r] = l.CommDestroy(hs[r])
		}()
	}
	wg.Wait()
	c.ok("comm_destroy rank 0", sts[0])
	c.ok("comm_destroy rank 1", sts[1])
}
