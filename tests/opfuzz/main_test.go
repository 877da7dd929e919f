package opfuzz

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	code := m.Run()
	// The worker's runners live as long as the process; stop them before
	// goleak looks for goroutines left behind.
	Release()
	if err := goleak.Find(); err != nil && code == 0 {
		fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
		code = 1
	}
	os.Exit(code)
}
