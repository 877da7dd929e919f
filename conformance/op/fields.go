package op

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi/tracevocab"
)

// A kind's text form is its field list (kindDef.fields): positional fields
// in order, then key=value fields; Parse, String and the trace reading
// derive from it. An optional field is written only when its text differs
// from the kind's default op's (kindDef.zero).

type field struct {
	key  string // "" for a positional field
	need bool   // a keyed field that must be given
	// word is a positional word that stands alone (hostlog null).
	word string
	read func(p *opParser, v string)
	text func(o Op) string
	init func(o *Op) // sets what the field is when absent (nil: zero)
	// A field of several keys (a span, a pointer) reads them itself (take)
	// and writes its key=value parts (parts).
	take  func(p *opParser)
	parts func(o Op) []string
	// rec reads the field's recorded value (nil: the kind's trace form
	// does); gone is what a record that lacks the field leaves.
	rec  func(t *traceFields, v tracevocab.Value)
	gone func(t *traceFields)
	// samples are valid texts (a group's: its parts, space separated) for
	// the round-trip test.
	samples []string
}

// opt makes f optional.
func opt(f field) field { f.need = false; return f }

// dflt makes f optional with the value init sets when it is absent.
func dflt(f field, init func(o *Op)) field { f.need, f.init = false, init; return f }

// present is an optional f whose presence is *at: present, it is written
// whatever its value.
func present(at func(*Op) *bool, f field) field {
	read, text, rec := f.read, f.text, f.rec
	f.need = false
	f.read = func(p *opParser, v string) { *at(&p.op) = true; read(p, v) }
	f.rec = func(t *traceFields, v tracevocab.Value) { *at(&t.c.Op) = true; rec(t, v) }
	f.text = func(o Op) string {
		if !*at(&o) {
			return ""
		}
		return text(o)
	}
	return f
}

func traced(f field, rec func(t *traceFields, v tracevocab.Value)) field { f.rec = rec; return f }

// also adds a check of the value read to f, whose valid texts are samples.
func also(f field, check func(p *opParser, v string), samples ...string) field {
	read := f.read
	f.samples = samples
	f.read = func(p *opParser, v string) {
		if read(p, v); p.err == nil {
			check(p, v)
		}
	}
	return f
}

type integer interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64
}

// nat is a decimal in [lo, hi] held in *at (a narrower signed *at holds
// it wrapped; its text unwraps it).
func nat[T integer](key string, lo, hi uint64, at func(*Op) *T) field {
	mask := uint64(1)<<bits.Len64(hi) - 1
	return field{key: key, need: true, samples: []string{strconv.FormatUint(lo, 10), strconv.FormatUint(hi, 10)},
		read: func(p *opParser, v string) {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil || n < lo || n > hi {
				p.fail("bad %s=%q (want %d..%d)", key, v, lo, hi)
			}
			*at(&p.op) = T(n)
		},
		text: func(o Op) string { return strconv.FormatUint(uint64(*at(&o))&mask, 10) },
		rec:  func(t *traceFields, v tracevocab.Value) { *at(&t.c.Op) = T(min(v.Uint(0), hi)) },
	}
}

// num is a signed decimal in [lo, hi] held in *at.
func num[T integer](key string, lo, hi int64, at func(*Op) *T) field {
	samples := []string{strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10)}
	if lo < 0 {
		samples = append(samples, "0")
	}
	return field{key: key, need: true, samples: samples,
		read: func(p *opParser, v string) {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < lo || n > hi {
				p.fail("bad %s=%q (want %d..%d)", key, v, lo, hi)
			}
			*at(&p.op) = T(n)
		},
		text: func(o Op) string { return strconv.FormatInt(int64(*at(&o)), 10) },
		rec:  func(t *traceFields, v tracevocab.Value) { *at(&t.c.Op) = T(max(lo, min(hi, v.Int(0)))) },
	}
}

func i32[T integer](key string, at func(*Op) *T) field {
	return num(key, math.MinInt32, math.MaxInt32, at)
}
func u64(key string, at func(*Op) *uint64) field { return nat(key, 0, math.MaxUint64, at) }
func u8(key string, at func(*Op) *uint8) field   { return nat(key, 0, math.MaxUint8, at) }

// ref is a numbered reference, prefix then 0..n-1 (c3, s1, h0, p2, 3), or
// null (NullRef) when nullable.
func ref(noun, key, prefix string, n int, nullable bool, at func(*Op) *int8) field {
	want := prefix + "0.." + prefix + strconv.Itoa(n-1)
	samples := []string{prefix + "0", prefix + strconv.Itoa(n-1)}
	if nullable {
		want += " or null"
		samples = append(samples, "null")
	}
	return field{key: key, need: true, samples: samples,
		read: func(p *opParser, v string) {
			if v == "null" && nullable {
				*at(&p.op) = NullRef
				return
			}
			i, err := strconv.Atoi(strings.TrimPrefix(v, prefix))
			if !strings.HasPrefix(v, prefix) || err != nil || i < 0 || i >= n {
				p.fail("bad %s %q (want %s)", noun, v, want)
			}
			*at(&p.op) = int8(i)
		},
		text: func(o Op) string { return refText(prefix, *at(&o)) },
		rec:  traceRef(prefix, at),
	}
}

func refText(prefix string, i int8) string {
	if i < 0 {
		return "null"
	}
	return prefix + strconv.Itoa(int(i))
}

