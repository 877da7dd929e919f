package op

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
)

// The comm family (E-COMM). Handles are slots h0..h7, rootinfo paths
// p0..p7, allocation ids and global domains small numbers (a=N, d=N): the
// runner maps each to a value of its own per sequence (d=0 stays domain_id
// 0), so op text and histories hold no path and no address.
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
	Raw   uint64 // recorded entries (RawIDs), by their key
}

func (r IDsRecipe) String() string {
	if r.Null {
		return "null"
	}
	if r.Raw != 0 {
		s, _ := tracevocab.RankIDs.Spell("raw", r.RawBytes())
		return s
	}
	return formatParts(idsParts, r, "+")
}

// Entry is rank_ids[i] (0 past the recorded ones).
func (r IDsRecipe) Entry(i int) uint32 {
	if r.Raw != 0 {
		b := r.RawBytes()
		if 4*i+4 > len(b) {
			return 0
		}
		return le.Uint32(b[4*i:])
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

// DescRecipe is a descriptor the last successful gprep of domain Src
// wrote, with one field changed.
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
	Raw  uint64 // recorded descriptor fields (RawDescs), by their key
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
	H        int8   // the handle slot; NullRef: NULL
	Path     int8   // cinit: the rootinfo path; NullRef: NULL
	Stream   int8   // cinit: the stream (NullRef: NULL)
	NRanks   int32  // cinit: nranks
	Rank     int64  // cinit: rank; derive, dalloc, drelease, gprep: domain_rank
	N        uint64 // derive, dalloc, drelease, gprep: rank_count
	Win      uint64 // win_size, window_size
	Off      uint64 // derive: window_offset; cmem: the byte offset in the window
	ID       uint8  // dalloc, drelease: the allocation id; gprep, gimport, grelease, cmem: the domain
	IDs      IDsRecipe
	Profile  uint32 // gprep's profile minus one (the zero value is SIM_SHM, 1)
	NullOut  bool   // the context, descriptor or value out pointer is NULL
	NullBase bool   // local_window_base_out is NULL
	Descs    DescsRecipe
	CountSet bool // gimport: descriptor_count is Count, not the descriptors' number
	Count    uint64
	Ref      MemRefKind // cmem
	K        uint8      // cmem: the derived context's index or the allocation id
	Idx      uint8      // cmem: the window
	Put      bool       // cmem: write Val (else read)
	Val      uint64
}

func (c CommRecipe) GPProfile() uint32 { return c.Profile + 1 }

func (c CommRecipe) DescCount() uint64 {
	if c.CountSet {
		return c.Count
	}
	return uint64(c.Descs.N)
}

func (p *opParser) ids(v string) IDsRecipe {
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
	parseParts(p, "ids", idsParts, splitTop(v, '+'), &r)
	return r
}

func (p *opParser) descs(v string) DescsRecipe {
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
			f := slices.Index(descFieldNames[:], k)
			d.Field = DescField(max(f, 0))
			switch {
			case f <= 0:
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

func (p *opParser) memRef(s string) {
	c := &p.op.Comm
	switch {
	case strings.HasPrefix(s, "h"):
		h, rest, _ := strings.Cut(s, ".")
		handleArg(false).read(p, h)
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

var memRefTails = [...]string{RefDerived: ".d", RefDomain: ".a", RefLocal: ".local"}

func memRefText(o Op) string {
	c := o.Comm
	switch c.Ref {
	case RefDerived, RefDomain:
		return refText("h", c.H) + memRefTails[c.Ref] + strconv.Itoa(int(c.K))
	case RefGlobal, RefLocal:
		return "d" + strconv.Itoa(int(c.ID)) + memRefTails[c.Ref]
	}
	return refText("h", c.H)
}

// comm makes a field of the comm recipe (Op.Comm).
func comm[T any](at func(*CommRecipe) *T) func(*Op) *T {
	return func(o *Op) *T { return at(&o.Comm) }
}

func handleArg(nullable bool) field {
	return ref("handle", "", "h", MaxCommHandles, nullable, comm(func(c *CommRecipe) *int8 { return &c.H }))
}

var (
	winKey  = u64("win", comm(func(c *CommRecipe) *uint64 { return &c.Win }))
	nKey    = u64("n", comm(func(c *CommRecipe) *uint64 { return &c.N }))
	rankKey = nat("rank", 0, math.MaxUint32, comm(func(c *CommRecipe) *int64 { return &c.Rank }))
	idsKey  = traced(opt(recipe("ids", (*opParser).ids, IDsRecipe.String, comm(func(c *CommRecipe) *IDsRecipe { return &c.IDs }),
		"null", "fill(0)", "fill(4294967295)+at(255,7)")), func(t *traceFields, v tracevocab.Value) {
		switch r := &t.c.Op.Comm; {
		case v.Is("null"):
			r.IDs = IDsRecipe{Null: true}
		case v.Is("raw"):
			r.IDs = RawIDs(hexBytes(v, 0))
		}
	})
	outKey     = nullFlag("out", "", comm(func(c *CommRecipe) *bool { return &c.NullOut }))
	baseKey    = nullFlag("base", "", comm(func(c *CommRecipe) *bool { return &c.NullBase }))
	allocKey   = traced(u8("a", comm(func(c *CommRecipe) *uint8 { return &c.ID })), traceCommID)
	domKey     = traced(u8("d", comm(func(c *CommRecipe) *uint8 { return &c.ID })), traceCommID)
	profileKey = field{key: "profile", samples: []string{"0", "1", "2", "4294967295"},
		read: func(p *opParser, v string) { p.op.Comm.Profile = uint32(p.uintv("profile", v, 32)) - 1 },
		text: func(o Op) string { return strconv.FormatUint(uint64(o.Comm.GPProfile()), 10) },
		rec:  func(t *traceFields, v tracevocab.Value) { t.c.Op.Comm.Profile = uint32(v.Uint(0)) - 1 },
	}
	memRefArg = field{samples: []string{"h0", "h7.d2", "h1.a3", "d1", "d255.local"},
		read: (*opParser).memRef, text: memRefText}
	word = []field{u8("idx", comm(func(c *CommRecipe) *uint8 { return &c.Idx })),
		also(opt(u64("off", comm(func(c *CommRecipe) *uint64 { return &c.Off }))), func(p *opParser, v string) {
			if p.op.Comm.Off%8 != 0 {
				p.fail("off=%s: not a multiple of 8 (the op moves whole words)", v)
			}
		}, "0", "8", "4088"),
		present(comm(func(c *CommRecipe) *bool { return &c.Put }), u64("put", comm(func(c *CommRecipe) *uint64 { return &c.Val })))}
)

// commDef: an entry of no device context, passing no fault site, answering
// the comm backend's 0 or -1.
func commDef(name string, fields ...field) kindDef {
	return kindDef{name: name, entry: true, quiet: true, commCodes: true, fields: fields}
}

func init() {
	cinit := commDef("cinit", handleArg(false), num("rank", math.MinInt32, math.MaxInt32, comm(func(c *CommRecipe) *int64 { return &c.Rank })),
		i32("nranks", comm(func(c *CommRecipe) *int32 { return &c.NRanks })),
		ref("path", "path", "p", MaxCommPaths, true, comm(func(c *CommRecipe) *int8 { return &c.Path })),
		dflt(ref("stream", "stream", "s", MaxStreams, true, comm(func(c *CommRecipe) *int8 { return &c.Stream })),
			func(o *Op) { o.Comm.Stream = NullRef }))
	cinit.answer = answerCommInit
	define(KindCommInit, cinit)
	define(KindCommAlloc, commDef("calloc", handleArg(true), winKey, outKey))
	define(KindCommBase, commDef("cbase", handleArg(true), outKey))
	define(KindCommSize, commDef("csize", handleArg(true), outKey))
	define(KindCommBarrier, commDef("cbarrier", handleArg(true)))
	destroy := commDef("cdestroy", handleArg(true))
	destroy.answer = answerCommDestroy
	define(KindCommDestroy, destroy)
	define(KindCommDerive, commDef("cderive", handleArg(true), nKey, rankKey,
		u64("off", comm(func(c *CommRecipe) *uint64 { return &c.Off })), winKey, idsKey, outKey))
	define(KindCommDomainAlloc, commDef("dalloc", handleArg(true), allocKey, nKey, rankKey, winKey, idsKey, outKey, baseKey))
	define(KindCommDomainRelease, commDef("drelease", handleArg(true), allocKey, nKey, rankKey))
	define(KindCommGlobalPrepare, commDef("gprep", domKey, rankKey,
		nat("n", 0, math.MaxUint32, comm(func(c *CommRecipe) *uint64 { return &c.N })), winKey, opt(profileKey), outKey, baseKey))
	gimport := commDef("gimport", domKey,
		traced(opt(recipe("descs", (*opParser).descs, DescsRecipe.String, comm(func(c *CommRecipe) *DescsRecipe { return &c.Descs }),
			"null", "d0", "d1.ver=3,d2.hs=257,d3.name=bad,d4.size=18446744073709551615")), traceDescs),
		present(comm(func(c *CommRecipe) *bool { return &c.CountSet }), u64("count", comm(func(c *CommRecipe) *uint64 { return &c.Count }))),
		outKey)
	// An entry record lacks count=: it is the descriptors' number.
	gimport.trace = func(t *traceFields) { t.c.Op.Comm.CountSet = true }
	define(KindCommGlobalImport, gimport)
	define(KindCommGlobalRelease, commDef("grelease", domKey))
	define(KindCommMem, kindDef{name: "cmem", quiet: true, fields: append([]field{memRefArg}, word...)})
	define(KindCommCopy, kindDef{name: "ccopy", args: ctxOne, entry: true, status: true, quiet: true,
		fields: append([]field{slotArg, memRefArg}, word...)})
	define(KindCommTimeout, kindDef{name: "ctimeout", quiet: true,
		fields: []field{num("ms", 1, math.MaxInt32, func(o *Op) *int32 { return &o.Ms })}})
}

// ---- recorded calls (docs/trace.md) ----

// traceComm is the handles a trace's comm calls name, by their slot (taken
// by comm_init, freed by comm_destroy).
type traceComm struct {
	handles map[string]int8
	used    [MaxCommHandles]bool
}

// resetComm forgets the comm handles and paths (a new trace, a reset).
func (p *traceParser) resetComm() {
	p.comm = traceComm{handles: map[string]int8{}}
	p.refs["p"] = numbered(map[string]int8{}, MaxCommPaths, "rootinfo path", "read", NullRef)
}

// commHandle maps a recorded COMM argument to a slot.
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

// traceCommID reads an allocation id or a domain (the recorder's number).
func traceCommID(t *traceFields, v tracevocab.Value) {
	if v.Is("named") && v.Int(0) >= 0 && v.Int(0) < 256 {
		t.c.Op.Comm.ID = uint8(v.Int(0))
	} else {
		t.skip("an id past the recorder's table")
	}
}

// traceDescs reads gimport's descriptors' fields, not their handles.
func traceDescs(t *traceFields, v tracevocab.Value) {
	switch r := &t.c.Op.Comm; {
	case v.Is("null"):
		r.Descs = DescsRecipe{Null: true}
	case v.Is("raw"):
		r.Descs = RawDescs(hexBytes(v, 0))
		t.c.NoReplay = "the descriptors' handles, which name windows of other processes, are not recorded"
	}
}

func answerCommInit(p *traceParser, c *TraceCall, a *traceAnswer) {
	r := &c.Op.Comm
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

// answerCommDestroy frees the slot whatever comm_destroy returned.
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

// RawIDs is the recipe of recorded rank_ids (uint32 little-endian).
func RawIDs(b []byte) IDsRecipe { return IDsRecipe{Raw: rawKey(b)} }

// RawDescs is the recipe of recorded descriptor fields (32 bytes each).
func RawDescs(b []byte) DescsRecipe {
	return DescsRecipe{Raw: rawKey(b), N: uint8(min(len(b)/32, 255))}
}

// RawBytes are the recorded bytes of a raw recipe.
func (r IDsRecipe) RawBytes() []byte   { return rawBytes(r.Raw) }
func (r DescsRecipe) RawBytes() []byte { return rawBytes(r.Raw) }
