package conformance_test

import (
	"slices"
	"testing"

	"github.com/simabi/simabi/conformance"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/target/targettest"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// E-DESTROY.3: the mutant that frees every allocation on a refused destroy
// is seen twice by the check, under E-DESTROY: committed memory drops to 0
// across the destroy, and the read of a freed allocation is refused.
func TestRefusedDestroyFreeingDeviceMemoryFails_EDESTROY(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant")
	}
	a := emittest.Build(t, emit.Config{Profile: emit.ProfileTMR, Mutant: "refused-destroy-frees-device-memory"})
	et, release, err := targettest.EmittedFactory(t, a)()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	h, fs := conformance.Run(et, catalogueCheck(t, devCheck).Ops())
	got := results(h)
	if got[11] != "mem=0" || got[12] != "INVALID_ARGUMENT mem=0" {
		t.Errorf("after the refused destroy: committed %q, dev_read a0 %q; want mem=0, INVALID_ARGUMENT mem=0\n%s", got[11], got[12], h)
	}
	var where []string
	for _, f := range failures(fs) {
		if f.Rule != model.REDestroy {
			t.Errorf("failure under %s, want E-DESTROY: %v", f.Rule, f)
		}
		where = append(where, f.Op.String())
	}
	if !slices.Equal(where, []string{"committed c0", "dev_read c0 a=0"}) {
		t.Errorf("failures at %v, want committed c0 and dev_read c0 a=0: %v", where, fs)
	}
}
