package commdiff

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit/emittest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	Release()
	if err := goleak.Find(); err != nil && code == 0 {
		fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
		code = 1
	}
	os.Exit(emittest.Released("commdiff", code, onboard.Preloaded))
}
