package safemem

import (
	"bytes"
	"runtime"
	"testing"
	"unsafe"
)

func TestReadWriteMappedAndUnmapped(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no pipe")
	}
	src := bytes.Repeat([]byte("simabi"), 2000)
	got := make([]byte, len(src))
	if err := Read(uintptr(unsafe.Pointer(&src[0])), got); err != nil || !bytes.Equal(got, src) {
		t.Fatalf("Read: %v", err)
	}
	dst := make([]byte, len(src))
	if err := Write(uintptr(unsafe.Pointer(&dst[0])), src); err != nil || !bytes.Equal(dst, src) {
		t.Fatalf("Write: %v", err)
	}
	for _, addr := range []uintptr{0, 8, 0xFFFF_FFFF_F000} {
		if err := Read(addr, got[:8]); err == nil {
			t.Errorf("Read(%#x) succeeded", addr)
		}
		if err := Write(addr, src[:8]); err == nil {
			t.Errorf("Write(%#x) succeeded", addr)
		}
	}
	// A failed call leaves the pipe empty: the next one reads its own bytes.
	if err := Read(uintptr(unsafe.Pointer(&src[0])), got[:16]); err != nil || !bytes.Equal(got[:16], src[:16]) {
		t.Fatalf("Read after failures: %v %q", err, got[:16])
	}
}
