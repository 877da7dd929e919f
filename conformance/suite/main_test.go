package suite

import (
	"os"
	"testing"

	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// Every test that loads a runtime unloads it: what one test leaves loaded
// must not be there when another runs.
func TestMain(m *testing.M) {
	os.Exit(emittest.Released("conformance/suite", m.Run(), onboard.Preloaded))
}
