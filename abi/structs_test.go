package abi_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/simabi/simabi/abi"
)

func TestDeviceMemoryInfoRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := abi.DeviceMemoryInfo{FreeBytes: rapid.Uint64().Draw(t, "free"), TotalBytes: rapid.Uint64().Draw(t, "total")}
		b := bytes.Repeat([]byte{0xCC}, 17)
		if err := m.Encode(b); err != nil {
			t.Fatal(err)
		}
		if le.Uint64(b[0:]) != m.FreeBytes || le.Uint64(b[8:]) != m.TotalBytes || b[16] != 0xCC {
			t.Fatal("fields not at 0 / 8, or a write past 16 bytes")
		}
		back, err := abi.DecodeDeviceMemoryInfo(b)
		if err != nil || back != m {
			t.Fatalf("round trip: %+v, %v", back, err)
		}
	})
	if err := (abi.DeviceMemoryInfo{}).Encode(make([]byte, 15)); err == nil {
		t.Error("short Encode succeeded")
	}
	if _, err := abi.DecodeDeviceMemoryInfo(make([]byte, 15)); err == nil {
		t.Error("short Decode succeeded")
	}
}

func genContract() *rapid.Generator[abi.PipelineContract] {
	return rapid.Custom(func(t *rapid.T) abi.PipelineContract {
		c := abi.PipelineContract{
			ABIVersion:    rapid.Uint32().Draw(t, "v"),
			ResourceCount: rapid.Uint32().Draw(t, "n"),
			PipelineDepth: rapid.Uint32().Draw(t, "d"),
		}
		for i := range c.Resources {
			c.Resources[i] = abi.PipelineResource{Kind: rapid.Uint32().Draw(t, "k"), Class: rapid.Uint32().Draw(t, "c"),
				BytesPerCopy: rapid.Uint64().Draw(t, "b")}
		}
		return c
	})
}

func TestPipelineContractRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genContract().Draw(t, "c")
		b := bytes.Repeat([]byte{0xCC}, 145)
		if err := c.Encode(b); err != nil {
			t.Fatal(err)
		}
		if le.Uint32(b[0:]) != c.ABIVersion || le.Uint32(b[4:]) != c.ResourceCount || le.Uint32(b[8:]) != c.PipelineDepth ||
			le.Uint32(b[12:]) != 0 || b[144] != 0xCC {
			t.Fatal("header fields misplaced, padding at 12 not zero, or a write past 144")
		}
		for i, r := range c.Resources {
			o := 16 + 16*i
			if le.Uint32(b[o:]) != r.Kind || le.Uint32(b[o+4:]) != r.Class || le.Uint64(b[o+8:]) != r.BytesPerCopy {
				t.Fatalf("resource %d misplaced", i)
			}
		}
		back, err := abi.DecodePipelineContract(b)
		if err != nil || back != c {
			t.Fatalf("round trip:\n%s (%v)", cmp.Diff(c, back), err)
		}
	})
	if err := (abi.PipelineContract{}).Encode(make([]byte, 143)); err == nil {
		t.Error("short Encode succeeded")
	}
	if _, err := abi.DecodePipelineContract(make([]byte, 143)); err == nil {
		t.Error("short Decode succeeded")
	}
	// Kinds and classes of docs/contract.md.
	kinds := []uint32{abi.ResourceUnspecified, abi.ResourceGMHeap, abi.ResourceGMSM, abi.ResourceRuntimeImage,
		abi.ResourceTaskArgs, abi.ResourceAicpuStream, abi.ResourceAicoreStream}
	for i, k := range kinds {
		if k != uint32(i) {
			t.Errorf("resource kind %d = %d", i, k)
		}
	}
	if abi.ClassHostPerRun != 0 || abi.ClassDeviceScratch != 1 || abi.ClassExecHandle != 2 {
		t.Error("resource classes differ from docs/contract.md")
	}
}

func TestSimulatedProgramContractShape(t *testing.T) {
	c := abi.SimulatedProgramContract()
	want := abi.PipelineContract{ABIVersion: 1, ResourceCount: 2, PipelineDepth: 1}
	want.Resources[0] = abi.PipelineResource{Kind: 5, Class: 2}
	want.Resources[1] = abi.PipelineResource{Kind: 6, Class: 2}
	if c != want {
		t.Errorf("SimulatedProgramContract:\n%s", cmp.Diff(want, c))
	}
}

func TestNativeRunDescriptorRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := abi.NativeRunDescriptor{
			PipelineSlot: rapid.Uint32().Draw(t, "slot"), ArenaBank: rapid.Uint32().Draw(t, "bank"),
			RunID: rapid.Uint64().Draw(t, "run"), Generation: rapid.Uint64().Draw(t, "gen"),
			DispatchID: rapid.Uint64().Draw(t, "disp"), RunEpoch: rapid.Uint64().Draw(t, "epoch"),
			AcceptedState: rapid.Uintptr().Draw(t, "state"), AcceptedValue: rapid.Int32().Draw(t, "value"),
		}
		b := bytes.Repeat([]byte{0xCC}, 57)
		if err := d.Encode(b); err != nil {
			t.Fatal(err)
		}
		if le.Uint32(b[0:]) != d.PipelineSlot || le.Uint32(b[4:]) != d.ArenaBank || le.Uint64(b[8:]) != d.RunID ||
			le.Uint64(b[16:]) != d.Generation || le.Uint64(b[24:]) != d.DispatchID || le.Uint64(b[32:]) != d.RunEpoch ||
			le.Uint64(b[40:]) != uint64(d.AcceptedState) || int32(le.Uint32(b[48:])) != d.AcceptedValue ||
			le.Uint32(b[52:]) != 0 || b[56] != 0xCC {
			t.Fatal("fields misplaced, tail padding not zero, or a write past 56")
		}
		back, err := abi.DecodeNativeRunDescriptor(b)
		if err != nil || back != d {
			t.Fatalf("round trip: %+v, %v", back, err)
		}
	})
	if err := (abi.NativeRunDescriptor{}).Encode(make([]byte, 55)); err == nil {
		t.Error("short Encode succeeded")
	}
	if _, err := abi.DecodeNativeRunDescriptor(make([]byte, 55)); err == nil {
		t.Error("short Decode succeeded")
	}
}

func TestHostLogStateRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := abi.HostLogState{ABIVersion: rapid.Uint32().Draw(t, "v"), StructSize: rapid.Uint32().Draw(t, "n"),
			Threshold: rapid.Int32().Draw(t, "th"), ClockAnchorPID: rapid.Int32().Draw(t, "pid")}
		b := bytes.Repeat([]byte{0xCC}, 17)
		if err := s.Encode(b); err != nil {
			t.Fatal(err)
		}
		if le.Uint32(b[0:]) != s.ABIVersion || le.Uint32(b[4:]) != s.StructSize || int32(le.Uint32(b[8:])) != s.Threshold ||
			int32(le.Uint32(b[12:])) != s.ClockAnchorPID || b[16] != 0xCC {
			t.Fatal("fields misplaced or a write past 16")
		}
		back, err := abi.DecodeHostLogState(b)
		if err != nil || back != s {
			t.Fatalf("round trip: %+v, %v", back, err)
		}
	})
	if err := (abi.HostLogState{}).Encode(make([]byte, 15)); err == nil {
		t.Error("short Encode succeeded")
	}
	if _, err := abi.DecodeHostLogState(make([]byte, 15)); err == nil {
		t.Error("short Decode succeeded")
	}
	if d := abi.DefaultHostLogState(); d.ABIVersion != 1 || d.StructSize != 16 {
		t.Errorf("DefaultHostLogState = %+v, want abi_version 1, struct_size 16", d)
	}
}

// The host-log state a consumer binds must carry one of docs/contract.md's six log
// levels: upstream's binder refuses any other threshold with -1, so the
// default is TIMING (25), not 0 (C-BIND-1: the binder is called at load).
func TestHostLogStateBindable(t *testing.T) {
	if d := abi.DefaultHostLogState(); d.Threshold != 25 || !d.Bindable() {
		t.Fatalf("DefaultHostLogState = %+v, want threshold 25 and bindable", d)
	}
	for _, l := range abi.LogLevels() {
		if s := abi.HostLogStateAt(l); !s.Bindable() {
			t.Errorf("level %v: %+v not bindable", l, s)
		}
	}
	for _, s := range []abi.HostLogState{
		{ABIVersion: 1, StructSize: 16, Threshold: 0},
		{ABIVersion: 1, StructSize: 16, Threshold: 26},
		{ABIVersion: 2, StructSize: 16, Threshold: 25},
		{ABIVersion: 1, StructSize: 15, Threshold: 25},
	} {
		if s.Bindable() {
			t.Errorf("%+v bindable", s)
		}
	}
}

func TestParseLogLevel(t *testing.T) {
	for in, want := range map[string]abi.LogLevel{"debug": 10, "INFO": 20, " timing ": 25, "warn": 30, "40": 40, "null": 60, "60": 60} {
		if got, err := abi.ParseLogLevel(in); err != nil || got != want {
			t.Errorf("ParseLogLevel(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "15", "verbose", "-1"} {
		_, err := abi.ParseLogLevel(in)
		if err == nil || !strings.Contains(err.Error(), "want debug (10), info (20), timing (25), warn (30), error (40) or null (60)") {
			t.Errorf("ParseLogLevel(%q): %v", in, err)
		}
	}
	if abi.LogTiming.String() != "timing" || abi.LogLevel(7).String() != "LogLevel(7)" {
		t.Errorf("String: %q %q", abi.LogTiming, abi.LogLevel(7))
	}
}
