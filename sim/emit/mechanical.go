package emit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/simabi/simabi/abi"
)

// Mechanical mutants (issue #32): where the hand-written mutants (Mutants)
// each break one clause someone chose, a mechanical mutant is one
// syntactic change at one site of the emitted runtime's C, made by an
// operator nobody aimed: a relational operator replaced, a comparison's
// constant shifted by one, a status code swapped, a guard forced false, a
// statement with a side effect deleted, two adjacent statements swapped.
// The sites are found by tokenizing the plain runtime source of a profile
// (Source), so they follow the template without annotations; a mutant is
// the plain source with one site rewritten and a
// "MUTANT <id> [mechanical <op>]" comment in front of it.

// MechanicalOp is one mutation operator.
type MechanicalOp string

// The operators, in the order MechanicalOps lists them.
const (
	// OpROR replaces a relational operator with a neighbour: < with <= and
	// >=, <= with < and >, > with >= and <=, >= with > and <, == with !=,
	// != with ==.
	OpROR MechanicalOp = "ror"
	// OpBoundary shifts an integer constant that is a whole operand of a
	// comparison by one either way (a literal, or a numeric #define as
	// (NAME + 1) and (NAME - 1)).
	OpBoundary MechanicalOp = "bnd"
	// OpReturn swaps a status: a PTO_RUNTIME_ERR_* code for the next one of
	// docs/contract.md's host codes, a code returned or assigned for 0, a
	// failure returned by name (COMM_FAIL, HOST_BIND_REFUSED, the legacy
	// codes) for 0, and in a function returning int or int32_t `return 0`
	// for -1, `return 1` and `return -1` for 0 and `return VAR` for
	// `(void)VAR, 0` (0, with VAR still read for -Werror's sake).
	OpReturn MechanicalOp = "ret"
	// OpGuard forces the condition of a guard false: an if whose branch
	// leaves (return, goto, break, continue) becomes if (0 && (cond)).
	OpGuard MechanicalOp = "grd"
	// OpDelete deletes an expression statement with a side effect (an
	// assignment, an increment, a call) as (void)0.
	OpDelete MechanicalOp = "del"
	// OpSwap swaps two adjacent expression statements of one block.
	OpSwap MechanicalOp = "swp"
)

// MechanicalOps lists every operator.
var MechanicalOps = []MechanicalOp{OpROR, OpBoundary, OpReturn, OpGuard, OpDelete, OpSwap}

// MechanicalMutant is one site of the plain runtime rewritten by one
// operator.
type MechanicalMutant struct {
	// ID is stable across template edits elsewhere: the operator and a hash
	// of the profile, the function, the text of the mutated lines (and
	// which of its identical copies in the function), the token's place on
	// its line and the replacement.
	ID      string
	Op      MechanicalOp
	Profile Profile
	Func    string // the C function the site is in
	Line    int    // the site's first line in the plain runtime source
	// Original and Replacement are the text of the site before and after
	// (for OpSwap both statements and what lies between them).
	Original, Replacement string
	start, end            int // the byte range of Original in the plain source
}

// Describe is a one-line account of the change ("prepare_impl:2745 `<` →
// `<=`").
func (m MechanicalMutant) Describe() string {
	return fmt.Sprintf("%s:%d %s → %s", m.Func, m.Line, shortC(m.Original), shortC(m.Replacement))
}

// shortC squeezes C text into one line of at most 72 characters.
func shortC(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 72 {
		s = s[:69] + "..."
	}
	return "`" + s + "`"
}

