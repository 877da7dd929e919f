package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// announce names on stderr, one line each, what abicheck wrote for the
// user (repro files, diff scripts, JUnit, baselines): stdout carries the
// report. Temporary files are internal/scratch's and go at exit.
func announce(stderr io.Writer, format string, a ...any) {
	fmt.Fprintf(stderr, "abicheck: wrote "+format+"\n", a...)
}

// baselineEntries are the entries of a baseline's text: its lines but the
// comments and the blank ones, trimmed.
func baselineEntries(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// writeOutput writes a file the user asked for, making its directory.
func writeOutput(path string, b []byte) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return os.WriteFile(path, b, 0o644)
}

// CheckOutputs makes sure, before anything runs, that every output can be
// written (a long run's finding must not be lost to a missing directory),
// leaving nothing behind: what it created to find out it removes again.
func (o *Options) CheckOutputs() error {
	for _, f := range []struct{ flag, path string }{{"-junit", o.JUnit}, {"-write-baseline", o.WriteBaseline}, {"-html", o.HTML}} {
		if f.path == "" {
			continue
		}
		if err := probeFile(f.path); err != nil {
			return fmt.Errorf("%s %s: %v", f.flag, f.path, errors.Unwrap(err))
		}
	}
	if o.ReproDir != "" {
		if err := probeDir(o.ReproDir); err != nil {
			return fmt.Errorf("-repro-dir %s: %v", o.ReproDir, errors.Unwrap(err))
		}
	}
	return nil
}

// probeFile makes sure path can be written, without changing it.
func probeFile(path string) (err error) {
	made, err := mkdirs(filepath.Dir(path))
	defer unmake(made)
	if err != nil {
		return err
	}
	_, statErr := os.Lstat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	if errors.Is(statErr, os.ErrNotExist) {
		os.Remove(path)
	}
	return nil
}

// probeDir makes sure a file can be created in dir.
func probeDir(dir string) error { return probeFile(filepath.Join(dir, ".abicheck-write-test")) }

// mkdirs is os.MkdirAll(dir), returning the directories that were missing
// (those it made, unless it failed), the outermost first.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append([]string{d}, missing...)
	}
	return missing, os.MkdirAll(dir, 0o755)
}

// unmake removes the (empty) directories mkdirs made, the innermost first.
func unmake(made []string) {
	for i := len(made) - 1; i >= 0; i-- {
		os.Remove(made[i])
	}
}
