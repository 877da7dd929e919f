package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/internal/scratch"
	"github.com/simabi/simabi/sim/emit"
)

// The layout of a simpler build, as upstream's RuntimeBuilder looks a
// simulator runtime up (simpler_setup/runtime_builder.py at 6ebaf77:
// build/lib/<arch>/sim/<runtime>/, the context library at build/lib/). The
// Python package's _install.py declares the same; TestInstall_pythonAgrees
// holds the two together.
const (
	simplerLibDir = "build/lib"
	simVariant    = "sim"
	// installRecord, in each directory a fake went into, says what install
	// did there, so that restore undoes exactly that.
	installRecord = "simabi-fake.installed"
)

// simArches are the architectures whose simulator runtimes upstream builds
// (build_runtimes.py --platforms a2a3sim a5sim).
var simArches = []string{"a2a3", "a5"}

// simRuntimes are the runtimes upstream builds per architecture (the
// pipelines abi marks UpstreamRuntime), each with the knob that gives the
// fake that pipeline's contract ("" for the legacy profile's default).
var simRuntimes = func() (rts []struct{ name, knob string }) {
	for _, sp := range abi.PipelineSpecs() {
		if !sp.UpstreamRuntime {
			continue
		}
		knob := ""
		if sp.Name != emit.ProfileLegacy.DefaultPipeline() {
			knob = "pipeline=" + string(sp.Name)
		}
		rts = append(rts, struct{ name, knob string }{string(sp.Name), knob})
	}
	return rts
}()

// installedFiles are the files install puts in a runtime directory: the
// fake runtime and the ACL library it links against (RUNPATH $ORIGIN).
var installedFiles = []string{emit.RuntimeLibName, emit.ACLLibName}

// aside names upstream's file kept beside the fake that replaced it:
// hidden, and not libhost_runtime.*, since upstream's
// tests/ut/py/test_host_runtime_abi.py globs that and wants one file.
func aside(name string) string { return "." + name + ".upstream" }

// runtimeDir is one build/lib/<arch>/sim/<runtime> directory of a simpler
// build.
type runtimeDir struct {
	path    string // ROOT/build/lib/<arch>/sim/<runtime>
	runtime string
	knob    string // the pipeline knob for runtime, "" for the default
}

// simRuntimeDirs lists the runtime directories of the simpler build at
// root, refusing a root that is not one and a runtime directory install
// does not know (its fake's contract would be a guess).
func simRuntimeDirs(root string) ([]runtimeDir, error) {
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s: no such directory", root)
	}
	found, _ := filepath.Glob(filepath.Join(root, simplerLibDir, "*", simVariant, "*"))
	var dirs []runtimeDir
	for _, d := range found {
		if !exists(filepath.Join(d, emit.RuntimeLibName)) && !exists(filepath.Join(d, aside(emit.RuntimeLibName))) {
			continue
		}
		arch, rt := filepath.Base(filepath.Dir(filepath.Dir(d))), filepath.Base(d)
		i := slices.IndexFunc(simRuntimes, func(r struct{ name, knob string }) bool { return r.name == rt })
		if !slices.Contains(simArches, arch) || i < 0 {
			return nil, fmt.Errorf("%s: a simulator runtime install does not know (it knows %s of %s)",
				d, runtimeNames(), strings.Join(simArches, ", "))
		}
		dirs = append(dirs, runtimeDir{path: d, runtime: rt, knob: simRuntimes[i].knob})
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%s is not a simpler build: no %s/<arch>/%s/<runtime>/%s (python3 simpler_setup/build_runtimes.py --platforms a2a3sim a5sim makes them)",
			root, simplerLibDir, simVariant, emit.RuntimeLibName)
	}
	return dirs, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func runtimeNames() string {
	var n []string
	for _, r := range simRuntimes {
		n = append(n, r.name)
	}
	return strings.Join(n, ", ")
}

// installed says whether a fake (or part of one, from an install that was
// interrupted) is in d: its record, or an upstream file kept aside.
func (d runtimeDir) installed() (string, bool) {
	names := []string{installRecord}
	for _, f := range installedFiles {
		names = append(names, aside(f))
	}
	for _, name := range names {
		if exists(filepath.Join(d.path, name)) {
			return filepath.Join(d.path, name), true
		}
	}
	return "", false
}

