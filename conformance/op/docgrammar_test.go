package op

import (
	"os"
	"strings"
	"testing"
)

// TestDocGrammarNamesEveryField keeps the written grammars (doc.go, and the
// comm family's in ops_comm.go) true to the field lists: every kind has a
// line, and its line names each keyed field as KEY=, in brackets exactly
// when the field is optional.
func TestDocGrammarNamesEveryField(t *testing.T) {
	var lines []string
	for _, f := range []string{"doc.go", "ops_comm.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l, ok := strings.CutPrefix(l, "//\t"); ok {
				lines = append(lines, l)
			}
		}
	}
	for k := KindInvalid + 1; k < NumKinds; k++ {
		d := defOf(k)
		var line string
		for _, l := range lines {
			for _, alt := range strings.Split(l, " | ") {
				if w := strings.Fields(alt); len(w) > 0 && w[0] == d.name && line == "" {
					line = alt
				}
			}
		}
		if line == "" {
			t.Errorf("%s: no line of the written grammar", d.name)
			continue
		}
		for _, f := range d.fields {
			if f.key == "" {
				continue
			}
			need, opt := strings.Contains(line, " "+f.key+"="), strings.Contains(line, "["+f.key+"=")
			if !need && !opt {
				t.Errorf("%s: the grammar line %q does not name %s=", d.name, line, f.key)
			} else if f.need == opt {
				t.Errorf("%s: the grammar line %q writes %s= as %s", d.name, line, f.key, map[bool]string{true: "optional", false: "needed"}[opt])
			}
		}
	}
}
