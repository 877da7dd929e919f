package emit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/internal/exports"
	"github.com/simabi/simabi/internal/scratch"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// File names of a built fake.
const (
	RuntimeLibName = "libhost_runtime.so"
	ACLLibName     = "libascendcl.so"
	RuntimeSrcName = "host_runtime.c"
	ACLSrcName     = "ascendcl.c"
	HeaderName     = "simabi_fake.h"
)

// CFlags are the flags every translation unit is compiled with (besides
// -shared and -o).
var CFlags = []string{"-std=c11", "-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror", "-pthread"}

// MutantCFlags are CFlags at -O0, for a mutant's runtime (Config.Mutant): a
// mutant is built to be killed, not to run fast, and -O0 compiles the
// runtime in under a third of -O2's time (0.24 s against 0.80 s here); a
// cold `abicheck mutants` builds 239 of them. The ACL a mutant loads is the
// shared one, built with CFlags.
var MutantCFlags = func() []string {
	f := append([]string(nil), CFlags...)
	for i, x := range f {
		if x == "-O2" {
			f[i] = "-O0"
		}
	}
	return f
}()

// The arguments after CFlags of each library's link, run in the build
// directory. The Python package builds with the same (bundle.go).
var (
	// -lrt: shm_open and shm_unlink (the comm family) live there before
	// glibc 2.34, and in libc, with an empty librt, since.
	runtimeLinkArgs  = []string{"-o", RuntimeLibName, RuntimeSrcName, "-L.", "-l:" + ACLLibName, "-Wl,-rpath,$ORIGIN", "-Wl,--no-undefined", "-lrt"}
	aclLinkArgs      = []string{"-Wl,-soname," + ACLLibName, "-Wl,-z,nodelete", "-o", ACLLibName, ACLSrcName, "-ldl"}
	recorderLinkArgs = []string{"-o", RuntimeLibName, RecorderSrcName, "-ldl", "-Wl,--no-undefined"}
)

// The salts of the cache keys: a change of what a cache entry holds changes
// them.
const (
	fakeKeySalt     = "layout-v1"
	recorderKeySalt = "recorder-v1"
)

// ErrNoCompiler reports that no C compiler could be found.
var ErrNoCompiler = errors.New("no C compiler found (set CC or install gcc)")

// BuildOptions says where and with what a fake is built.
type BuildOptions struct {
	// CC is the C compiler command (may carry arguments, e.g. "ccache gcc");
	// default $CC, then "cc".
	CC string
	// CacheDir holds built fakes by key; default $SIMABI_FAKE_CACHE, then
	// os.UserCacheDir()/simabi/fakes.
	CacheDir string
	// OutDir, if set, receives a copy of both libraries and both sources; the
	// Artifacts then name the copies.
	OutDir string
	// Unoptimized compiles the runtime with MutantCFlags (-O0): for a fake
	// that a test builds once to drive a few calls, where -O2's compile
	// time is most of the cost.
	Unoptimized bool
	// runtimeFlags compile the runtime instead of CFlags (Build: a mutant's
	// MutantCFlags).
	runtimeFlags []string
}

// Artifacts are the files of a built fake.
type Artifacts struct {
	RuntimePath   string // libhost_runtime.so
	ACLPath       string // libascendcl.so (in the same directory)
	RuntimeSource string // host_runtime.c
	ACLSource     string // ascendcl.c
	HeaderPath    string // simabi_fake.h
	Cached        bool   // the build came from the cache: nothing was compiled
	Key           string // the cache key (hex SHA-256)
}

// compilerID identifies a compiler for the cache key: its resolved path and
// its --version output. Resolved once per command per process.
type compilerID struct {
	argv    []string // resolved program + extra arguments
	version string
}

var (
	compilerMu    sync.Mutex
	compilerCache = map[string]compilerID{}
)

func resolveCompiler(cc string) (compilerID, error) {
	if cc == "" {
		cc = os.Getenv("CC")
	}
	if cc == "" {
		cc = "cc"
	}
	compilerMu.Lock()
	defer compilerMu.Unlock()
	if id, ok := compilerCache[cc]; ok {
		return id, nil
	}
	fields := strings.Fields(cc)
	if len(fields) == 0 {
		return compilerID{}, ErrNoCompiler
	}
	path, err := exec.LookPath(fields[0])
	if err != nil {
		return compilerID{}, fmt.Errorf("%w: %q is not an executable in PATH", ErrNoCompiler, fields[0])
	}
	argv := append([]string{path}, fields[1:]...)
	out, err := exec.Command(argv[0], append(argv[1:], "--version")...).CombinedOutput()
	if err != nil {
		return compilerID{}, fmt.Errorf("%w: %s --version failed: %v", ErrNoCompiler, cc, err)
	}
	id := compilerID{argv: argv, version: string(out)}
	compilerCache[cc] = id
	return id, nil
}

