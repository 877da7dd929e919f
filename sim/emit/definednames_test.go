package emit

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
)

// definedNames finds what the expression it replaced found, on every
// mutant's source, every omission of one symbol, the recorder and lines a
// stranger could write (F-1: every exported symbol defined exactly once).
func TestDefinedNames_agreesWithTheExpression(t *testing.T) {
	re := regexp.MustCompile(`(?m)^SIMABI_(?:EXPORT|OMITTED)\n[^(\n]*?(\w+)\(`)
	want := func(src string) []string {
		var names []string
		for _, m := range re.FindAllStringSubmatch(src, -1) {
			names = append(names, m[1])
		}
		return names
	}
	srcs := map[string]string{
		"edge": "SIMABI_EXPORT\nint f(void)\nSIMABI_EXPORT\nint (*g)(void)\nSIMABI_OMITTED\nstatic int h9_x (void)\n" +
			"SIMABI_EXPORT\nno paren here\nx SIMABI_EXPORT\nint y(void)\nSIMABI_OMITTED\nint a_b(\nSIMABI_EXPORT",
		"empty": "",
	}
	for _, m := range Mutants() {
		src, err := Source(Config{Profile: m.Profile, Mutant: m.Name})
		if err != nil {
			t.Fatal(err)
		}
		srcs["mutant "+m.Name] = src.Runtime
	}
	for _, p := range []Profile{ProfileTMR, ProfileLegacy, ProfileRefusing} {
		for _, s := range ExportedSymbols(p) {
			src, err := Source(Config{Profile: p, Omit: []string{s.Name}})
			if err == nil {
				srcs[string(p)+" without "+s.Name] = src.Runtime
			}
		}
	}
	for _, cfg := range []RecorderConfig{{}, {Revision: abi.RevLegacy}, {NoHooks: true}} {
		rec, err := RecorderSource(cfg)
		if err != nil {
			t.Fatal(err)
		}
		srcs[fmt.Sprintf("recorder %+v", cfg)] = rec
	}
	for name, src := range srcs {
		if diff := cmp.Diff(want(src), definedNames(src)); diff != "" {
			t.Errorf("%s: (-expression +scan)\n%s", name, diff)
		}
	}
	// A name must touch its '(' and begin the definition's line's first
	// one: (*g) and "h9_x (" define nothing, nor a marker inside a line.
	if diff := cmp.Diff([]string{"f", "a_b"}, definedNames(srcs["edge"])); diff != "" {
		t.Errorf("edge: (-want +got)\n%s", diff)
	}
}
