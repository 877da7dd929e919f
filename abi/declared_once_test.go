package abi_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
)

// Where an entry's C name may be written in Go: its row, the Go simulator
// (which names entries in its findings and errors), and the checker's op and
// step for the entry. Everything else derives the name from the row
// (abi.EntryX.Name()).
var nameOwners = []string{"abi/symbols.go", "sim/*.go", "conformance/op/", "conformance/model/"}

// A string literal that is exactly an entry's name, allowed outside the
// owners only here (file, name), each with why.
var exactExempt = map[[2]string]string{
	{"abi/tracevocab/entries.go", "comm_destroy"}: "prog's fn= word for destroy_comm_stream_ctx, an op-script word that happens to equal the comm entry's name",
	// The capabilities a run lists; helper C's file under issue #40, to derive when merged.
}

// Files whose longer literals name entries in prose (several things at once,
// or text a document also holds); a literal that is exactly a name is still
// refused there.
var proseExempt = map[string]string{
	"sim/emit/mutants.go":      "mutant descriptions: the prose of docs/semantics.md §13",
	"abi/tracevocab/forms.go":  "the forms' descriptions, docs/trace.md's vocabulary table",
	"cmd/abicheck/diff.go":     "usage text",
	"cmd/abicheck/main.go":     "flag help",
	"tests/commdiff/worker.go": "a skip reason naming the hook a reset needs",
	"tests/opfuzz/sim.go":      "a skip reason naming the hook a reset needs",
	// helper M's files under issue #40 (the runner's skips and findings, the
	// clauses' prose): to derive when that rewrite is merged.
	"conformance/catalogue/clauses.go": "clause prose",
	"conformance/ops_comm.go":          "a finding's message (helper M's file)",
	"conformance/ops_commtimeout.go":   "a skip reason (helper M's file)",
	"conformance/ops_concurrent.go":    "a skip reason (helper M's file)",
	"conformance/ops_devmem.go":        "a skip reason (helper M's file)",
	"conformance/ops_env.go":           "skip reasons (helper M's file)",
	"conformance/ops_program.go":       "a skip reason (helper M's file)",
	"conformance/runner.go":            "findings' messages (helper M's file)",
	"conformance/runner_runs.go":       "a finding's message naming two entries (helper M's file)",
}

func ownsNames(rel string) bool {
	for _, o := range nameOwners {
		switch {
		case strings.HasSuffix(o, "/") && strings.HasPrefix(rel, o):
			return true
		case strings.Contains(o, "*"):
			if ok, _ := filepath.Match(o, rel); ok {
				return true
			}
		case rel == o:
			return true
		}
	}
	return false
}

// identWords are the C-identifier words of s.
func identWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
}

// An entry's C name is declared once: in abi's table. A string literal of
// non-test Go that is the name, or has it as a word, outside the owners and
// the exemptions above fails, naming file:line. Comments do not count.
func TestEntryNameDeclaredOnce(t *testing.T) {
	names := map[string]bool{}
	for _, s := range abi.Symbols {
		names[s.Name] = true
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	seenExempt := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "python" || strings.HasPrefix(n, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if ownsNames(rel) {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			at := fset.Position(lit.Pos())
			for _, w := range identWords(s) {
				switch {
				case !names[w]:
				case s == w && exactExempt[[2]string{rel, w}] != "":
					seenExempt[rel+" "+w] = true
				case s == w:
					t.Errorf("%s:%d: the literal %q is an entry's name: use abi's row (abi.Entry….Name())", rel, at.Line, s)
				case proseExempt[rel] != "":
					seenExempt[rel] = true
				default:
					t.Errorf("%s:%d: %q names the entry %s: derive it from abi's row, or list the file as prose", rel, at.Line, clip(s), w)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// An exemption nothing needs any more goes.
	for k := range exactExempt {
		if !seenExempt[k[0]+" "+k[1]] {
			t.Errorf("exactExempt lists %s %s, which no literal needs", k[0], k[1])
		}
	}
	for f := range proseExempt {
		if !seenExempt[f] {
			t.Errorf("proseExempt lists %s, which names no entry", f)
		}
	}
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