// MechanicalExcluded names the functions of the runtime source no operator
// touches, with the reason: what only the harness or a knob reaches, or
// what no call reaches. Everything else defined in the runtime source is
// the runtime's own logic; the fake ACL (ascendcl.c) is not mutated at all.
var MechanicalExcluded = func() map[string]string {
	m := map[string]string{
		"invariant_abort":              "the F-3 abort's message and abort(): diagnostics",
		"knob_crash":                   "a knob's (crash.<entry>), off in the plain build",
		"knob_hang":                    "a knob's (hang.<entry>), off in the plain build",
		"knob_must_not_call":           "a knob's (must_not_call), off in the plain build",
		"ctx_count_live_unquarantined": "the strict knob's, off in the plain build",
		"sleep_ms":                     "the hold of fault site 7 (" + abi.EntrySimInject.Name() + "): the harness's timing",
		"fault_pass":                   "fault injection (" + abi.EntrySimInject.Name() + "): the harness's plumbing",
		"gate_park_if_armed":           abi.EntrySimHoldGate.Name() + "'s parking: the harness's plumbing",
		"runtime_atfork_prepare":       "runs only at fork(), which no checked process calls with a runtime loaded",
		"runtime_atfork_release":       "runs only at fork(), which no checked process calls with a runtime loaded",
	}
	for _, s := range abi.Symbols {
		if s.Group.Simulation() {
			m[s.Name] = "a simulation hook: the checker's harness"
		}
	}
	return m
}()

// mechanicalNoDelete are calls a deletion leaves alone: output to stderr,
// which no check reads, and the varargs bookkeeping of a message.
var mechanicalNoDelete = map[string]bool{
	"fprintf": true, "fputs": true, "fflush": true, "printf": true, "perror": true,
	"vsnprintf": true, "snprintf": true, "va_start": true, "va_end": true,
}

// MechanicalMarker is the comment in front of a mechanical mutant's site.
func MechanicalMarker(m MechanicalMutant) string {
	return fmt.Sprintf("/* MUTANT %s [mechanical %s] */ ", m.ID, m.Op)
}

// MechanicalMutants enumerates every mechanical mutant of profile p's plain
// runtime, in source order.
func MechanicalMutants(p Profile) ([]MechanicalMutant, error) {
	src, err := Source(Config{Profile: p})
	if err != nil {
		return nil, err
	}
	return mechanicalSites(src.Runtime, p)
}

// SampleMechanical picks n of ms with seed (all of them when n <= 0 or n >=
// len(ms)), in source order: the same ms, n and seed pick the same mutants.
func SampleMechanical(ms []MechanicalMutant, n int, seed uint64) []MechanicalMutant {
	idx := make([]int, len(ms))
	for i := range idx {
		idx[i] = i
	}
	if n > 0 && n < len(ms) {
		r := rand.New(rand.NewPCG(seed, seed^0x6d65636820202020))
		r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		idx = idx[:n]
		sort.Ints(idx)
	}
	out := make([]MechanicalMutant, len(idx))
	for i, k := range idx {
		out[i] = ms[k]
	}
	return out
}

// MechanicalSource is the plain sources of m's profile with m applied.
func MechanicalSource(m MechanicalMutant) (Sources, error) {
	src, err := Source(Config{Profile: m.Profile})
	if err != nil {
		return Sources{}, err
	}
	if m.end > len(src.Runtime) || src.Runtime[m.start:m.end] != m.Original {
		return Sources{}, fmt.Errorf("emit: mechanical mutant %s no longer matches the %s runtime source", m.ID, m.Profile)
	}
	src.Runtime = src.Runtime[:m.start] + MechanicalMarker(m) + m.Replacement + src.Runtime[m.end:]
	return src, nil
}

// ---- the tokenizer ----

type ctokKind uint8

const (
	tIdent ctokKind = iota
	tNum
	tPunct
	tStr
)

// ctok is one token of C source; preprocessor lines and comments are not
// tokens.
type ctok struct {
	kind ctokKind
	text string
	off  int // byte offset
	line int // 1-based
}

var cPuncts = []string{"...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##"}

