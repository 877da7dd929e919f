package abi

import (
	"bytes"
	"fmt"
	"strings"
)

// CallConfig is the packed 1148-byte configuration of kernel init and of the
// program run family.
type CallConfig struct {
	AicpuThreadNum      int32
	EnableChipSwimlane  int32
	EnableDumpArgs      int32
	EnablePMU           int32
	EnableDepGen        int32
	EnableScopeStats    int32
	CaptureClockAnchors int32
	RingTaskWindow      [RuntimeEnvRingCount]uint64
	RingHeap            [RuntimeEnvRingCount]uint64
	RingDepPool         [RuntimeEnvRingCount]uint64
	OutputPrefix        [OutputPrefixBytes]byte
}

// SetOutputPrefix stores s NUL-terminated; it refuses a prefix that does not
// fit with its NUL or that contains one.
func (c *CallConfig) SetOutputPrefix(s string) error {
	if len(s) >= OutputPrefixBytes {
		return fmt.Errorf("abi: output prefix of %d bytes (max %d)", len(s), OutputPrefixBytes-1)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("abi: output prefix contains a NUL byte")
	}
	clear(c.OutputPrefix[:])
	copy(c.OutputPrefix[:], s)
	return nil
}

// Prefix is output_prefix up to its first NUL (all 1024 bytes if none).
func (c *CallConfig) Prefix() string {
	if i := bytes.IndexByte(c.OutputPrefix[:], 0); i >= 0 {
		return string(c.OutputPrefix[:i])
	}
	return string(c.OutputPrefix[:])
}

// Encode writes the packed layout into dst[:1148].
func (c *CallConfig) Encode(dst []byte) error {
	if len(dst) < CallConfigSize {
		return fmt.Errorf("abi: CallConfig needs %d bytes, have %d", CallConfigSize, len(dst))
	}
	ints := [...]int32{c.AicpuThreadNum, c.EnableChipSwimlane, c.EnableDumpArgs, c.EnablePMU,
		c.EnableDepGen, c.EnableScopeStats, c.CaptureClockAnchors}
	for i, v := range ints {
		le.PutUint32(dst[4*i:], uint32(v))
	}
	for i := range RuntimeEnvRingCount {
		le.PutUint64(dst[CfgRingTaskWindowOff+8*i:], c.RingTaskWindow[i])
		le.PutUint64(dst[CfgRingHeapOff+8*i:], c.RingHeap[i])
		le.PutUint64(dst[CfgRingDepPoolOff+8*i:], c.RingDepPool[i])
	}
	copy(dst[CfgOutputPrefixOff:CfgOutputPrefixOff+OutputPrefixBytes], c.OutputPrefix[:])
	return nil
}

// Bytes returns the packed layout in a fresh buffer.
func (c *CallConfig) Bytes() []byte {
	b := make([]byte, CallConfigSize)
	_ = c.Encode(b)
	return b
}

// DecodeCallConfig reads the packed layout from src[:1148].
func DecodeCallConfig(src []byte) (CallConfig, error) {
	var c CallConfig
	if len(src) < CallConfigSize {
		return c, fmt.Errorf("abi: CallConfig needs %d bytes, have %d", CallConfigSize, len(src))
	}
	ints := [...]*int32{&c.AicpuThreadNum, &c.EnableChipSwimlane, &c.EnableDumpArgs, &c.EnablePMU,
		&c.EnableDepGen, &c.EnableScopeStats, &c.CaptureClockAnchors}
	for i, p := range ints {
		*p = int32(le.Uint32(src[4*i:]))
	}
	for i := range RuntimeEnvRingCount {
		c.RingTaskWindow[i] = le.Uint64(src[CfgRingTaskWindowOff+8*i:])
		c.RingHeap[i] = le.Uint64(src[CfgRingHeapOff+8*i:])
		c.RingDepPool[i] = le.Uint64(src[CfgRingDepPoolOff+8*i:])
	}
	copy(c.OutputPrefix[:], src[CfgOutputPrefixOff:])
	return c, nil
}

// EncodeLegacy writes the 1144-byte pre-kernel-ABI layout (no
// capture_clock_anchors; every later field 4 bytes earlier).
func (c *CallConfig) EncodeLegacy(dst []byte) error {
	if len(dst) < LegacyCallConfigSize {
		return fmt.Errorf("abi: legacy CallConfig needs %d bytes, have %d", LegacyCallConfigSize, len(dst))
	}
	var full [CallConfigSize]byte
	_ = c.Encode(full[:])
	copy(dst[:CfgCaptureClockAnchorsOff], full[:CfgCaptureClockAnchorsOff])
	copy(dst[CfgCaptureClockAnchorsOff:LegacyCallConfigSize], full[CfgRingTaskWindowOff:])
	return nil
}