// cacheKey hashes both sources, the compiler and the flags (CFlags).
func cacheKey(src Sources, cc compilerID) string { return cacheKeyWith(src, cc, CFlags) }

// cacheKeyWith is cacheKey for a runtime compiled with flags.
func cacheKeyWith(src Sources, cc compilerID, flags []string) string {
	h := sha256.New()
	for _, part := range []string{src.Runtime, src.ACL, src.Header, strings.Join(cc.argv, " "), cc.version, strings.Join(flags, " "), fakeKeySalt} {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func defaultCacheDir() (string, error) {
	if d := os.Getenv("SIMABI_FAKE_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("emit: no cache directory (set SIMABI_FAKE_CACHE): %w", err)
	}
	return filepath.Join(d, "simabi", "fakes"), nil
}

// inflight makes concurrent Builds of one key in this process compile once.
var (
	inflightMu sync.Mutex
	inflight   = map[string]*sync.Mutex{}
)

func keyLock(key string) *sync.Mutex {
	inflightMu.Lock()
	defer inflightMu.Unlock()
	m, ok := inflight[key]
	if !ok {
		m = &sync.Mutex{}
		inflight[key] = m
	}
	return m
}

// Build emits cfg and compiles it, or returns the cached build of the same
// sources, compiler and flags. Concurrent builds (goroutines or processes)
// are safe: a build happens in a private directory that is renamed into
// place.
func Build(cfg Config, opt BuildOptions) (*Artifacts, error) {
	src, err := Source(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Mutant != "" {
		opt.runtimeFlags = MutantCFlags
	}
	return BuildSources(src, opt)
}

// BuildSources compiles already emitted sources (see Build).
func BuildSources(src Sources, opt BuildOptions) (*Artifacts, error) {
	cc, err := resolveCompiler(opt.CC)
	if err != nil {
		return nil, err
	}
	cacheDir, err := opt.cacheDir()
	if err != nil {
		return nil, err
	}
	flags := CFlags
	if opt.Unoptimized {
		flags = MutantCFlags
	}
	if opt.runtimeFlags != nil {
		flags = opt.runtimeFlags
	}
	key := cacheKeyWith(src, cc, flags)
	final := filepath.Join(cacheDir, key)
	art := &Artifacts{
		RuntimePath:   filepath.Join(final, RuntimeLibName),
		ACLPath:       filepath.Join(final, ACLLibName),
		RuntimeSource: filepath.Join(final, RuntimeSrcName),
		ACLSource:     filepath.Join(final, ACLSrcName),
		HeaderPath:    filepath.Join(final, HeaderName),
		Key:           key,
	}
	art.Cached, err = publish(cacheDir, final, key, ".build-"+key[:12]+"-",
		func() bool { return complete(art) },
		func(tmp string) error { return compileInto(tmp, cacheDir, src, cc, flags) })
	if err != nil {
		return nil, err
	}
	if opt.OutDir != "" {
		return copyArtifacts(art, opt.OutDir)
	}
	return art, nil
}

// cacheDir is the build cache: opt.CacheDir, else the default.
func (opt BuildOptions) cacheDir() (string, error) {
	if opt.CacheDir != "" {
		return opt.CacheDir, nil
	}
	return defaultCacheDir()
}

// publish makes the cache entry final (named lockKey for the in-process
// lock): nothing when done() says it is complete already, else compile into
// a private directory of cacheDir renamed into place, so that concurrent
// builds of one key, in this process or another, never see a half-built
// entry. It reports whether the entry came from the cache.
func publish(cacheDir, final, lockKey, tmpPrefix string, done func() bool, compile func(tmp string) error) (bool, error) {
	l := keyLock(lockKey)
	l.Lock()
	defer l.Unlock()
	if done() {
		return true, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return false, fmt.Errorf("emit: cache: %w", err)
	}
	tmp, release, err := scratch.MkdirTemp(cacheDir, tmpPrefix)
	if err != nil {
		return false, fmt.Errorf("emit: cache: %w", err)
	}
	defer func() { os.RemoveAll(tmp); release() }()
	if err := compile(tmp); err != nil {
		return false, err
	}
	if err := os.Rename(tmp, final); err != nil {
		if done() {
			return true, nil // another process published the same key first
		}
		// A damaged entry (a file removed by hand): replace it.
		if os.RemoveAll(final) != nil || os.Rename(tmp, final) != nil {
			return false, fmt.Errorf("emit: cache: publishing %s: %w", final, err)
		}
	}
	return false, nil
}

func complete(a *Artifacts) bool {
	for _, p := range []string{a.RuntimePath, a.ACLPath, a.RuntimeSource, a.ACLSource, a.HeaderPath} {
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// compileInto writes both sources into dir and builds both libraries there,
// the runtime with flags.
// The ACL library is the same for every fake, so its build is cached on its
// own (by the ACL source, compiler and flags) and linked or copied in.
func compileInto(dir, cacheDir string, src Sources, cc compilerID, flags []string) error {
	if err := os.WriteFile(filepath.Join(dir, RuntimeSrcName), []byte(src.Runtime), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ACLSrcName), []byte(src.ACL), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, HeaderName), []byte(src.Header), 0o644); err != nil {
		return err
	}
	if err := aclLibrary(dir, cacheDir, src, cc); err != nil {
		return err
	}
	return runCC(dir, cc, flags, runtimeLinkArgs...)
}

func runCC(dir string, cc compilerID, flags []string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	argv := append(append(append([]string{}, cc.argv[1:]...), flags...), args...)
	cmd := exec.CommandContext(ctx, cc.argv[0], argv...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// The compiler's own temporary files (gcc's ccXXXX.s) go into dir,
	// which goes when the build ends, however it ends.
	if abs, err := filepath.Abs(dir); err == nil {
		cmd.Env = append(os.Environ(), "TMPDIR="+abs)
	}
	stopGently(cmd)
	cmd.WaitDelay = 5 * time.Second
	// An interrupted run stops the compiler and waits for it, before
	// its directory goes.
	done := make(chan struct{})
	release, err := scratch.Hold(cmd.Start, func() { cancel(); <-done })
	if err == nil {
		err = cmd.Wait()
		close(done)
		release()
	}
	if err != nil {
		return fmt.Errorf("emit: %s %s: %v\n%s", cc.argv[0], strings.Join(argv, " "), err, out.String())
	}
	return nil
}

// aclLibrary puts libascendcl.so into dir, from the ACL cache entry of the
// source or by building it (and publishing it there).
func aclLibrary(dir, cacheDir string, src Sources, cc compilerID) error {
	key := cacheKey(Sources{ACL: src.ACL}, cc)
	entry := filepath.Join(cacheDir, "acl-"+key[:32])
	lib := filepath.Join(entry, ACLLibName)
	dst := filepath.Join(dir, ACLLibName)
	if st, err := os.Stat(lib); err == nil && st.Mode().IsRegular() {
		if os.Link(lib, dst) == nil || scratch.CopyFile(lib, dst) == nil {
			return nil
		}
	}
	if err := runCC(dir, cc, CFlags, aclLinkArgs...); err != nil {
		return err
	}
	tmp, release, err := scratch.MkdirTemp(cacheDir, ".acl-")
	if err != nil {
		return nil // the cache is an optimisation
	}
	defer func() { os.RemoveAll(tmp); release() }()
	if scratch.CopyFile(dst, filepath.Join(tmp, ACLLibName)) == nil {
		_ = os.Rename(tmp, entry) // loses harmlessly to a concurrent publisher
	}
	return nil
}

// copyArtifacts copies a build into dir (atomically per file) and returns
// the copies.
func copyArtifacts(a *Artifacts, dir string) (*Artifacts, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	out := *a
	for _, f := range []struct {
		src string
		dst *string
	}{{a.ACLPath, &out.ACLPath}, {a.RuntimePath, &out.RuntimePath}, {a.RuntimeSource, &out.RuntimeSource}, {a.ACLSource, &out.ACLSource}, {a.HeaderPath, &out.HeaderPath}} {
		p := filepath.Join(dir, filepath.Base(f.src))
		if err := scratch.CopyFile(f.src, p); err != nil {
			return nil, fmt.Errorf("emit: copying to %s: %w", dir, err)
		}
		*f.dst = p
	}
	return &out, nil
}

// WriteSources writes the sources and the header into dir (the CLI's
// -emit-only) and returns their paths.
func WriteSources(src Sources, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range []struct{ name, text string }{{RuntimeSrcName, src.Runtime}, {ACLSrcName, src.ACL}, {HeaderName, src.Header}} {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte(f.text), 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// MissingForConsumer holds a built library, read from its file, to what the
// consumer of its revision resolves at load (abi.ConsumerSet, C-BIND-1):
// the revision its exports show and every requirement they lack.
// gen-fake-runtime runs it on every fake it builds.
func MissingForConsumer(path string) (abi.Revision, []abi.ConsumerRequirement, error) {
	return exports.Missing(path)
}