// runInstall is `gen-fake-runtime install [-knob k=v]... [-cc CC] ROOT`.
func runInstall(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen-fake-runtime install", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var knobs []string
	fs.Func("knob", "a `key=value` knob of the legacy profile, repeatable", func(v string) error {
		knobs = append(knobs, v)
		return nil
	})
	cc := fs.String("cc", "", "C compiler `command` (default $CC, then cc)")
	if err := fs.Parse(args); err != nil {
		return usageError(stderr, "install: "+err.Error())
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "usage: gen-fake-runtime install [-knob key=value]... [-cc CC] SIMPLER_ROOT")
	}
	for _, k := range knobs {
		if key, _, _ := strings.Cut(k, "="); key == "pipeline" {
			return usageError(stderr, fmt.Sprintf("install: knob %q: install sets the pipeline per runtime directory", k))
		}
	}
	dirs, err := simRuntimeDirs(fs.Arg(0))
	if err != nil {
		return usageError(stderr, "install: "+err.Error())
	}
	for _, d := range dirs {
		if p, ok := d.installed(); ok {
			return usageError(stderr, fmt.Sprintf("install: %s already holds a fake (%s); gen-fake-runtime restore %s first", d.path, filepath.Base(p), fs.Arg(0)))
		}
	}
	// Every fake is built before anything is moved: a knob the profile
	// refuses or a failing compiler leaves upstream's build as it was.
	type built struct {
		knobs []string
		art   *emit.Artifacts
	}
	fakes := map[string]built{}
	for _, d := range dirs {
		if _, ok := fakes[d.knob]; ok {
			continue
		}
		cfg := emit.Config{Profile: emit.ProfileLegacy}
		for _, k := range append(slices.Clone(knobs), nonEmpty(d.knob)...) {
			if err := emit.ParseKnob(k, &cfg.Knobs); err != nil {
				return usageError(stderr, "install: "+strings.TrimPrefix(err.Error(), "emit: "))
			}
		}
		src, err := emit.Source(cfg)
		if err != nil {
			return usageError(stderr, "install: "+strings.TrimPrefix(err.Error(), "emit: "))
		}
		art, err := emit.BuildSources(src, emit.BuildOptions{CC: *cc})
		if err != nil {
			fmt.Fprintln(stderr, "gen-fake-runtime install:", err)
			return exitBuild
		}
		fakes[d.knob] = built{cfg.Knobs.Strings(), art}
	}
	for _, d := range dirs {
		f := fakes[d.knob]
		if err := d.install(f.knobs, map[string]string{emit.RuntimeLibName: f.art.RuntimePath, emit.ACLLibName: f.art.ACLPath}, stdout); err != nil {
			fmt.Fprintln(stderr, "gen-fake-runtime install:", err)
			return exitBuild
		}
	}
	return exitOK
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// install puts the fake's files (name → built file) into d. The record is
// written first, naming what will be kept aside and what will be new, so
// that restore undoes an install interrupted at any point: a kept-aside
// file exists only once upstream's has been moved.
func (d runtimeDir) install(knobs []string, files map[string]string, stdout io.Writer) error {
	var rec strings.Builder
	rec.WriteString("# simabi's fake runtime, installed over upstream's; `gen-fake-runtime restore` or `python3 -m simabi_fake restore` puts upstream's back\n")
	fmt.Fprintf(&rec, "profile %s\n", emit.ProfileLegacy)
	for _, k := range knobs {
		fmt.Fprintf(&rec, "knob %s\n", k)
	}
	var kept []string
	for _, name := range installedFiles {
		if exists(filepath.Join(d.path, name)) {
			kept = append(kept, name)
			fmt.Fprintf(&rec, "aside %s\n", name)
		} else {
			fmt.Fprintf(&rec, "new %s\n", name)
		}
	}
	recPath := filepath.Join(d.path, installRecord)
	if err := os.WriteFile(recPath, []byte(rec.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "wrote", recPath)
	for _, name := range kept {
		p, to := filepath.Join(d.path, name), filepath.Join(d.path, aside(name))
		if err := os.Rename(p, to); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "moved", p, "->", to)
	}
	for _, name := range installedFiles {
		p := filepath.Join(d.path, name)
		if err := scratch.CopyFile(files[name], p); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "wrote", p)
	}
	return nil
}

// runRestore is `gen-fake-runtime restore ROOT`.
func runRestore(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return usageError(stderr, "usage: gen-fake-runtime restore SIMPLER_ROOT")
	}
	dirs, err := simRuntimeDirs(args[0])
	if err != nil {
		return usageError(stderr, "restore: "+err.Error())
	}
	restored := false
	for _, d := range dirs {
		if _, ok := d.installed(); !ok {
			continue
		}
		restored = true
		if err := d.restore(stdout); err != nil {
			fmt.Fprintln(stderr, "gen-fake-runtime restore:", err)
			return exitBuild
		}
	}
	if !restored {
		fmt.Fprintf(stderr, "gen-fake-runtime restore: %s holds no fake (no %s under %s); nothing to do\n", args[0], installRecord, simplerLibDir)
	}
	return exitOK
}

// restore undoes install in d: every kept-aside file goes back, every file
// the record names as new is removed, then the record.
func (d runtimeDir) restore(stdout io.Writer) error {
	recPath := filepath.Join(d.path, installRecord)
	newFiles, err := readRecord(recPath)
	if err != nil {
		return err
	}
	for _, name := range installedFiles {
		p, from := filepath.Join(d.path, name), filepath.Join(d.path, aside(name))
		if exists(from) {
			if err := os.Rename(from, p); err != nil {
				return err
			}
			fmt.Fprintln(stdout, "moved", from, "->", p)
		} else if slices.Contains(newFiles, name) {
			if err := os.Remove(p); err == nil {
				fmt.Fprintln(stdout, "removed", p)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	if err := os.Remove(recPath); err == nil {
		fmt.Fprintln(stdout, "removed", recPath)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// readRecord returns the files an install record names as new; a missing
// record (an install interrupted before it wrote one cannot have moved
// anything) names none.
func readRecord(path string) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		word, rest, _ := strings.Cut(sc.Text(), " ")
		switch word {
		case "new":
			if !slices.Contains(installedFiles, rest) {
				return nil, fmt.Errorf("%s:%d: %q is not a file install writes", path, line, rest)
			}
			names = append(names, rest)
		case "#", "profile", "knob", "aside":
		default:
			return nil, fmt.Errorf("%s:%d: unknown line %q", path, line, sc.Text())
		}
	}
	return names, sc.Err()
}
