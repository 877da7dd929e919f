package lifecycle

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/sim"
)

// The native-run phases at pipeline depth 1 and 2, as upstream's ChipWorker
// runs them (src/common/worker/chip_worker.cpp): one run storage per slot
// (:284-289), a lease's slot below the depth, supports_concurrent_native_
// prepare_ctx asked on every prepare above depth 1 (:652-655, :674), and a
// successor staged beside a launched run only when it answers above 0
// (:683-698).

// pipelineEntries are the run family's calls and the concurrency query the
// script saw, in order.
func pipelineEntries(f *scriptRuntime) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		if strings.HasSuffix(c.name, "_run") || c.name == "supports_concurrent_native_prepare_ctx" {
			out = append(out, strings.TrimPrefix(strings.TrimPrefix(c.name, "simpler_"), "supports_"))
		}
	}
	return out
}

// C-ERR, E-PROG.29, E-FIN: at depth 2 the worker makes two run storages of
// get_runtime_size bytes at get_runtime_alignment, runs each slot's run on
// its own storage with the slot's arena bank (0 for tensormap_and_
// ringbuffer's DEVICE_SCRATCH heap, the slot for host_build_graph's
// HOST_PER_RUN one), stages no second run while one is unfinished when the
// runtime answers 0 (upstream's simulator does), and refuses a slot past
// the depth; at depth 1 it asks nothing and slot 1 is past the depth.
func TestNativeRun_pipelineDepth_EPROG28(t *testing.T) {
	for _, tc := range []struct {
		pipeline abi.Pipeline
		bank1    uint32
		want     []string
	}{
		{abi.PipelineSingle, 0, []string{"prepare_run", "launch_run", "poll_run", "finalize_run", "prepare_run", "finalize_run"}},
		{abi.PipelineTMR, 0, []string{"concurrent_native_prepare_ctx", "prepare_run", "concurrent_native_prepare_ctx", "launch_run",
			"poll_run", "finalize_run", "concurrent_native_prepare_ctx", "prepare_run", "finalize_run"}},
		{abi.PipelineHBG, 1, []string{"concurrent_native_prepare_ctx", "prepare_run", "concurrent_native_prepare_ctx", "launch_run",
			"poll_run", "finalize_run", "concurrent_native_prepare_ctx", "prepare_run", "finalize_run"}},
	} {
		t.Run(string(tc.pipeline), func(t *testing.T) {
			lockThread(t)
			spec := tc.pipeline.Spec()
			f := newScript()
			f.pipeline, f.runtimeSize, f.runtimeAlign = tc.pipeline, uintptr(spec.RuntimeSize), uintptr(spec.RuntimeAlignment)
			f.runScript = map[string][]abi.Status{"simpler_poll_run": {abi.PollComplete}}
			w := initScript(t, Program, f)
			defer w.Close()
			if got := len(w.native.slots); got != spec.Slots() {
				t.Fatalf("%d run storages, want %d", got, spec.Slots())
			}
			for i, s := range w.native.slots {
				if len(s.storage) != int(spec.RuntimeSize) || uintptr(unsafe.Pointer(unsafe.SliceData(s.storage)))%uintptr(spec.RuntimeAlignment) != 0 {
					t.Errorf("slot %d: %d bytes at %p, want %d at %d", i, len(s.storage), s.storage, spec.RuntimeSize, spec.RuntimeAlignment)
				}
			}
			if err := w.RegisterCallable(0, testImage(t)); err != nil {
				t.Fatal(err)
			}
			resetCalls(f)
			args := abi.NewTaskArgs()
			first := uint32(spec.Slots() - 1) // slot 1 at depth 2
			r, err := w.PrepareNativeRun(0, args, nil, NativeRunLease{Slot: first, Generation: 1})
			if err != nil {
				t.Fatal(err)
			}
			if spec.Slots() == 2 {
				_, err := w.PrepareNativeRun(0, args, nil, NativeRunLease{Slot: 0, Generation: 1})
				wantCode(t, err, abi.InvalidState)
			}
			if err := w.LaunchNativeRun(r); err != nil {
				t.Fatal(err)
			}
			if ready, err := w.PollNativeRun(r); !ready || err != nil {
				t.Fatalf("poll: %v, %v", ready, err)
			}
			if err := w.FinalizeNativeRun(r); err != nil {
				t.Fatal(err)
			}
			r0, err := w.PrepareNativeRun(0, args, nil, NativeRunLease{Slot: 0, Generation: 2})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.FinalizeNativeRun(r0); err != nil {
				t.Fatal(err)
			}
			_, err = w.PrepareNativeRun(0, args, nil, NativeRunLease{Slot: uint32(spec.Slots()), Generation: 3})
			wantCode(t, err, abi.InvalidArgument)
			if d := cmp.Diff(tc.want, pipelineEntries(f)); d != "" {
				t.Errorf("native calls (-want +got):\n%s", d)
			}
			f.mu.Lock()
			descs, storages := f.descs, f.storages
			f.mu.Unlock()
			if len(descs) != 2 || len(storages) != 2 {
				t.Fatalf("%d descriptors, %d storages; want 2", len(descs), len(storages))
			}
			got := [][3]uint64{{uint64(descs[0].PipelineSlot), uint64(descs[0].ArenaBank), descs[0].Generation},
				{uint64(descs[1].PipelineSlot), uint64(descs[1].ArenaBank), descs[1].Generation}}
			want := [][3]uint64{{uint64(first), uint64(tc.bank1) * uint64(first), 1}, {0, 0, 2}}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("descriptors {slot, bank, generation} (-want +got):\n%s", d)
			}
			for i, h := range storages {
				slot := descs[i].PipelineSlot
				if h != abi.RunHandle(uintptr(unsafe.Pointer(unsafe.SliceData(w.native.slots[slot].storage)))) {
					t.Errorf("run %d on slot %d did not get that slot's storage", i, slot)
				}
			}
			noViolations(t, f)
		})
	}
}

