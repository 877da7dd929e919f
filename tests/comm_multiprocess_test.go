package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/onboard"
	"github.com/simabi/simabi/sim"
	"github.com/simabi/simabi/sim/emit"
	"github.com/simabi/simabi/sim/emit/emittest"
)

// E-COMM across processes: each rank of a communicator is a child process
// of this test (so that they share the parent that names their session, as
// the ranks of one launch do), over the Go runtime, over the emitted C
// runtime, and mixed in one communicator. The windows are shared memory:
// what one rank writes, the others read through their own windowsIn. What a
// single-threaded op sequence of the checker cannot drive (waits for peers,
// subsets of ranks, global domains across processes, a missing peer) is
// held here.

// commRankSpec is what a rank process is told (SIMABI_COMM_RANK, JSON).
type commRankSpec struct {
	Rank, NRanks int
	Backend      string // "sim" or the path of an emitted runtime
	Path         string // the rootinfo path
	Dir          string // where the global domain's descriptors are relayed
	TimeoutMs    int    // the sim rank's comm timeout
	Missing      bool   // a peer never arrives: every wait must end at the timeout
	Domain       uint64 // the global domain's id
	// Session is the name the segment of Path must have in /dev/shm
	// once comm_alloc_windows returned ("": not looked at).
	Session string
	// Record: the rank calls Backend through the recording runtime,
	// which writes its trace there ("": directly).
	Record string
}

// upstreamBackend prefixes a backend that is one of upstream's simulator
// builds (a folder of the upstream lane): its libhost_runtime.so, loaded
// after its libcpu_sim_context.so (RTLD_GLOBAL), as abicheck -preload does.
const upstreamBackend = "upstream:"

const commRankEnv = "SIMABI_COMM_RANK"

// TestCommRankProcess is one rank; it does nothing outside a rank process.
func TestCommRankProcess(t *testing.T) {
	raw := os.Getenv(commRankEnv)
	if raw == "" {
		t.Skip("runs as a rank of TestComm_ECOMM_ranksInProcesses")
	}
	var s commRankSpec
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	var rt abi.Runtime
	switch {
	case s.Backend == "sim":
		rt = sim.New(sim.TMR, sim.Options{CommTimeout: time.Duration(s.TimeoutMs) * time.Millisecond})
	case s.Record != "":
		lib, err := openRecordedRank(t, s.Backend, s.Record)
		if err != nil {
			t.Fatal(err)
		}
		defer lib.Close()
		rt = lib
	default:
		lib, err := openRankLibrary(s.Backend)
		if err != nil {
			t.Fatal(err)
		}
		defer lib.Close()
		rt = lib
	}
	if err := commRank(rt, s); err != nil {
		t.Fatalf("rank %d of %d (%s): %v", s.Rank, s.NRanks, filepath.Base(s.Backend), err)
	}
}

// openRankLibrary loads a rank's backend library: an emitted runtime's
// path, or upstreamBackend and a build folder.
func openRankLibrary(backend string) (*onboard.Library, error) {
	dir, ok := strings.CutPrefix(backend, upstreamBackend)
	if !ok {
		return onboard.Open(backend, onboard.Options{})
	}
	return onboard.Open(filepath.Join(dir, "libhost_runtime.so"),
		onboard.Options{Preloads: []string{filepath.Join(dir, "libcpu_sim_context.so")}})
}

// word is the uint64 at an address a comm entry handed out (in this
// process's mapping of the window).
func word(addr uint64) *uint64 {
	p := uintptr(addr)
	return *(**uint64)(unsafe.Pointer(&p))
}

// commCtx is a CommContext's fields at an address a comm entry handed out.
func commCtx(addr uint64) (rankID, rankNum uint32, winSize uint64, in []uint64) {
	p := uintptr(addr)
	b := unsafe.Slice(*(**byte)(unsafe.Pointer(&p)), abi.CommContextSize)
	rankID, rankNum = le32(b[abi.CommCtxRankIDOff:]), le32(b[abi.CommCtxRankNumOff:])
	winSize = le64(b[abi.CommCtxWinSizeOff:])
	for i := range int(rankNum) {
		in = append(in, le64(b[abi.CommCtxWindowsInOff+8*i:]))
	}
	return
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }

func commRank(rt abi.Runtime, s commRankSpec) error {
	path := append([]byte(s.Path), 0)
	n := s.NRanks
	if s.Missing {
		n++ // the session counts one rank more than ever arrives
	}
	h := rt.CommInit(int32(s.Rank), int32(n), 0, unsafe.Pointer(&path[0]))
	if h == 0 {
		return fmt.Errorf("comm_init = NULL")
	}
	const win = 4096
	var ctx uint64
	st := rt.CommAllocWindows(h, win, &ctx)
	if s.Missing {
		// E-COMM.9, .59: the ready wait ends at the timeout, with the
		// context written; the destroy barrier too.
		if st != -1 || ctx == 0 {
			return fmt.Errorf("comm_alloc_windows without the missing peer = %d (context %#x), want -1 and the context written", st, ctx)
		}
		if st := rt.CommBarrier(h); st != -1 {
			return fmt.Errorf("comm_barrier without the missing peer = %d, want -1", st)
		}
		if st := rt.CommDestroy(h); st != -1 {
			return fmt.Errorf("comm_destroy without the missing peer = %d, want -1", st)
		}
		return nil
	}
	if st != abi.OK {
		return fmt.Errorf("comm_alloc_windows = %d", st)
	}
	if f := segmentFile(s.Session); s.Session != "" && f != "" {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("the session's segment is not %s: %v", s.Session, err)
		}
	}
	id, num, size, in := commCtx(ctx)
	if id != uint32(s.Rank) || num != uint32(n) || size != win || len(in) != n {
		return fmt.Errorf("context: rank %d of %d, winSize %d", id, num, size)
	}
	*word(in[s.Rank]) = uint64(100 + s.Rank)
	*word(in[s.Rank] + win - 8) = uint64(200 + s.Rank)
	if st := rt.CommBarrier(h); st != abi.OK {
		return fmt.Errorf("comm_barrier = %d", st)
	}
	for j := range n {
		if a, b := *word(in[j]), *word(in[j] + win - 8); a != uint64(100+j) || b != uint64(200+j) {
			return fmt.Errorf("rank %d's window reads %d, %d through this rank's mapping", j, a, b)
		}
	}
	var base uint64
	var wsize uintptr
	if rt.CommGetLocalWindowBase(h, &base) != abi.OK || base != in[s.Rank] || rt.CommGetWindowSize(h, &wsize) != abi.OK || wsize != win {
		return fmt.Errorf("local window base %#x, size %d", base, wsize)
	}
	// A derived context: the ranks in reverse, 64 bytes into each window.
	rev := make([]uint32, n)
	for i := range rev {
		rev[i] = uint32(n - 1 - i)
	}
	var d uint64
	if st := rt.CommDeriveContext(h, unsafe.Pointer(&rev[0]), uintptr(n), uint32(n-1-s.Rank), 64, 128, &d); st != abi.OK {
		return fmt.Errorf("comm_derive_context = %d", st)
	}
	if id, num, size, din := commCtx(d); id != uint32(n-1-s.Rank) || num != uint32(n) || size != 128 || din[0] != in[n-1]+64 {
		return fmt.Errorf("derived context: rank %d of %d, winSize %d", id, num, size)
	}
	// Domain windows over the first n-1 ranks (the last one is no member).
	if s.Rank < n-1 {
		ids := make([]uint32, n-1)
		for i := range ids {
			ids[i] = uint32(i)
		}
		var dctx, dbase uint64
		if st := rt.CommAllocDomainWindows(h, 7, unsafe.Pointer(&ids[0]), uintptr(n-1), uint32(s.Rank), 256, &dctx, &dbase); st != abi.OK {
			return fmt.Errorf("comm_alloc_domain_windows = %d", st)
		}
		*word(dbase) = uint64(300 + s.Rank)
		if st := rt.CommBarrier(h); st != abi.OK {
			return fmt.Errorf("comm_barrier = %d", st)
		}
		_, _, _, din := commCtx(dctx)
		for j := range n - 1 {
			if got := *word(din[j]); got != uint64(300+j) {
				return fmt.Errorf("subset rank %d's domain window reads %d", j, got)
			}
		}
		if st := rt.CommReleaseDomainWindows(h, 7, uintptr(n-1), uint32(s.Rank)); st != abi.OK {
			return fmt.Errorf("comm_release_domain_windows = %d", st)
		}
	} else if st := rt.CommBarrier(h); st != abi.OK {
		return fmt.Errorf("comm_barrier = %d", st)
	}
	// A global domain: the descriptors relayed through files.
	desc := make([]byte, abi.CommDescSize*n)
	var gbase uint64
	if st := rt.CommGlobalDomainPrepare(s.Domain, uint32(s.Rank), uint32(n), 512, abi.CommProfileSimShm, unsafe.Pointer(&desc[abi.CommDescSize*s.Rank]), &gbase); st != abi.OK {
		return fmt.Errorf("comm_global_domain_prepare = %d", st)
	}
	*word(gbase + 8) = uint64(400 + s.Rank)
	mine := filepath.Join(s.Dir, fmt.Sprintf("desc-%d", s.Rank))
	if err := os.WriteFile(mine+".tmp", desc[abi.CommDescSize*s.Rank:abi.CommDescSize*(s.Rank+1)], 0o600); err != nil {
		return err
	}
	if err := os.Rename(mine+".tmp", mine); err != nil {
		return err
	}
	for j := range n {
		for {
			b, err := os.ReadFile(filepath.Join(s.Dir, fmt.Sprintf("desc-%d", j)))
			if err == nil {
				copy(desc[abi.CommDescSize*j:], b)
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	var gctx uint64
	if st := rt.CommGlobalDomainImport(s.Domain, unsafe.Pointer(&desc[0]), uintptr(n), &gctx); st != abi.OK {
		return fmt.Errorf("comm_global_domain_import = %d", st)
	}
	_, _, _, gin := commCtx(gctx)
	for j := range n {
		if got := *word(gin[j] + 8); got != uint64(400+j) {
			return fmt.Errorf("rank %d's global window reads %d through the import", j, got)
		}
	}
	if st := rt.CommBarrier(h); st != abi.OK { // every rank imported before any releases
		return fmt.Errorf("comm_barrier = %d", st)
	}
	if st := rt.CommGlobalDomainRelease(s.Domain); st != abi.OK {
		return fmt.Errorf("comm_global_domain_release = %d", st)
	}
	if st := rt.CommDestroy(h); st != abi.OK {
		return fmt.Errorf("comm_destroy = %d", st)
	}
	return nil
}

// runRanks starts one process per backend (rank i runs backends[i]) and
// waits for them all.
func runRanks(t *testing.T, backends []string, missing bool, timeoutMs int) {
	t.Helper()
	runRanksRecorded(t, backends, missing, timeoutMs, "")
}

// runRanksRecorded is runRanks with each rank recorded into record's
// rank-N.ops ("": none recorded).
func runRanksRecorded(t *testing.T, backends []string, missing bool, timeoutMs int, record string) {
	t.Helper()
	dir := t.TempDir()
	rootinfo := filepath.Join(dir, "rootinfo")
	domain := uint64(os.Getpid())<<16 | uint64(time.Now().UnixNano()&0xFFFF)
	// Every rank is a child of this process: they agree on the session.
	session := abi.CommSessionName(uint32(os.Getpid()), rootinfo)
	t.Cleanup(func() {
		if missing {
			// Nobody is last out of a session a rank never joined: its
			// segment stays, as upstream's does, until someone removes it.
			removeSegment(session)
		}
		if seg := segmentFile(session); seg != "" {
			if _, err := os.Stat(seg); err == nil {
				t.Errorf("session segment %s outlived the ranks", session)
				removeSegment(session)
			}
		}
	})
	specs := make([]commRankSpec, len(backends))
	for r, b := range backends {
		specs[r] = commRankSpec{Rank: r, NRanks: len(backends), Backend: b, Path: rootinfo, Dir: dir,
			TimeoutMs: timeoutMs, Missing: missing, Domain: domain, Session: session}
		if record != "" {
			specs[r].Record = filepath.Join(record, "rank-"+strconv.Itoa(r)+".ops")
		}
	}
	var wg sync.WaitGroup
	outs := make([][]byte, len(backends))
	errs := make([]error, len(backends))
	for r := range backends {
		spec, _ := json.Marshal(specs[r])
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestCommRankProcess$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), commRankEnv+"="+string(spec))
			outs[r], errs[r] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for r := range backends {
		if errs[r] != nil || !bytes.Contains(outs[r], []byte("--- PASS: TestCommRankProcess")) {
			t.Errorf("rank %d (%s): %v\n%s", r, filepath.Base(backends[r]), errs[r], outs[r])
		}
	}
}

// segmentFile is the file of segment name ("" where shm_open keeps none).
func segmentFile(name string) string {
	if runtime.GOOS != "linux" {
		return ""
	}
	return filepath.Join("/dev/shm", strings.TrimPrefix(name, "/"))
}

func removeSegment(name string) {
	if f := segmentFile(name); f != "" {
		_ = os.Remove(f)
	}
}

func TestComm_ECOMM_ranksInProcesses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Go and C runtimes share /dev/shm on Linux only")
	}
	fake := emittest.Path(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{CommTimeoutMs: 60000}})
	for _, tc := range []struct {
		name     string
		backends []string
	}{
		{"fake-2", []string{fake, fake}},
		{"sim-3", []string{"sim", "sim", "sim"}},
		{"mixed-2", []string{"sim", fake}},
		{"mixed-4", []string{fake, "sim", "sim", fake}},
	} {
		t.Run(tc.name, func(t *testing.T) { runRanks(t, tc.backends, false, 60000) })
	}
}

