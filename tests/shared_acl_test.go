package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// The child half of TestSharedACL runs in a fresh process: which copy of the
// fake ACL a process holds depends on what it loaded before, so only a new
// process shows each load order.
const sharedACLChild = "SIMABI_SHARED_ACL_CHILD"

// D-2, D-3, D-1 (docs/fake-runtime.md, "One ACL per process"): emitted
// runtimes of different builds (a profile's plain build, a knob variant, a
// mutant, and the recorder over another fake), each from its own directory,
// loaded in one process with the ACL a caller opens from yet another
// directory, agree on that one ACL: the device the caller sets is the device
// each runtime sees, a stream the caller creates is one each runtime queues
// work on and that the caller's synchronize completes, and the caller's
// counters count every runtime's ACL calls. Each load order runs in a fresh
// process.
func TestSharedACL(t *testing.T) {
	if order := os.Getenv(sharedACLChild); order != "" {
		sharedACLScenario(t, order)
		return
	}
	if testing.Short() {
		t.Skip("builds four fakes and a recorder")
	}
	// Build once here, so the children find every build in the cache.
	sharedACLBuilds(t, t.TempDir())
	for _, order := range []string{"acl-first", "acl-last", "acl-between"} {
		t.Run(order, func(t *testing.T) { inChild(t, "TestSharedACL", sharedACLChild+"="+order) })
	}
}

type sharedACLBuild struct {
	name    string
	runtime string // the library a consumer loads
	env     []string
}

// sharedACLBuilds builds every library of the scenario, each copied into a
// directory of its own under dir (so no two share a file), and returns the
// runtimes and the caller's ACL.
func sharedACLBuilds(t *testing.T, dir string) ([]sharedACLBuild, string) {
	t.Helper()
	out := func(name string) emit.BuildOptions { return emit.BuildOptions{OutDir: filepath.Join(dir, name)} }
	build := func(name string, cfg emit.Config) *emit.Artifacts {
		a, err := emit.Build(cfg, out(name))
		if err != nil {
			emittest.Build(t, cfg) // skips without a compiler, fails with the error
			t.Fatalf("build %s: %v", name, err)
		}
		return a
	}
	var knob emit.Knobs
	if err := emit.ParseKnob("must_not_call=comm_barrier", &knob); err != nil {
		t.Fatal(err)
	}
	plain := build("plain", emit.Config{Profile: emit.ProfileTMR})
	variant := build("knob", emit.Config{Profile: emit.ProfileTMR, Knobs: knob})
	mutant := build("mutant", emit.Config{Profile: emit.ProfileTMR, Mutant: "ids-from-one"})
	target := build("recorded", emit.Config{Profile: emit.ProfileTMR})
	caller := build("caller", emit.Config{Profile: emit.ProfileTMR})
	rec, err := emit.BuildRecorder(emit.RecorderConfig{}, out("recorder"))
	if err != nil {
		t.Fatalf("build recorder: %v", err)
	}
	return []sharedACLBuild{
		{"plain", plain.RuntimePath, nil},
		{"knob", variant.RuntimePath, nil},
		{"mutant", mutant.RuntimePath, nil},
		{"recorder", rec.RuntimePath, []string{"SIMABI_RECORD_TARGET=" + target.RuntimePath, "SIMABI_RECORD_FILE=" + filepath.Join(dir, "trace-%p.ops")}},
	}, caller.ACLPath
}