// tokenizeC splits C source into tokens, skipping comments and
// preprocessor directives (with their continuation lines).
func tokenizeC(s string) []ctok {
	var out []ctok
	line, lineStart := 1, true
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			line++
			lineStart = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '#' && lineStart:
			for i < len(s) && s[i] != '\n' {
				if s[i] == '\\' && i+1 < len(s) && s[i+1] == '\n' {
					line++
					i += 2
					continue
				}
				i++
			}
			continue
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				end = len(s) - i - 4
			}
			line += strings.Count(s[i:i+2+end+2], "\n")
			i += 2 + end + 2
			continue
		}
		lineStart = false
		start := i
		kind := tPunct
		switch {
		case isIdentStart(c):
			kind = tIdent
			for i < len(s) && isIdentChar(s[i]) {
				i++
			}
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			kind = tNum
			for i < len(s) && (isIdentChar(s[i]) || s[i] == '.' ||
				(s[i] == '+' || s[i] == '-') && strings.ContainsRune("eEpP", rune(s[i-1])) && !strings.HasPrefix(s[start:], "0x")) {
				i++
			}
		case c == '"' || c == '\'':
			kind = tStr
			i++
			for i < len(s) && s[i] != c {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			i++
		default:
			i++
			for _, p := range cPuncts {
				if strings.HasPrefix(s[start:], p) {
					i = start + len(p)
					break
				}
			}
		}
		out = append(out, ctok{kind: kind, text: s[start:i], off: start, line: line})
	}
	return out
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || c >= '0' && c <= '9' }

// ---- the sites ----

// cFunc is one function definition: its name, whether it returns int or
// int32_t (a status or a truth value), and the token range of its body
// (open and close brace).
type cFunc struct {
	name       string
	intResult  bool
	open, shut int
}

// findFuncs finds every function definition at file scope.
func findFuncs(toks []ctok) []cFunc {
	var out []cFunc
	depth, declStart := 0, 0
	for i := 0; i < len(toks); i++ {
		t := toks[i].text
		switch {
		case t == "{" && depth == 0 && i > 0 && toks[i-1].text == ")":
			shut := matchTok(toks, i)
			lp := matchBack(toks, i-1)
			if lp > 0 && toks[lp-1].kind == tIdent {
				f := cFunc{name: toks[lp-1].text, open: i, shut: shut}
				var typ []string
				for _, x := range toks[declStart : lp-1] {
					typ = append(typ, x.text)
				}
				f.intResult = resultIsInt(typ)
				out = append(out, f)
			}
			i = shut
			declStart = shut + 1
		case t == "{":
			depth++
		case t == "}":
			depth--
			if depth == 0 {
				declStart = i + 1
			}
		case t == ";" && depth == 0:
			declStart = i + 1
		}
	}
	return out
}

// resultIsInt says whether a definition's tokens before its name declare
// an int or int32_t result (not a pointer).
func resultIsInt(typ []string) bool {
	if slices.Contains(typ, "*") {
		return false
	}
	for i := len(typ) - 1; i >= 0; i-- {
		switch typ[i] {
		case ")", "(", "static", "inline", "const", "SIMABI_EXPORT", "SIMABI_OMITTED", "SIMABI_MAYBE_UNUSED":
			continue
		case "int", "int32_t":
			return true
		}
		if typ[i] != "__attribute__" && typ[i] != "unused" && typ[i] != "noreturn" {
			return false
		}
	}
	return false
}

// matchTok is the index of the bracket closing the one at i.
func matchTok(toks []ctok, i int) int {
	open := toks[i].text
	shut := map[string]string{"(": ")", "{": "}", "[": "]"}[open]
	n := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].text {
		case open:
			n++
		case shut:
			n--
			if n == 0 {
				return j
			}
		}
	}
	return len(toks) - 1
}

// matchBack is the index of the ( that the ) at i closes.
func matchBack(toks []ctok, i int) int {
	n := 0
	for j := i; j >= 0; j-- {
		switch toks[j].text {
		case ")":
			n++
		case "(":
			n--
			if n == 0 {
				return j
			}
		}
	}
	return -1
}

var relational = map[string][]string{
	"<": {"<=", ">="}, "<=": {"<", ">"}, ">": {">=", "<="}, ">=": {">", "<"},
	"==": {"!="}, "!=": {"=="},
}

// A statement the enumerator found: its tokens [from, to] (to is its ;).
type cStmt struct{ from, to int }

