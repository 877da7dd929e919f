package conformance_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

var updateOps = flag.Bool("update-ops", false, "rewrite testdata/ops.golden from the catalogue and the generator")

// The text form is what users keep (op scripts, repro files): every op of
// every catalogue check and of the generated sequences of a few seeds
// formats exactly as testdata/ops.golden holds, and parses back to itself.
// A catalogue or generator change that is meant rewrites the file with
// -update-ops (this lives here, not in conformance/op, whose tests may not
// import the engine: tests/architecture_test.go); a change of the op language that is not shows here.
func TestOpTextGolden(t *testing.T) {
	var b strings.Builder
	for _, c := range conformance.Catalogue() {
		fmt.Fprintf(&b, "# %s\n%s", c.Name, op.FormatOps(c.Ops()))
	}
	for seed := uint64(0); seed < 6; seed++ {
		ops := conformance.Generate(conformance.GenOptions{Seed: seed, Ops: 400, Caps: ^conformance.Caps(0), HoldMs: 20,
			Comm: seed%2 == 1, Profile: []model.Profile{model.ProfileTMR, model.ProfileRefusing}[seed%2]})
		fmt.Fprintf(&b, "# seed %d\n%s", seed, op.FormatOps(ops))
	}
	text := b.String()
	for i, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		o, err := op.Parse(line)
		if err != nil || o.String() != line {
			t.Fatalf("line %d %q: parses to %q, %v", i+1, line, o, err)
		}
	}
	if *updateOps {
		if err := os.WriteFile("testdata/ops.golden", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("testdata/ops.golden")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(text, "\n")); diff != "" {
		t.Errorf("testdata/ops.golden (-want +got):\n%s", diff)
	}
}
