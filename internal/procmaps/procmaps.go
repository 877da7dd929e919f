// Package procmaps lists the files a process has mapped (Linux
// /proc/self/maps), for the test suites' check that a test releases the
// libraries it loads.
package procmaps

import (
	"os"
	"strings"
)

// Mapped returns, in order of first mapping and once each, the paths of the
// files this process has mapped for which match reports true; nil where
// /proc/self/maps cannot be read.
func Mapped(match func(path string) bool) []string {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		// address perms offset dev inode path (the path may hold spaces)
		f := strings.SplitN(line, " ", 6)
		if len(f) < 6 {
			continue
		}
		path := strings.TrimSpace(f[5])
		if path == "" || seen[path] || !match(path) {
			continue
		}
		seen[path] = true
		out = append(out, path)
	}
	return out
}
