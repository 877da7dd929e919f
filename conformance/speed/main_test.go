package speed

import (
	"os"
	"testing"

	"github.com/simabi/simabi/abi"
)

// The test binary is its own child: Compare re-executes it with ChildEnv
// set, and the slowdown hook is set in it (init runs before TestMain).
func TestMain(m *testing.M) {
	if os.Getenv(ChildEnv) != "" {
		os.Exit(ChildMain())
	}
	os.Exit(m.Run())
}

func init() {
	wrapSlow = func(rt abi.Runtime, factor float64) abi.Runtime { return newSlowRuntime(rt, factor) }
	wrapDying = func(rt abi.Runtime, runs int) abi.Runtime { return &dyingRuntime{Runtime: rt, left: runs} }
}