// A peer that never arrives: every wait ends at the timeout (the knob and
// sim.Options.CommTimeout at 300 ms), not after upstream's 120 s.
func TestComm_ECOMM9_59_missingPeerInProcesses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Go and C runtimes share /dev/shm on Linux only")
	}
	fake := emittest.Path(t, emit.Config{Profile: emit.ProfileTMR, Knobs: emit.Knobs{CommTimeoutMs: 300}})
	start := time.Now()
	runRanks(t, []string{"sim", fake}, true, 300)
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the missing peer took %v: the timeout knob was not honoured", d)
	}
}

// E-COMM with upstream's build: one session of two ranks, rank 0 on the
// emitted legacy fake and rank 1 on upstream's simulator build (a folder of
// the upstream lane), each a child of this test so that getppid agrees. The
// ranks join one segment, whose name in /dev/shm is upstream's formula
// (abi.CommSessionName), and run commRank's whole program: windows
// each writes and the other reads, barriers, a derived context, a domain
// allocation, a global domain imported across the two, comm_destroy. Runs
// only in the upstream lane:
//
//	SIMABI_UPSTREAM_BUILD=build/upstream/a2a3-tensormap_and_ringbuffer \
//	go test ./tests -run TestUpstream_mixedCommSession
func TestUpstream_mixedCommSession(t *testing.T) {
	dir := os.Getenv("SIMABI_UPSTREAM_BUILD")
	if dir == "" {
		t.Skip("SIMABI_UPSTREAM_BUILD is not set: the upstream lane (make upstream) sets it")
	}
	if runtime.GOOS != "linux" {
		t.Skip("upstream's simulator and the fake share /dev/shm on Linux only")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"libhost_runtime.so", "libcpu_sim_context.so"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("SIMABI_UPSTREAM_BUILD=%s is no upstream build: %v", dir, err)
		}
	}
	fake := emittest.Path(t, emit.Config{Profile: emit.ProfileLegacy, Knobs: emit.Knobs{CommTimeoutMs: 60000}})
	for _, tc := range []struct {
		name     string
		backends []string
	}{
		{"fake-then-upstream", []string{fake, upstreamBackend + dir}},
		{"upstream-then-fake", []string{upstreamBackend + dir, fake}},
	} {
		t.Run(tc.name, func(t *testing.T) { runRanks(t, tc.backends, false, 60000) })
	}
}
