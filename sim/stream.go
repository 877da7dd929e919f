package sim

import (
	"sync"
	"sync/atomic"

	"github.com/simabi/simabi/abi"
)

// chunkItems is the number of work items in one chunk of a stream's FIFO.
const chunkItems = 16

// maxFreeChunks bounds the instance's free list of chunks (about 2.2 KiB
// each): a synchronize returns its chunks to the free list up to this many,
// so a working set of up to maxFreeChunks*chunkItems pending launches is
// recycled without allocating, and the memory kept is bounded.
const maxFreeChunks = 4096

// workChunk is a fixed-size block of a stream's FIFO. Items are filled in
// order; n are in use.
type workChunk struct {
	next  *workChunk
	n     int
	items [chunkItems]kernelWork
}

// chunkPool is the instance's free list of chunks, shared by every stream.
type chunkPool struct {
	mu   sync.Mutex
	free *workChunk
	n    int
}

// get returns an empty chunk, from the free list or new.
func (p *chunkPool) get() *workChunk {
	p.mu.Lock()
	c := p.free
	if c != nil {
		p.free = c.next
		p.n--
	}
	p.mu.Unlock()
	if c == nil {
		return new(workChunk)
	}
	c.next, c.n = nil, 0
	return c
}

// put returns a list of chunks to the free list, keeping at most
// maxFreeChunks (the rest is left to the garbage collector).
func (p *chunkPool) put(list *workChunk) {
	p.mu.Lock()
	for list != nil && p.n < maxFreeChunks {
		next := list.next
		list.next = p.free
		p.free = list
		p.n++
		list = next
	}
	p.mu.Unlock()
}

// streamQueue is the FIFO of one stream value, shared by every context of
// the instance (semantics §4): a list of chunks of fixed-size work items.
// Each item snapshots only what the simulated kernels read (kernelWork), so
// an item costs the same whatever tensor_count is; chunks come from the
// instance's free list and go back to it at each synchronize, so launches
// allocate nothing once the free list holds the working set, and growing a
// queue never copies it.
type streamQueue struct {
	id abi.Stream

	mu         sync.Mutex // guards head, tail, pending, enqueued, listed
	head, tail *workChunk
	pending    int
	enqueued   uint64
	listed     bool          // in the table's first-use order
	completed  atomic.Uint64 // serial of the last item a synchronize finished

	syncMu sync.Mutex // one synchronize at a time

	aclCreated   bool // created by ACL.CreateStream and not yet destroyed (guarded by streamTable.mu)
	aclDestroyed bool
}

// enqueue appends one item and returns its serial. args is the whole
// ChipStorageTaskArgs; the item snapshots what kernel k reads of it.
func (q *streamQueue) enqueue(t *streamTable, k kernelKind, args *[abi.TaskArgsSize]byte, nt, ns int32) uint64 {
	q.mu.Lock()
	c := q.tail
	if c == nil || c.n == chunkItems {
		nc := t.chunks.get()
		if c == nil {
			q.head = nc
		} else {
			c.next = nc
		}
		q.tail = nc
		c = nc
	}
	c.items[c.n].snapshot(k, args, nt, ns)
	c.n++
	q.pending++
	q.enqueued++
	serial := q.enqueued
	if !q.listed {
		q.listed = true
		t.list(q)
	}
	q.mu.Unlock()
	return serial
}

// pendingCount is the number of items not yet synchronized.
func (q *streamQueue) pendingCount() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.pending
}

// streamShardBits sizes the sharded stream map.
const (
	streamShardBits = 5
	streamShards    = 1 << streamShardBits
)

type streamShard struct {
	mu sync.RWMutex
	m  map[abi.Stream]*streamQueue
}

// streamTable maps stream values to queues: a map sharded by a hash of the
// value, each shard behind a RWMutex, so a lookup is a read lock and a map
// access and a stream's first use is an O(1) amortized insert (launch keeps
// the queue of its context's last stream and looks up only on a switch).
// Queues are never removed, so a queue pointer a context remembers stays the
// queue of that value. order lists the queues in the order of their first
// enqueue (ACL.SynchronizeDevice's order).
type streamTable struct {
	shards [streamShards]streamShard

	mu   sync.Mutex // ACL-created stream values and their flags
	next uint64

	orderMu sync.Mutex
	order   []*streamQueue // append-only

	chunks chunkPool
}

func (t *streamTable) shard(s abi.Stream) *streamShard {
	return &t.shards[(uint64(s)*0x9E3779B97F4A7C15)>>(64-streamShardBits)]
}

// lookup returns the queue of s, or nil when s was never used.
func (t *streamTable) lookup(s abi.Stream) *streamQueue {
	sh := t.shard(s)
	sh.mu.RLock()
	q := sh.m[s]
	sh.mu.RUnlock()
	return q
}

// get returns the queue of s, creating it on first use.
func (t *streamTable) get(s abi.Stream) *streamQueue {
	if q := t.lookup(s); q != nil {
		return q
	}
	sh := t.shard(s)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if q := sh.m[s]; q != nil {
		return q
	}
	if sh.m == nil {
		sh.m = make(map[abi.Stream]*streamQueue)
	}
	q := &streamQueue{id: s}
	sh.m[s] = q
	return q
}

// list appends q to the first-use order (q.mu is held).
func (t *streamTable) list(q *streamQueue) {
	t.orderMu.Lock()
	t.order = append(t.order, q)
	t.orderMu.Unlock()
}

// ordered returns every queue that ever had work, in the order of its first
// enqueue (for a device-wide synchronize). The slice is a view of the
// append-only order; it is not copied.
func (t *streamTable) ordered() []*streamQueue {
	t.orderMu.Lock()
	o := t.order[:len(t.order):len(t.order)]
	t.orderMu.Unlock()
	return o
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
	q := t.get(s)
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
	if q.pending == 0 {
		q.mu.Unlock()
		return abi.OK
	}
	list := q.head
	q.head, q.tail, q.pending = nil, nil, 0
	target := q.enqueued
	q.mu.Unlock()

	first := abi.OK
	skip := false
	if code, hit := r.faults.pass(abi.SiteAsyncDeviceFail); hit {
		first, skip = code, true
	}
	for c := list; c != nil; c = c.next {
		for i := 0; i < c.n; i++ {
			if skip {
				skip = false // the first pending item fails and does not run
				continue
			}
			if st := r.mem.runKernel(&c.items[i]); st != abi.OK && first == abi.OK {
				first = st
			}
		}
	}
	r.streams.chunks.put(list)
	q.completed.Store(target)
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
	return q.pendingCount()
}
