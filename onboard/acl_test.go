package onboard

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// The ACL binding for callers on silicon, tested against the emitted fake
// ACL: aclInit tolerant of 100002, per-thread devices shared with the
// runtime (D-2), streams, synchronize (E-LAUNCH-ASYNC), memory, counters.
func TestACLAgainstFakeACL(t *testing.T) {
	lockThread(t)
	path := emitted(t, tmrConfig())
	l := mustOpen(t, path, Options{})
	hooks, _ := l.Hooks()
	aclPath := ACLPathFor(path)
	if aclPath != filepath.Join(filepath.Dir(path), ACLLibraryName) || ACLPathFor(filepath.Dir(path)) != aclPath {
		t.Fatalf("ACLPathFor(%s) = %s", path, aclPath)
	}
	acl, err := OpenACL(aclPath)
	if err != nil {
		t.Fatal(err)
	}
	defer acl.Close()
	if !acl.HasCounters() || !acl.HasMemory() || acl.Path() != aclPath {
		t.Fatalf("counters %v memory %v", acl.HasCounters(), acl.HasMemory())
	}
	if err := acl.ResetCounters(); err != nil {
		t.Fatal(err)
	}
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	must("aclInit", acl.Init(""))
	must("aclInit again (100002 counts as success)", acl.Init("/nonexistent/acl.json"))
	must("aclrtSetDevice", acl.SetDevice(2))
	dev, err := acl.GetDevice()
	must("aclrtGetDevice", err)
	if dev != 2 || hooks.SimCurrentDevice() != 2 {
		t.Fatalf("device: ACL says %d, the runtime's hook says %d; want 2 for both (one ACL)", dev, hooks.SimCurrentDevice())
	}
	s, err := acl.CreateStream()
	must("aclrtCreateStream", err)
	if s == 0 {
		t.Fatal("aclrtCreateStream returned a NULL stream")
	}

	// The kernel path on the caller's device and stream; the caller's
	// synchronize completes the runtime's work and delivers its asynchronous
	// failure (E-LAUNCH-ASYNC).
	c := l.CreateDeviceContext()
	if st := l.KernelModeInit(c, 2, nil, 0, nil, 0, nil, 0, abi.Ptr(defaultConfig()), 9); st != abi.OK {
		t.Fatalf("kernel init on the ACL's device: %v", st)
	}
	img := emittest.Image("noop")
	id := new(int32)
	if st := l.KernelModePrepareCallable(c, abi.Ptr(img), uintptr(len(img)), id); st != abi.OK {
		t.Fatalf("prepare: %v", st)
	}
	args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
	if st := l.KernelModeLaunch(c, *id, args.Pointer(), s); st != abi.OK {
		t.Fatalf("launch: %v", st)
	}
	must("aclrtSynchronizeStream", acl.SynchronizeStream(s))
	hooks.SimInject(abi.SiteAsyncDeviceFail, 1, -1200)
	if st := l.KernelModeLaunch(c, *id, args.Pointer(), s); st != abi.OK {
		t.Fatalf("launch: %v", st)
	}
	var ae *ACLError
	if err := acl.SynchronizeStream(s); !errors.As(err, &ae) || ae.Code != -1200 || ae.Func != "aclrtSynchronizeStream" {
		t.Fatalf("synchronize after an injected device failure: %v, want aclError -1200", err)
	}
	if st := l.FinalizeDevice(c); st != abi.OK {
		t.Fatalf("finalize: %v", st)
	}
	l.DestroyDeviceContext(c)
	if err := acl.SynchronizeStream(0); !errors.As(err, &ae) || ae.Code != ACLErrorInvalidParam {
		t.Fatalf("synchronize(NULL): %v, want aclError %d", err, ACLErrorInvalidParam)
	}
	must("aclrtDestroyStream", acl.DestroyStream(s))

	p, err := acl.Malloc(4096, 0)
	must("aclrtMalloc", err)
	src := bytes.Repeat([]byte("simabi!"), 500)
	must("aclrtMemcpy h2d", acl.CopyToDevice(p, 4096, src))
	dst := make([]byte, len(src))
	must("aclrtMemcpy d2h", acl.CopyFromDevice(dst, p))
	if !bytes.Equal(src, dst) {
		t.Fatal("device memory round trip differs")
	}
	if err := acl.CopyToDevice(p, 4096, make([]byte, 4097)); !errors.As(err, &ae) || ae.Code != ACLErrorInvalidParam {
		t.Fatalf("copy of more than destMax: %v", err)
	}
	must("aclrtFree", acl.Free(p))
	must("aclrtSynchronizeDevice", acl.SynchronizeDevice())
	must("aclrtResetDevice", acl.ResetDevice(2))
	must("aclFinalize", acl.Finalize())

	got, err := acl.Counters()
	must("simabi_acl_counters", err)
	want := ACLCounters{Init: 2, Finalize: 1, SetDevice: 1, ResetDevice: 1, SynchronizeStream: 3,
		SynchronizeDevice: 1, CreateStream: 1, DestroyStream: 1, GetDevice: 1}
	if got != want {
		t.Fatalf("counters\n got %+v\nwant %+v (the kernel path moves none, D-1)", got, want)
	}
	must("reset", acl.ResetCounters())
	if got, _ := acl.Counters(); got != (ACLCounters{}) {
		t.Fatalf("counters after reset: %+v", got)
	}
	if err := acl.Close(); err != nil {
		t.Fatal(err)
	}
	if err := acl.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
	if err := acl.SetDevice(0); !errors.Is(err, ErrClosed) {
		t.Fatalf("SetDevice after Close: %v", err)
	}
}

