package onboard

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The ACL library name is the platform's: libascendcl.so on Linux (as it
// always was), libascendcl.dylib on darwin.
func TestACLLibraryNameIsThePlatforms(t *testing.T) {
	want := map[string]string{"linux": "libascendcl.so", "darwin": "libascendcl.dylib"}[runtime.GOOS]
	if want == "" {
		t.Skipf("no expectation for %s", runtime.GOOS)
	}
	if ACLLibraryName != want {
		t.Fatalf("ACLLibraryName = %q on %s, want %q", ACLLibraryName, runtime.GOOS, want)
	}
}

// ACLPathFor finds the ACL beside a runtime by this platform's name only: a
// library of the other platform's suffix beside it is not an ACL to load.
func TestACLPathForUsesThePlatformSuffix(t *testing.T) {
	other := map[string]string{".so": ".dylib", ".dylib": ".so"}[SharedLibrarySuffix]
	dir := t.TempDir()
	rt := filepath.Join(dir, "libhost_runtime"+SharedLibrarySuffix)
	foreign := filepath.Join(dir, "libascendcl"+other)
	for _, p := range []string{rt, foreign} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := ACLPathFor(rt); got != ACLLibraryName {
		t.Fatalf("ACLPathFor with only %s beside the runtime = %q, want %q", filepath.Base(foreign), got, ACLLibraryName)
	}
	sibling := filepath.Join(dir, ACLLibraryName)
	if err := os.WriteFile(sibling, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{rt, dir} {
		if got := ACLPathFor(p); got != sibling {
			t.Fatalf("ACLPathFor(%s) = %q, want %q", p, got, sibling)
		}
	}
}
