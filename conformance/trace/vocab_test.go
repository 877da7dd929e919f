package trace

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
)

// formExamples is a value of every variant of every argument form the
// vocabulary defines, as the recorder writes it (holes filled so that the
// value means something: a CallConfig's 1148 bytes, a canonical image).
// A variant the vocabulary gains needs an example here, and the parser
// must read it (TestTraceVocabularyEveryFormParses).
func formExamples(t *testing.T) map[tracevocab.Form]map[string]string {
	img, n := traceImageHex(t)
	return map[tracevocab.Form]map[string]string{
		tracevocab.Ctx:        {"named": "c0", "null": "null", "unknown": "c?"},
		tracevocab.Int:        {"n": "-3"},
		tracevocab.Uint:       {"n": "18446744073709551615"},
		tracevocab.Span:       {"none": "none", "halfptr": "halfptr", "halfsize": "halfsize", "bytes": "bytes(64)"},
		tracevocab.Cfg:        {"null": "null", "raw": "raw(" + cfgHex() + ")", "bad": "bad"},
		tracevocab.Img:        {"null": "null", "raw": fmt.Sprintf("raw(%d,0,%s)", n, img), "trunc": fmt.Sprintf("raw(%d,8,trunc)", n)},
		tracevocab.RegImg:     {"null": "null", "raw": fmt.Sprintf("raw(%d,0,%s)", n, img), "trunc": "raw(?,0,trunc)"},
		tracevocab.Args:       {"null": "null", "raw": "raw(t=2,s=1,as=0100)", "bad": "bad", "host": "raw(t=2,s=1,host=0)"},
		tracevocab.Stream:     {"named": "s3", "null": "null", "unknown": "s?"},
		tracevocab.Storage:    {"named": "2", "null": "null", "unknown": "?"},
		tracevocab.Desc:       {"null": "null", "raw": "raw(" + hex.EncodeToString(make([]byte, abi.NativeRunDescSize)) + ")", "bad": "bad"},
		tracevocab.Device:     {"n": "2", "none": "none"},
		tracevocab.NullFlag:   {"null": "null"},
		tracevocab.Name:       {"name": ""}, // the entry's own name
		tracevocab.Ptr:        {"ptr": "ptr", "null": "null"},
		tracevocab.Done:       {"done": "done"},
		tracevocab.LineDev:    {"n": "1", "none": "none", "unknown": "?"},
		tracevocab.CommHandle: {"named": "h0", "null": "null", "unknown": "h?"},
		tracevocab.CommPath:   {"named": "p2", "null": "null", "unknown": "p?"},
		tracevocab.CommAlloc:  {"named": "a3", "unknown": "a?"},
		tracevocab.CommDomain: {"named": "d1", "unknown": "d?"},
		tracevocab.RankIDs:    {"null": "null", "raw": "raw(0000000001000000)", "bad": "bad"},
		tracevocab.CommDescs: {"null": "null", "bad": "bad",
			"raw": "raw(" + hex.EncodeToString(make([]byte, 2*abi.CommDescHandleOff)) + ")"},
	}
}

