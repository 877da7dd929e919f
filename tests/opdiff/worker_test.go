package opdiff

import (
	"errors"
	"testing"

	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/tests/opfuzz"
)

// TestWorkerRunsBothHalves_F1: with a C compiler, FuzzOps' worker holds an
// emitted runner for every profile, so the differential half (F-1) runs for
// every input; it does not fall back to sim alone unnoticed.
func TestWorkerRunsBothHalves_F1(t *testing.T) {
	if _, err := emit.Build(emit.Config{Profile: emit.ProfileTMR}, emit.BuildOptions{}); errors.Is(err, emit.ErrNoCompiler) {
		t.Skipf("skipping: %v", err)
	}
	w, err := emitted()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range opfuzz.Profiles {
		if w.runners[p.Model] == nil {
			t.Errorf("no emitted runner for %s: FuzzOps would check sim alone", p.Model)
		}
	}
	if len(w.libs) != len(opfuzz.Profiles) {
		t.Errorf("%d emitted libraries loaded, want one per profile (%d)", len(w.libs), len(opfuzz.Profiles))
	}
}
