package emit

import (
	"encoding/binary"
	"slices"
	"syscall"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
)

// docs/trace.md, the encodings a well-behaved session does not reach: a
// symbol the target lacks (answered INTERNAL, recorded "missing"), setdev
// none, an image of size 0, every SPAN form with sdmaon, a registered
// image whose header is implausible, NULL run storage.
func TestRecorderEdgeEncodings(t *testing.T) {
	fake := freshFake(t, Config{Profile: ProfileTMR, Omit: []string{abi.EntryCommBarrier.Name(), abi.EntrySimInject.Name()}})
	rec := freshRecorder(t, RecorderConfig{})
	trace := recordEnv(t, fake)
	pf := newProgramFixture(t)
	bad := slices.Clone(pf.img) // child 0 one byte past its canonical offset
	binary.LittleEndian.PutUint32(bad[abi.ChipChildOffsetsOff:], binary.LittleEndian.Uint32(bad[abi.ChipChildOffsetsOff:])+1)
	badImg := abi.AlignedBytes(len(bad), 64)
	copy(badImg, bad)
	span := abi.AlignedBytes(64, 64)
	got := runSession(t, rec, func(l *onboard.Library) observed {
		var o observed
		hooks, _ := l.Hooks()
		o.add("comm_barrier %d", l.CommBarrier(0))
		o.add("inject %d", hooks.SimInject(abi.SitePrepareCopy, 1, int32(abi.Internal)))
		o.add("setdev %d", hooks.SimSetCurrentDevice(-1))
		c := l.CreateDeviceContext()
		id := int32(5)
		o.add("prepare %d %d", l.KernelModePrepareCallable(c, abi.Ptr(span), 0, &id), id)
		o.add("pinit %d", l.SimplerInit(c, 0, abi.Ptr(span), 64, abi.Ptr(span), 0, nil, 64, nil, 1, nil, 0))
		o.add("pinit %d", l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0))
		o.add("register %d", l.RegisterCallable(c, 1, abi.Ptr(badImg)))
		o.add("prepare_run %d", l.PrepareRun(c, 0, 0, nil, nil, nil))
		o.add("launch_run %d", l.LaunchRun(c, 0))
		o.add("finalize %d", l.FinalizeDevice(c))
		l.DestroyDeviceContext(c)
		return o
	})
	if diff := cmp.Diff(observed{"comm_barrier -1000", "inject -1000", "setdev 0", "prepare -1004 -1", "pinit -1004",
		"pinit 0", "register -1004", "prepare_run -1004", "launch_run -1004", "finalize 0"}, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(badImg)))%64 != 0 {
		t.Fatal("image not 64-byte aligned")
	}
	want := append(traceHeader(fake, "kernel", DefaultImageLimit), recorded(append(bindTrace,
		"dev=none cbarrier null -> missing",
		"dev=none inject site=2 count=1 code=-1000 -> missing",
		"dev=none setdev none -> 0",
		"dev=none create -> c1",
		"dev=none prepare c1 img=raw(0,0,) -> -1004 out=-1",
		"dev=none pinit c1 dev=0 aicpu=bytes(64) aicore=halfptr disp=halfsize prewarm=null sdma=none sdmaon=1 -> -1004",
		"dev=none pinit c1 dev=0 aicpu=none aicore=none disp=none prewarm=null sdma=none sdmaon=0 -> 0",
		"dev=0 register c1 id=1 img=raw(?,0,trunc) -> -1004",
		"dev=0 prepare_run c1 st=null id=0 args=null cfg=null desc=null -> -1004",
		"dev=0 launch_run c1 st=null -> -1004",
		"dev=0 finalize c1 -> 0",
		"dev=0 destroy c1 -> done",
	))...)
	if diff := cmp.Diff(want, readTrace(t, trace)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// docs/trace.md: a struct pointer that points into unmapped memory, passed
// where the callee refuses before reading it (a NULL context), is recorded
// as "bad" without faulting the recorder; the results are the target's.
func TestRecorderUnreadableStructPointers(t *testing.T) {
	fake := freshFake(t, Config{Profile: ProfileTMR})
	rec := freshRecorder(t, RecorderConfig{})
	trace := recordEnv(t, fake)
	// Unmapped for the whole of every struct read from it (the task args'
	// counts lie past their tensor array, well beyond one page).
	size := (abi.TaskArgsSize + abi.CallConfigSize + 4095) &^ 4095
	page, err := syscall.Mmap(-1, 0, size, syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(page)
	unmapped := unsafe.Pointer(unsafe.SliceData(page))
	storage := abi.AlignedBytes(64, 64)
	rt := abi.RunHandle(uintptr(unsafe.Pointer(unsafe.SliceData(storage))))
	got := runSession(t, rec, func(l *onboard.Library) observed {
		var o observed
		o.add("kinit %d", l.KernelModeInit(0, 0, nil, 0, nil, 0, nil, 0, unmapped, 1))
		o.add("launch %d", l.KernelModeLaunch(0, 0, unmapped, sessionStream))
		o.add("prepare_run %d", l.PrepareRun(0, rt, 0, unmapped, unmapped, unmapped))
		return o
	})
	if diff := cmp.Diff(observed{"kinit -1004", "launch -1004", "prepare_run -1004"}, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	want := append(traceHeader(fake, "kernel", DefaultImageLimit), recorded(append(bindTrace,
		"dev=none kinit null dev=0 gen=1 cfg=bad aicpu=none aicore=none disp=none -> -1004",
		"dev=none launch null id=0 args=bad stream=s0 -> -1004",
		"dev=none prepare_run null st=0 id=0 args=bad cfg=bad desc=bad -> -1004",
	))...)
	if diff := cmp.Diff(want, readTrace(t, trace)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}