var (
	ctxArg    = ref("context", "", "c", MaxSlots, true, func(o *Op) *int8 { return &o.C })
	slotArg   = ref("context", "", "c", MaxSlots, false, func(o *Op) *int8 { return &o.C })
	slot2Arg  = ref("context", "", "c", MaxSlots, false, func(o *Op) *int8 { return &o.C2 })
	streamKey = streamGone(ref("stream", "stream", "s", MaxStreams, true, func(o *Op) *int8 { return &o.Stream }))
	devKey    = i32("dev", func(o *Op) *int32 { return &o.Dev })
	genKey    = u64("gen", func(o *Op) *uint64 { return &o.Gen })
	idKey     = i32("id", func(o *Op) *int32 { return &o.ID })
	imgKey    = image("img", func(o *Op) *ImageRecipe { return &o.Img })
	argsKey   = opt(recipe("args", (*opParser).args, ArgsRecipe.String, func(o *Op) *ArgsRecipe { return &o.Args },
		"match", "null", "exact(t=1,s=0,host)", "match(dt=-1,alien,junk)"))
	repKey = opt(nat("rep", 1, math.MaxUint32, func(o *Op) *uint32 { return &o.Rep }))
)

// enum is one of names (from index lo on).
func enum[T ~uint8](key string, names []string, lo T, at func(*Op) *T) field {
	var samples []string
	for _, n := range names[lo:] {
		if n != "" {
			samples = append(samples, n)
		}
	}
	return field{key: key, need: true, samples: samples,
		read: func(p *opParser, v string) {
			for i := int(lo); i < len(names); i++ {
				if names[i] == v && v != "" {
					*at(&p.op) = T(i)
					return
				}
			}
			p.fail("unknown %s=%q", key, v)
		},
		text: func(o Op) string { return names[*at(&o)] },
		// A recorded value names its variant (a span's halfptr).
		rec: func(t *traceFields, v tracevocab.Value) {
			for i := int(lo); i < len(names); i++ {
				if names[i] == v.Variant && v.Variant != "" {
					*at(&t.c.Op) = T(i)
				}
			}
		},
	}
}

func spanKey(i int) field {
	return opt(enum(spanKeys[i], spanNames[:], 0, func(o *Op) *SpanRecipe { return &o.Spans[i] }))
}

// nullFlag is key=null, a NULL pointer; other, when not "", names the
// non-NULL default (out=ptr).
func nullFlag(key, other string, at func(*Op) *bool) field {
	return field{key: key, samples: []string{"null"},
		read: func(p *opParser, v string) {
			switch {
			case v == "null":
				*at(&p.op) = true
			case v != other || other == "":
				p.fail("bad %s=%q (want %s)", key, v, strings.TrimPrefix(other+" or null", " or "))
			}
		},
		text: func(o Op) string {
			if *at(&o) {
				return "null"
			}
			return other
		},
		rec: func(t *traceFields, v tracevocab.Value) { *at(&t.c.Op) = v.Is("null") },
	}
}

// recipe is a value of its own grammar, read by parse, written by str.
func recipe[T any](key string, parse func(*opParser, string) T, str func(T) string, at func(*Op) *T, samples ...string) field {
	return field{key: key, need: true, samples: samples,
		read: func(p *opParser, v string) { *at(&p.op) = parse(p, v) },
		text: func(o Op) string { return str(*at(&o)) },
	}
}

func image(key string, at func(*Op) *ImageRecipe) field {
	f := recipe(key, (*opParser).image, ImageRecipe.String, at,
		"valid()", "null", "huge", "wrap", "valid(t=2,s=1,c=1,b=64,x=3,nosc,io)+defect(fid-dup)+mis(8)+short(4)+long(64)+u32(9292,5)+edge")
	f.rec = func(t *traceFields, v tracevocab.Value) {
		*at(&t.c.Op) = keep[ImageRecipe](t)(traceImage(v))
		t.imageSkip(*at(&t.c.Op))
	}
	f.gone = func(t *traceFields) { *at(&t.c.Op) = ImageRecipe{Base: ImgRawTrunc}; t.imageSkip(*at(&t.c.Op)) }
	return f
}

func cfgKey(key string) field {
	return traced(recipe(key, (*opParser).cfg, CfgRecipe.String, func(o *Op) *CfgRecipe { return &o.Cfg },
		"ok", "null", "threads=3+swim=-2+depgen+prefix+pmu+dump+scope+anchors+ring=badtask", "unterm+ring=good3"),
		func(t *traceFields, v tracevocab.Value) { t.c.Op.Cfg = keep[CfgRecipe](t)(traceCfg(v, false)) })
}

func (p *opParser) parse() {
	d := defOf(p.op.Kind)
	var pos []field
	for _, f := range d.fields {
		switch {
		case f.word != "" && len(p.pos) == 1 && p.pos[0] == f.word:
			f.read(p, f.word)
			p.done()
			return
		case f.key == "" && f.take == nil && f.word == "":
			pos = append(pos, f)
		}
	}
	if len(p.pos) != len(pos) {
		p.fail("want %d positional argument(s), have %d", len(pos), len(p.pos))
		return
	}
	p.op = d.zero
	for i, f := range pos {
		f.read(p, p.pos[i])
	}
	for _, f := range d.fields {
		switch {
		case f.take != nil:
			f.take(p)
		case f.key != "":
			if v, ok := p.take(f.key, f.need); ok {
				f.read(p, v)
			}
		}
	}
	if d.check != nil {
		d.check(p)
	}
	p.done()
}

func (d *kindDef) format(b *strings.Builder, op Op) {
	w := func(s string) { b.WriteByte(' '); b.WriteString(s) }
	for _, f := range d.fields {
		if f.word != "" && f.text(op) == f.word {
			w(f.word)
			return
		}
	}
	for _, f := range d.fields {
		switch {
		case f.word != "":
		case f.parts != nil:
			for _, s := range f.parts(op) {
				w(s)
			}
		case f.key == "":
			w(f.text(op))
		case f.need || f.text(op) != f.text(d.zero):
			w(f.key + "=" + f.text(op))
		}
	}
}
