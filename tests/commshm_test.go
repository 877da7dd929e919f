package tests

import (
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
)

// TestCommSegmentPrefixNamesTheSimulatedSegments_ECOMM: the prefix a
// checker removes dead processes' segments by begins every segment name
// the simulated comm backend makes for that process, and no other's.
func TestCommSegmentPrefixNamesTheSimulatedSegments_ECOMM(t *testing.T) {
	for _, pid := range []uint32{1, 0x214, 0x7fffffff, 0xffffffff} {
		for _, name := range []string{abi.CommSessionName(pid, "/tmp/p0"), abi.CommAllocName(pid, "s", 7), abi.CommGlobalName(pid, 9, 1)} {
			file := strings.TrimPrefix(name, "/")
			if !strings.HasPrefix(file, abi.CommSegmentPrefix(pid)) {
				t.Errorf("pid %#x: %s does not begin with %s", pid, file, abi.CommSegmentPrefix(pid))
			}
			if strings.HasPrefix(file, abi.CommSegmentPrefix(pid+1)) {
				t.Errorf("pid %#x: %s begins with pid %#x's prefix", pid, file, pid+1)
			}
		}
	}
}
