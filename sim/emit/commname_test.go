package emit

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"pgregory.net/rapid"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
)

// stdHashProgram prints std::hash<std::string> of each line of stdin, given
// in hex (so that any byte, NUL included, reaches it), as 16 hex digits.
const stdHashProgram = `#include <cstdio>
#include <functional>
#include <string>
int main() {
    char line[4096];
    while (std::fgets(line, sizeof line, stdin)) {
        std::string s;
        for (char *p = line; p[0] != '\n' && p[0] != '\0' && p[1] != '\0'; p += 2) {
            unsigned v = 0;
            std::sscanf(p, "%2x", &v);
            s.push_back(static_cast<char>(v));
        }
        std::printf("%016zx\n", std::hash<std::string>{}(s));
    }
}
`

// stdHasher compiles stdHashProgram with g++ (the compiler and library
// upstream's builds use); it skips the test where there is none.
func stdHasher(t *testing.T) func(ids []string) ([]uint64, error) {
	t.Helper()
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("skipping: no g++ to compute libstdc++'s std::hash")
	}
	dir := t.TempDir()
	src, exe := filepath.Join(dir, "stdhash.cpp"), filepath.Join(dir, "stdhash")
	if err := os.WriteFile(src, []byte(stdHashProgram), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gxx, "-O1", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("g++ stdhash.cpp: %v\n%s", err, out)
	}
	return func(ids []string) ([]uint64, error) {
		var in bytes.Buffer
		for _, s := range ids {
			in.WriteString(hex.EncodeToString([]byte(s)) + "\n")
		}
		cmd := exec.Command(exe)
		cmd.Stdin = &in
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("stdhash: %v", err)
		}
		lines := strings.Fields(string(out))
		if len(lines) != len(ids) {
			return nil, fmt.Errorf("stdhash printed %d hashes for %d strings", len(lines), len(ids))
		}
		hs := make([]uint64, len(lines))
		for i, l := range lines {
			if hs[i], err = strconv.ParseUint(l, 16, 64); err != nil {
				return nil, fmt.Errorf("stdhash line %d: %v", i+1, err)
			}
		}
		return hs, nil
	}
}

// E-COMM: the segments are named as upstream names them (comm_sim.cpp:85-137,
// :775-776): libstdc++'s std::hash<std::string> of the identity, folded to
// 32 bits. Over random identities, g++'s std::hash equals abi.StdHash
// (the Go runtime's), and the emitted C runtime names a session (rootinfo
// path), its domain allocation and a global domain's window as
// abi.Comm*Name says: the session's and allocation's file exists in
// /dev/shm under that name, the global window's descriptor carries it.
func TestComm_ECOMM_segmentNamesAreUpstreams(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the segments' files are checked in /dev/shm")
	}
	hashes := stdHasher(t)
	art := buildFake(t, Config{})
	lib, err := onboard.Open(art.RuntimePath, onboard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	ppid, pid := uint32(os.Getppid()), uint32(os.Getpid())
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join("/dev/shm", name[1:]))
		return err == nil
	}
	rapid.Check(t, func(rt *rapid.T) {
		// Rootinfo paths are C strings: any byte but NUL.
		paths := rapid.SliceOfN(rapid.SliceOfN(rapid.ByteRange(1, 255), 0, 40), 1, 4).Draw(rt, "paths")
		domain := rapid.Uint64Min(1).Draw(rt, "domain_id")
		n := rapid.Uint32Range(1, abi.CommMaxRankNum).Draw(rt, "rank_count")
		rank := rapid.Uint32Range(0, n-1).Draw(rt, "domain_rank")
		ids := []string{strconv.FormatUint(domain, 10) + ":" + strconv.FormatUint(uint64(rank), 10)}
		for _, p := range paths {
			ids = append(ids, string(p))
		}
		want, err := hashes(ids)
		if err != nil {
			rt.Fatal(err)
		}
		for i, id := range ids {
			if got := abi.StdHash(id); got != want[i] {
				rt.Fatalf("StdHash(%q) = %#016x, g++'s std::hash %#016x", id, got, want[i])
			}
		}
		desc := make([]byte, abi.CommDescSize)
		var base uint64
		if st := lib.CommGlobalDomainPrepare(domain, rank, n, 64, abi.CommProfileSimShm, unsafe.Pointer(&desc[0]), &base); st != abi.OK {
			rt.Fatalf("comm_global_domain_prepare(%d, %d, %d) = %d", domain, rank, n, st)
		}
		handle := string(bytes.TrimRight(desc[abi.CommDescHandleOff:], "\x00"))
		lib.CommGlobalDomainRelease(domain)
		if w := abi.CommGlobalName(pid, domain, rank); handle != w {
			rt.Fatalf("global domain %d rank %d: the emitted runtime names its window %s, want %s", domain, rank, handle, w)
		}
		for _, p := range paths {
			commNamesOf(rt, lib, ppid, append(p, 0), exists)
		}
	})
}

// commNamesOf opens a single-rank session of rootinfo path cpath (NUL
// ended) and a domain allocation of it on lib, and fails unless their
// segments have the names semantics gives them.
func commNamesOf(rt *rapid.T, lib abi.Runtime, ppid uint32, cpath []byte, exists func(string) bool) {
	path := string(cpath[:len(cpath)-1])
	h := lib.CommInit(0, 1, 0, unsafe.Pointer(&cpath[0]))
	if h == 0 {
		rt.Fatalf("comm_init(0, 1, %q) = NULL", path)
	}
	defer lib.CommDestroy(h)
	var ctx, dctx, dbase uint64
	if st := lib.CommAllocWindows(h, 8, &ctx); st != abi.OK {
		rt.Fatalf("comm_alloc_windows of %q = %d", path, st)
	}
	session := abi.CommSessionName(ppid, path)
	if !exists(session) {
		rt.Fatalf("rootinfo path %q: no segment %s in /dev/shm (the emitted runtime named it otherwise)", path, session)
	}
	member := []uint32{0}
	const id = 3
	if st := lib.CommAllocDomainWindows(h, id, unsafe.Pointer(&member[0]), 1, 0, 8, &dctx, &dbase); st != abi.OK {
		rt.Fatalf("comm_alloc_domain_windows of %q = %d", path, st)
	}
	defer lib.CommReleaseDomainWindows(h, id, 1, 0)
	if alloc := abi.CommAllocName(ppid, session, id); !exists(alloc) {
		rt.Fatalf("rootinfo path %q: no domain allocation segment %s in /dev/shm", path, alloc)
	}
}