// siteEnum holds what the enumeration of one source needs.
type siteEnum struct {
	src      string
	profile  Profile
	toks     []ctok
	consts   map[string]bool // numeric #defines a boundary shift may move
	zeroes   map[string]bool // SIMABI_* knob macros that are 0: their if blocks are dead
	failures map[string]bool // other negative #defines an entry returns (COMM_FAIL, LEGACY_ERR_*)
	statuses []string        // PTO_RUNTIME_ERR_* in abi's order
	lines    []string        // the source's lines
	out      []MechanicalMutant
	seen     map[string]bool
	fn       cFunc
	lineSeen map[string]int // per function: copies of a line's text so far
	lineOcc  map[int]int    // per function: a line's copy index
}

var defineRE = regexp.MustCompile(`(?m)^#define ([A-Z][A-Z0-9_]*) (\(?-?(?:0x[0-9a-fA-F]+|[0-9]+)[uUlL]*\)?|[A-Z][A-Z0-9_]*)(?:\s|$)`)

// mechanicalSites enumerates the mutants of one runtime source.
func mechanicalSites(src string, p Profile) ([]MechanicalMutant, error) {
	e := &siteEnum{src: src, profile: p, toks: tokenizeC(src), consts: map[string]bool{}, zeroes: map[string]bool{}, failures: map[string]bool{},
		lines: strings.Split(src, "\n"), seen: map[string]bool{}}
	values := map[string]string{}
	for _, m := range defineRE.FindAllStringSubmatch(src, -1) {
		values[m[1]] = m[2]
	}
	for name, v := range values {
		if strings.HasPrefix(strings.TrimLeft(v, "("), "-") && !strings.HasPrefix(name, "PTO_RUNTIME_ERR_") {
			e.failures[name] = true
		}
		switch {
		case strings.HasPrefix(name, "PTO_RUNTIME_ERR_"):
			e.statuses = append(e.statuses, name)
		case strings.HasPrefix(name, "SIMABI_"):
			if v == "0" {
				e.zeroes[name] = true
			}
		case strings.HasPrefix(name, "LEGACY_"), strings.HasPrefix(name, "_"), strings.HasSuffix(name, "_FAIL"),
			name == "HOST_BIND_REFUSED":
		default:
			if _, isName := values[v]; isName || v[0] != '_' && !isIdentStart(v[0]) {
				e.consts[name] = true
			}
		}
	}
	sort.Slice(e.statuses, func(i, j int) bool {
		a, _ := strconv.Atoi(strings.Trim(values[e.statuses[i]], "()"))
		b, _ := strconv.Atoi(strings.Trim(values[e.statuses[j]], "()"))
		return a > b
	})
	if len(e.statuses) < 2 {
		return nil, fmt.Errorf("emit: the %s runtime source defines %d status codes", p, len(e.statuses))
	}
	for _, f := range findFuncs(e.toks) {
		if _, ok := MechanicalExcluded[f.name]; ok {
			continue
		}
		e.fn = f
		e.indexLines()
		e.function()
	}
	sort.SliceStable(e.out, func(i, j int) bool { return e.out[i].start < e.out[j].start })
	return e.out, nil
}

// indexLines numbers the copies of each line's text within the function,
// so that an ID names "the third `pthread_mutex_unlock(&c->gate);` of
// prepare_impl" rather than a line number.
func (e *siteEnum) indexLines() {
	e.lineSeen, e.lineOcc = map[string]int{}, map[int]int{}
	first, last := e.toks[e.fn.open].line, e.toks[e.fn.shut].line
	for l := first; l <= last; l++ {
		text := strings.TrimSpace(e.lines[l-1])
		e.lineOcc[l] = e.lineSeen[text]
		e.lineSeen[text]++
	}
}

