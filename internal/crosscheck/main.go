// Command crosscheck type-checks every package of the module, with its
// tests, as it would compile on other platforms with cgo off (make cross):
//
//	go run ./internal/crosscheck linux/arm64 darwin/arm64
//
// It checks from source (go/types, the standard library and the
// dependencies included) instead of building: a build per platform compiled
// the standard library and every dependency from an empty cache, 240 CPU-s
// of a clean clone's make test for the two platforms, where the type-check
// finds the same mistakes a file of ours can make on a platform the host
// does not build: a platform's file that does not compile, or a portable
// file that calls what only the host has. It prints each error with its
// file and line and exits 1 on any.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// listed is what go list says of a package on the platform checked.
type listed struct {
	ImportPath string // "p [q.test]" for p as q's test compiles it
	Dir        string
	GoFiles    []string // a test's variant: its test files too
	ImportMap  map[string]string
	Module     *struct{ Main bool }
	Error      *struct{ Err string }
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: crosscheck GOOS/GOARCH...")
		os.Exit(2)
	}
	// The platforms are checked side by side: each is one goroutine's
	// walk in dependency order, and make test waits on the slowest.
	type result struct {
		n    int
		errs []string
		err  error
	}
	platforms := os.Args[1:]
	results := make([]result, len(platforms))
	var wg sync.WaitGroup
	for i, p := range platforms {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok || goos == "" || goarch == "" {
			fmt.Fprintf(os.Stderr, "crosscheck: %q is not GOOS/GOARCH\n", p)
			os.Exit(2)
		}
		wg.Go(func() {
			r := &results[i]
			r.n, r.errs, r.err = checkPlatform(".", goos, goarch)
		})
	}
	wg.Wait()
	bad := 0
	for i, p := range platforms {
		r := results[i]
		if r.err != nil {
			fmt.Fprintf(os.Stderr, "crosscheck %s: %v\n", p, r.err)
			os.Exit(2)
		}
		for _, e := range r.errs {
			fmt.Fprintf(os.Stderr, "%s: %s\n", p, e)
		}
		fmt.Printf("crosscheck %s: %d packages and their tests type-check with cgo off; %d errors\n", p, r.n, len(r.errs))
		bad += len(r.errs)
	}
	if bad > 0 {
		os.Exit(1)
	}
}

// checkPlatform type-checks the packages of the module in dir, their tests and every
// package they import on goos/goarch, in go list's dependency order, and
// returns how many of the module's packages it checked and every error
// (those of the module's files, and any a dependency had there).
func checkPlatform(dir, goos, goarch string) (int, []string, error) {
	pkgs, err := list(dir, goos, goarch)
	if err != nil {
		return 0, nil, err
	}
	fset := token.NewFileSet()
	checked := map[string]*types.Package{"unsafe": types.Unsafe}
	var errs []string
	seen := map[string]bool{}
	n := 0
	for _, p := range pkgs {
		if p.ImportPath == "unsafe" || strings.HasSuffix(p.ImportPath, ".test") {
			continue // a test's generated main is go test's, not ours
		}
		if p.Error != nil {
			errs = append(errs, p.ImportPath+": "+p.Error.Err)
			continue
		}
		if p.Module != nil && p.Module.Main && !strings.Contains(p.ImportPath, " ") {
			n++ // a package of ours, not a test's variant of it
		}
		pkg, perrs := checkPackage(fset, checked, p)
		for _, e := range perrs {
			if !seen[e] { // a package and its test's variant share files
				seen[e] = true
				errs = append(errs, e)
			}
		}
		checked[p.ImportPath] = pkg
	}
	return n, errs, nil
}

// checkPackage type-checks one package, importing what it imports as go
// list resolved it (a test's recompiled variants included).
func checkPackage(fset *token.FileSet, checked map[string]*types.Package, p listed) (*types.Package, []string) {
	var errs []string
	files, err := parse(fset, p.Dir, p.GoFiles)
	if err != nil {
		return nil, []string{err.Error()}
	}
	imp := importerFunc(func(path string) (*types.Package, error) {
		if m, ok := p.ImportMap[path]; ok {
			path = m
		}
		if pkg := checked[path]; pkg != nil {
			return pkg, nil
		}
		return nil, fmt.Errorf("%s: not checked before %s", path, p.ImportPath)
	})
	conf := types.Config{Importer: imp, Error: func(err error) { errs = append(errs, err.Error()) }}
	name, _, _ := strings.Cut(p.ImportPath, " ")
	pkg, _ := conf.Check(name, fset, files, nil)
	return pkg, errs
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

func parse(fset *token.FileSet, dir string, names []string) ([]*ast.File, error) {
	var files []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// list is go list -deps -test of the module's packages (in dir) on goos/goarch with
// cgo off: every package the module's packages and tests import, before
// the packages that import it.
func list(dir, goos, goarch string) ([]listed, error) {
	cmd := exec.Command("go", "list", "-e", "-deps", "-test", "-json=ImportPath,Dir,GoFiles,ImportMap,Module,Error", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}