// C-ERR: where the runtime grants concurrent prepares (above 0), a
// successor is staged on the other slot beside a launched run, never beside
// a prepared one, never with a diagnostic enabled, and never a third.
func TestNativeRun_preparedSuccessor_CERR(t *testing.T) {
	lockThread(t)
	f := newScript()
	f.pipeline, f.concurrent, f.runtimeSize = abi.PipelineTMR, 1, uintptr(abi.PipelineTMR.Spec().RuntimeSize)
	w := initScript(t, Program, f)
	defer w.Close()
	if err := w.RegisterCallable(0, testImage(t)); err != nil {
		t.Fatal(err)
	}
	args := abi.NewTaskArgs()
	r0, err := w.PrepareNativeRun(0, args, nil, NativeRunLease{Slot: 0, Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.PrepareNativeRun(0, args, nil, NativeRunLease{Slot: 1, Generation: 1})
	wantCode(t, err, abi.InvalidState) // the predecessor is only prepared
	if err := w.LaunchNativeRun(r0); err != nil {
		t.Fatal(err)
	}
	diag := &abi.CallConfig{EnableDepGen: 1}
	if err := diag.SetOutputPrefix("/tmp/out"); err != nil {
		t.Fatal(err)
	}
	_, err = w.PrepareNativeRun(0, args, diag, NativeRunLease{Slot: 1, Generation: 1})
	wantCode(t, err, abi.InvalidState) // a diagnostic run admits no successor
	r1, err := w.PrepareNativeRun(0, args, nil, NativeRunLease{Slot: 1, Generation: 1})
	if err != nil {
		t.Fatalf("successor beside a launched run: %v", err)
	}
	if err := w.WaitNativeRun(r0); err != nil {
		t.Fatal(err)
	}
	for _, r := range []NativeRun{r0, r1} {
		if err := w.FinalizeNativeRun(r); err != nil {
			t.Fatal(err)
		}
	}
	noViolations(t, f)
}

// E-PROG.29 on the Go simulator at depth 2 (sim.Options.Pipeline): the
// worker's two storages are the runtime's size, and runs on slots 0 and 1
// go through one after the other, each on its own storage.
func TestSimNativeRunsOnBothSlots_EPROG28(t *testing.T) {
	lockThread(t)
	rt := sim.New(sim.TMR, sim.Options{Pipeline: abi.PipelineTMR})
	if rc := rt.ACL().SetDevice(0); rc != 0 {
		t.Fatalf("SetDevice: %d", rc)
	}
	w := simWorker(rt, Program, 0)
	if err := w.Init(InitConfig{}); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if got := [2]int{len(w.native.slots), len(w.native.slots[1].storage)}; got != [2]int{2, 48512} {
		t.Fatalf("slots, storage bytes = %v, want [2 48512]", got)
	}
	if err := w.RegisterCallable(0, testImage(t)); err != nil {
		t.Fatal(err)
	}
	const n = 4
	in, err := w.DeviceMalloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.DeviceMalloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	args := testArgs(t, in, out, n, 2)
	for i, slot := range []uint32{1, 0, 1} {
		r, err := w.PrepareNativeRun(0, args, nil, NativeRunLease{Slot: slot, Generation: uint64(i + 1)})
		if err != nil {
			t.Fatalf("run %d on slot %d: %v", i, slot, err)
		}
		if err := w.LaunchNativeRun(r); err != nil {
			t.Fatal(err)
		}
		if err := w.WaitNativeRun(r); err != nil {
			t.Fatal(err)
		}
		if err := w.FinalizeNativeRun(r); err != nil {
			t.Fatal(err)
		}
	}
}
