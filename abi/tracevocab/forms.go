// Package tracevocab is the one definition of the words of a recorded
// session (docs/trace.md): the shape of a trace's lines, the op word,
// arguments and result of every entry of the symbol table, the spelling of
// every value form, and the in-flight records a process leaves when it dies
// inside a call. The recording runtime's C is generated from it (sim/emit:
// a writer function per spelling, so a spelling the table drops does not
// compile and one the recorder never writes fails the generation), and the
// trace parser (conformance) accepts exactly what it lexes. It imports only
// abi and the standard library, so that both sides can import it: sim/emit
// may not import conformance, and conformance does not import sim/emit.
package tracevocab

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi"
)

// Version is the trace format the recorder writes ("# simabi trace v2").
// Version 2 records the address space of every tensor a launch reads
// (ARGS as=) and leaves in-flight records (Inflight); a version 1 trace is
// still read (its ARGS host= form).
const Version = 2

// OldestVersion is the oldest trace format the parser reads.
const OldestVersion = 1

// ArgsMaxSpaces is the most tensors whose address space ARGS records
// (ChipStorageTaskArgs holds that many).
const ArgsMaxSpaces = abi.ChipMaxTensorArgs

// Hole is a variable part of a spelling.
type Hole uint8

// Holes.
const (
	HoleInt  Hole = iota + 1 // a signed decimal (int64)
	HoleUint                 // an unsigned decimal (uint64)
	HoleHex                  // lower-case hex, two digits per byte, in memory order
	HoleWord                 // an identifier (an entry's name): letters, digits, '_'
)

func (h Hole) String() string {
	switch h {
	case HoleInt:
		return "N"
	case HoleUint:
		return "U"
	case HoleHex:
		return "HEX"
	case HoleWord:
		return "NAME"
	}
	return "?"
}

// Piece is a literal or a hole of a spelling.
type Piece struct {
	Lit  string
	Hole Hole
	// Name names the hole in the documentation ("N", "A", "T"); "" is the
	// hole's kind.
	Name string
}

func lit(s string) Piece             { return Piece{Lit: s} }
func hole(h Hole, name string) Piece { return Piece{Hole: h, Name: name} }

// Variant is one spelling of a form.
type Variant struct {
	Name   string // the variant's name in code ("null", "bytes", ...)
	Pieces []Piece
	Doc    string // what it stands for
	// Until is the first trace version that no longer writes it (0: the
	// current recorder writes it). A parser reads it only from older traces.
	Until int
}

// Spelling renders the variant with its holes named ("bytes(N)").
func (v Variant) Spelling() string {
	var b strings.Builder
	for _, p := range v.Pieces {
		if p.Hole == 0 {
			b.WriteString(p.Lit)
		} else if p.Name != "" {
			b.WriteString(p.Name)
		} else {
			b.WriteString(p.Hole.String())
		}
	}
	return b.String()
}

// Holes are the variant's holes in order.
func (v Variant) Holes() []Hole {
	var out []Hole
	for _, p := range v.Pieces {
		if p.Hole != 0 {
			out = append(out, p.Hole)
		}
	}
	return out
}

// Form is how one value of a trace line is written: a closed set of
// variants.
type Form uint8

// Forms of values (arguments and results).
const (
	Ctx      Form = iota + 1 // a context: cN, null, c?
	Int                      // a signed decimal
	Uint                     // an unsigned decimal
	Span                     // a (pointer, size) pair of executor bytes
	Cfg                      // a CallConfig
	Img                      // prepare's image (pointer and size)
	RegImg                   // register's image (its size from its header)
	Args                     // a ChipStorageTaskArgs
	Stream                   // a caller stream
	Storage                  // a run storage (RuntimeHandle)
	Desc                     // a NativeRunDescriptor
	Device                   // setdev's device
	NullFlag                 // out=null: present only when the pointer is NULL
	Name                     // call's entry name
	Ptr                      // a pointer result
	Done                     // a void result
	LineDev                  // the dev= of a line: the calling thread's current device
	// The comm family (E-COMM).
	CommHandle // a comm handle: hN, null, h?
	CommPath   // a rootinfo path, numbered by its text
	CommAlloc  // an allocation id, numbered by its value
	CommDomain // a global domain id: d0 is 0, the others numbered by value
	RankIDs    // a rank_ids array
	CommDescs  // gimport's descriptors
	numForms
)

