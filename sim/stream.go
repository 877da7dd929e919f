package sim

import (
	"sync"
	"sync/atomic"

	"github.com/simabi/simabi/abi"
)

// workItem is one launch waiting on a stream: its kernel and a snapshot of
// the first nt tensor records and ns scalars, stored at off in the queue's
// data buffer (E-LAUNCH-ASYNC: the caller may wipe args once launch returns).
type workItem struct {
	kernel kernelKind
	nt, ns int32
	off    int
}

// streamQueue is the FIFO of one stream value, shared by every context of
// the instance (semantics §4). Items and snapshots live in buffers that are
// reused after each synchronize, so launches allocate nothing once the
// buffers have grown to the queue's working size.
type streamQueue struct {
	id abi.Stream

	mu        sync.Mutex // guards items, data, spare*, enqueued
	items     []workItem
	data      []byte
	enqueued  uint64
	completed atomic.Uint64 // serial of the last item a synchronize finished

	syncMu     sync.Mutex // one synchronize at a time
	spareItems []workItem
	spareData  []byte

	aclCreated   bool // created by ACL.CreateStream and not yet destroyed (guarded by streamTable.mu)
	aclDestroyed bool
}

// enqueue appends one item and returns its serial. args is the whole
// ChipStorageTaskArgs; only the first nt tensors and ns scalars are copied.
func (q *streamQueue) enqueue(k kernelKind, args *[abi.TaskArgsSize]byte, nt, ns int32) uint64 {
	q.mu.Lock()
	off := len(q.data)
	q.data = append(q.data, args[:int(nt)*abi.ChipTensorSize]...)
	q.data = append(q.data, args[abi.TaskArgsScalarsOff:abi.TaskArgsScalarsOff+8*int(ns)]...)
	q.items = append(q.items, workItem{kernel: k, nt: nt, ns: ns, off: off})
	q.enqueued++
	serial := q.enqueued
	q.mu.Unlock()
	return serial
}

// pending is the number of items not yet synchronized.
func (q *streamQueue) pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// streamTable maps stream values to queues: a copy-on-write map behind an
// atomic pointer (lookups are lock-free; a stream's first use copies).
// Queues are never removed, so a queue pointer a context remembers stays the
// queue of that value.
type streamTable struct {
	mu   sync.Mutex
	m    atomic.Pointer[map[abi.Stream]*streamQueue]
	next uint64 // ACL-created stream values
}

// lookup returns the queue of s, or nil when s was never used.
func (t *streamTable) lookup(s abi.Stream) *streamQueue {
	m := t.m.Load()
	if m == nil {
		return nil
	}
	return (*m)[s]
}

// get returns the queue of s, creating it on first use.
func (t *streamTable) get(s abi.Stream) *streamQueue {
	if q := t.lookup(s); q != nil {
		return q
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.getLocked(s)
}

func (t *streamTable) getLocked(s abi.Stream) *streamQueue {
	old := t.m.Load()
	if old != nil {
		if q := (*old)[s]; q != nil {
			return q
		}
	}
	n := 1
	if old != nil {
		n += len(*old)
	}
	m := make(map[abi.Stream]*streamQueue, n)
	if old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	q := &streamQueue{id: s}
	m[s] = q
	t.m.Store(&m)
	return q
}

// all returns every queue (for a device-wide synchronize).
func (t *streamTable) all() []*streamQueue {
	m := t.m.Load()
	if m == nil {
		return nil
	}
	out := make([]*streamQueue, 0, len(*m))
	for _, q := range *m {
		out = append(out, q)
	}
	return out
}

// aclStreamBase is where ACL.CreateStream values start: far from the small
// values tests choose for caller streams.
const aclStreamBase uint64 = 0x5_1000_0000

// createACLStream mints a new stream value.
func (t *streamTable) createACLStream() abi.Stream {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	s := abi.Stream(aclStreamBase + t.next*0x100)
	q := t.getLocked(s)
	q.aclCreated = true
	return s
}

// destroyACLStream forgets an ACL-created stream; false when s is not one.
func (t *streamTable) destroyACLStream(s abi.Stream) (*streamQueue, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	q := t.lookup(s)
	if q == nil || !q.aclCreated || q.aclDestroyed {
		return nil, false
	}
	q.aclDestroyed = true
	return q, true
}

// syncStream completes every item enqueued on q so far, in FIFO order, and
// returns 0 or the first failure (E-LAUNCH-ASYNC, semantics §4). With no
// pending work it returns 0 and consumes no site-8 pass. With pending work
// and site 8 armed, the first item fails with site 8's code and does not run;
// every other item still runs. No context state changes.
func (r *Runtime) syncStream(q *streamQueue) abi.Status {
	q.syncMu.Lock()
	defer q.syncMu.Unlock()
	q.mu.Lock()
	if len(q.items) == 0 {
		q.mu.Unlock()
		return abi.OK
	}
	items, data := q.items, q.data
	q.items, q.data = q.spareItems[:0], q.spareData[:0]
	q.spareItems, q.spareData = nil, nil
	target := q.enqueued
	q.mu.Unlock()

	first := abi.OK
	run := items
	if code, hit := r.faults.pass(abi.SiteAsyncDeviceFail); hit {
		first = code
		run = items[1:]
	}
	for i := range run {
		it := &run[i]
		snap := data[it.off : it.off+int(it.nt)*abi.ChipTensorSize+8*int(it.ns)]
		if st := r.mem.runKernel(it.kernel, snap, it.nt, it.ns); st != abi.OK && first == abi.OK {
			first = st
		}
	}

	q.mu.Lock()
	q.spareItems, q.spareData = items[:0], data[:0]
	q.completed.Store(target)
	q.mu.Unlock()
	return first
}

// SimSyncStream is the hook simabi_sync_stream: INVALID_ARGUMENT for NULL,
// else it synchronizes s (E-LAUNCH-ASYNC).
func (r *Runtime) SimSyncStream(s abi.Stream) abi.Status {
	if s == 0 {
		return abi.InvalidArgument
	}
	q := r.streams.lookup(s)
	if q == nil {
		return abi.OK
	}
	return r.syncStream(q)
}

// PendingLaunches is the number of launches enqueued on s and not yet
// synchronized.
func (r *Runtime) PendingLaunches(s abi.Stream) int {
	q := r.streams.lookup(s)
	if q == nil {
		return 0
	}
	return q.pending()
}
