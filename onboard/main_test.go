package onboard

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	stubMu.Lock()
	if stubDir != "" {
		_ = os.RemoveAll(stubDir)
	}
	stubMu.Unlock()
	os.Exit(code)
}
