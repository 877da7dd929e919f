package procmaps

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// The test binary itself is mapped; a name nothing maps is not.
func TestMappedFindsTheTestBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/maps is Linux's")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	got := Mapped(func(p string) bool { return p == exe })
	if len(got) != 1 || got[0] != exe {
		t.Fatalf("Mapped(the test binary) = %q, want [%q]", got, exe)
	}
	if got := Mapped(func(p string) bool { return strings.HasSuffix(p, "/no-such-library.so") }); got != nil {
		t.Fatalf("Mapped(nothing) = %q", got)
	}
}
