package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeModule writes a module of one package, m/p, from name -> source.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module m\n\ngo 1.24\n"
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// What make cross exists to find: a file of ours that does not compile on
// a platform the host does not build, and no error where there is none (a
// package's external tests see its in-package tests' declarations).
func TestCheckPlatform_findsWhatOnlyAnotherPlatformBreaks(t *testing.T) {
	ok := map[string]string{
		"p/p.go":           "package p\n\nfunc Name() string { return name() }\n",
		"p/name_linux.go":  "package p\n\nfunc name() string { return \"linux\" }\n",
		"p/name_darwin.go": "package p\n\nfunc name() string { return \"darwin\" }\n",
		"p/export_test.go": "package p\n\nvar NameForTest = name\n",
		"p/p_test.go":      "package p_test\n\nimport (\n\t\"testing\"\n\n\t\"m/p\"\n)\n\nfunc TestName(t *testing.T) { _ = p.NameForTest() + p.Name() }\n",
	}
	for _, tc := range []struct {
		name   string
		edit   map[string]string
		darwin []string
		linux  []string
	}{
		{name: "clean"},
		{
			name:   "portable file calls what only linux has",
			edit:   map[string]string{"p/tid.go": "package p\n\nimport \"syscall\"\n\nfunc tid() int { return syscall.Gettid() }\n"},
			darwin: []string{"p/tid.go:5:33: undefined: syscall.Gettid"},
		},
		{
			name: "darwin's file lacks what the portable file calls",
			edit: map[string]string{"p/name_darwin.go": "package p\n\nfunc nom() string { return \"darwin\" }\n"},
			darwin: []string{
				"p/p.go:3:29: undefined: name",
				"p/export_test.go:3:19: undefined: name",
				"p/p_test.go:9:35: invalid operation: cannot call p.NameForTest (variable with invalid type): invalid type is not a function",
			},
		},
		{
			name:  "linux's external test uses what no file declares",
			edit:  map[string]string{"p/q_linux_test.go": "package p_test\n\nimport \"m/p\"\n\nvar _ = p.Missing\n"},
			linux: []string{"p/q_linux_test.go:5:11: undefined: p.Missing"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range ok {
				files[k] = v
			}
			for k, v := range tc.edit {
				files[k] = v
			}
			dir := writeModule(t, files)
			for _, plat := range []struct {
				goos, goarch string
				want         []string
			}{{"darwin", "arm64", tc.darwin}, {"linux", "arm64", tc.linux}} {
				n, errs, err := checkPlatform(dir, plat.goos, plat.goarch)
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				for _, w := range plat.want {
					want = append(want, filepath.Join(dir, w))
				}
				if n != 1 || !cmp.Equal(errs, want) {
					t.Errorf("%s/%s: %d packages, errors %q; want 1 package, errors %q", plat.goos, plat.goarch, n, errs, want)
				}
			}
		})
	}
}
