package emit

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/validation"
)

// F-2, V-CONTRACT: the pipeline knob selects what get_pipeline_contract,
// get_runtime_size and get_runtime_alignment answer; a legacy build presents
// upstream's tensormap_and_ringbuffer simulator build by default, tmr and
// refusing the single slot. supports_concurrent_native_prepare_ctx stays 0,
// as upstream's simulator answers.
func TestPipelineKnob_VContract_presentsTheContract(t *testing.T) {
	tmrRes := []abi.PipelineResource{{Kind: 4, Class: 0}, {Kind: 1, Class: 1}, {Kind: 2, Class: 1}, {Kind: 3, Class: 1}, {Kind: 5, Class: 2}, {Kind: 6, Class: 2}}
	hbgRes := []abi.PipelineResource{{Kind: 1, Class: 0}, {Kind: 3, Class: 0}, {Kind: 5, Class: 2}, {Kind: 6, Class: 2}}
	singleRes := []abi.PipelineResource{{Kind: 5, Class: 2}, {Kind: 6, Class: 2}}
	for _, tc := range []struct {
		profile  Profile
		knob     string
		depth    uint32
		res      []abi.PipelineResource
		size     uintptr
		knobLine bool
	}{
		{ProfileLegacy, "", 2, tmrRes, 48512, false},
		{ProfileLegacy, "pipeline=host_build_graph", 2, hbgRes, 48576, true},
		{ProfileLegacy, "pipeline=single", 1, singleRes, 64, true},
		{ProfileTMR, "", 1, singleRes, 64, false},
		{ProfileRefusing, "pipeline=tensormap_and_ringbuffer", 2, tmrRes, 48512, true},
	} {
		t.Run(string(tc.profile)+"/"+tc.knob, func(t *testing.T) {
			var k Knobs
			if tc.knob != "" {
				if err := ParseKnob(tc.knob, &k); err != nil {
					t.Fatal(err)
				}
			}
			cfg := Config{Profile: tc.profile, Knobs: k}
			l, err := onboard.Open(freshFake(t, cfg), onboard.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			want := abi.PipelineContract{ABIVersion: 1, ResourceCount: uint32(len(tc.res)), PipelineDepth: tc.depth}
			copy(want.Resources[:], tc.res)
			if d := cmp.Diff(want, l.Contract()); d != "" {
				t.Errorf("get_pipeline_contract (-want +got):\n%s", d)
			}
			if st := validation.Contract(l.Contract()); st != abi.OK {
				t.Errorf("V-CONTRACT refuses the contract: %v", st)
			}
			if got, want := [2]uintptr{l.GetRuntimeSize(), l.GetRuntimeAlignment()}, [2]uintptr{tc.size, 64}; got != want {
				t.Errorf("get_runtime_size, get_runtime_alignment = %v, want %v", got, want)
			}
			c := l.CreateDeviceContext()
			if got := l.SupportsConcurrentNativePrepare(c); got != 0 {
				t.Errorf("supports_concurrent_native_prepare_ctx = %d, want 0", got)
			}
			l.DestroyDeviceContext(c)
			src, err := Source(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := containsLine(src.Runtime, " * Knob: "+tc.knob); got != tc.knobLine {
				t.Errorf("banner names the knob %q: %v, want %v", tc.knob, got, tc.knobLine)
			}
		})
	}
}

func containsLine(text, prefix string) bool {
	for i := 0; i+len(prefix) <= len(text); i++ {
		if (i == 0 || text[i-1] == '\n') && text[i:i+len(prefix)] == prefix {
			return true
		}
	}
	return false
}

// F-2: a pipeline the fake does not know is refused with the names it
// knows; the knob round-trips through Strings.
func TestPipelineKnob_F2_parse(t *testing.T) {
	for _, bad := range []string{"pipeline=tmr", "pipeline=", "pipeline=Single"} {
		err := ParseKnob(bad, &Knobs{})
		want := "emit: knob " + strconv.Quote(bad) + ": want tensormap_and_ringbuffer|host_build_graph|single"
		if err == nil || err.Error() != want {
			t.Errorf("ParseKnob(%q) = %v, want %s", bad, err, want)
		}
	}
	var k Knobs
	for _, kv := range []string{"pipeline=single", "pipeline=host_build_graph"} {
		if err := ParseKnob(kv, &k); err != nil {
			t.Fatal(err)
		}
	}
	if got := fmt.Sprint(k.Strings()); got != "[pipeline=host_build_graph]" {
		t.Errorf("Strings = %s, want [pipeline=host_build_graph]", got)
	}
}

// E-PROG, E-FIN.8, E-FIN.12, E-DESTROY.1: at depth 2 the legacy fake takes
// two runs of one context at once, on the storages of slots 0 and 1, each
// launched, polled, waited for and finalized on its own; finalize_device,
// destroy and unregister are refused while either is outstanding, and
// finalize_device succeeds once both are finalized.
func TestPipelineKnob_EProg_twoSlotsOutstanding(t *testing.T) {
	l, err := onboard.Open(freshFake(t, Config{Profile: ProfileLegacy}), onboard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	f := newProgramFixture(t)
	var got []string
	onFreshThread(func() { got = twoSlotSession(t, l, f) })
	want := []string{
		"prepare 0: 0", "prepare 1: 0", "launch 1: 0", "accepted 1: 11",
		"finalize_device: -1", "unregister: -1", "launch 0: 0", "accepted 0: 10",
		"poll 1: 1", "wait 0: 0", "finalize_run 1: 0", "finalize_device: -1",
		"poll 0: 1", "finalize_run 0: 0", "unregister: 0", "finalize_device: 0",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("two runs on slots 0 and 1 (-want +got):\n%s", d)
	}
}

func twoSlotSession(t *testing.T, l *onboard.Library, f *programFixture) []string {
	var got []string
	add := func(what string, st abi.Status) { got = append(got, what+": "+strconv.Itoa(int(st))) }
	c := l.CreateDeviceContext()
	if st := l.SimplerInit(c, 0, nil, 0, nil, 0, nil, 0, nil, 0, nil, 0); st != 0 {
		t.Errorf("simpler_init = %d", st)
		return nil
	}
	if st := l.RegisterCallable(c, 0, abi.Ptr(f.img)); st != 0 {
		t.Errorf("register = %d", st)
		return nil
	}
	size, align := int(l.GetRuntimeSize()), int(l.GetRuntimeAlignment())
	var rt [2]abi.RunHandle
	var desc [2][]byte
	accepted := [2]*int32{new(int32), new(int32)}
	storages := [2][]byte{abi.AlignedBytes(size, align), abi.AlignedBytes(size, align)}
	for slot := range 2 {
		rt[slot] = abi.RunHandle(uintptr(unsafe.Pointer(unsafe.SliceData(storages[slot]))))
		desc[slot] = abi.AlignedBytes(abi.NativeRunDescSize, abi.NativeRunDescAlign)
		d := abi.NativeRunDescriptor{PipelineSlot: uint32(slot), ArenaBank: 0, Generation: 1, RunEpoch: uint64(slot + 1),
			AcceptedState: uintptr(unsafe.Pointer(accepted[slot])), AcceptedValue: int32(10 + slot)}
		_ = d.Encode(desc[slot])
		add("prepare "+strconv.Itoa(slot), l.PrepareRun(c, rt[slot], 0, f.args.Pointer(), abi.Ptr(f.cfg), abi.Ptr(desc[slot])))
	}
	launch := func(slot int) {
		add("launch "+strconv.Itoa(slot), l.LaunchRun(c, rt[slot]))
		add("accepted "+strconv.Itoa(slot), abi.Status(*accepted[slot]))
	}
	launch(1)
	add("finalize_device", l.FinalizeDevice(c))
	add("unregister", l.UnregisterCallable(c, 0))
	launch(0)
	add("poll 1", l.PollRun(c, rt[1]))
	add("wait 0", l.WaitRun(c, rt[0]))
	add("finalize_run 1", l.FinalizeRun(c, rt[1]))
	add("finalize_device", l.FinalizeDevice(c))
	l.DestroyDeviceContext(c) // refused: the context and its run survive it
	add("poll 0", l.PollRun(c, rt[0]))
	add("finalize_run 0", l.FinalizeRun(c, rt[0]))
	add("unregister", l.UnregisterCallable(c, 0))
	add("finalize_device", l.FinalizeDevice(c))
	l.DestroyDeviceContext(c)
	runtime.KeepAlive(storages) // the runs read their storage until finalize_run
	runtime.KeepAlive(desc)
	return got
}
