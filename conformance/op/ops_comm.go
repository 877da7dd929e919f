package op

import (
	"strconv"
	"strings"
	"sync"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
)

// The comm family (E-COMM): cinit, calloc, cbase, csize, cderive, cbarrier,
// cdestroy, dalloc, drelease, gprep, gimport, grelease, and cmem, a word of
// a window read or written through the simulation hooks. Handles are slots
// h0..h7, rootinfo paths p0..p7, allocation ids and global domains small
// numbers (a=N, d=N): the runner maps each to a value of its own per
// sequence (a path of the process, an id no other sequence uses; d=0 stays
// domain_id 0), so op text and histories hold no path and no address.
//
//	cinit hN rank=R nranks=K path=pP|null [stream=sS]      comm_init into slot hN
//	calloc H win=W [out=null]                              comm_alloc_windows
//	cbase H [out=null] | csize H [out=null]                comm_get_local_window_base, _window_size
//	cderive H n=N rank=D off=O win=W [ids=IDS] [out=null]  comm_derive_context
//	cbarrier H | cdestroy H                                comm_barrier, comm_destroy
//	dalloc H a=A n=N rank=D win=W [ids=IDS] [out=null] [base=null]
//	drelease H a=A n=N rank=D                              comm_release_domain_windows
//	gprep d=D rank=R n=N win=W [profile=P] [out=null] [base=null]
//	gimport d=D [descs=DESCS] [count=C] [out=null]         comm_global_domain_import
//	grelease d=D                                           comm_global_domain_release
//	cmem REF idx=I [off=K] [put=V]                         a word of window I (hooks)
//	ccopy cN REF idx=I [off=K] [put=V]                     the word copied by cN's copy_to_device_ctx (put) or
//	                                                       copy_from_device_ctx; after the window went, its last address
//	ctimeout ms=M                                          simabi_comm_timeout_ms(M), M >= 1: the bound of the
//	                                                       comm waits that start later (the runner restores it)
//
//	H    := hN | null
//	IDS  := null | fill(V) | fill(V)+at(K,W)   rank_ids: every entry V (entry K: W)
//	DESCS := null | SRC{,SRC}   SRC := dK[.FIELD=V]: the descriptor the last successful
//	        gprep of domain K wrote, FIELD (ver, prof, rank, n, size, hs) set to V, or
//	        name=bad (its handle names no window)
//	REF  := hN (the base context) | hN.dK (its K-th derived context) | hN.aA (its
//	        domain allocation A) | dD (global domain D's imported context) | dD.local
//	        (D's local window, from gprep)

// Limits of the comm family's text.
const (
	MaxCommHandles = 8 // h0..h7
	MaxCommPaths   = 8 // p0..p7
	MaxCommDescs   = 4 // descriptors a gimport names
)

// IDsRecipe is a rank_ids array: every entry Fill, entry At Val when AtSet;
// Null passes NULL. The runner's array holds 256 entries.
type IDsRecipe struct {
	Null  bool
	Fill  uint32
	AtSet bool
	At    uint8
	Val   uint32
	// Raw: recorded entries (a trace's; RawIDs), by their key.
	Raw uint64
}

func (r IDsRecipe) String() string {
	if r.Null {
		return "null"
	}
	if r.Raw != 0 {
		s, _ := tracevocab.RankIDs.Spell("raw", r.RawBytes())
		return s
	}
	s := "fill(" + strconv.FormatUint(uint64(r.Fill), 10) + ")"
	if r.AtSet {
		s += "+at(" + strconv.Itoa(int(r.At)) + "," + strconv.FormatUint(uint64(r.Val), 10) + ")"
	}
	return s
}

// Entry is rank_ids[i] (0 past the recorded ones).
func (r IDsRecipe) Entry(i int) uint32 {
	if r.Raw != 0 {
		b := r.RawBytes()
		if 4*i+4 > len(b) {
			return 0
		}
		return uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
	}
	if r.AtSet && i == int(r.At) {
		return r.Val
	}
	return r.Fill
}

// DescField is the field a descriptor recipe changes.
type DescField uint8

// Descriptor fields.
const (
	DescAsIs    DescField = iota
	DescVersion           // version
	DescProfile           // profile
	DescRank              // domain_rank
	DescCount             // rank_count
	DescSize              // mapping_size
	DescHandle            // handle_size
	DescBadName           // the handle names no window
	numDescFields
)

