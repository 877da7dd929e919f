package op

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi/tracevocab"
)

// ErrSyntax is wrapped by every parse error.
var ErrSyntax = errors.New("conformance: bad op")

func syntaxf(f string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrSyntax, fmt.Sprintf(f, a...))
}

// Parse reads the one-line text form of an op (see the package doc for the
// grammar). Parse(op.String()) == op for every op the package produces.
func Parse(line string) (Op, error) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return Op{}, syntaxf("empty line")
	}
	var op Op
	op.Kind, _ = KindByName(fields[0])
	if op.Kind == KindInvalid {
		return Op{}, syntaxf("unknown op %q", fields[0])
	}
	var pos []string
	kv := map[string]string{}
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			pos = append(pos, f)
			continue
		}
		if k == "" || v == "" {
			return Op{}, syntaxf("%s: malformed argument %q", op.Kind, f)
		}
		if _, dup := kv[k]; dup {
			return Op{}, syntaxf("%s: argument %q given twice", op.Kind, k)
		}
		kv[k] = v
	}
	p := opParser{op: op, pos: pos, kv: kv}
	p.parse()
	if p.err != nil {
		return Op{}, p.err
	}
	return p.op, nil
}

// MustParse is Parse for ops written in source; it panics on a syntax error.
func MustParse(line string) Op {
	op, err := Parse(line)
	if err != nil {
		panic(err)
	}
	return op
}