// add records a mutant replacing bytes [start, end) with repl; at is the
// token the ID places it by.
func (e *siteEnum) add(op MechanicalOp, at int, start, end int, repl string) {
	orig := e.src[start:end]
	if orig == repl {
		return
	}
	t := e.toks[at]
	line := t.line
	col := 0
	for j := at - 1; j >= 0 && e.toks[j].line == line; j-- {
		col++
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%d\x00%d\x00%s\x00%s", e.profile, op, e.fn.name,
		strings.TrimSpace(e.lines[line-1]), e.lineOcc[line], col, orig, repl)
	id := string(op) + "-" + hex.EncodeToString(h.Sum(nil))[:10]
	if e.seen[id] {
		return
	}
	e.seen[id] = true
	e.out = append(e.out, MechanicalMutant{ID: id, Op: op, Profile: e.profile, Func: e.fn.name, Line: line,
		Original: orig, Replacement: repl, start: start, end: end})
}

// endOf is the byte offset just past token i.
func (e *siteEnum) endOf(i int) int { return e.toks[i].off + len(e.toks[i].text) }

// function enumerates the sites of one function body.
func (e *siteEnum) function() {
	dead := e.deadRanges()
	isDead := func(i int) bool {
		for _, r := range dead {
			if i > r[0] && i < r[1] {
				return true
			}
		}
		return false
	}
	for i := e.fn.open + 1; i < e.fn.shut; i++ {
		if isDead(i) {
			continue
		}
		t := e.toks[i]
		switch {
		case t.kind == tPunct && relational[t.text] != nil:
			for _, r := range relational[t.text] {
				e.add(OpROR, i, t.off, e.endOf(i), r)
			}
			e.boundary(i)
		case t.kind == tIdent && t.text == "if":
			e.guard(i)
		case t.kind == tIdent && t.text == "return":
			e.returns(i)
		case t.kind == tIdent && strings.HasPrefix(t.text, "PTO_RUNTIME_ERR_"):
			e.status(i)
		}
	}
	stmts := e.statements()
	var live []cStmt
	for _, s := range stmts {
		if !isDead(s.from) {
			live = append(live, s)
		}
	}
	for k, s := range live {
		if e.deletable(s) {
			e.add(OpDelete, s.from, e.toks[s.from].off, e.endOf(s.to), "(void)0;")
		}
		if k+1 < len(live) && live[k+1].from == s.to+1 {
			n := live[k+1]
			a, b := e.src[e.toks[s.from].off:e.endOf(s.to)], e.src[e.toks[n.from].off:e.endOf(n.to)]
			between := e.src[e.endOf(s.to):e.toks[n.from].off]
			if a != b && !strings.Contains(between, "#") {
				e.add(OpSwap, s.from, e.toks[s.from].off, e.endOf(n.to), b+between+a)
			}
		}
	}
}

// deadRanges are the blocks of `if (SIMABI_KNOB)` whose knob is 0 in this
// build: code only a knob reaches.
func (e *siteEnum) deadRanges() [][2]int {
	var out [][2]int
	for i := e.fn.open + 1; i+4 < e.fn.shut; i++ {
		if e.toks[i].text == "if" && e.toks[i+1].text == "(" && e.zeroes[e.toks[i+2].text] && e.toks[i+3].text == ")" && e.toks[i+4].text == "{" {
			out = append(out, [2]int{i + 4, matchTok(e.toks, i+4)})
		}
	}
	return out
}

// operandEnd: tokens after which a comparison's right operand has ended.
var operandEnd = map[string]bool{")": true, ";": true, "&&": true, "||": true, "?": true, ",": true, "]": true, ":": true}

// operandStart: tokens before which a comparison's left operand begins.
var operandStart = map[string]bool{"(": true, "&&": true, "||": true, ",": true, "return": true, "=": true, "?": true, "[": true}

// boundary adds the shifts of the constant operands of the comparison at i.
func (e *siteEnum) boundary(i int) {
	// The right operand: CONST or -CONST, then the operand ends.
	j, neg := i+1, false
	if e.toks[j].text == "-" {
		j, neg = j+1, true
	}
	if j+1 < e.fn.shut && operandEnd[e.toks[j+1].text] {
		e.shift(j, neg, i)
	}
	// The left operand: an operand starts, then CONST.
	if i-2 > e.fn.open && operandStart[e.toks[i-2].text] {
		e.shift(i-1, false, i)
	}
}

