package main

import (
	"slices"
	"strings"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/abi/tracevocab"
)

// A variant is a fake built with the action's base knobs and its own.
type variant struct {
	Name  string
	Knobs []string // the variant's knobs, the action's base included
}

// failCode is the status forced on an entry: -1, what every failure of a
// legacy build is (docs/contract.md, "Revisions").
const failCode = "-1"

// preparedIncompatible is the legacy PREPARED_INCOMPATIBLE (-3), which
// ChipWorker treats apart from every other prepare failure
// (src/common/worker/chip_worker.cpp:733-737); simpler_prepare_run is forced
// to it in a variant of its own.
const preparedIncompatible = "-3"

// usedEntries are the entries some action of ChipWorker calls; strict
// variants forbid every other entry of the legacy consumer set
// (must_not_call), so that a call neither consumer should make aborts the
// process even where no trace is read.
var usedEntries = []abi.Entry{
	abi.EntryHostLogBindState, abi.EntryGetPipelineContract, abi.EntryCreateDeviceContext, abi.EntryDestroyDeviceContext,
	abi.EntryGetRuntimeSize, abi.EntryGetRuntimeAlignment, abi.EntrySimplerInit, abi.EntryFinalizeDevice, abi.EntryProvisionDMAWorkspace,
	abi.EntryRegisterCallable, abi.EntryUnregisterCallable, abi.EntryDeviceMalloc, abi.EntryDeviceFree,
	abi.EntryCopyToDevice, abi.EntryCopyFromDevice, abi.EntryCommittedDeviceMemory, abi.EntryPrepareRun,
	abi.EntryLaunchRun, abi.EntryPollRun, abi.EntryWaitRun, abi.EntryFinalizeRun,
	// asked by every prepare above pipeline depth 1 (chip_worker.cpp:652-655, :674)
	abi.EntrySupportsConcurrentPrepare,
}

// depthOne is the knob of the depth-1 variant: the fake presents the single
// slot instead of its default, upstream's tensormap_and_ringbuffer contract
// of depth 2 (docs/fake-runtime.md, pipeline=).
const depthOne = "pipeline=single"

// mustNotCall is the strict variant's must_not_call list for an action:
// every entry of the legacy consumer set no action calls, and
// simpler_provision_dma_workspace when the action asks for no SDMA.
func mustNotCall(a action) string {
	sdma := false
	for _, s := range a.steps {
		sdma = sdma || (strings.HasPrefix(s, "init:") && strings.Contains(s, "sdma"))
	}
	var out []string
	for _, r := range abi.ConsumerSet(abi.ChipWorker) {
		if slices.Contains(usedEntries, r.Entry) && (r.Entry != abi.EntryProvisionDMAWorkspace || sdma) {
			continue
		}
		out = append(out, r.Name)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// variantsOf lists an action's variants: plain (its base knobs, the fake at
// its default depth 2), the same at depth 1 (pipeline=single), strict
// (strict=true and must_not_call), and for each entry ChipWorker called in
// the plain run (calls, in order of first call) a status forced on it when
// it returns one (-1; simpler_prepare_run also -3) or NULL when it returns
// a pointer.
func variantsOf(a action, calls []string) []variant {
	with := func(name string, knobs ...string) variant {
		return variant{Name: name, Knobs: append(slices.Clone(a.base), knobs...)}
	}
	vs := []variant{with("plain"), with(depthOne, depthOne), with("strict", "strict=true", "must_not_call="+mustNotCall(a))}
	seen := map[string]bool{}
	for _, c := range calls {
		e := entryOf(c)
		if e == "" || seen[e] {
			continue
		}
		seen[e] = true
		s, ok := abi.LookupSymbol(e)
		if !ok {
			continue
		}
		ret := tracevocab.ReturnType(s.ProtoIn(abi.RevLegacy))
		switch {
		case ret == "int":
			k := "status." + e + "=" + failCode
			vs = append(vs, with(k, k))
			if e == abi.EntryPrepareRun.Name() {
				k := "status." + e + "=" + preparedIncompatible
				vs = append(vs, with(k, k))
			}
		case strings.Contains(ret, "*") || ret == "DeviceContextHandle":
			k := "null." + e + "=true"
			vs = append(vs, with("null."+e, k))
		}
	}
	return vs
}

// callsOf are the calls of a transcript, in order.
func callsOf(t transcript) []string {
	var out []string
	for _, s := range t.Steps {
		out = append(out, s.Calls...)
	}
	return append(out, t.After...)
}