var descFieldNames = [numDescFields]string{"", "ver", "prof", "rank", "n", "size", "hs", "name"}

// DescRecipe is one descriptor of a gimport: the one the last successful
// gprep of domain Src wrote, with one field changed.
type DescRecipe struct {
	Src   uint8
	Field DescField
	Val   uint64
}

func (d DescRecipe) String() string {
	s := "d" + strconv.Itoa(int(d.Src))
	switch d.Field {
	case DescAsIs:
	case DescBadName:
		s += ".name=bad"
	default:
		s += "." + descFieldNames[d.Field] + "=" + strconv.FormatUint(d.Val, 10)
	}
	return s
}

// DescsRecipe is gimport's descriptors: N of them, or NULL.
type DescsRecipe struct {
	Null bool
	N    uint8
	D    [MaxCommDescs]DescRecipe
	// Raw: recorded descriptor fields (a trace's; RawDescs), by their key.
	Raw uint64
}

func (r DescsRecipe) String() string {
	if r.Null {
		return "null"
	}
	if r.Raw != 0 {
		s, _ := tracevocab.CommDescs.Spell("raw", r.RawBytes())
		return s
	}
	parts := make([]string, r.N)
	for i := range parts {
		parts[i] = r.D[i].String()
	}
	return strings.Join(parts, ",")
}

// MemRefKind is which context a cmem op goes through.
type MemRefKind uint8

// Memory references.
const (
	RefBase    MemRefKind = iota // a handle's base context (hN)
	RefDerived                   // its K-th derived context (hN.dK)
	RefDomain                    // its domain allocation (hN.aA)
	RefGlobal                    // a global domain's imported context (dD)
	RefLocal                     // a global domain's local window (dD.local)
)

// CommRecipe is the arguments of a comm op.
type CommRecipe struct {
	H      int8   // the handle slot; NullRef: NULL
	Path   int8   // cinit: the rootinfo path; NullRef: NULL
	Stream int8   // cinit: the stream (NullRef: NULL)
	NRanks int32  // cinit: nranks
	Rank   int64  // cinit: rank; derive, dalloc, drelease, gprep: domain_rank
	N      uint64 // derive, dalloc, drelease, gprep: rank_count
	Win    uint64 // win_size, window_size
	Off    uint64 // derive: window_offset; cmem: the byte offset in the window
	ID     uint8  // dalloc, drelease: the allocation id; gprep, gimport, grelease, cmem: the domain
	IDs    IDsRecipe
	// Profile is gprep's profile minus one (the zero value is SIM_SHM, 1).
	Profile  uint32
	NullOut  bool // the context, descriptor or value out pointer is NULL
	NullBase bool // local_window_base_out is NULL
	Descs    DescsRecipe
	CountSet bool // gimport: descriptor_count is Count, not the descriptors' number
	Count    uint64
	Ref      MemRefKind // cmem
	K        uint8      // cmem: the derived context's index or the allocation id
	Idx      uint8      // cmem: the window
	Put      bool       // cmem: write Val (else read)
	Val      uint64
}

// GPProfile is gprep's profile argument.
func (c CommRecipe) GPProfile() uint32 { return c.Profile + 1 }

// DescCount is gimport's descriptor_count.
func (c CommRecipe) DescCount() uint64 {
	if c.CountSet {
		return c.Count
	}
	return uint64(c.Descs.N)
}

func handleText(h int8) string {
	if h < 0 {
		return "null"
	}
	return "h" + strconv.Itoa(int(h))
}

// handle reads hN or null.
func (p *opParser) handle(s string, nullable bool) int8 {
	if s == "null" && nullable {
		return NullRef
	}
	n, err := strconv.Atoi(strings.TrimPrefix(s, "h"))
	if !strings.HasPrefix(s, "h") || err != nil || n < 0 || n >= MaxCommHandles {
		p.fail("bad handle %q (want h0..h%d%s)", s, MaxCommHandles-1, map[bool]string{true: " or null"}[nullable])
		return 0
	}
	return int8(n)
}

// small reads key= as a number in [0, 256).
func (p *opParser) small(key string, required bool) uint8 {
	v, ok := p.take(key, required)
	if !ok {
		return 0
	}
	return uint8(p.uintv(key, v, 8))
}

