package abi_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/simabi/simabi/abi"
)

func genCallConfig() *rapid.Generator[abi.CallConfig] {
	return rapid.Custom(func(t *rapid.T) abi.CallConfig {
		var c abi.CallConfig
		for _, p := range []*int32{&c.AicpuThreadNum, &c.EnableChipSwimlane, &c.EnableDumpArgs, &c.EnablePMU,
			&c.EnableDepGen, &c.EnableScopeStats, &c.CaptureClockAnchors} {
			*p = rapid.Int32().Draw(t, "int")
		}
		for i := range 4 {
			c.RingTaskWindow[i] = rapid.Uint64().Draw(t, "tw")
			c.RingHeap[i] = rapid.Uint64().Draw(t, "heap")
			c.RingDepPool[i] = rapid.Uint64().Draw(t, "dep")
		}
		prefix := rapid.SliceOfN(rapid.Byte(), 0, 1024).Draw(t, "prefix")
		copy(c.OutputPrefix[:], prefix)
		return c
	})
}

// CallConfig round trip and every field at its docs/contract.md offset (packed).
func TestCallConfigRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCallConfig().Draw(t, "cfg")
		b := c.Bytes()
		if len(b) != 1148 {
			t.Fatalf("Bytes() of %d bytes", len(b))
		}
		ints := []int32{c.AicpuThreadNum, c.EnableChipSwimlane, c.EnableDumpArgs, c.EnablePMU, c.EnableDepGen,
			c.EnableScopeStats, c.CaptureClockAnchors}
		for i, off := range []int{0, 4, 8, 12, 16, 20, 24} {
			if int32(le.Uint32(b[off:])) != ints[i] {
				t.Fatalf("int field %d not at %d", i, off)
			}
		}
		for i := range 4 {
			if le.Uint64(b[28+8*i:]) != c.RingTaskWindow[i] || le.Uint64(b[60+8*i:]) != c.RingHeap[i] ||
				le.Uint64(b[92+8*i:]) != c.RingDepPool[i] {
				t.Fatalf("ring %d misplaced", i)
			}
		}
		if !bytes.Equal(b[124:], c.OutputPrefix[:]) {
			t.Fatal("output_prefix not at 124")
		}
		back, err := abi.DecodeCallConfig(b)
		if err != nil {
			t.Fatal(err)
		}
		if back != c {
			t.Fatalf("round trip differs:\n%s", cmp.Diff(c, back))
		}
		// Any 1148 bytes decode and re-encode byte-identically (packed, no padding).
		raw := rapid.SliceOfN(rapid.Byte(), 1148, 1148).Draw(t, "raw")
		d, err := abi.DecodeCallConfig(raw)
		if err != nil || !bytes.Equal(d.Bytes(), raw) {
			t.Fatalf("raw bytes do not round trip (%v)", err)
		}
	})
	var c abi.CallConfig
	if err := c.Encode(make([]byte, 1147)); err == nil {
		t.Error("Encode into 1147 bytes succeeded")
	}
	if _, err := abi.DecodeCallConfig(make([]byte, 1147)); err == nil {
		t.Error("Decode of 1147 bytes succeeded")
	}
	if err := c.EncodeLegacy(make([]byte, 1143)); err == nil {
		t.Error("EncodeLegacy into 1143 bytes succeeded")
	}
	// Encode writes exactly 1148 bytes.
	dst := bytes.Repeat([]byte{0x5A}, 1150)
	if err := c.Encode(dst); err != nil || dst[1148] != 0x5A || dst[1149] != 0x5A {
		t.Error("Encode wrote past 1148 bytes")
	}
}

func TestCallConfigOutputPrefix(t *testing.T) {
	var c abi.CallConfig
	if err := c.SetOutputPrefix(strings.Repeat("p", 1023)); err != nil {
		t.Fatalf("1023-byte prefix: %v", err)
	}
	if c.OutputPrefix[1023] != 0 || c.Prefix() != strings.Repeat("p", 1023) {
		t.Error("1023-byte prefix not NUL-terminated at 1023")
	}
	if err := c.SetOutputPrefix(strings.Repeat("p", 1024)); err == nil {
		t.Error("1024-byte prefix accepted (no room for the NUL)")
	}
	if c.Prefix() != strings.Repeat("p", 1023) {
		t.Error("a refused SetOutputPrefix changed the prefix")
	}
	if err := c.SetOutputPrefix("a\x00b"); err == nil {
		t.Error("prefix with NUL accepted")
	}
	if err := c.SetOutputPrefix("/tmp/out"); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 1024)
	copy(want, "/tmp/out")
	if !bytes.Equal(c.OutputPrefix[:], want) {
		t.Error("a shorter prefix left bytes of the longer one behind")
	}
	if err := c.SetOutputPrefix(""); err != nil || c.OutputPrefix != [1024]byte{} || c.Prefix() != "" {
		t.Error("empty prefix")
	}
	for i := range c.OutputPrefix {
		c.OutputPrefix[i] = 'x'
	}
	if c.Prefix() != strings.Repeat("x", 1024) {
		t.Error("Prefix() of an unterminated array is not all 1024 bytes")
	}
}

// The legacy layout (docs/contract.md: no capture_clock_anchors, sizeof 1144): every
// field after enable_scope_stats sits 4 bytes earlier.
func TestCallConfigEncodeLegacy(t *testing.T) {
	c := abi.CallConfig{AicpuThreadNum: 4, EnableChipSwimlane: 2, EnableDumpArgs: 3, EnablePMU: 5, EnableDepGen: 6,
		EnableScopeStats: 7, CaptureClockAnchors: 99}
	for i := range 4 {
		c.RingTaskWindow[i] = uint64(0x1000 + i)
		c.RingHeap[i] = uint64(0x2000 + i)
		c.RingDepPool[i] = uint64(0x3000 + i)
	}
	_ = c.SetOutputPrefix("legacy/out")
	dst := bytes.Repeat([]byte{0xAB}, 1146)
	if err := c.EncodeLegacy(dst); err != nil {
		t.Fatal(err)
	}
	if dst[1144] != 0xAB || dst[1145] != 0xAB {
		t.Error("EncodeLegacy wrote past 1144 bytes")
	}
	got := []int32{}
	for off := 0; off < 24; off += 4 {
		got = append(got, int32(le.Uint32(dst[off:])))
	}
	if d := cmp.Diff([]int32{4, 2, 3, 5, 6, 7}, got); d != "" {
		t.Errorf("legacy int fields:\n%s", d)
	}
	for i := range 4 {
		if le.Uint64(dst[24+8*i:]) != uint64(0x1000+i) || le.Uint64(dst[56+8*i:]) != uint64(0x2000+i) ||
			le.Uint64(dst[88+8*i:]) != uint64(0x3000+i) {
			t.Errorf("legacy ring %d misplaced", i)
		}
	}
	if string(dst[120:130]) != "legacy/out" || dst[130] != 0 || !bytes.Equal(dst[130:1144], make([]byte, 1014)) {
		t.Error("legacy output_prefix not at 120")
	}
}
