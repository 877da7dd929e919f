package op

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// A recipe's text (threads=3+pmu, valid(t=2,nosc)+mis(4), match(dt=1,host))
// is a list of parts: flags (name), values (name=V) and calls (name(V) or
// name(V,W)), declared once per recipe; parseParts and formatParts derive
// its grammar. A part is written when it differs from the zero recipe's
// (or always, when need).

type part[R any] struct {
	name string
	call bool   // name(...) rather than name=V
	args int    // the values it takes (0: a flag)
	need bool   // must be given, and is written even when zero
	once string // the name two parts share when only one may be given
	// read sets the part from its values; a complaint names what it wants.
	read func(r *R, v []string) (complaint string)
	text func(r R) string // the values, comma separated ("" for an unset flag)
}

func flagPart[R any](name string, at func(*R) *bool) part[R] {
	return part[R]{name: name,
		read: func(r *R, _ []string) string { *at(r) = true; return "" },
		text: func(r R) string { return map[bool]string{true: "on"}[*at(&r)] },
	}
}

// numPart is name=N, N in [lo, hi]; nonzero refuses 0 (written by leaving
// the part out).
func numPart[R any, T integer](name string, lo, hi int64, nonzero bool, at func(*R) *T) part[R] {
	return part[R]{name: name, args: 1,
		read: func(r *R, v []string) string {
			n, ok := decimal(v[0], lo, hi)
			if !ok || (nonzero && n == 0) {
				return strconv.FormatInt(lo, 10) + ".." + strconv.FormatInt(hi, 10) + map[bool]string{true: ", not 0"}[nonzero]
			}
			*at(r) = T(n)
			return ""
		},
		text: func(r R) string { return strconv.FormatInt(int64(*at(&r)), 10) },
	}
}