func (p *opParser) u64(key string, required bool) uint64 {
	v, ok := p.take(key, required)
	if !ok {
		return 0
	}
	return p.uintv(key, v, 64)
}

// nullFlag reads key=null (the pointer is NULL) when present.
func (p *opParser) nullFlag(key string) bool {
	v, ok := p.take(key, false)
	if ok && v != "null" {
		p.fail("%s= takes only null", key)
	}
	return ok
}

func (p *opParser) ids() IDsRecipe {
	v, ok := p.take("ids", false)
	if !ok {
		return IDsRecipe{}
	}
	if v == "null" {
		return IDsRecipe{Null: true}
	}
	if strings.HasPrefix(v, "raw(") {
		x, err := tracevocab.RankIDs.Lex(v, tracevocab.Version)
		if err != nil || !x.Is("raw") {
			p.fail("bad ids %q", v)
			return IDsRecipe{}
		}
		return RawIDs(hexBytes(x, 0))
	}
	var r IDsRecipe
	parts := splitTop(v, '+')
	name, args, ok := call(parts[0])
	if !ok || name != "fill" || len(args) != 1 {
		p.fail("bad ids %q (want null, fill(V) or fill(V)+at(K,W))", v)
		return r
	}
	r.Fill = uint32(p.uintv("ids", args[0], 32))
	if len(parts) > 2 {
		p.fail("ids %q: one at() at most", v)
	}
	if len(parts) == 2 {
		name, args, ok := call(parts[1])
		if !ok || name != "at" || len(args) != 2 {
			p.fail("bad ids modifier %q (want at(K,W))", parts[1])
			return r
		}
		r.AtSet, r.At, r.Val = true, uint8(p.uintv("ids", args[0], 8)), uint32(p.uintv("ids", args[1], 32))
	}
	return r
}

func (t *opText) ids(r IDsRecipe) {
	if r != (IDsRecipe{}) {
		t.w("ids=" + r.String())
	}
}

func (p *opParser) descs() DescsRecipe {
	v, ok := p.take("descs", false)
	if !ok {
		return DescsRecipe{}
	}
	if v == "null" {
		return DescsRecipe{Null: true}
	}
	if strings.HasPrefix(v, "raw(") {
		x, err := tracevocab.CommDescs.Lex(v, tracevocab.Version)
		if err != nil || !x.Is("raw") || len(x.Text(0))%64 != 0 {
			p.fail("bad descs %q (raw holds 32 bytes a descriptor)", v)
			return DescsRecipe{}
		}
		return RawDescs(hexBytes(x, 0))
	}
	var r DescsRecipe
	for _, s := range strings.Split(v, ",") {
		if int(r.N) == MaxCommDescs {
			p.fail("descs: at most %d descriptors", MaxCommDescs)
			return r
		}
		src, mod, hasMod := strings.Cut(s, ".")
		n, err := strconv.ParseUint(strings.TrimPrefix(src, "d"), 10, 8)
		if !strings.HasPrefix(src, "d") || err != nil {
			p.fail("bad descriptor %q (want dK or dK.FIELD=V)", s)
			return r
		}
		d := DescRecipe{Src: uint8(n)}
		if hasMod {
			k, val, _ := strings.Cut(mod, "=")
			found := false
			for f := DescVersion; f < numDescFields; f++ {
				if descFieldNames[f] == k {
					d.Field, found = f, true
				}
			}
			switch {
			case !found:
				p.fail("bad descriptor field %q (ver, prof, rank, n, size, hs, name)", k)
			case d.Field == DescBadName:
				if val != "bad" {
					p.fail("descriptor field name= takes only bad")
				}
			default:
				d.Val = p.uintv(k, val, 64)
				if d.Field != DescSize && d.Val > 0xFFFFFFFF {
					p.fail("descriptor field %s= is 32 bits", k)
				}
			}
		}
		r.D[r.N] = d
		r.N++
	}
	return r
}