// One vocabulary (abi/tracevocab): every entry of the symbol table, in both
// revisions, with every spelling of each of its arguments and every result
// its form allows (a NULL pointer, done, missing, the fields after a result
// included), is read by the trace parser into the op its word names. The
// examples cover exactly the vocabulary's variants, so a spelling the
// vocabulary gains fails here until the parser reads it, and one it loses
// fails the recorder's build (its writer is gone) and the recorded
// sessions' tests.
func TestTraceVocabularyEveryFormParses(t *testing.T) {
	ex := formExamples(t)
	for _, f := range tracevocab.Forms() {
		for _, v := range f.Variants() {
			if _, ok := ex[f][v.Name]; !ok {
				t.Errorf("%s %s (%s): no example: the parser's reading of it is untested", f.GoName(), v.Name, v.Spelling())
			}
		}
		if len(ex[f]) != len(f.Variants()) {
			t.Errorf("%s: %d examples for %d variants", f.GoName(), len(ex[f]), len(f.Variants()))
		}
	}
	lines := 0
	for _, rev := range []abi.Revision{abi.RevKernel, abi.RevLegacy} {
		for _, e := range tracevocab.Entries(rev) {
			// The entry with each argument in each of its variants in turn
			// (the others at their first), then each result variant.
			base := map[int]string{}
			for i, a := range e.Args {
				base[i] = exampleOf(ex, e, a, a.Form.Variants()[0].Name)
			}
			var cases []string
			for i, a := range e.Args {
				for _, v := range a.Form.Variants() {
					args := map[int]string{}
					for k, s := range base {
						args[k] = s
					}
					args[i] = exampleOf(ex, e, a, v.Name)
					version := tracevocab.Version
					if v.Until != 0 {
						version = v.Until - 1
					}
					cases = append(cases, fmt.Sprintf("%d|%s", version, entryText(e, args)))
				}
			}
			if len(e.Args) == 0 {
				cases = append(cases, fmt.Sprintf("%d|%s", tracevocab.Version, entryText(e, base)))
			}
			var results []string
			for _, v := range e.Result.Variants() {
				r := exampleOf(ex, e, tracevocab.Arg{Form: e.Result}, v.Name)
				results = append(results, r)
				for _, x := range e.Extras {
					results = append(results, r+" "+x.Key+"="+exampleOf(ex, e, x, x.Form.Variants()[0].Name))
				}
			}
			results = append(results, tracevocab.Missing)
			for _, c := range cases {
				version, op, _ := strings.Cut(c, "|")
				for _, r := range results {
					rv := "kernel"
					if rev == abi.RevLegacy {
						rv = "legacy"
					}
					text := fmt.Sprintf("# simabi trace v%s\n# revision: %s\n@1-2 t0 dev=0 create -> c0\n@3-4 t0 dev=0 %s -> %s\n", version, rv, op, r)
					tr, err := ParseTrace(strings.NewReader(text), "v.ops")
					lines++
					if err != nil {
						t.Errorf("%s (%v): %q: %v", e.Symbol, rev, truncate(op+" -> "+r), err)
						continue
					}
					if k, _ := KindByName(e.Op); e.Op != tracevocab.OpCall && tr.Calls[1].Op.Kind != k &&
						!(tr.Calls[1].Op.Kind == KindProg && strings.Contains(op, "st=null")) {
						t.Errorf("%s: %q parsed as %v", e.Symbol, truncate(op), tr.Calls[1].Op.Kind)
					}
				}
			}
		}
	}
	t.Logf("%d lines parsed", lines)
}

// exampleOf is the example of a's form's variant name in entry e.
func exampleOf(ex map[tracevocab.Form]map[string]string, e tracevocab.Entry, a tracevocab.Arg, name string) string {
	if a.Form == tracevocab.Name {
		return e.Symbol
	}
	return ex[a.Form][name]
}

// entryText writes an entry's op with the given argument values.
func entryText(e tracevocab.Entry, args map[int]string) string {
	var b strings.Builder
	b.WriteString(e.Op)
	for i, a := range e.Args {
		b.WriteString(" ")
		if a.Key != "" {
			b.WriteString(a.Key + "=")
		}
		b.WriteString(args[i])
	}
	if e.Fn != "" {
		b.WriteString(" fn=" + e.Fn)
	}
	return b.String()
}

// An entry record (a call the process never returned from) of every entry
// parses, whole (a launch's args, written when it returns, absent) and cut
// after its first field (an op text longer than an in-flight slot), and is
// judged without a panic.
func TestTraceEntryRecordsParse(t *testing.T) {
	ex := formExamples(t)
	for _, rev := range []abi.Revision{abi.RevKernel, abi.RevLegacy} {
		rv := map[abi.Revision]string{abi.RevKernel: "kernel", abi.RevLegacy: "legacy"}[rev]
		for _, e := range tracevocab.Entries(rev) {
			args := map[int]string{}
			for i, a := range e.Args {
				args[i] = exampleOf(ex, e, a, a.Form.Variants()[0].Name)
			}
			whole := entryText(e, args)
			for _, a := range e.Args {
				if a.Late {
					whole = strings.Replace(whole, " "+a.Key+"="+args[indexOf(e, a)], "", 1)
				}
			}
			ops := []string{whole}
			if e.Fn == "" {
				// (A prog record, "prog CTX fn=FN", is never long enough to be cut.)
				first := strings.SplitN(whole, " ", 3)
				ops = append(ops, strings.Join(first[:min(2, len(first))], " ")+" ...")
			}
			for _, op := range ops {
				text := fmt.Sprintf("# simabi trace v%d\n# revision: %s\n@1-2 t0 dev=0 create -> c0\n@3 t0 dev=0 %s\n", tracevocab.Version, rv, op)
				tr, err := ParseTrace(strings.NewReader(text), "e.ops")
				if err != nil {
					t.Errorf("%s (%v): %q: %v", e.Symbol, rev, truncate(op), err)
					continue
				}
				if c := tr.Calls[1]; !c.Unfinished || c.E != ^uint64(0) {
					t.Errorf("%s: %q: not an unfinished call: %+v", e.Symbol, truncate(op), c)
				}
				Check(tr, Options{}) // judged without a panic
			}
		}
	}
}

func indexOf(e tracevocab.Entry, a tracevocab.Arg) int {
	for i := range e.Args {
		if e.Args[i].Key == a.Key {
			return i
		}
	}
	return -1
}

// truncate shortens a line for a failure message.
func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