// shift adds CONST+1 and CONST-1 for the token at j (negated when neg: the
// token after a unary minus).
func (e *siteEnum) shift(j int, neg bool, at int) {
	t := e.toks[j]
	start := t.off
	if neg {
		start = e.toks[j-1].off
	}
	switch {
	case t.kind == tNum:
		digits := strings.TrimRight(t.text, "uUlL")
		suffix := t.text[len(digits):]
		v, err := strconv.ParseInt(digits, 0, 64)
		if err != nil || strings.ContainsAny(digits, ".eE") && !strings.HasPrefix(digits, "0x") {
			return
		}
		if neg {
			v = -v
		}
		for _, d := range []int64{1, -1} {
			w := v + d
			if w < 0 && strings.ContainsAny(suffix, "uU") {
				continue
			}
			text := strconv.FormatInt(w, 10)
			if strings.HasPrefix(digits, "0x") && w >= 0 {
				text = "0x" + strconv.FormatInt(w, 16)
			}
			e.add(OpBoundary, at, start, e.endOf(j), text+suffix)
		}
	case t.kind == tIdent && e.consts[t.text] && !neg:
		e.add(OpBoundary, at, t.off, e.endOf(j), "("+t.text+" + 1)")
		e.add(OpBoundary, at, t.off, e.endOf(j), "("+t.text+" - 1)")
	}
}

// guard forces the condition of the if at i false when its branch leaves.
func (e *siteEnum) guard(i int) {
	lp := i + 1
	if e.toks[lp].text != "(" {
		return
	}
	rp := matchTok(e.toks, lp)
	end := rp + 1
	if e.toks[end].text == "{" {
		end = matchTok(e.toks, end)
	} else {
		for end < e.fn.shut && e.toks[end].text != ";" {
			end++
		}
	}
	leaves := false
	for k := rp + 1; k <= end; k++ {
		switch x := e.toks[k].text; {
		case x == "return" || x == "goto" || x == "break" || x == "continue":
			leaves = true
		case e.toks[k].kind == tIdent && strings.HasSuffix(x, "_FAIL") && e.toks[k+1].text == "(":
			leaves = true // PREP_FAIL(code): a goto in a macro
		}
	}
	if !leaves {
		return
	}
	cond := e.src[e.toks[lp+1].off:e.toks[rp].off]
	e.add(OpGuard, i, e.toks[lp].off, e.endOf(rp), "(0 && ("+cond+"))")
}

// returns adds the swaps of a `return X;`.
func (e *siteEnum) returns(i int) {
	if i+2 >= e.fn.shut {
		return
	}
	a, b := e.toks[i+1], e.toks[i+2]
	switch {
	case b.text == ";" && a.kind == tNum && a.text == "0" && e.fn.intResult:
		e.add(OpReturn, i, a.off, e.endOf(i+1), "-1")
	case b.text == ";" && a.kind == tNum && a.text == "1" && e.fn.intResult:
		e.add(OpReturn, i, a.off, e.endOf(i+1), "0")
	case a.text == "-" && b.text == "1" && i+3 < e.fn.shut && e.toks[i+3].text == ";" && e.fn.intResult:
		e.add(OpReturn, i, a.off, e.endOf(i+2), "0")
	case b.text == ";" && a.kind == tIdent && e.fn.intResult && a.text != strings.ToUpper(a.text):
		// (void)VAR, 0: VAR stays used, as -Werror needs when nothing else reads it.
		e.add(OpReturn, i, a.off, e.endOf(i+1), "(void)"+a.text+", 0")
	case b.text == ";" && a.kind == tIdent && e.failures[a.text]:
		e.add(OpReturn, i, a.off, e.endOf(i+1), "0")
	}
}