// memRef reads cmem's REF.
func (p *opParser) memRef(s string) {
	c := &p.op.Comm
	switch {
	case strings.HasPrefix(s, "h"):
		h, rest, _ := strings.Cut(s, ".")
		c.H = p.handle(h, false)
		switch {
		case rest == "":
			c.Ref = RefBase
		case strings.HasPrefix(rest, "d"):
			c.Ref, c.K = RefDerived, uint8(p.uintv("derived", rest[1:], 8))
		case strings.HasPrefix(rest, "a"):
			c.Ref, c.K = RefDomain, uint8(p.uintv("allocation", rest[1:], 8))
		default:
			p.fail("bad reference %q (hN, hN.dK, hN.aA)", s)
		}
	case strings.HasPrefix(s, "d"):
		d, rest, _ := strings.Cut(s, ".")
		c.ID = uint8(p.uintv("domain", d[1:], 8))
		switch rest {
		case "":
			c.Ref = RefGlobal
		case "local":
			c.Ref = RefLocal
		default:
			p.fail("bad reference %q (dD, dD.local)", s)
		}
	default:
		p.fail("bad reference %q (hN, hN.dK, hN.aA, dD or dD.local)", s)
	}
}

func memRefText(c CommRecipe) string {
	switch c.Ref {
	case RefDerived:
		return handleText(c.H) + ".d" + strconv.Itoa(int(c.K))
	case RefDomain:
		return handleText(c.H) + ".a" + strconv.Itoa(int(c.K))
	case RefGlobal:
		return "d" + strconv.Itoa(int(c.ID))
	case RefLocal:
		return "d" + strconv.Itoa(int(c.ID)) + ".local"
	}
	return handleText(c.H)
}

// commDef is the definition every comm kind shares: an entry of no device
// context, passing no fault site, answering the comm backend's 0 or -1.
func commDef(name string, parse func(p *opParser), format func(t *opText, op Op)) kindDef {
	return kindDef{name: name, entry: true, quiet: true, commCodes: true, parse: parse, format: format, trace: traceComm1}
}

// handleOnlyDef: an op whose one argument is a handle (or null), with
// out=null when out.
func handleOnlyDef(name string, out bool) kindDef {
	return commDef(name, func(p *opParser) {
		p.op.Comm.H = p.handle(p.positional(1)[0], true)
		if out {
			p.op.Comm.NullOut = p.nullFlag("out")
		}
	}, func(t *opText, op Op) {
		t.w(handleText(op.Comm.H))
		t.outs(op.Comm)
	})
}

func (t *opText) kv(k string, v uint64) { t.w(k + "=" + strconv.FormatUint(v, 10)) }

func (t *opText) outs(c CommRecipe) {
	if c.NullOut {
		t.w("out=null")
	}
	if c.NullBase {
		t.w("base=null")
	}
}

