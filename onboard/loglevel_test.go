package onboard

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/simabi/simabi/abi"
)

// boundState reads the SimplerHostLogState a stub was last bound with.
func boundState(t *testing.T, path string) abi.HostLogState {
	t.Helper()
	h, err := purego.Dlopen(path, purego.RTLD_NOW)
	if err != nil {
		t.Fatal(err)
	}
	defer purego.Dlclose(h)
	fn, _ := purego.Dlsym(h, "stub_host_log_last_state")
	r1, _, _ := purego.SyscallN(fn)
	if r1 == 0 {
		t.Fatal("the binder was never called")
	}
	st, _ := abi.DecodeHostLogState(unsafeBytes(*(*unsafe.Pointer)(unsafe.Pointer(&r1)), abi.HostLogStateSize))
	return st
}

// The host-log state onboard binds carries a valid threshold: 25 (TIMING,
// upstream's default) unless Options.LogLevel says otherwise (docs/contract.md
// SimplerHostLogState; upstream's binder refuses any other value).
func TestHostLogThreshold(t *testing.T) {
	for _, tc := range []struct {
		level abi.LogLevel
		want  int32
	}{{0, 25}, {abi.LogDebug, 10}, {abi.LogInfo, 20}, {abi.LogWarn, 30}, {abi.LogError, 40}, {abi.LogNull, 60}} {
		path := buildStub(t, stubSpec{Supported: 1})
		l := mustOpen(t, path, Options{LogLevel: tc.level})
		got := boundState(t, path)
		if want := abi.HostLogStateAt(abi.LogLevel(tc.want)); got != want || !got.Bindable() {
			t.Errorf("LogLevel %d: bound %+v, want %+v", tc.level, got, want)
		}
		_ = l.Close()
	}
}

// A level that is not one of the six is refused before anything is loaded.
func TestHostLogThresholdInvalid(t *testing.T) {
	path := buildStub(t, stubSpec{Supported: 1, Extra: "/* log level refused */\n"})
	_, err := Open(path, Options{LogLevel: 15})
	var le *LoadError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "log level 15 is not one of 10, 20, 25, 30, 40, 60") {
		t.Fatalf("Open with LogLevel 15: %v", err)
	}
	if loaded(path) {
		t.Fatal("the library was loaded although the level was refused")
	}
}

// The emitted fake's binder refuses exactly what upstream's refuses, so a
// consumer that binds a bad state fails in our own tests: threshold 0 (what
// onboard once bound) does not load; every valid level does.
func TestEmittedBinderRefusesWhatUpstreamRefuses(t *testing.T) {
	path := emitted(t, tmrConfig())
	bad := abi.DefaultHostLogState()
	bad.Threshold = 0
	_, err := Open(path, Options{HostLog: bad})
	var le *LoadError
	if !errors.As(err, &le) || le.Status != abi.HostBindRefused || !strings.HasSuffix(err.Error(), "simpler_host_log_bind_state returned -1") {
		t.Fatalf("threshold 0: %v, want the binder's -1", err)
	}
	for _, l := range abi.LogLevels() {
		lib, err := Open(path, Options{LogLevel: l})
		if err != nil {
			t.Fatalf("level %v: %v", l, err)
		}
		_ = lib.Close()
	}
}

// Inspect: a library that loads but breaks a rule at bind time is bound, the
// rule recorded (a checker reports it); without Inspect it does not load.
func TestInspectBindFindings(t *testing.T) {
	bad := abi.SimulatedProgramContract()
	bad.PipelineDepth = 3
	for _, tc := range []struct {
		name string
		spec stubSpec
		rule string
		text string
	}{
		{"null-contract", stubSpec{Supported: 1, NullContract: true}, "V-CONTRACT", "get_pipeline_contract returned NULL"},
		{"bad-contract", stubSpec{Supported: 1, Contract: &bad}, "V-CONTRACT", "pipeline_depth 3 outside [1, 2]"},
		{"null-create", stubSpec{Supported: 1, NullCreate: true}, "L-1", "create_device_context returned NULL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := buildStub(t, tc.spec)
			if _, err := Open(path, Options{}); err == nil {
				t.Fatal("a consumer's Open succeeded")
			}
			l, err := Open(path, Options{Inspect: true})
			if err != nil {
				t.Fatalf("Inspect: %v", err)
			}
			defer l.Close()
			fs := l.BindFindings()
			if len(fs) != 1 || fs[0].Rule != tc.rule || !strings.Contains(fs[0].Detail, tc.text) {
				t.Fatalf("findings %+v, want one %s naming %q", fs, tc.rule, tc.text)
			}
			if tc.name == "null-create" && l.Supported() != 1 {
				t.Errorf("supported %d: supported(NULL) answers when no context can be made", l.Supported())
			}
		})
	}
}

// A shared library that exports no host-runtime entry is "not a host
// runtime", in one line, not a list of 40 missing symbols.
func TestNotAHostRuntime(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "other.c")
	if err := os.WriteFile(src, []byte("int other_entry(void) { return 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc) on PATH")
	}
	path := filepath.Join(dir, "libother.so")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", path, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	_, err = Open(path, Options{})
	var ne *NotRuntimeError
	if !errors.As(err, &ne) || err.Error() != "onboard: "+path+": not a host runtime (it exports none of the entries of docs/contract.md)" {
		t.Fatalf("Open: %v", err)
	}
}