type formDef struct {
	name     string // as docs/trace.md calls it
	variants []Variant
}

// Words every form shares.
const (
	wNull = "null"
	wBad  = "bad"
)

var forms = [numForms]formDef{
	Ctx: {"CTX", []Variant{
		{Name: "named", Pieces: []Piece{lit("c"), hole(HoleInt, "N")}, Doc: "the context the N-th successful create of this process returned"},
		{Name: "null", Pieces: []Piece{lit(wNull)}, Doc: "NULL"},
		{Name: "unknown", Pieces: []Piece{lit("c?")}, Doc: "a pointer no create of this process returned (or, as create's result, a context the recorder could not name)"},
	}},
	Int:  {"N", []Variant{{Name: "n", Pieces: []Piece{hole(HoleInt, "N")}, Doc: "a signed decimal"}}},
	Uint: {"U", []Variant{{Name: "n", Pieces: []Piece{hole(HoleUint, "U")}, Doc: "an unsigned decimal"}}},
	Span: {"SPAN", []Variant{
		{Name: "none", Pieces: []Piece{lit("none")}, Doc: "(NULL, 0)"},
		{Name: "halfptr", Pieces: []Piece{lit("halfptr")}, Doc: "(pointer, 0)"},
		{Name: "halfsize", Pieces: []Piece{lit("halfsize")}, Doc: "(NULL, size)"},
		{Name: "bytes", Pieces: []Piece{lit("bytes("), hole(HoleUint, "N"), lit(")")}, Doc: "(pointer, N > 0); the bytes are not recorded"},
	}},
	Cfg: {"CFG", []Variant{
		{Name: "null", Pieces: []Piece{lit(wNull)}, Doc: "NULL"},
		{Name: "raw", Pieces: []Piece{lit("raw("), hole(HoleHex, "HEX"), lit(")")}, Doc: "the CallConfig's bytes (1148; 1144 in the legacy revision)"},
		{Name: "bad", Pieces: []Piece{lit(wBad)}, Doc: "not NULL, but its bytes cannot be read"},
	}},
	Img: {"IMG", []Variant{
		{Name: "null", Pieces: []Piece{lit(wNull)}, Doc: "NULL"},
		{Name: "raw", Pieces: []Piece{lit("raw("), hole(HoleUint, "N"), lit(","), hole(HoleUint, "A"), lit(","), hole(HoleHex, "HEX"), lit(")")},
			Doc: "N bytes at an address A bytes past a 64-byte boundary"},
		{Name: "trunc", Pieces: []Piece{lit("raw("), hole(HoleUint, "N"), lit(","), hole(HoleUint, "A"), lit(",trunc)")},
			Doc: "N exceeds the image limit, or the bytes cannot be read"},
	}},
	RegImg: {"IMG", []Variant{
		{Name: "null", Pieces: []Piece{lit(wNull)}, Doc: "NULL"},
		{Name: "raw", Pieces: []Piece{lit("raw("), hole(HoleUint, "N"), lit(","), hole(HoleUint, "A"), lit(","), hole(HoleHex, "HEX"), lit(")")},
			Doc: "the N bytes the image's header describes, at an address A bytes past a 64-byte boundary"},
		{Name: "trunc", Pieces: []Piece{lit("raw(?,"), hole(HoleUint, "A"), lit(",trunc)")},
			Doc: "the header's size is implausible or over the image limit"},
	}},
	Args: {"ARGS", []Variant{
		{Name: "null", Pieces: []Piece{lit(wNull)}, Doc: "NULL"},
		{Name: "raw", Pieces: []Piece{lit("raw(t="), hole(HoleInt, "T"), lit(",s="), hole(HoleInt, "S"), lit(",as="), hole(HoleHex, "HEX"), lit(")")},
			Doc: "tensor_count, scalar_count and the address_space byte of each of the first min(T, 256) tensors (none when T <= 0)"},
		{Name: "bad", Pieces: []Piece{lit(wBad)}, Doc: "not NULL, but the fields cannot be read"},
		{Name: "host", Pieces: []Piece{lit("raw(t="), hole(HoleInt, "T"), lit(",s="), hole(HoleInt, "S"), lit(",host="), hole(HoleInt, "H"), lit(")")},
			Doc: "version 1: the counts, and H = 1 when T > 0 and tensor 0's address space is HOST", Until: 2},
	}},
	Stream: {"STREAM", []Variant{
		{Name: "named", Pieces: []Piece{lit("s"), hole(HoleInt, "N")}, Doc: "streams numbered by first appearance of their pointer value"},
		{Name: "null", Pieces: []Piece{lit(wNull)}, Doc: "NULL"},
		{Name: "unknown", Pieces: []Piece{lit("s?")}, Doc: "a stream the recorder could not number (out of memory)"},
	}},
	Storage: {"ST", []Variant{
		{Name: "named", Pieces: []Piece{hole(HoleInt, "N")}, Doc: "run storages (RuntimeHandle) numbered by first appearance"},
		{Name: "null", Pieces: []Piece{lit(wNull)}, Doc: "NULL"},
		{Name: "unknown", Pieces: []Piece{lit("?")}, Doc: "a storage the recorder could not number (out of memory)"},
	}},
	Desc: {"DESC", []Variant{
		{Name: "null", Pieces: []Piece{lit(wNull)}, Doc: "NULL"},
		{Name: "raw", Pieces: []Piece{lit("raw("), hole(HoleHex, "HEX"), lit(")")}, Doc: "the NativeRunDescriptor's 56 bytes"},
		{Name: "bad", Pieces: []Piece{lit(wBad)}, Doc: "not NULL, but its bytes cannot be read"},
	}},
	Device: {"D", []Variant{
		{Name: "n", Pieces: []Piece{hole(HoleInt, "D")}, Doc: "a device >= 0"},
		{Name: "none", Pieces: []Piece{lit("none")}, Doc: "a negative device: no current device"},
	}},
	NullFlag: {"null", []Variant{{Name: "null", Pieces: []Piece{lit(wNull)}, Doc: "the pointer is NULL (the field is absent otherwise)"}}},
	Name:     {"NAME", []Variant{{Name: "name", Pieces: []Piece{hole(HoleWord, "NAME")}, Doc: "the entry's name"}}},
	Ptr: {"PTR", []Variant{
		{Name: "ptr", Pieces: []Piece{lit("ptr")}, Doc: "a pointer that is not NULL"},
		{Name: "null", Pieces: []Piece{lit(wNull)}, Doc: "NULL"},
	}},
	Done: {"done", []Variant{{Name: "done", Pieces: []Piece{lit("done")}, Doc: "a void entry returned"}}},
	LineDev: {"DEV", []Variant{
		{Name: "n", Pieces: []Piece{hole(HoleInt, "D")}, Doc: "the device"},
		{Name: "none", Pieces: []Piece{lit("none")}, Doc: "no current device"},
		{Name: "unknown", Pieces: []Piece{lit("?")}, Doc: "neither the target's simabi_current_device nor ACL is there to ask"},
	}},
	CommHandle: {"COMM", []Variant{
		{Name: "named", Pieces: []Piece{lit("h"), hole(HoleInt, "N")}, Doc: "the handle the N-th successful comm_init of this process returned"},
		{Name: "null", Pieces: []Piece{lit(wNull)}, Doc: "NULL"},
		{Name: "unknown", Pieces: []Piece{lit("h?")}, Doc: "a handle no comm_init of this process returned (or, as comm_init's result, one the recorder could not name)"},
	}},
	CommPath: {"PATH", []Variant{
		{Name: "named", Pieces: []Piece{lit("p"), hole(HoleInt, "N")}, Doc: "rootinfo paths numbered by first appearance of their text (the text is not recorded)"},
		{Name: "null", Pieces: []Piece{lit(wNull)}, Doc: "NULL"},
		{Name: "unknown", Pieces: []Piece{lit("p?")}, Doc: "a path the recorder could not read or number"},
	}},
	CommAlloc: {"ALLOC", []Variant{
		{Name: "named", Pieces: []Piece{lit("a"), hole(HoleInt, "N")}, Doc: "allocation ids numbered by first appearance of their value"},
		{Name: "unknown", Pieces: []Piece{lit("a?")}, Doc: "an id past the recorder's table"},
	}},
	CommDomain: {"DOMAIN", []Variant{
		{Name: "named", Pieces: []Piece{lit("d"), hole(HoleInt, "N")}, Doc: "d0 is domain_id 0; the other ids numbered from 1 by first appearance of their value"},
		{Name: "unknown", Pieces: []Piece{lit("d?")}, Doc: "an id past the recorder's table"},
	}},
	RankIDs: {"IDS", []Variant{
		{Name: "null", Pieces: []Piece{lit(wNull)}, Doc: "NULL"},
		{Name: "raw", Pieces: []Piece{lit("raw("), hole(HoleHex, "HEX"), lit(")")}, Doc: "the first min(rank_count, 64) entries (uint32, little-endian)"},
		{Name: "bad", Pieces: []Piece{lit(wBad)}, Doc: "not NULL, but the entries cannot be read"},
	}},
	CommDescs: {"DESCS", []Variant{
		{Name: "null", Pieces: []Piece{lit(wNull)}, Doc: "NULL"},
		{Name: "raw", Pieces: []Piece{lit("raw("), hole(HoleHex, "HEX"), lit(")")},
			Doc: "the fields (the first 32 bytes) of each of the first min(descriptor_count, 64) descriptors; not their handles"},
		{Name: "bad", Pieces: []Piece{lit(wBad)}, Doc: "not NULL, but the descriptors cannot be read"},
	}},
}