func init() {
	define(KindCommInit, kindDef{name: "cinit", entry: true, quiet: true, commCodes: true, trace: traceComm1, answer: answerCommInit,
		parse: func(p *opParser) {
			c := &p.op.Comm
			c.H = p.handle(p.positional(1)[0], false)
			v, _ := p.take("rank", true)
			c.Rank = int64(p.int32v("rank", v))
			v, _ = p.take("nranks", true)
			c.NRanks = p.int32v("nranks", v)
			v, _ = p.take("path", true)
			c.Path = NullRef
			if v != "null" {
				n, err := strconv.Atoi(strings.TrimPrefix(v, "p"))
				if !strings.HasPrefix(v, "p") || err != nil || n < 0 || n >= MaxCommPaths {
					p.fail("bad path %q (want p0..p%d or null)", v, MaxCommPaths-1)
				}
				c.Path = int8(n)
			}
			c.Stream = NullRef
			if v, ok := p.take("stream", false); ok {
				c.Stream = p.stream(v)
			}
		},
		format: func(t *opText, op Op) {
			c := op.Comm
			t.w(handleText(c.H), "rank="+strconv.FormatInt(c.Rank, 10), "nranks="+strconv.Itoa(int(c.NRanks)))
			if c.Path < 0 {
				t.w("path=null")
			} else {
				t.w("path=p" + strconv.Itoa(int(c.Path)))
			}
			if c.Stream >= 0 {
				t.w("stream=" + streamText(c.Stream))
			}
		},
	})
	define(KindCommAlloc, commDef("calloc",
		func(p *opParser) {
			p.op.Comm.H = p.handle(p.positional(1)[0], true)
			p.op.Comm.Win = p.u64("win", true)
			p.op.Comm.NullOut = p.nullFlag("out")
		},
		func(t *opText, op Op) {
			t.w(handleText(op.Comm.H))
			t.kv("win", op.Comm.Win)
			t.outs(op.Comm)
		}))
	define(KindCommBase, handleOnlyDef("cbase", true))
	define(KindCommSize, handleOnlyDef("csize", true))
	define(KindCommBarrier, handleOnlyDef("cbarrier", false))
	destroy := handleOnlyDef("cdestroy", false)
	destroy.answer = answerCommDestroy
	define(KindCommDestroy, destroy)
	define(KindCommDerive, commDef("cderive",
		func(p *opParser) {
			c := &p.op.Comm
			c.H = p.handle(p.positional(1)[0], true)
			c.N = p.u64("n", true)
			c.Rank = int64(p.uintv("rank", p.must("rank"), 32))
			c.Off = p.u64("off", true)
			c.Win = p.u64("win", true)
			c.IDs = p.ids()
			c.NullOut = p.nullFlag("out")
		},
		func(t *opText, op Op) {
			c := op.Comm
			t.w(handleText(c.H))
			t.kv("n", c.N)
			t.kv("rank", uint64(c.Rank))
			t.kv("off", c.Off)
			t.kv("win", c.Win)
			t.ids(c.IDs)
			t.outs(c)
		}))
	define(KindCommDomainAlloc, commDef("dalloc",
		func(p *opParser) {
			c := &p.op.Comm
			c.H = p.handle(p.positional(1)[0], true)
			c.ID = p.small("a", true)
			c.N = p.u64("n", true)
			c.Rank = int64(p.uintv("rank", p.must("rank"), 32))
			c.Win = p.u64("win", true)
			c.IDs = p.ids()
			c.NullOut = p.nullFlag("out")
			c.NullBase = p.nullFlag("base")
		},
		func(t *opText, op Op) {
			c := op.Comm
			t.w(handleText(c.H))
			t.kv("a", uint64(c.ID))
			t.kv("n", c.N)
			t.kv("rank", uint64(c.Rank))
			t.kv("win", c.Win)
			t.ids(c.IDs)
			t.outs(c)
		}))
	define(KindCommDomainRelease, commDef("drelease",
		func(p *opParser) {
			c := &p.op.Comm
			c.H = p.handle(p.positional(1)[0], true)
			c.ID = p.small("a", true)
			c.N = p.u64("n", true)
			c.Rank = int64(p.uintv("rank", p.must("rank"), 32))
		},
		func(t *opText, op Op) {
			c := op.Comm
			t.w(handleText(c.H))
			t.kv("a", uint64(c.ID))
			t.kv("n", c.N)
			t.kv("rank", uint64(c.Rank))
		}))
	define(KindCommGlobalPrepare, commDef("gprep",
		func(p *opParser) {
			c := &p.op.Comm
			p.positional(0)
			c.ID = p.small("d", true)
			c.Rank = int64(p.uintv("rank", p.must("rank"), 32))
			c.N = p.uintv("n", p.must("n"), 32)
			c.Win = p.u64("win", true)
			if v, ok := p.take("profile", false); ok {
				c.Profile = uint32(p.uintv("profile", v, 32)) - 1
			}
			c.NullOut = p.nullFlag("out")
			c.NullBase = p.nullFlag("base")
		},
		func(t *opText, op Op) {
			c := op.Comm
			t.kv("d", uint64(c.ID))
			t.kv("rank", uint64(c.Rank))
			t.kv("n", c.N)
			t.kv("win", c.Win)
			if c.Profile != 0 {
				t.kv("profile", uint64(c.GPProfile()))
			}
			t.outs(c)
		}))
	define(KindCommGlobalImport, commDef("gimport",
		func(p *opParser) {
			c := &p.op.Comm
			p.positional(0)
			c.ID = p.small("d", true)
			c.Descs = p.descs()
			if v, ok := p.take("count", false); ok {
				c.CountSet, c.Count = true, p.uintv("count", v, 64)
			}
			c.NullOut = p.nullFlag("out")
		},
		func(t *opText, op Op) {
			c := op.Comm
			t.kv("d", uint64(c.ID))
			if c.Descs != (DescsRecipe{}) {
				t.w("descs=" + c.Descs.String())
			}
			if c.CountSet {
				t.kv("count", c.Count)
			}
			t.outs(c)
		}))
	define(KindCommGlobalRelease, commDef("grelease",
		func(p *opParser) {
			p.positional(0)
			p.op.Comm.ID = p.small("d", true)
		},
		func(t *opText, op Op) { t.kv("d", uint64(op.Comm.ID)) }))
	define(KindCommMem, kindDef{name: "cmem", quiet: true,
		parse: func(p *opParser) {
			p.memRef(p.positional(1)[0])
			p.word("cmem reads and writes whole words")
		},
		format: func(t *opText, op Op) {
			t.w(memRefText(op.Comm))
			t.word(op.Comm)
		},
	})
}

