package onboard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// dlerror's text is per thread: a dlopen that fails must read it on the
// thread the dlopen ran on, or the error says nothing (CI printed
// "dlopen (preload, RTLD_GLOBAL): " with no reason). Many goroutines failing
// and succeeding at once move goroutines between threads often enough to
// show it.
func TestDlopen_failureTextReadOnItsOwnThread(t *testing.T) {
	dir := t.TempDir()
	notELF := filepath.Join(dir, "notelf.so")
	if err := os.WriteFile(notELF, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var bad []string
	for g := range 8 {
		wg.Go(func() {
			for range 300 {
				if g%2 == 1 {
					// Successful calls on the same threads reset dlerror.
					if h, err := dlopen("libc.so.6", runtimeMode); err == nil {
						_ = dlsym(h, "malloc")
						_ = dlclose(h)
					}
					continue
				}
				_, err := dlopen(notELF, runtimeMode)
				if err == nil || !strings.Contains(err.Error(), "file too short") {
					mu.Lock()
					bad = append(bad, fmt.Sprint(err))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("%d of 1200 failed dlopens lost their reason; first: %q", len(bad), bad[0])
	}
}