func TestOpenACLFailures(t *testing.T) {
	if _, err := OpenACL("/nonexistent/libascendcl.so"); err == nil || !strings.Contains(err.Error(), "/nonexistent/libascendcl.so") {
		t.Fatalf("OpenACL of a missing file: %v", err)
	}
	stub := buildStub(t, stubSpec{Supported: 1, Extra: "EXPORT int aclInit(const char *p) { (void)p; return 100002; }\n"})
	_, err := OpenACL(stub)
	if err == nil || !strings.Contains(err.Error(), "missing ACL functions: aclFinalize, aclrtSetDevice") {
		t.Fatalf("OpenACL of a library without ACL: %v", err)
	}
	if got := ACLPathFor("/nonexistent/dir/libhost_runtime.so"); got != ACLLibraryName {
		t.Fatalf("ACLPathFor without a sibling ACL = %q", got)
	}
}

// Concurrent calls through one Library from several locked goroutines, each
// with its own context and device: the pooled argument blocks and the
// published table are shared safely (run under -race).
func TestConcurrentKernelCalls(t *testing.T) {
	path := emitted(t, tmrConfig())
	l := mustOpen(t, path, Options{})
	hooks, _ := l.Hooks()
	img := emittest.Image("noop")
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lockThread(t)
			dev := int32(g)
			stream := abi.Stream(0x7000 + g)
			hooks.SimSetCurrentDevice(dev)
			c := l.CreateDeviceContext()
			if st := l.KernelModeInit(c, dev, nil, 0, nil, 0, nil, 0, abi.Ptr(defaultConfig()), uint64(g+1)); st != abi.OK {
				errs <- errors.New("kernel init: " + st.String())
				return
			}
			args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
			id := new(int32)
			for i := range 200 {
				if st := l.KernelModePrepareCallable(c, abi.Ptr(img), uintptr(len(img)), id); st != abi.OK || *id != int32(i) {
					errs <- errors.New("prepare: " + st.String())
					return
				}
				if st := l.KernelModeLaunch(c, *id, args.Pointer(), stream); st != abi.OK {
					errs <- errors.New("launch: " + st.String())
					return
				}
				if l.KernelModeSupported(c) != 1 {
					errs <- errors.New("supported != 1")
					return
				}
			}
			hooks.SimSyncStream(stream)
			if st := l.FinalizeDevice(c); st != abi.OK {
				errs <- errors.New("finalize: " + st.String())
				return
			}
			l.DestroyDeviceContext(c)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