func sharedACLScenario(t *testing.T, order string) {
	runtime.LockOSThread() // the current device is per OS thread (D-2)
	defer runtime.UnlockOSThread()
	builds, aclPath := sharedACLBuilds(t, t.TempDir())
	var acl *onboard.ACL
	openACL := func() {
		a, err := onboard.OpenACL(aclPath)
		if err != nil {
			t.Fatal(err)
		}
		acl = a
		t.Cleanup(func() { _ = a.Close() })
	}
	var libs []*onboard.Library
	for i, b := range builds {
		if (order == "acl-first" && i == 0) || (order == "acl-between" && i == 2) {
			openACL()
		}
		for _, kv := range b.env {
			k, v, _ := strings.Cut(kv, "=")
			t.Setenv(k, v)
		}
		l, err := onboard.Open(b.runtime, onboard.Options{})
		if err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		t.Cleanup(func() { _ = l.Close() })
		libs = append(libs, l)
	}
	if acl == nil {
		openACL()
	}
	if err := acl.SetDevice(0); err != nil {
		t.Fatal(err)
	}
	s1, err := acl.CreateStream()
	if err != nil {
		t.Fatal(err)
	}
	s2, err := acl.CreateStream()
	if err != nil {
		t.Fatal(err)
	}
	img := emittest.Image("noop")
	args := emittest.TaskArgs(0x1000, 0x2000, 4, 1)
	cfg := abi.AlignedBytes(abi.CallConfigSize, 8)
	for i, l := range libs {
		name := builds[i].name
		// The kernel path: the device the caller set is the runtime's
		// current device (prepare checks it, D-2), and launches on the
		// caller's streams complete only through the caller's synchronize
		// (the stream switch waits for it, E-LAUNCH, D-3).
		ctx := l.CreateDeviceContext()
		if st := l.KernelModeInit(ctx, 0, nil, 0, nil, 0, nil, 0, abi.Ptr(cfg), uint64(i+1)); st != abi.OK {
			t.Fatalf("%s: kernel init = %v", name, st)
		}
		id := int32(-2)
		if st := l.KernelModePrepareCallable(ctx, abi.Ptr(img), uintptr(len(img)), &id); st != abi.OK {
			t.Fatalf("%s: prepare = %v (the runtime does not see the device the caller's ACL set)", name, st)
		}
		var got []string
		step := func(what string, st abi.Status) { got = append(got, fmt.Sprintf("%s %v", what, st)) }
		step("launch s1", l.KernelModeLaunch(ctx, id, args.Pointer(), s1))
		step("launch s2 before s1 completes", l.KernelModeLaunch(ctx, id, args.Pointer(), s2))
		step("sync s1", syncStatus(acl.SynchronizeStream(s1)))
		step("launch s2", l.KernelModeLaunch(ctx, id, args.Pointer(), s2))
		step("sync s2", syncStatus(acl.SynchronizeStream(s2)))
		step("finalize", l.FinalizeDevice(ctx))
		want := []string{"launch s1 OK(0)", "launch s2 before s1 completes PREPARED_INCOMPATIBLE(-1002)", "sync s1 OK(0)",
			"launch s2 OK(0)", "sync s2 OK(0)", "finalize OK(0)"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: the kernel path through the caller's ACL (-want +got):\n%s", name, d)
		}
		l.DestroyDeviceContext(ctx)

		// The program path: the caller's counters count this runtime's ACL
		// calls (simpler_init sets the device; the program finalize
		// counts a device reset).
		before, err := acl.Counters()
		if err != nil {
			t.Fatal(err)
		}
		p := l.CreateDeviceContext()
		if st := l.SimplerInit(p, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0); st != abi.OK {
			t.Fatalf("%s: simpler_init = %v", name, st)
		}
		if st := l.FinalizeDevice(p); st != abi.OK {
			t.Fatalf("%s: program finalize = %v", name, st)
		}
		l.DestroyDeviceContext(p)
		after, err := acl.Counters()
		if err != nil {
			t.Fatal(err)
		}
		delta := map[string]uint64{}
		for k, n := range abi.ACLCounterNames {
			if d := after.Values()[k] - before.Values()[k]; d != 0 {
				delta[n] = d
			}
		}
		wantDelta := map[string]uint64{"aclrtSetDevice": 1, "aclrtResetDevice": 1}
		if d := cmp.Diff(wantDelta, delta); d != "" {
			t.Errorf("%s: the caller's ACL counters over simpler_init and finalize (-want +got):\n%s", name, d)
		}
		if err := acl.SetDevice(0); err != nil { // the program finalize left the thread without one
			t.Fatal(err)
		}
	}
}

// syncStatus maps an ACL synchronize's error to a status for the step list.
func syncStatus(err error) abi.Status {
	if err != nil {
		return abi.Internal
	}
	return abi.OK
}

const otherLayoutChild = "SIMABI_OTHER_LAYOUT_CHILD"

// A fake ACL of another table layout (another simabi version) loaded first is
// not forwarded to: the later copy keeps its own state and says so in one
// stderr line naming both files.
func TestSharedACLOtherLayoutSaysSo(t *testing.T) {
	if paths := os.Getenv(otherLayoutChild); paths != "" {
		for _, p := range strings.Split(paths, ":") {
			a, err := onboard.OpenACL(p)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = a.Close() })
		}
		return
	}
	src, err := emit.Source(emit.Config{Profile: emit.ProfileTMR})
	if err != nil {
		t.Fatal(err)
	}
	const define = "#define SIMABI_ACL_TABLE_LAYOUT "
	i := strings.Index(src.ACL, define)
	if i < 0 {
		t.Fatalf("the ACL source has no %q", define)
	}
	end := i + strings.IndexByte(src.ACL[i:], 'u')
	src.ACL = src.ACL[:i] + define + "12345" + src.ACL[end:]
	other, err := emit.BuildSources(src, emit.BuildOptions{OutDir: filepath.Join(t.TempDir(), "other")})
	if err != nil {
		emittest.BuildSources(t, src)
		t.Fatal(err)
	}
	mine := emittest.Build(t, emit.Config{Profile: emit.ProfileTMR})
	out := inChild(t, "TestSharedACLOtherLayoutSaysSo", otherLayoutChild+"="+other.ACLPath+":"+mine.ACLPath)
	want := "simabi fake ACL: " + mine.ACLPath + ": " + other.ACLPath + " is a fake ACL of another simabi version, loaded first;"
	if !strings.Contains(out, want) {
		t.Fatalf("no line %q in:\n%s", want, out)
	}
}