// decimal reads a decimal in [lo, hi] (unsigned when lo >= 0: no sign).
func decimal(s string, lo, hi int64) (int64, bool) {
	if lo >= 0 {
		n, err := strconv.ParseUint(s, 10, 63)
		return int64(n), err == nil && int64(n) >= lo && int64(n) <= hi
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= lo && n <= hi
}

// namePart is name=NAME, one of names from index lo on.
func namePart[R any, T ~uint8](name string, names []string, lo T, at func(*R) *T) part[R] {
	return part[R]{name: name, args: 1,
		read: func(r *R, v []string) string {
			for i := int(lo); i < len(names); i++ {
				if names[i] == v[0] {
					*at(r) = T(i)
					return ""
				}
			}
			return strings.Join(names[lo:], ", ")
		},
		text: func(r R) string { return nameOf(names, *at(&r), "") },
	}
}

func called[R any](pt part[R]) part[R] { pt.call = true; return pt }
func needed[R any](pt part[R]) part[R] { pt.need = true; return pt }

// parseParts reads toks into r by parts; what names the recipe in errors.
func parseParts[R any](p *opParser, what string, parts []part[R], toks []string, r *R) {
	seen := map[string]bool{}
	for _, t := range toks {
		name, vals, isCall := call(t)
		if n, v, ok := strings.Cut(t, "="); ok && !isCall {
			name, vals = n, []string{v}
		}
		i := slices.IndexFunc(parts, func(pt part[R]) bool { return pt.name == name && pt.call == isCall && pt.args == len(vals) })
		if i < 0 {
			p.fail("bad %s %q", what, t)
			return
		}
		pt := &parts[i]
		once := cmp.Or(pt.once, pt.name)
		if seen[once] {
			p.fail("%s %q: %s given twice", what, t, once)
		}
		seen[once] = true
		if why := pt.read(r, vals); why != "" {
			p.fail("bad %s %q (want %s)", what, t, why)
		}
	}
	for _, pt := range parts {
		if pt.need && !seen[pt.name] {
			p.fail("%s needs %s%s", what, pt.name, map[bool]string{false: "=", true: "()"}[pt.call])
		}
	}
}

func formatParts[R any](parts []part[R], r R, sep string) string {
	var zero R
	var out []string
	for _, pt := range parts {
		v := pt.text(r)
		switch {
		case !pt.need && v == pt.text(zero):
		case pt.args == 0:
			out = append(out, pt.name)
		case pt.call:
			out = append(out, pt.name+"("+v+")")
		default:
			out = append(out, pt.name+"="+v)
		}
	}
	return strings.Join(out, sep)
}

var (
	cfgParts = []part[CfgRecipe]{
		flagPart("null", func(c *CfgRecipe) *bool { return &c.Null }),
		numPart("threads", -128, 127, true, func(c *CfgRecipe) *int8 { return &c.Threads }),
		numPart("swim", -128, 127, true, func(c *CfgRecipe) *int8 { return &c.Swim }),
		flagPart("depgen", func(c *CfgRecipe) *bool { return &c.DepGen }),
		flagPart("prefix", func(c *CfgRecipe) *bool { return &c.Prefix }),
		flagPart("unterm", func(c *CfgRecipe) *bool { return &c.Unterm }),
		flagPart("pmu", func(c *CfgRecipe) *bool { return &c.PMU }),
		flagPart("dump", func(c *CfgRecipe) *bool { return &c.Dump }),
		flagPart("scope", func(c *CfgRecipe) *bool { return &c.Scope }),
		flagPart("anchors", func(c *CfgRecipe) *bool { return &c.Anchors }),
		namePart("ring", ringNames[:], RingGood, func(c *CfgRecipe) *RingRecipe { return &c.Ring }),
	}
	argsFlags = []part[ArgsRecipe]{
		flagPart("host", func(a *ArgsRecipe) *bool { return &a.Host }),
		flagPart("alien", func(a *ArgsRecipe) *bool { return &a.Alien }),
		flagPart("hostlast", func(a *ArgsRecipe) *bool { return &a.HostLast }),
		flagPart("junk", func(a *ArgsRecipe) *bool { return &a.Junk }),
	}
	// match(dt=,ds=,...): deltas on the callable's counts; exact(t=,s=,...)
	// the counts.
	matchParts = append(argsCounts("dt", "ds", false), argsFlags...)
	exactParts = append(argsCounts("t", "s", true), argsFlags...)
	imgParams  = []part[ImageRecipe]{
		numPart("t", 0, 1<<16-1, false, func(r *ImageRecipe) *uint16 { return &r.T }),
		numPart("s", 0, 1<<16-1, false, func(r *ImageRecipe) *uint16 { return &r.S }),
		numPart("c", 0, 1<<16-1, false, func(r *ImageRecipe) *uint16 { return &r.C }),
		numPart("b", 0, 1<<32-1, false, func(r *ImageRecipe) *uint32 { return &r.B }),
		numPart("x", 0, 1<<16-1, false, func(r *ImageRecipe) *uint16 { return &r.X }),
		flagPart("nosc", func(r *ImageRecipe) *bool { return &r.NoSC }),
		flagPart("io", func(r *ImageRecipe) *bool { return &r.IO }),
	}
	imgMods = []part[ImageRecipe]{
		called(namePart("defect", defectNames[:], DefSigCount, func(r *ImageRecipe) *ImgDefect { return &r.Defect })),
		called(numPart("mis", 1, 15, false, func(r *ImageRecipe) *uint8 { return &r.Mis })),
		called(numPart("short", 1, 1<<32-1, false, func(r *ImageRecipe) *uint32 { return &r.Short })),
		called(numPart("long", 1, 1<<20, false, func(r *ImageRecipe) *uint32 { return &r.Long })),
		pokePart("byte", PokeByte, 1<<8-1),
		pokePart("u32", PokeU32, 1<<32-1),
		flagPart("edge", func(r *ImageRecipe) *bool { return &r.Edge }),
	}
)

func argsCounts(t, s string, need bool) []part[ArgsRecipe] {
	pt := []part[ArgsRecipe]{
		numPart(t, -1<<15, 1<<15-1, false, func(a *ArgsRecipe) *int16 { return &a.T }),
		numPart(s, -1<<15, 1<<15-1, false, func(a *ArgsRecipe) *int16 { return &a.S }),
	}
	pt[0].need, pt[1].need = need, need
	return pt
}

// pokePart is name(OFF,VAL): one corrupted byte or 32-bit field (one an
// image).
func pokePart(name string, kind PokeKind, max int64) part[ImageRecipe] {
	pt := pairPart(name, 1<<32-1, max, func(r *ImageRecipe, off, val int64) {
		r.Poke, r.PokeOff, r.PokeVal = kind, uint32(off), uint32(val)
	}, func(r ImageRecipe) (int64, int64, bool) { return int64(r.PokeOff), int64(r.PokeVal), r.Poke == kind })
	pt.once = "poke"
	return pt
}

// pairPart is name(A,B), A in [0, maxA] and B in [0, maxB] (get false:
// absent).
func pairPart[R any](name string, maxA, maxB int64, set func(r *R, a, b int64), get func(r R) (int64, int64, bool)) part[R] {
	return part[R]{name: name, call: true, args: 2,
		read: func(r *R, v []string) string {
			a, okA := decimal(v[0], 0, maxA)
			b, okB := decimal(v[1], 0, maxB)
			if !okA || !okB {
				return "0.." + strconv.FormatInt(maxA, 10) + ", 0.." + strconv.FormatInt(maxB, 10)
			}
			set(r, a, b)
			return ""
		},
		text: func(r R) string {
			if a, b, ok := get(r); ok {
				return strconv.FormatInt(a, 10) + "," + strconv.FormatInt(b, 10)
			}
			return ""
		},
	}
}

// idsParts: fill(V), every entry V, then at(K,W), entry K W.
var idsParts = []part[IDsRecipe]{
	needed(called(numPart("fill", 0, 1<<32-1, false, func(r *IDsRecipe) *uint32 { return &r.Fill }))),
	pairPart("at", 255, 1<<32-1, func(r *IDsRecipe, k, w int64) { r.AtSet, r.At, r.Val = true, uint8(k), uint32(w) },
		func(r IDsRecipe) (int64, int64, bool) { return int64(r.At), int64(r.Val), r.AtSet }),
}
