package sim

import (
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/simabi/simabi/abi"
)

// Several ranks of one communicator, each a goroutine with a runtime
// instance of its own (as each rank of a real launch is a process with its
// own copy of the library): what a single-threaded op sequence cannot
// drive. tests/comm_multiprocess_test.go runs ranks as processes, Go and C.

// ranks runs f for ranks 0..n-1 at once and fails the test with the first
// error.
func ranks(t *testing.T, n int, f func(rank int) string) {
	t.Helper()
	errs := make([]string, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = f(r)
		}()
	}
	wg.Wait()
	for r, e := range errs {
		if e != "" {
			t.Errorf("rank %d: %s", r, e)
		}
	}
}

func TestComm_ECOMM8_20_ranksWaitForEachOther(t *testing.T) {
	for _, n := range []int{2, 3, 4} {
		c := newCommRig(t, 20*time.Second)
		p := c.path()
		c.allocName(p, 6)
		const win = 4096
		// Rank 0 arrives last: every other rank must still be waiting for
		// it in comm_alloc_windows.
		arrived := make(chan struct{})
		var returned sync.Map
		ranks(t, n, func(r int) string {
			rt := New(TMR, Options{CommTimeout: 20 * time.Second})
			defer rt.SimReset()
			h := rt.CommInit(int32(r), int32(n), 0, p)
			if r == 0 {
				time.Sleep(20 * time.Millisecond)
				for i := 1; i < n; i++ {
					if _, early := returned.Load(i); early {
						return "a peer's comm_alloc_windows returned before rank 0 arrived"
					}
				}
				close(arrived)
			}
			var out uint64
			if st := rt.CommAllocWindows(h, win, &out); st != abi.OK {
				return "comm_alloc_windows failed"
			}
			returned.Store(r, true)
			<-arrived
			ctx := ctxAt(out)
			*word(ctx[ctxIn+r]) = uint64(100 + r)
			if st := rt.CommBarrier(h); st != abi.OK {
				return "comm_barrier failed"
			}
			for j := 0; j < n; j++ {
				if got := *word(ctx[ctxIn+j]); got != uint64(100+j) {
					return "a peer's window reads wrong after the barrier"
				}
			}
			// Every rank but the last forms a subset with a domain of its
			// own; the last one is no member.
			if r < n-1 || n == 1 {
				ids := make([]uint32, n)
				for i := range ids {
					ids[i] = uint32(i)
				}
				var dctx, dbase uint64
				if st := rt.CommAllocDomainWindows(h, 6, unsafe.Pointer(&ids[0]), uintptr(n-1), uint32(r), 256, &dctx, &dbase); st != abi.OK {
					return "comm_alloc_domain_windows failed"
				}
				*word(dbase) = uint64(7 + r)
				if st := rt.CommBarrier(h); st != abi.OK {
					return "comm_barrier failed"
				}
				d := ctxAt(dctx)
				for j := 0; j < n-1; j++ {
					if *word(d[ctxIn+j]) != uint64(7+j) {
						return "a subset peer's domain window reads wrong"
					}
				}
				if st := rt.CommReleaseDomainWindows(h, 6, uintptr(n-1), uint32(r)); st != abi.OK {
					return "comm_release_domain_windows failed"
				}
			} else if st := rt.CommBarrier(h); st != abi.OK {
				return "comm_barrier failed"
			}
			for range 5 { // back-to-back barriers do not mix their generations
				if st := rt.CommBarrier(h); st != abi.OK {
					return "a repeated comm_barrier failed"
				}
			}
			if st := rt.CommDestroy(h); st != abi.OK {
				return "comm_destroy failed"
			}
			return ""
		})
	}
}

// The accept side of the 64-rank bound of comm_alloc_domain_windows: a
// subset of 64 ranks, which only 64 callers reach.
func TestComm_ECOMM23_64RankSubset(t *testing.T) {
	c := newCommRig(t, 20*time.Second)
	p := c.path()
	c.allocName(p, 1)
	ids := make([]uint32, 64)
	for i := range ids {
		ids[i] = uint32(i)
	}
	ranks(t, 64, func(r int) string {
		h := c.rt.CommInit(int32(r), 64, 0, p)
		var ctx, base uint64
		if st := c.rt.CommAllocDomainWindows(h, 1, unsafe.Pointer(&ids[0]), 64, uint32(r), 64, &ctx, &base); st != abi.OK {
			return "comm_alloc_domain_windows failed"
		}
		if _, num := ctxAt(ctx).ranks(); num != 64 || ctxAt(ctx)[ctxIn+63] != ctxAt(ctx)[ctxIn]+63*64 {
			return "the 64-rank context is wrong"
		}
		if st := c.rt.CommReleaseDomainWindows(h, 1, 64, uint32(r)); st != abi.OK {
			return "comm_release_domain_windows failed"
		}
		if st := c.rt.CommDestroy(h); st != abi.OK {
			return "comm_destroy failed"
		}
		return ""
	})
}

// A global domain across ranks: each prepares its window, the descriptors
// go round, each imports and reads what the others wrote.
func TestComm_ECOMM51_globalDomainAcrossRanks(t *testing.T) {
	const n = 3
	newCommRig(t, time.Second) // the segment check
	descs := make([]descriptor, n)
	var prepared, imported sync.WaitGroup
	prepared.Add(n)
	imported.Add(n)
	ranks(t, n, func(r int) string {
		rt := New(TMR, Options{})
		defer rt.SimReset()
		var base uint64
		if st := rt.CommGlobalDomainPrepare(900, uint32(r), n, 64, 1, unsafe.Pointer(&descs[r]), &base); st != abi.OK {
			prepared.Done()
			return "prepare failed"
		}
		*word(base) = uint64(50 + r)
		prepared.Done()
		prepared.Wait()
		var out uint64
		st := rt.CommGlobalDomainImport(900, unsafe.Pointer(&descs[0]), n, &out)
		imported.Done()
		if st != abi.OK {
			return "import failed"
		}
		ctx := ctxAt(out)
		for j := 0; j < n; j++ {
			if *word(ctx[ctxIn+j]) != uint64(50+j) {
				return "a peer's window reads wrong through the import"
			}
		}
		imported.Wait() // a rank's release must not unlink a window a peer has yet to open
		if st := rt.CommGlobalDomainRelease(900); st != abi.OK {
			return "release failed"
		}
		return ""
	})
}
