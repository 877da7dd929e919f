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

// Parse reads the one-line text form of an op (the package doc's grammar);
// Parse(op.String()) == op.
func Parse(line string) (Op, error) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return Op{}, syntaxf("empty line")
	}
	k, ok := KindByName(fields[0])
	if !ok {
		return Op{}, syntaxf("unknown op %q", fields[0])
	}
	var pos []string
	kv := map[string]string{}
	for _, f := range fields[1:] {
		key, v, ok := strings.Cut(f, "=")
		if !ok {
			pos = append(pos, f)
			continue
		}
		if key == "" || v == "" {
			return Op{}, syntaxf("%s: malformed argument %q", k, f)
		}
		if _, dup := kv[key]; dup {
			return Op{}, syntaxf("%s: argument %q given twice", k, key)
		}
		kv[key] = v
	}
	p := opParser{op: Op{Kind: k}, pos: pos, kv: kv}
	if p.parse(); p.err != nil {
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

// ParseScript reads one op per line, '#' starting a comment; errors name
// the line.
func ParseScript(text string) ([]Op, error) {
	var ops []Op
	for i, line := range strings.Split(text, "\n") {
		if line, _, _ = strings.Cut(line, "#"); strings.TrimSpace(line) == "" {
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

// take removes key from the arguments left.
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
	if s != "ok" {
		parseParts(p, "cfg", cfgParts, strings.Split(s, "+"), &c)
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
	if base, ok := bareImages[parts[0]]; ok {
		switch {
		case len(parts) > 1:
			p.fail("image %s takes no modifiers", parts[0])
		case base == ImgProgram && p.op.Kind != KindRegister:
			p.fail("img=prog (the target's program callable) is for register only")
		}
		return ImageRecipe{Base: base}
	}
	name, args, ok := call(parts[0])
	if !ok || name != "valid" {
		p.fail("bad image %q (want valid(...), null, huge or prog)", parts[0])
		return r
	}
	parseParts(p, "image parameter", imgParams, args, &r)
	if int(r.T)+int(r.S) > 256 || r.S > 128 || r.C > 1024 || r.B > 1<<30 {
		p.fail("image %q exceeds t+s <= 256, s <= 128, c <= 1024, b <= 2^30", parts[0])
	}
	parseParts(p, "image modifier", imgMods, parts[1:], &r)
	return r
}

// recordedImage is an image in the trace's spelling.
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

// bareImages are the images without parameters or modifiers.
var bareImages = map[string]ImgBase{"null": ImgNull, "huge": ImgHuge, "wrap": ImgWrap, "prog": ImgProgram}

func (p *opParser) args(s string) ArgsRecipe {
	var a ArgsRecipe
	switch s {
	case "null":
		return ArgsRecipe{Mode: ArgsNull}
	case "match":
		return a
	}
	name, args, ok := call(s)
	parts := matchParts
	switch {
	case ok && name == "exact":
		a.Mode, parts = ArgsExact, exactParts
	case !ok || name != "match":
		p.fail("bad args %q (want match, match(...), exact(t=,s=) or null)", s)
		return a
	}
	parseParts(p, "args", parts, args, &a)
	if a.Alien && a.HostLast {
		p.fail("args alien and hostlast name the same tensor")
	}
	if a.Mode == ArgsMatch && a == (ArgsRecipe{}) {
		p.fail("match() with no change is written match")
	}
	return a
}
