package emit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/internal/procmaps"
	"github.com/simabi/simabi/onboard"
)

// The tests compile the emitted runtime with the system C compiler and drive
// it through small C programs (testdata/*.c) run as child processes; only
// the recorder's tests load libraries into the test process (through
// onboard), and each unloads what it loaded.

var (
	testCacheDir string // where this test process builds fakes
	testWorkDir  string // drivers
	noCompiler   error  // set when no C compiler exists
)

func TestMain(m *testing.M) {
	code := func() int {
		var err error
		if testWorkDir, err = os.MkdirTemp("", "simabi-emit-test-"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(testWorkDir)
		// The cache every package's tests share (Build's default), so make
		// test compiles each fake and mutant once; a private one only when
		// there is none.
		if testCacheDir, err = defaultCacheDir(); err != nil {
			testCacheDir = filepath.Join(testWorkDir, "cache")
		}
		if _, err := resolveCompiler(""); err != nil {
			noCompiler = err
		}
		code := m.Run()
		// Every test that loads a runtime unloads it: what one test leaves
		// loaded must not be there when another runs. (A helper process
		// runs one scenario and exits; it may leave its library loaded.)
		left := procmaps.Mapped(func(p string) bool { return filepath.Base(p) == RuntimeLibName && !onboard.Preloaded(p) })
		if len(left) > 0 && os.Getenv("SIMABI_REC_HELPER") == "" {
			fmt.Fprintf(os.Stderr, "sim/emit tests: %d runtime(s) still loaded after the tests ran (a test did not close what it opened):\n  %s\n",
				len(left), strings.Join(left, "\n  "))
			return 1
		}
		return code
	}()
	os.Exit(code)
}

func needCC(t testing.TB) {
	t.Helper()
	if noCompiler != nil {
		t.Skipf("skipping: %v", noCompiler)
	}
}

func buildFake(t testing.TB, cfg Config) *Artifacts {
	t.Helper()
	needCC(t)
	art, err := Build(cfg, BuildOptions{CacheDir: testCacheDir})
	if err != nil {
		t.Fatalf("Build(%+v): %v", cfg, err)
	}
	return art
}

// driverPrelude declares the ABI layouts and one function pointer per entry
// of the kernel revision, plus load(), which binds them all with dlsym.
func driverPrelude() string {
	var b strings.Builder
	b.WriteString("#define _DEFAULT_SOURCE 1\n#define _POSIX_C_SOURCE 200809L\n#include <dlfcn.h>\n#include <stdio.h>\n")
	b.WriteString("typedef void *DeviceContextHandle;\ntypedef void *RuntimeHandle;\ntypedef void *CommHandle;\n")
	b.WriteString(abi.CDeclarations(""))
	syms := ExportedSymbols(ProfileTMR)
	for _, s := range syms {
		re := regexp.MustCompile(`\b` + s.Name + `\(`)
		fmt.Fprintf(&b, "__attribute__((unused)) static %s;\n", re.ReplaceAllString(s.Proto, "(*p_"+s.Name+")("))
	}
	b.WriteString("__attribute__((unused)) static int load(void *h)\n{\n")
	for _, s := range syms {
		fmt.Fprintf(&b, "    if ((*(void **)&p_%s = dlsym(h, %q)) == NULL) {\n        fprintf(stderr, \"missing symbol %s\\n\");\n        return -1;\n    }\n", s.Name, s.Name, s.Name)
	}
	b.WriteString("    return 0;\n}\n\n")
	return b.String()
}

var (
	driverMu   sync.Mutex
	driverExes = map[string]string{}
)

// driver compiles testdata/<name>.c (with the generated prelude) with the
// default compiler once per test process and returns the executable.
func driver(t testing.TB, name string) string {
	t.Helper()
	needCC(t)
	return driverWith(t, "", name)
}

// driverWith is driver compiled by the compiler command cc ("" is the
// default, as for BuildOptions.CC).
func driverWith(t testing.TB, cc, name string) string {
	t.Helper()
	driverMu.Lock()
	defer driverMu.Unlock()
	key := cc + "\x00" + name
	if exe, ok := driverExes[key]; ok {
		return exe
	}
	compiler, err := resolveCompiler(cc)
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join("testdata", name+".c"))
	if err != nil {
		t.Fatal(err)
	}
	src := driverPrelude() + string(body)
	sum := sha256.Sum256([]byte(strings.Join(compiler.argv, " ") + "\x00" + src))
	dir := filepath.Join(testWorkDir, "drivers", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfile, exe := filepath.Join(dir, name+".c"), filepath.Join(dir, name)
	if err := os.WriteFile(cfile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, compiler.argv[1:]...), "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-pthread", "-o", exe, cfile, "-ldl")
	if out, err := exec.Command(compiler.argv[0], args...).CombinedOutput(); err != nil {
		t.Fatalf("compiling driver %s with %s: %v\n%s", name, compiler.argv[0], err, out)
	}
	driverExes[key] = exe
	return exe
}

type runResult struct {
	stdout, stderr string
	exitCode       int  // -1 when killed by a signal
	signaled       bool // terminated by a signal (abort → SIGABRT)
	timedOut       bool
}

func (r runResult) String() string {
	return fmt.Sprintf("exit %d (signaled %v, timed out %v)\nstdout:\n%s\nstderr:\n%s", r.exitCode, r.signaled, r.timedOut, r.stdout, r.stderr)
}

func runExe(t testing.TB, timeout time.Duration, exe string, args ...string) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := runResult{stdout: so.String(), stderr: se.String(), timedOut: ctx.Err() != nil}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.exitCode = ee.ExitCode()
		r.signaled = ee.ExitCode() == -1
	default:
		t.Fatalf("running %s: %v", exe, err)
	}
	return r
}