// status swaps the status code at i for the next one, and a returned or
// assigned code for 0.
func (e *siteEnum) status(i int) {
	t := e.toks[i]
	if relational[e.toks[i-1].text] != nil || relational[e.toks[i+1].text] != nil {
		return // a comparison with a code: ror's
	}
	k := slices.Index(e.statuses, t.text)
	if k < 0 {
		return
	}
	e.add(OpReturn, i, t.off, e.endOf(i), e.statuses[(k+1)%len(e.statuses)])
	if p := e.toks[i-1].text; (p == "return" || p == "=") && e.toks[i+1].text == ";" {
		e.add(OpReturn, i, t.off, e.endOf(i), "0")
	}
}

var cKeywords = map[string]bool{
	"if": true, "else": true, "for": true, "while": true, "do": true, "switch": true, "case": true, "default": true,
	"return": true, "goto": true, "break": true, "continue": true, "typedef": true, "struct": true, "union": true,
	"enum": true, "static": true, "const": true, "volatile": true, "register": true, "extern": true, "sizeof": true,
	"_Static_assert": true, "_Atomic": true, "__attribute__": true,
}

// statements lists the expression statements of the function body (not
// declarations, not control statements, not the lone statement of an if,
// for, while or else without braces), in order.
func (e *siteEnum) statements() []cStmt {
	var out []cStmt
	toks := e.toks
	start := true // at the start of a statement
	for i := e.fn.open + 1; i < e.fn.shut; i++ {
		t := toks[i]
		if !start {
			switch t.text {
			case ";", "{", "}":
				start = true
			case "(", "[":
				i = matchTok(toks, i)
			}
			continue
		}
		switch {
		case t.text == "{" || t.text == "}" || t.text == ";":
			continue
		case t.text == "case" || t.text == "default":
			for i < e.fn.shut && toks[i].text != ":" {
				i++
			}
			continue
		case t.kind == tIdent && toks[i+1].text == ":":
			i++ // a label
			continue
		case t.text == "if" || t.text == "while" || t.text == "for" || t.text == "switch":
			i = matchTok(toks, i+1)
			start = toks[i+1].text == "{"
			continue
		case t.text == "else" || t.text == "do":
			start = toks[i+1].text == "{" || toks[i+1].text == "if"
			continue
		}
		// A statement: up to its ; at this depth.
		j := i
		for j < e.fn.shut && toks[j].text != ";" {
			switch toks[j].text {
			case "(", "[", "{":
				j = matchTok(toks, j)
			}
			j++
		}
		if e.expression(i, j) {
			out = append(out, cStmt{i, j})
		}
		i = j
	}
	return out
}

// expression says whether tokens [from, to] are an expression statement
// (not a declaration, not a jump).
func (e *siteEnum) expression(from, to int) bool {
	t := e.toks[from]
	switch {
	case t.text == "(" && e.toks[from+1].text == "void" && e.toks[from+2].text == ")":
		return false // (void)x;
	case t.kind == tIdent && cKeywords[t.text]:
		return false
	case t.kind == tIdent && (strings.HasSuffix(t.text, "_t") || cTypes[t.text]):
		return false
	case t.kind == tIdent && from+1 < to && e.toks[from+1].kind == tIdent:
		return false // T x
	case t.kind == tIdent && e.toks[from+1].text == "*":
		k := from + 1
		for k < to && e.toks[k].text == "*" {
			k++
		}
		if e.toks[k].kind == tIdent && k+1 <= to && slices.Contains([]string{"=", ";", ",", "["}, e.toks[k+1].text) {
			return false // T *x = ..., T **x;
		}
	}
	return true
}

var cTypes = map[string]bool{"int": true, "char": true, "short": true, "long": true, "unsigned": true, "signed": true,
	"float": true, "double": true, "void": true, "_Bool": true}

// deletable says whether deleting statement s changes something: it
// assigns, increments or calls (not only a message to stderr or a cast to
// void).
func (e *siteEnum) deletable(s cStmt) bool {
	t := e.toks[s.from]
	if t.kind == tIdent && mechanicalNoDelete[t.text] && e.toks[s.from+1].text == "(" {
		return false
	}
	for k := s.from; k < s.to; k++ {
		switch x := e.toks[k].text; x {
		case "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--", "(":
			return true
		}
	}
	return false
}
