package report

import (
	"bytes"
	"strings"
	"testing"
)

// What users hand the checker as text — op scripts and repro files
// (abicheck -replay, ParseScript) and baselines (-baseline) — is parsed
// without a panic, every refusal names its line, and what parses prints
// back to text that parses to the same thing (parse∘print∘parse = parse).
// Both targets run their seeds in every go test and take -fuzz
// (docs/fuzzing.md).

// FuzzBaseline fuzzes ParseBaseline and Baseline.Lines.
func FuzzBaseline(f *testing.F) {
	for _, s := range []string{
		"", "# known findings\n\nS-3 0123456789abcdef  ensure_acl_ready_ctx(NULL) returned 0\n",
		"E-FIN 00000000deadbeef\nU-1 ffffffffffffffff crash\n",
		"S-3 0123456789ABCDEF\n", "NOPE-1 0123456789abcdef\n", "S-3\n", "S-3 0123\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		b, err := ParseBaseline(strings.NewReader(text))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") && !strings.Contains(err.Error(), "token too long") {
				t.Fatalf("a refusal that names no line: %v", err)
			}
			return
		}
		var printed bytes.Buffer
		for _, l := range b.Lines() {
			printed.WriteString(l + "\n")
		}
		again, err := ParseBaseline(bytes.NewReader(printed.Bytes()))
		if err != nil {
			t.Fatalf("the printed form does not parse: %v\n%s", err, printed.String())
		}
		if again.Len() != b.Len() || strings.Join(again.Lines(), "\n") != strings.Join(b.Lines(), "\n") {
			t.Fatalf("%d findings parse back as %d", b.Len(), again.Len())
		}
	})
}