// word reads the word a cmem or ccopy names after its reference: idx=I
// [off=K] [put=V], K a multiple of 8 (what says so: whole words).
func (p *opParser) word(what string) {
	c := &p.op.Comm
	c.Idx = p.small("idx", true)
	c.Off = p.u64("off", false)
	if v, ok := p.take("put", false); ok {
		c.Put, c.Val = true, p.uintv("put", v, 64)
	}
	if c.Off%8 != 0 {
		p.fail("%s: off must be a multiple of 8", what)
	}
}

func (t *opText) word(c CommRecipe) {
	t.kv("idx", uint64(c.Idx))
	if c.Off != 0 {
		t.kv("off", c.Off)
	}
	if c.Put {
		t.kv("put", c.Val)
	}
}

func init() {
	define(KindCommCopy, kindDef{name: "ccopy", args: ctxOne, entry: true, status: true, quiet: true,
		parse: func(p *opParser) {
			pos := p.positional(2)
			p.op.C = p.slot(pos[0])
			p.memRef(pos[1])
			p.word("ccopy copies whole words")
		},
		format: func(t *opText, op Op) {
			t.w(ctxText(op.C), memRefText(op.Comm))
			t.word(op.Comm)
		},
	})
}

func init() {
	define(KindCommTimeout, kindDef{name: "ctimeout", quiet: true,
		parse: func(p *opParser) {
			p.positional(0)
			v, _ := p.take("ms", true)
			p.op.Ms = p.int32v("ms", v)
			if p.op.Ms < 1 {
				p.fail("ctimeout ms=%d: the bound is at least 1 ms", p.op.Ms)
			}
		},
		format: func(t *opText, op Op) { t.w("ms=" + strconv.Itoa(int(op.Ms))) },
	})
}

// must is a required argument's text.
func (p *opParser) must(key string) string {
	v, _ := p.take(key, true)
	if v == "" {
		return "0"
	}
	return v
}

// CommCodes reports whether an op of kind k answers the comm backend's own
// codes, 0 or -1 (E-COMM), not the contract's status table.
func (k Kind) CommCodes() bool { d := defOf(k); return d != nil && d.commCodes }

// ---- recorded calls (docs/trace.md) ----

// traceComm is what a trace's comm calls name: handles by their slot
// (h0..h7 of the grammar, taken by comm_init and freed by comm_destroy),
// rootinfo paths by first appearance.
type traceComm struct {
	handles map[string]int8
	used    [MaxCommHandles]bool
	paths   map[string]int8
}

// handle maps a recorded COMM argument to a slot (skip when it names none
// this trace made).
func (p *traceParser) commHandle(v tracevocab.Value, skip func(string)) int8 {
	switch {
	case v.Is("null"):
		return NullRef
	case v.Is("named"):
		if h, ok := p.comm.handles[v.Source]; ok {
			return h
		}
		skip("a comm handle no comm_init of this trace returned")
	default:
		skip("a comm handle no comm_init of this process returned")
	}
	return 0
}

