package onboard

import (
	"os"
	"testing"

	"github.com/simabi/simabi/sim/emit/emittest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	code = emittest.Released("onboard", code, Preloaded)
	stubMu.Lock()
	if stubDir != "" {
		_ = os.RemoveAll(stubDir)
	}
	stubMu.Unlock()
	os.Exit(code)
}
