package sim

import "sync"

// mmapThreshold is the size from which device memory is backed by an
// anonymous MAP_NORESERVE mapping where the platform has one (Linux), as
// the emitted fake ACL does: pages are committed only when touched, so an
// allocation of up to the 32 GiB of simulated HBM succeeds without the Go
// heap trying (and fatally failing) to commit it.
const mmapThreshold = 1 << 20

// deviceBacking hands out the host memory behind device allocations. It
// remembers its mappings so a runtime instance that is garbage collected
// without freeing them unmaps them (a cleanup registered by New).
type deviceBacking struct {
	mu     sync.Mutex
	mapped map[*byte][]byte
}

// alloc returns size zeroed bytes; false when they cannot be had.
func (b *deviceBacking) alloc(size uint64) ([]byte, bool) {
	if size >= mmapThreshold {
		if data, ok := mapAnon(size); ok {
			b.mu.Lock()
			if b.mapped == nil {
				b.mapped = make(map[*byte][]byte)
			}
			b.mapped[&data[0]] = data
			b.mu.Unlock()
			return data, true
		} else if mmapAvailable {
			return nil, false
		}
	}
	return make([]byte, size), true
}

// free releases data from alloc (a heap slice is left to the collector).
func (b *deviceBacking) free(data []byte) {
	if len(data) == 0 {
		return
	}
	b.mu.Lock()
	_, ok := b.mapped[&data[0]]
	delete(b.mapped, &data[0])
	b.mu.Unlock()
	if ok {
		unmapAnon(data)
	}
}

// release unmaps every mapping left (the instance is unreachable).
func (b *deviceBacking) release() {
	b.mu.Lock()
	m := b.mapped
	b.mapped = nil
	b.mu.Unlock()
	for _, data := range m {
		unmapAnon(data)
	}
}