// commFields reads what every comm call records: its handle, and each
// keyed argument into the recipe.
func traceComm1(p *traceParser, c *TraceCall, f *traceFields) error {
	r := &c.Op.Comm
	if len(f.pos) > 0 && f.pos[0].Form == tracevocab.CommHandle {
		r.H = p.commHandle(f.pos[0], f.skip)
	}
	for key, v := range f.keyed {
		switch key {
		case "win":
			r.Win = v.Uint(0)
		case "off":
			r.Off = v.Uint(0)
		case "n":
			r.N = v.Uint(0)
		case "rank":
			if c.Op.Kind == KindCommInit {
				r.Rank = int64(clampI32(v.Int(0)))
			} else {
				r.Rank = int64(uint32(v.Uint(0)))
			}
		case "nranks":
			r.NRanks = clampI32(v.Int(0))
		case "profile":
			r.Profile = uint32(v.Uint(0)) - 1
		case "count":
			r.CountSet, r.Count = true, v.Uint(0)
		case "out":
			r.NullOut = true
		case "base":
			r.NullBase = true
		case "path":
			r.Path = NullRef
			switch {
			case v.Is("named"):
				if p.comm.paths == nil {
					p.comm.paths = map[string]int8{}
				}
				if r.Path = p.name(p.comm.paths, v.Source, MaxCommPaths); r.Path == tooMany {
					r.Path = 0
					f.skip("more rootinfo paths than the op grammar names")
				}
			case !v.Is("null"):
				f.skip("a rootinfo path the recorder could not read")
			}
		case "stream":
			r.Stream = p.stream(v, f.skip)
		case "a", "d":
			if v.Is("named") && v.Int(0) >= 0 && v.Int(0) < 256 {
				r.ID = uint8(v.Int(0))
			} else {
				f.skip("an id past the recorder's table")
			}
		case "ids":
			switch {
			case v.Is("null"):
				r.IDs = IDsRecipe{Null: true}
			case v.Is("raw"):
				r.IDs = RawIDs(hexBytes(v, 0))
			}
		case "descs":
			switch {
			case v.Is("null"):
				r.Descs = DescsRecipe{Null: true}
			case v.Is("raw"):
				r.Descs = RawDescs(hexBytes(v, 0))
				c.NoReplay = "the descriptors' handles, which name windows of other processes, are not recorded"
			}
		}
	}
	if c.Op.Kind == KindCommGlobalImport && !r.CountSet {
		r.CountSet = true // an entry record: descriptor_count is read from the descriptors
	}
	return nil
}

// answerCommInit takes a slot for the handle comm_init returned.
func answerCommInit(p *traceParser, c *TraceCall, a *traceAnswer) {
	r := &c.Op.Comm
	if p.comm.handles == nil {
		p.comm.handles = map[string]int8{}
	}
	slot := int8(-1)
	for i, u := range p.comm.used {
		if !u {
			slot = int8(i)
			break
		}
	}
	switch {
	case slot < 0:
		c.Skip = "more live comm handles than the op grammar's slots"
	case a.res.Is("named"):
		p.comm.handles[a.res.Source], p.comm.used[slot] = slot, true
		r.H, c.Obs.Call.Value = slot, 1
	case a.res.Is("null"):
		r.H = slot // nothing was made: the slot stays free
	default:
		r.H = slot
		c.Skip = "a comm handle the recorder could not name"
	}
}

// answerCommDestroy frees the handle's slot: the handle is invalid after
// comm_destroy whatever it returned.
func answerCommDestroy(p *traceParser, c *TraceCall, a *traceAnswer) {
	c.Obs.Call.Status = abi.Status(clampI32(a.res.Int(0)))
	if h := c.Op.Comm.H; h >= 0 && c.Skip == "" {
		p.comm.used[h] = false
		for name, s := range p.comm.handles {
			if s == h {
				delete(p.comm.handles, name)
			}
		}
	}
}

// The recorded arrays: rank_ids and descriptor fields, by a key into
// tables of the process (as recorded images are).
var rawIDs, rawDescs sync.Map // uint64 → []byte

// RawIDs is the recipe of recorded rank_ids (uint32 little-endian).
func RawIDs(b []byte) IDsRecipe {
	k := rawKey(b) | 1 // never 0: the zero recipe is fill(0)
	rawIDs.LoadOrStore(k, append([]byte(nil), b...))
	return IDsRecipe{Raw: k}
}

// RawDescs is the recipe of recorded descriptor fields (32 bytes each).
func RawDescs(b []byte) DescsRecipe {
	k := rawKey(b) | 1
	rawDescs.LoadOrStore(k, append([]byte(nil), b...))
	return DescsRecipe{Raw: k, N: uint8(min(len(b)/32, 255))}
}

// RawBytes are the recorded bytes of a raw recipe.
func (r IDsRecipe) RawBytes() []byte {
	if b, ok := rawIDs.Load(r.Raw); ok {
		return b.([]byte)
	}
	return nil
}

// RawBytes are the recorded descriptor fields of a raw recipe.
func (r DescsRecipe) RawBytes() []byte {
	if b, ok := rawDescs.Load(r.Raw); ok {
		return b.([]byte)
	}
	return nil
}
