package emit

import (
	"bytes"
	"debug/elf"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// F-1 with clang: every profile's runtime and the fake ACL build with clang
// under the same -Wall -Wextra -Werror as with gcc, and the self-checks pass
// against the clang builds: testdata/selfcheck.c (built by clang too) for
// tmr and refusing, testdata/legacy.c, the legacy profile's self-check (the
// legacy build exports no kernel entries for selfcheck to bind).
func TestF1_ClangBuildsEveryProfile(t *testing.T) {
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Skip("skipping: clang is not on PATH (apt-get install clang to check the clang builds)")
	}
	t.Parallel()
	for _, p := range Profiles {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			art, err := Build(Config{Profile: p}, BuildOptions{CC: clang, CacheDir: testCacheDir})
			if err != nil {
				t.Fatalf("clang build of %s: %v", p, err)
			}
			for _, lib := range []string{art.RuntimePath, art.ACLPath} {
				wantBuiltByClang(t, lib)
			}
			if p == ProfileLegacy {
				r := runExe(t, time.Minute, driverWith(t, clang, "legacy"), art.RuntimePath)
				if r.exitCode != 0 || !strings.Contains(r.stdout, "PASS legacy") {
					t.Fatalf("legacy self-check of the clang build:\n%v", r)
				}
				return
			}
			r := runExe(t, 2*time.Minute, driverWith(t, clang, "selfcheck"), art.RuntimePath, art.ACLPath, string(p))
			if r.exitCode != 0 || r.signaled {
				t.Fatalf("selfcheck of the clang build of %s:\n%v", p, r)
			}
		})
	}
}

// wantBuiltByClang checks the ELF .comment of lib names clang, so the test
// cannot pass on a gcc build taken from the cache.
func wantBuiltByClang(t *testing.T, lib string) {
	t.Helper()
	f, err := elf.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sec := f.Section(".comment")
	if sec == nil {
		t.Fatalf("%s has no .comment section", lib)
	}
	comment, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(comment, []byte("clang version")) {
		t.Fatalf("%s was not built by clang: .comment %q", lib, comment)
	}
}
