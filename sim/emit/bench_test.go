package emit

import (
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkSource measures emitting the C of one fake (no compiler).
func BenchmarkSource(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Source(Config{Profile: ProfileTMR}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildCold emits and compiles one fake into a fresh cache
// directory per iteration (the ≤ 2 s figure).
func BenchmarkBuildCold(b *testing.B) {
	needCC(b)
	dir := b.TempDir()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		art, err := Build(Config{Profile: ProfileTMR}, BuildOptions{CacheDir: filepath.Join(dir, strconv.Itoa(i))})
		if err != nil {
			b.Fatal(err)
		}
		if art.Cached {
			b.Fatal("cold build hit the cache")
		}
	}
}

// BenchmarkBuildCached emits a fake whose build is cached (the ≤ 50 ms
// figure): Source, hashing and a stat of the artifacts.
func BenchmarkBuildCached(b *testing.B) {
	needCC(b)
	dir := b.TempDir()
	if _, err := Build(Config{Profile: ProfileTMR}, BuildOptions{CacheDir: dir}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		art, err := Build(Config{Profile: ProfileTMR}, BuildOptions{CacheDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if !art.Cached {
			b.Fatal("cached build compiled")
		}
	}
}
