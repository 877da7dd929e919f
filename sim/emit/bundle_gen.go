//go:build ignore

// bundle_gen writes the bundle of package emit (bundle.go) into a directory,
// replacing what is there: go generate ./sim/emit runs it for the Python
// package in python/.
//
//	go run bundle_gen.go -o DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/simabi/simabi/sim/emit"
)

func main() {
	out := flag.String("o", "", "the bundle `directory` (its files are replaced)")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: go run bundle_gen.go -o DIR")
		os.Exit(2)
	}
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "bundle_gen:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	files, err := emit.Bundle()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range old {
		if _, keep := files[e.Name()]; !keep && (e.Name() == emit.BundleManifest || strings.HasSuffix(e.Name(), ".in")) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
