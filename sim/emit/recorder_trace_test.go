package emit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
)

// committed memory of the kernel session's context after kinit and one
// prepare of its 9.6 KB image: the persistent launch region and the
// image's 2 MiB code block (docs/semantics.md §7, M-5).
var kernelSessionCommitted = fmt.Sprint(PersistentLaunchRegionBytes + abi.KernelCodeBlockBytes)

// docs/trace.md: a kernel-mode session of onboard over the emitted fake,
// recorded line by line: the header, onboard's bind, then every call of the
// session with its recorded arguments and result.
func TestRecorderKernelSessionTrace(t *testing.T) {
	fake := freshFake(t, Config{Profile: ProfileTMR})
	rec := freshRecorder(t, RecorderConfig{})
	trace := recordEnv(t, fake)
	f := newKernelFixture(t)
	runSession(t, rec, func(l *onboard.Library) observed { return kernelSession(l, f) })
	want := append(traceHeader(fake, "kernel", DefaultImageLimit), recorded(append(bindTrace, kernelTrace(f, kernelSessionCommitted)...))...)
	if diff := cmp.Diff(want, readTrace(t, trace)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// docs/trace.md: a program-mode session (pinit, register, the run family on
// run storage sized by get_runtime_size, unregister, finalize, destroy).
// Only the descriptor's accepted_state, an address, is masked.
func TestRecorderProgramSessionTrace(t *testing.T) {
	fake := freshFake(t, Config{Profile: ProfileTMR})
	rec := freshRecorder(t, RecorderConfig{})
	trace := recordEnv(t, fake)
	f := newProgramFixture(t)
	runSession(t, rec, func(l *onboard.Library) observed { return programSession(l, f) })
	want := append(traceHeader(fake, "kernel", DefaultImageLimit), recorded(append(bindTrace, programTrace(f, fmt.Sprint(int32(abi.PollComplete)))...))...)
	if diff := cmp.Diff(want, readTrace(t, trace)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// docs/trace.md "Each call is forwarded with the same arguments ... never
// changes a result": the same sessions through the fake directly and
// through the recorder over another copy of it observe the same results.
func TestRecorderForwardsResultsUnchanged(t *testing.T) {
	direct := freshFake(t, Config{Profile: ProfileTMR})
	target := freshFake(t, Config{Profile: ProfileTMR})
	rec := freshRecorder(t, RecorderConfig{})
	recordEnv(t, target)
	kf, pf := newKernelFixture(t), newProgramFixture(t)
	session := func(l *onboard.Library) observed {
		return append(kernelSession(l, kf), programSession(l, pf)...)
	}
	want := runSession(t, direct, session)
	*pf.accepted = -1
	got := runSession(t, rec, session)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results through the recorder differ from the fake's (-direct +recorded):\n%s", diff)
	}
	if len(want) < 35 {
		t.Fatalf("session observed only %d results", len(want))
	}
}

// docs/trace.md: a recorder built with -hooks=false exports no hooks (so
// onboard sees none) yet takes dev= from the target's simabi_current_device.
func TestRecorderWithoutHooksStillReadsTheDevice(t *testing.T) {
	fake := freshFake(t, Config{Profile: ProfileTMR})
	rec := freshRecorder(t, RecorderConfig{NoHooks: true})
	trace := recordEnv(t, fake)
	cfg := (&abi.CallConfig{}).Bytes()
	var err error
	onFreshThread(func() {
		var l *onboard.Library
		if l, err = onboard.Open(rec, onboard.Options{}); err != nil {
			return
		}
		defer l.Close()
		if l.HasHooks() {
			err = errors.New("onboard found hooks in a -hooks=false recorder")
			return
		}
		// The device is set through the ACL the target itself uses (among
		// its dependencies), which the recorder does not record.
		const rtldNoload = 0x4
		var h uintptr
		if h, err = purego.Dlopen(fake, purego.RTLD_NOW|rtldNoload); err != nil {
			return
		}
		defer purego.Dlclose(h)
		var set uintptr
		if set, err = purego.Dlsym(h, "aclrtSetDevice"); err != nil {
			return
		}
		if r, _, _ := purego.SyscallN(set, 0); int32(r) != 0 {
			err = fmt.Errorf("aclrtSetDevice: %d", int32(r))
			return
		}
		c := l.CreateDeviceContext()
		if st := l.KernelModeInit(c, 0, nil, 0, nil, 0, nil, 0, abi.Ptr(cfg), 7); st != abi.OK {
			err = fmt.Errorf("kinit: %v", st)
		}
		l.FinalizeDevice(c)
		l.DestroyDeviceContext(c)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := append(traceHeader(fake, "kernel", DefaultImageLimit), recorded(append(bindTrace,
		"dev=0 create -> c1",
		"dev=0 kinit c1 dev=0 gen=7 cfg=raw("+fmt.Sprintf("%x", cfg)+") aicpu=none aicore=none disp=none -> 0",
		"dev=0 finalize c1 -> 0",
		"dev=0 destroy c1 -> done"))...)
	if diff := cmp.Diff(want, readTrace(t, trace)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// docs/trace.md: the image limit. An image over it is raw(N,A,trunc) (not
// read); a registered image whose header describes more is raw(?,A,trunc);
// the limit of the build (-image-limit) is overridden by
// SIMABI_RECORD_IMAGE_LIMIT, and the header says which applies.
func TestRecorderImageLimit(t *testing.T) {
	fake := freshFake(t, Config{Profile: ProfileTMR})
	kf, pf := newKernelFixture(t), newProgramFixture(t)
	for _, tc := range []struct {
		build uint64
		env   string
		limit uint64
	}{
		{build: 9400, limit: 9400},
		{build: 0, env: "9400", limit: 9400},
		{build: 100000, env: "100", limit: 100},
		{build: 50, env: "0", limit: 0},
	} {
		t.Run(fmt.Sprintf("build=%d,env=%q", tc.build, tc.env), func(t *testing.T) {
			rec := freshRecorder(t, RecorderConfig{ImageLimit: tc.build})
			trace := recordEnv(t, fake)
			t.Setenv("SIMABI_RECORD_IMAGE_LIMIT", tc.env)
			runSession(t, rec, func(l *onboard.Library) observed {
				var o observed
				c := l.CreateDeviceContext()
				var id int32
				o.add("%d", l.KernelModePrepareCallable(c, abi.Ptr(kf.img), uintptr(len(kf.img)), &id))
				o.add("%d", l.KernelModePrepareCallable(c, abi.Ptr(kf.short), uintptr(len(kf.short)), &id))
				l.DestroyDeviceContext(c)
				c = l.CreateDeviceContext()
				o.add("%d", l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0))
				o.add("%d", l.RegisterCallable(c, 0, abi.Ptr(pf.img)))
				o.add("%d", l.FinalizeDevice(c))
				l.DestroyDeviceContext(c)
				return o
			})
			lines := readTrace(t, trace)
			if want := fmt.Sprintf("# image-limit: %d", tc.limit); lines[4] != want {
				t.Errorf("header line %q, want %q", lines[4], want)
			}
			short := "raw(100,0,trunc)"
			if tc.limit >= 100 {
				short = "raw(100,0," + fmt.Sprintf("%x", kf.short) + ")"
			}
			for _, want := range []string{
				fmt.Sprintf(" prepare c1 img=raw(%d,0,trunc) -> ", len(kf.img)),
				" prepare c1 img=" + short + " -> -1004 out=-1",
				" register c2 id=0 img=raw(?,0,trunc) -> 0",
			} {
				if !containsPart(lines, want) {
					t.Errorf("no line with %q in\n%s", want, strings.Join(lines, "\n"))
				}
			}
		})
	}
}

func containsPart(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// ---- failure modes, in child processes (the recorder writes to stderr) ----

// helperResult runs this test binary's TestRecorderHelperProcess in mode
// with env and returns its output.
func runHelper(t *testing.T, mode string, env ...string) (stdout, stderr string, pid int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecorderHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), append([]string{"SIMABI_REC_HELPER=" + mode, "SIMABI_FAKE_CACHE=" + testCacheDir}, env...)...)
	cmd.Dir = t.TempDir()
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("helper %s: %v\nstdout:\n%s\nstderr:\n%s", mode, err, so.String(), se.String())
		}
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("helper %s timed out", mode)
	}
	return so.String(), se.String(), cmd.Process.Pid
}

// helperLines are the lines the helper printed with its prefix.
func helperLines(stdout string) []string {
	var out []string
	for _, l := range strings.Split(stdout, "\n") {
		if s, ok := strings.CutPrefix(l, "helper: "); ok {
			out = append(out, s)
		}
	}
	return out
}

// The helper process: SIMABI_REC_HELPER selects what it does. It returns at
// once in a normal run.
func TestRecorderHelperProcess(t *testing.T) {
	switch os.Getenv("SIMABI_REC_HELPER") {
	case "":
		return
	case "untargeted":
		// Loaded once (onboard's refused load would unload it and a
		// second load would run the recorder's constructor again).
		rec := os.Getenv("SIMABI_REC_HELPER_LIB")
		h, err := purego.Dlopen(rec, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err != nil {
			t.Fatal(err)
		}
		_, err = onboard.Open(rec, onboard.Options{})
		var le *onboard.LoadError
		if errors.As(err, &le) {
			fmt.Printf("helper: open: %s %d\n", le.Step, int32(le.Status))
		} else {
			fmt.Printf("helper: open: %v\n", err)
		}
		call := func(name string, args ...uintptr) int64 {
			p, err := purego.Dlsym(h, name)
			if err != nil {
				t.Fatal(err)
			}
			r, _, _ := purego.SyscallN(p, args...)
			return int64(r)
		}
		state := make([]byte, abi.HostLogStateSize)
		if err := abi.DefaultHostLogState().Encode(state); err != nil {
			t.Fatal(err)
		}
		call(abi.EntryDestroyDeviceContext.Name(), 0)
		fmt.Printf("helper: bind=%d create=%d finalize=%d supported=%d size=%d contract=%d getdev=%d launch=%d\n",
			int32(call(abi.EntryHostLogBindState.Name(), uintptr(unsafe.Pointer(&state[0])))), call(abi.EntryCreateDeviceContext.Name()),
			int32(call(abi.EntryFinalizeDevice.Name(), 0)), int32(call(abi.EntryKernelSupported.Name(), 0)), call(abi.EntryGetRuntimeSize.Name()),
			call(abi.EntryGetPipelineContract.Name()), int32(call(abi.EntrySimCurrentDevice.Name())), int32(call(abi.EntryKernelLaunch.Name(), 1, 0, 0, 0)))
	case "unwritable":
		kf, pf := newKernelFixture(t), newProgramFixture(t)
		session := func(l *onboard.Library) observed {
			return append(kernelSession(l, kf), programSession(l, pf)...)
		}
		got := runSession(t, os.Getenv("SIMABI_REC_HELPER_LIB"), session)
		*pf.accepted = -1
		want := runSession(t, os.Getenv("SIMABI_REC_HELPER_DIRECT"), session)
		if diff := cmp.Diff(want, got); diff != "" {
			fmt.Printf("helper: results differ (-direct +recorded):\n%s", diff)
		} else {
			fmt.Printf("helper: same %d results\n", len(got))
		}
	default:
		t.Fatalf("unknown helper mode %q", os.Getenv("SIMABI_REC_HELPER"))
	}
}

func oneLine(t *testing.T, stderr, want string) {
	t.Helper()
	if stderr != want+"\n" {
		t.Errorf("stderr = %q, want the one line %q", stderr, want)
	}
}

// docs/trace.md: SIMABI_RECORD_TARGET not set: one stderr line, nothing
// recorded, every status entry INTERNAL, simpler_host_log_bind_state -1 (so
// onboard refuses the load at the binding), create NULL.
func TestRecorderWithoutTarget(t *testing.T) {
	rec := freshRecorder(t, RecorderConfig{})
	dir := t.TempDir()
	stdout, stderr, _ := runHelper(t, "untargeted", "SIMABI_REC_HELPER_LIB="+rec, "SIMABI_RECORD_TARGET=",
		"SIMABI_RECORD_FILE="+filepath.Join(dir, "t-%p.ops"))
	oneLine(t, stderr, "simabi recorder: SIMABI_RECORD_TARGET is not set")
	want := []string{
		"open: simpler_host_log_bind_state -1",
		"bind=-1 create=0 finalize=-1000 supported=0 size=0 contract=0 getdev=-1 launch=-1000",
	}
	if diff := cmp.Diff(want, helperLines(stdout)); diff != "" {
		t.Errorf("answers (-want +got):\n%s\n%s", diff, stdout)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a recorder without a target wrote %v", ents)
	}
}

// docs/trace.md: a target that does not load: one stderr line with dlerror,
// the same answers.
func TestRecorderTargetDoesNotLoad(t *testing.T) {
	rec := freshRecorder(t, RecorderConfig{})
	missing := filepath.Join(t.TempDir(), "libmissing.so")
	stdout, stderr, _ := runHelper(t, "untargeted", "SIMABI_REC_HELPER_LIB="+rec, "SIMABI_RECORD_TARGET="+missing)
	oneLine(t, stderr, "simabi recorder: SIMABI_RECORD_TARGET="+missing+": "+missing+": cannot open shared object file: No such file or directory")
	if lines := helperLines(stdout); len(lines) != 2 || lines[0] != "open: simpler_host_log_bind_state -1" {
		t.Errorf("answers: %q", lines)
	}
	// A companion library that does not load fails the same way, naming it.
	stdout, stderr, _ = runHelper(t, "untargeted", "SIMABI_REC_HELPER_LIB="+rec, "SIMABI_RECORD_TARGET="+freshFake(t, Config{}),
		"SIMABI_RECORD_PRELOAD="+missing)
	oneLine(t, stderr, "simabi recorder: SIMABI_RECORD_PRELOAD="+missing+": "+missing+": cannot open shared object file: No such file or directory")
	if lines := helperLines(stdout); len(lines) != 2 || lines[0] != "open: simpler_host_log_bind_state -1" {
		t.Errorf("answers with a missing preload: %q", lines)
	}
}

// docs/trace.md: an unwritable trace: one stderr line naming the file, and
// every call forwarded with the target's results.
func TestRecorderUnwritableTrace(t *testing.T) {
	rec := freshRecorder(t, RecorderConfig{})
	target, direct := freshFake(t, Config{}), freshFake(t, Config{})
	bad := filepath.Join(t.TempDir(), "no-such-dir", "t-%p.ops")
	stdout, stderr, pid := runHelper(t, "unwritable", "SIMABI_REC_HELPER_LIB="+rec, "SIMABI_REC_HELPER_DIRECT="+direct,
		"SIMABI_RECORD_TARGET="+target, "SIMABI_RECORD_FILE="+bad, "SIMABI_RECORD_IMAGE_LIMIT=", "SIMABI_RECORD_PRELOAD=")
	oneLine(t, stderr, "simabi recorder: SIMABI_RECORD_FILE="+strings.ReplaceAll(bad, "%p", fmt.Sprint(pid))+
		": No such file or directory (calls are forwarded without recording)")
	if lines := helperLines(stdout); len(lines) != 1 || !strings.HasPrefix(lines[0], "same ") {
		t.Errorf("helper:\n%s", stdout)
	}
}