// Forms lists every form.
func Forms() []Form {
	out := make([]Form, 0, numForms-1)
	for f := Form(1); f < numForms; f++ {
		out = append(out, f)
	}
	return out
}

// Name is the form's name in docs/trace.md.
func (f Form) Name() string {
	if f == 0 || f >= numForms {
		return fmt.Sprintf("form(%d)", uint8(f))
	}
	return forms[f].name
}

// GoName is the form's identifier (the constant's name).
func (f Form) GoName() string {
	return [...]string{"", "Ctx", "Int", "Uint", "Span", "Cfg", "Img", "RegImg", "Args", "Stream", "Storage", "Desc",
		"Device", "NullFlag", "Name", "Ptr", "Done", "LineDev", "CommHandle", "CommPath", "CommAlloc", "CommDomain", "RankIDs",
		"CommDescs"}[f]
}

// Variants are the form's spellings, the ones older traces used included.
func (f Form) Variants() []Variant {
	if f == 0 || f >= numForms {
		return nil
	}
	return forms[f].variants
}

// Variant is the form's variant named name.
func (f Form) Variant(name string) (Variant, bool) {
	for _, v := range f.Variants() {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// Field is the text of one hole of a lexed value.
type Field struct {
	Hole Hole
	Text string
	I    int64  // HoleInt
	U    uint64 // HoleUint
}

// Value is a lexed value: which variant, and its holes.
type Value struct {
	Form    Form
	Variant string
	Fields  []Field
	Source  string // the text lexed
}

// Is reports whether v is of variant name.
func (v Value) Is(name string) bool { return v.Variant == name }

// Int is the i-th hole as a signed number.
func (v Value) Int(i int) int64 { return v.Fields[i].I }

// Uint is the i-th hole as an unsigned number.
func (v Value) Uint(i int) uint64 { return v.Fields[i].U }

// Text is the i-th hole's text.
func (v Value) Text(i int) string { return v.Fields[i].Text }

// Lex reads s as a value of f, written by a trace of the given version:
// the first variant whose spelling it matches.
func (f Form) Lex(s string, version int) (Value, error) {
	for _, v := range f.Variants() {
		if v.Until != 0 && version >= v.Until {
			continue
		}
		if fields, ok := match(v.Pieces, s); ok {
			return Value{Form: f, Variant: v.Name, Fields: fields, Source: s}, nil
		}
	}
	return Value{}, fmt.Errorf("bad %s %q", f.Name(), clip(s))
}

func clip(s string) string {
	if len(s) > 48 {
		return s[:48] + "..."
	}
	return s
}

// match matches s against pieces; each hole takes the longest run of its
// characters.
func match(pieces []Piece, s string) ([]Field, bool) {
	var fields []Field
	for _, p := range pieces {
		if p.Hole == 0 {
			if !strings.HasPrefix(s, p.Lit) {
				return nil, false
			}
			s = s[len(p.Lit):]
			continue
		}
		n := 0
		for n < len(s) && holeChar(p.Hole, s[n], n) {
			n++
		}
		f := Field{Hole: p.Hole, Text: s[:n]}
		var err error
		switch p.Hole {
		case HoleInt:
			f.I, err = strconv.ParseInt(f.Text, 10, 64)
		case HoleUint:
			f.U, err = strconv.ParseUint(f.Text, 10, 64)
		case HoleHex:
			if n%2 != 0 {
				return nil, false
			}
		case HoleWord:
			if n == 0 {
				return nil, false
			}
		}
		if err != nil {
			return nil, false
		}
		fields = append(fields, f)
		s = s[n:]
	}
	return fields, s == ""
}

func holeChar(h Hole, c byte, i int) bool {
	switch h {
	case HoleInt:
		return c >= '0' && c <= '9' || (i == 0 && c == '-')
	case HoleUint:
		return c >= '0' && c <= '9'
	case HoleHex:
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
	case HoleWord:
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
	}
	return false
}

// Spell writes variant name of f with its holes filled in order (int64 for
// HoleInt, uint64 for HoleUint, []byte for HoleHex, string for HoleWord).
func (f Form) Spell(name string, holes ...any) (string, error) {
	v, ok := f.Variant(name)
	if !ok {
		return "", fmt.Errorf("tracevocab: %s has no variant %q", f.Name(), name)
	}
	var b strings.Builder
	k := 0
	for _, p := range v.Pieces {
		if p.Hole == 0 {
			b.WriteString(p.Lit)
			continue
		}
		if k >= len(holes) {
			return "", fmt.Errorf("tracevocab: %s %s: %d holes given, more needed", f.Name(), name, len(holes))
		}
		switch x := holes[k].(type) {
		case int64:
			b.WriteString(strconv.FormatInt(x, 10))
		case uint64:
			b.WriteString(strconv.FormatUint(x, 10))
		case []byte:
			const digits = "0123456789abcdef"
			for _, c := range x {
				b.WriteByte(digits[c>>4])
				b.WriteByte(digits[c&15])
			}
		case string:
			b.WriteString(x)
		default:
			return "", fmt.Errorf("tracevocab: %s %s: hole %d is a %T", f.Name(), name, k, x)
		}
		k++
	}
	if k != len(holes) {
		return "", fmt.Errorf("tracevocab: %s %s: %d holes given, %d used", f.Name(), name, len(holes), k)
	}
	return b.String(), nil
}

// Sample is a spelling of the variant with example holes (for tests and
// documentation): 3 for numbers, "abcd" for hex, the name for a word.
func (v Variant) Sample() string {
	var b strings.Builder
	for _, p := range v.Pieces {
		switch p.Hole {
		case 0:
			b.WriteString(p.Lit)
		case HoleInt, HoleUint:
			b.WriteString("3")
		case HoleHex:
			b.WriteString("abcd")
		case HoleWord:
			b.WriteString(abi.EntryCommBarrier.Name())
		}
	}
	return b.String()
}
