package op

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// Every kind is declared (a field list), and every op drawn over its
// declared fields — each field absent when optional, else one of its
// samples — parses, formats, and parses back to the same op: the text
// form that Parse and String derive from the list round-trips kind by
// kind.
func TestEveryKindRoundTrips(t *testing.T) {
	for k := Kind(1); k < NumKinds; k++ {
		d := defOf(k)
		if d == nil {
			t.Errorf("kind %d has no declaration", k)
			continue
		}
		t.Run(d.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				line := drawLine(t, d)
				o, err := Parse(line)
				if errors.Is(err, ErrSyntax) && d.check != nil {
					t.Skip("a rule between fields:", err) // racekinit c0 c0
				}
				if err != nil {
					t.Fatalf("Parse(%q): %v", line, err)
				}
				text := o.String()
				back, err := Parse(text)
				if err != nil {
					t.Fatalf("Parse(%q) (printed from %q): %v", text, line, err)
				}
				if diff := cmp.Diff(o, back); diff != "" {
					t.Fatalf("%q prints as %q, which parses to another op (-first +again):\n%s", line, text, diff)
				}
				if again := back.String(); again != text {
					t.Fatalf("%q prints as %q, then %q", line, text, again)
				}
			})
		})
	}
}

// drawLine is an op of d in text, its fields drawn from their samples.
func drawLine(t *rapid.T, d *kindDef) string {
	parts := []string{d.name}
	for i, f := range d.fields {
		if f.word != "" {
			if rapid.Bool().Draw(t, "alone") {
				return d.name + " " + f.word
			}
			continue
		}
		if len(f.samples) == 0 {
			t.Fatalf("%s: field %d (%q) has no samples", d.name, i, f.key)
		}
		if f.key != "" && !f.need && rapid.Bool().Draw(t, "absent "+f.key) {
			continue
		}
		s := rapid.SampledFrom(f.samples).Draw(t, f.key)
		switch {
		case f.key != "":
			parts = append(parts, f.key+"="+s)
		case s != "":
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// Every field of a kind names its own key: two fields of one list never
// read the same key, and a kind's list holds no key its parser would
// refuse as unknown.
func TestFieldKeysAreDistinct(t *testing.T) {
	for k := Kind(1); k < NumKinds; k++ {
		d := defOf(k)
		seen := map[string]bool{}
		for _, f := range d.fields {
			if f.key != "" && seen[f.key] {
				t.Errorf("%s: key %s= declared twice", d.name, f.key)
			}
			seen[f.key] = true
		}
	}
}
