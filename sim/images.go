package sim

import (
	"bytes"
	"hash/maphash"
	"sync"
)

// imagePage is the granule of the interned copy: all-zero pages are not
// stored. A ChipCallable header is 9376 bytes of mostly zero child tables, so
// a small image keeps a few pages and a zero-filled binary keeps none.
const imagePage = 512

var zeroPage [imagePage]byte

// internedImage is one distinct image content, kept once per runtime
// instance however many residents (on however many contexts) prepared it
// (semantics §7). It is immutable once built; refs is guarded by the store.
type internedImage struct {
	hash    uint64
	size    int
	present []uint64 // bit p set: page p is stored
	pages   []byte   // the stored pages in order (the last one may be short)
	refs    int
}

func isZero(b []byte) bool { return bytes.Equal(b, zeroPage[:len(b)]) }

func newInternedImage(img []byte, h uint64) *internedImage {
	n := (len(img) + imagePage - 1) / imagePage
	e := &internedImage{hash: h, size: len(img), present: make([]uint64, (n+63)/64)}
	stored := 0
	for p := 0; p < n; p++ {
		if !isZero(img[p*imagePage : min(len(img), (p+1)*imagePage)]) {
			e.present[p/64] |= 1 << (p % 64)
			stored += min(len(img), (p+1)*imagePage) - p*imagePage
		}
	}
	e.pages = make([]byte, 0, stored)
	for p := 0; p < n; p++ {
		if e.present[p/64]&(1<<(p%64)) != 0 {
			e.pages = append(e.pages, img[p*imagePage:min(len(img), (p+1)*imagePage)]...)
		}
	}
	return e
}

// equal reports whether e holds exactly img.
func (e *internedImage) equal(img []byte) bool {
	if len(img) != e.size {
		return false
	}
	pos := 0
	for p := 0; p*imagePage < len(img); p++ {
		page := img[p*imagePage : min(len(img), (p+1)*imagePage)]
		if e.present[p/64]&(1<<(p%64)) == 0 {
			if !isZero(page) {
				return false
			}
			continue
		}
		if !bytes.Equal(page, e.pages[pos:pos+len(page)]) {
			return false
		}
		pos += len(page)
	}
	return true
}

// Bytes reassembles the image (for tests: M-6).
func (e *internedImage) Bytes() []byte {
	out := make([]byte, e.size)
	pos := 0
	for p := 0; p*imagePage < e.size; p++ {
		if e.present[p/64]&(1<<(p%64)) != 0 {
			end := min(e.size, (p+1)*imagePage)
			pos += copy(out[p*imagePage:end], e.pages[pos:pos+end-p*imagePage])
		}
	}
	return out
}

// heldBytes is what the copy keeps.
func (e *internedImage) heldBytes() int { return len(e.pages) + 8*len(e.present) }

// imageStore interns image contents by hash and equality, with reference
// counts: a context's finalize drops its references.
type imageStore struct {
	mu     sync.Mutex
	seed   maphash.Seed
	byHash map[uint64][]*internedImage
	count  int
	held   int
	// last is the image interned most recently: a caller that prepares one
	// callable again and again (a context filled to its 8192 residents,
	// M-4) finds it by one comparison, without hashing the bytes.
	last *internedImage
}

// intern returns the copy of img's content, making it on first sight. The
// caller's bytes are read only here, never after prepare returns (M-6).
func (s *imageStore) intern(img []byte) *internedImage {
	s.mu.Lock()
	if e := s.last; e != nil && e.equal(img) {
		e.refs++
		s.mu.Unlock()
		return e
	}
	s.mu.Unlock()
	h := maphash.Bytes(s.seed, img)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.byHash[h] {
		if e.equal(img) {
			e.refs++
			s.last = e
			return e
		}
	}
	e := newInternedImage(img, h)
	e.refs = 1
	if s.byHash == nil {
		s.byHash = make(map[uint64][]*internedImage)
	}
	s.byHash[h] = append(s.byHash[h], e)
	s.last = e
	s.count++
	s.held += e.heldBytes()
	return e
}

// release drops one reference to e.
func (s *imageStore) release(e *internedImage) {
	if e == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e.refs--
	if e.refs > 0 {
		return
	}
	if s.last == e {
		s.last = nil
	}
	list := s.byHash[e.hash]
	for i, x := range list {
		if x == e {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(s.byHash, e.hash)
	} else {
		s.byHash[e.hash] = list
	}
	s.count--
	s.held -= e.heldBytes()
}

// ImageStats reports the interned image store: distinct contents kept and the
// bytes their copies hold.
type ImageStats struct {
	Distinct  int
	HeldBytes int
}

func (s *imageStore) stats() ImageStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ImageStats{Distinct: s.count, HeldBytes: s.held}
}
