package tracevocab

import (
	"strings"

	"github.com/simabi/simabi/abi"
)

// Markdown renders the vocabulary as docs/trace.md shows it (a test keeps
// the document equal to it): every entry's op and result, then every
// form's spellings.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| Entry | OP | RESULT |\n|---|---|---|\n")
	legacy := map[string]Entry{}
	for _, e := range Entries(abi.RevLegacy) {
		legacy[e.Symbol] = e
	}
	kernel := map[string]bool{}
	for _, e := range Entries(abi.RevKernel) {
		kernel[e.Symbol] = true
		op := "`" + e.Text() + "`"
		if l, ok := legacy[e.Symbol]; ok && l.Text() != e.Text() {
			op += "; legacy: `" + l.Text() + "`"
		}
		b.WriteString("| `" + e.Symbol + "` | " + op + " | `" + e.ResultText() + "` |\n")
	}
	for _, e := range Entries(abi.RevLegacy) {
		if !kernel[e.Symbol] {
			b.WriteString("| `" + e.Symbol + "` (legacy) | `" + e.Text() + "` | `" + e.ResultText() + "` |\n")
		}
	}
	b.WriteString("\n| Form | Spelling | Meaning |\n|---|---|---|\n")
	seen := map[string]bool{}
	for _, f := range Forms() {
		for _, v := range f.Variants() {
			key := f.Name() + "\x00" + v.Spelling()
			if seen[key] {
				continue // IMG is prepare's and register's; they share spellings
			}
			seen[key] = true
			doc := v.Doc
			if v.Until != 0 {
				doc += " (read, no longer written)"
			}
			b.WriteString("| " + f.Name() + " | `" + v.Spelling() + "` | " + doc + " |\n")
		}
	}
	return b.String()
}