// ParseScript reads one op per line; blank lines and text after '#' are
// ignored. Errors name the line.
func ParseScript(text string) ([]Op, error) {
	var ops []Op
	for i, line := range strings.Split(text, "\n") {
		if j := strings.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		op, err := Parse(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if n := len(ops); n > 0 && ops[n-1].Kind == KindUnload {
			return nil, fmt.Errorf("line %d: nothing may follow unload (the library is gone)", i+1)
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// MustParseScript is ParseScript for scripts written in source.
func MustParseScript(text string) []Op {
	ops, err := ParseScript(text)
	if err != nil {
		panic(err)
	}
	return ops
}

type opParser struct {
	op  Op
	pos []string
	kv  map[string]string
	err error
}

func (p *opParser) fail(f string, a ...any) {
	if p.err == nil {
		p.err = syntaxf("%s: %s", p.op.Kind, fmt.Sprintf(f, a...))
	}
}

// take removes key from the remaining arguments.
func (p *opParser) take(key string, required bool) (string, bool) {
	v, ok := p.kv[key]
	if !ok {
		if required {
			p.fail("missing %s=", key)
		}
		return "", false
	}
	delete(p.kv, key)
	return v, true
}

func (p *opParser) done() {
	for k := range p.kv {
		p.fail("unknown argument %s=", k)
		return
	}
}

func (p *opParser) uintv(key, s string, bits int) uint64 {
	n, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		p.fail("bad %s %q", key, s)
	}
	return n
}

func (p *opParser) cfg(s string) CfgRecipe {
	var c CfgRecipe
	if s == "ok" {
		return c
	}
	for _, t := range strings.Split(s, "+") {
		k, v, hasV := strings.Cut(t, "=")
		switch {
		case k == "null" && !hasV:
			c.Null = true
		case k == "threads" && hasV:
			n, err := strconv.ParseInt(v, 10, 8)
			if err != nil || n == 0 {
				p.fail("bad cfg threads=%q", v)
			}
			c.Threads = int8(n)
		case k == "swim" && hasV:
			n, err := strconv.ParseInt(v, 10, 8)
			if err != nil || n == 0 {
				p.fail("bad cfg swim=%q", v)
			}
			c.Swim = int8(n)
		case k == "ring" && hasV:
			found := false
			for r := RingGood; r < NumRings; r++ {
				if ringNames[r] == v {
					c.Ring, found = r, true
				}
			}
			if !found {
				p.fail("bad cfg ring=%q", v)
			}
		case !hasV && (k == "depgen" || k == "prefix" || k == "unterm" || k == "pmu" || k == "dump" || k == "scope" || k == "anchors"):
			*map[string]*bool{"depgen": &c.DepGen, "prefix": &c.Prefix, "unterm": &c.Unterm, "pmu": &c.PMU,
				"dump": &c.Dump, "scope": &c.Scope, "anchors": &c.Anchors}[k] = true
		default:
			p.fail("bad cfg flag %q", t)
		}
	}
	if c.Null && c != (CfgRecipe{Null: true}) {
		p.fail("cfg null takes no other flags")
	}
	if c.Prefix && c.Unterm {
		p.fail("cfg prefix and unterm exclude each other")
	}
	return c
}

// splitTop splits s at sep outside parentheses.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// call splits "name(a,b)" into name and its arguments.
func call(s string) (string, []string, bool) {
	i := strings.IndexByte(s, '(')
	if i < 0 || !strings.HasSuffix(s, ")") {
		return s, nil, false
	}
	inner := s[i+1 : len(s)-1]
	if inner == "" {
		return s[:i], nil, true
	}
	return s[:i], strings.Split(inner, ","), true
}

func (p *opParser) image(s string) ImageRecipe {
	if strings.HasPrefix(s, "raw(") {
		return p.recordedImage(s)
	}
	var r ImageRecipe
	parts := splitTop(s, '+')
	switch parts[0] {
	case "null", "huge", "prog", "wrap":
		if len(parts) > 1 {
			p.fail("image %s takes no modifiers", parts[0])
		}
		return p.bareImage(parts[0])
	}
	name, args, ok := call(parts[0])
	if !ok || name != "valid" {
		p.fail("bad image %q (want valid(...), null, huge or prog)", parts[0])
		return r
	}
	p.imageParams(&r, args)
	if int(r.T)+int(r.S) > 256 || r.S > 128 || r.C > 1024 || r.B > 1<<30 {
		p.fail("image %q exceeds t+s <= 256, s <= 128, c <= 1024, b <= 2^30", parts[0])
	}
	mods := map[string]bool{}
	for _, m := range parts[1:] {
		p.imageModifier(&r, m, mods)
	}
	return r
}

// recordedImage is an image in the trace's spelling, raw(...).
func (p *opParser) recordedImage(s string) ImageRecipe {
	v, err := tracevocab.Img.Lex(s, tracevocab.Version)
	var r ImageRecipe
	if err == nil {
		r, err = traceImage(v)
	}
	if err != nil {
		p.fail("%v", err)
	}
	return r
}

// bareImage is an image without parameters or modifiers: null, huge, wrap,
// or prog (register only).
func (p *opParser) bareImage(base string) ImageRecipe {
	var r ImageRecipe
	switch base {
	case "null":
		r.Base = ImgNull
	case "huge":
		r.Base = ImgHuge
	case "wrap":
		r.Base = ImgWrap
	default:
		if p.op.Kind != KindRegister {
			p.fail("img=prog (the target's program callable) is for register only")
		}
		r.Base = ImgProgram
	}
	return r
}

// imageParams reads valid(...)'s parameters into r.
func (p *opParser) imageParams(r *ImageRecipe, args []string) {
	seen := map[string]bool{}
	for _, a := range args {
		k, v, hasV := strings.Cut(a, "=")
		if seen[k] {
			p.fail("image parameter %s given twice", k)
		}
		seen[k] = true
		if k == "nosc" && !hasV {
			r.NoSC = true
			continue
		}
		if k == "io" && !hasV {
			r.IO = true
			continue
		}
		if !hasV {
			p.fail("bad image parameter %q", a)
			continue
		}
		switch k {
		case "t":
			r.T = uint16(p.uintv("t", v, 16))
		case "s":
			r.S = uint16(p.uintv("s", v, 16))
		case "c":
			r.C = uint16(p.uintv("c", v, 16))
		case "b":
			r.B = uint32(p.uintv("b", v, 32))
		case "x":
			r.X = uint16(p.uintv("x", v, 16))
		default:
			p.fail("bad image parameter %q", a)
		}
	}
}

// imageModifier applies one +modifier m to r; mods holds the ones seen.
func (p *opParser) imageModifier(r *ImageRecipe, m string, mods map[string]bool) {
	if m == "edge" {
		if r.Edge {
			p.fail("image modifier edge given twice")
		}
		r.Edge = true
		return
	}
	name, args, ok := call(m)
	if !ok || mods[name] || (name == "u32" && mods["byte"]) || (name == "byte" && mods["u32"]) {
		p.fail("bad or repeated image modifier %q", m)
		return
	}
	mods[name] = true
	one := func() uint64 {
		if len(args) != 1 {
			p.fail("modifier %s takes one argument", name)
			return 0
		}
		return p.uintv(name, args[0], 32)
	}
	switch name {
	case "defect":
		found := false
		for d := DefSigCount; d < NumDefects; d++ {
			if len(args) == 1 && defectNames[d] == args[0] {
				r.Defect, found = d, true
			}
		}
		if !found {
			p.fail("unknown defect %q", m)
		}
	case "mis":
		n := one()
		if n == 0 || n >= 16 {
			p.fail("mis(k) needs 1 <= k <= 15")
		}
		r.Mis = uint8(n)
	case "short":
		if r.Short = uint32(one()); r.Short == 0 {
			p.fail("short(k) needs k >= 1")
		}
	case "long":
		if r.Long = uint32(one()); r.Long == 0 || r.Long > 1<<20 {
			p.fail("long(k) needs 1 <= k <= 2^20")
		}
	case "byte", "u32":
		if len(args) != 2 {
			p.fail("modifier %s takes (offset,value)", name)
			return
		}
		r.PokeOff = uint32(p.uintv("offset", args[0], 32))
		if name == "byte" {
			r.Poke = PokeByte
			r.PokeVal = uint32(p.uintv("value", args[1], 8))
		} else {
			r.Poke = PokeU32
			r.PokeVal = uint32(p.uintv("value", args[1], 32))
		}
	default:
		p.fail("unknown image modifier %q", m)
	}
}

func (p *opParser) args(s string) ArgsRecipe {
	var a ArgsRecipe
	if s == "null" {
		a.Mode = ArgsNull
		return a
	}
	if s == "match" {
		return a
	}
	name, args, ok := call(s)
	if !ok || (name != "match" && name != "exact") {
		p.fail("bad args %q (want match, match(...), exact(t=,s=) or null)", s)
		return a
	}
	if name == "exact" {
		a.Mode = ArgsExact
	}
	seen := map[string]bool{}
	for _, x := range args {
		k, v, hasV := strings.Cut(x, "=")
		if seen[k] {
			p.fail("args parameter %s given twice", k)
		}
		seen[k] = true
		n := func() int16 {
			m, err := strconv.ParseInt(v, 10, 16)
			if err != nil || !hasV {
				p.fail("bad args parameter %q", x)
			}
			return int16(m)
		}
		switch {
		case k == "host" && !hasV:
			a.Host = true
		case k == "alien" && !hasV:
			a.Alien = true
		case k == "hostlast" && !hasV:
			a.HostLast = true
		case k == "junk" && !hasV:
			a.Junk = true
		case (k == "dt" && a.Mode == ArgsMatch) || (k == "t" && a.Mode == ArgsExact):
			a.T = n()
		case (k == "ds" && a.Mode == ArgsMatch) || (k == "s" && a.Mode == ArgsExact):
			a.S = n()
		default:
			p.fail("bad args parameter %q", x)
		}
	}
	if a.Alien && a.HostLast {
		p.fail("args alien and hostlast name the same tensor")
	}
	if a.Mode == ArgsExact && (!seen["t"] || !seen["s"]) {
		p.fail("exact args need t= and s=")
	}
	if a.Mode == ArgsMatch && a == (ArgsRecipe{}) {
		p.fail("match() with no change is written match")
	}
	return a
}
