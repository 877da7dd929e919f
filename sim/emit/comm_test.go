package emit

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
)

// E-COMM.55: the global domains a loaded copy prepared are released when it
// is unloaded (upstream's map is a static object): a new copy in the same
// process prepares the same domain and rank again, whose window has the same
// name. The segment names are the Go runtime's too (semantics §14).
func TestComm_ECOMM55_unloadReleasesGlobalDomains(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the segment's file is checked in /dev/shm")
	}
	art := buildFake(t, Config{})
	domain := uint64(os.Getpid())<<20 | 55
	window := filepath.Join("/dev/shm", abi.CommGlobalName(uint32(os.Getpid()), domain, 0)[1:])
	desc := make([]byte, abi.CommDescSize)
	var base uint64
	for i := range 2 {
		lib, err := onboard.Open(art.RuntimePath, onboard.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if st := lib.CommGlobalDomainPrepare(domain, 0, 1, 64, abi.CommProfileSimShm, unsafe.Pointer(&desc[0]), &base); st != abi.OK {
			t.Fatalf("load %d: comm_global_domain_prepare = %d, want 0 (the last copy's domain was released at its unload)", i, st)
		}
		if _, err := os.Stat(window); err != nil {
			t.Fatalf("load %d: the window %s is not where the Go runtime names it: %v", i, window, err)
		}
		if err := lib.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(window); err == nil {
			t.Fatalf("load %d: the window outlived the unload", i)
		}
	}
}
