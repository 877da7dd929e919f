package conformance

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/op"
	"github.com/simabi/simabi/internal/scratch"
	"github.com/simabi/simabi/sim"
)

// E-COMM.58: a run that never ends (abicheck stopped by SIGINT mid-session,
// or a rank stuck in the runtime) still has the segments its calls named
// removed, by the process's cleanup (what childproc.Main runs at exit and
// on a signal), and an in-process run stops making calls once the cleanup
// began. A session's segment is named after the parent process, so the
// cleanup's sweep by this process's own name missed it: interrupting
// `abicheck -sequences 300` left 1 to 5 segments in /dev/shm in 3 of 8
// tries before, none in 20 after; a call in flight at the cleanup could
// still leave one (2 of 16 tries) until the cleanup waited for in-process
// runs (none in 16). Cleanup ends the process's registry for good, so the
// test runs in a child.
func TestCommCleanup_ECOMM58_abandonedRunsSegmentsGoAtCleanup(t *testing.T) {
	const childEnv = "SIMABI_COMMABANDON_CHILD"
	if os.Getenv(childEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), childEnv+"=1", "TMPDIR="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the child: %v\n%s", err, out)
		}
		return
	}
	var abandoned, ended commRun
	abandoned.reset()
	ended.reset()
	name := func(c *commRun, n int) string {
		return c.names(abi.CommSessionName(uint32(os.Getppid()), "/simabi/test/abandon/"+strconv.Itoa(os.Getpid())+"/"+strconv.Itoa(n)))
	}
	mkSegment := func(name string) string {
		path := "/dev/shm/" + name[1:]
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatalf("making %s: %v", path, err)
		}
		t.Cleanup(func() { _ = os.Remove(path) })
		return path
	}
	left := mkSegment(name(&abandoned, 1))
	gone := mkSegment(name(&ended, 2))
	name(&abandoned, 1) // named again: held once
	ended.removeSegments()
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Fatalf("the ended run's segment %s: %v, want it removed at the run's end", gone, err)
	}
	if _, err := os.Stat(left); err != nil {
		t.Fatalf("the abandoned run's segment %s before the cleanup: %v, want it there", left, err)
	}
	// A run in flight when the cleanup begins: the cleanup waits for it
	// (its call may make a segment whose name the run removes once the
	// call returns), and the run stops before its next op.
	inOp := make(chan struct{})
	var finished atomic.Bool
	flight, err := op.ParseScript("create c0\ncreate c1\ncreate c2\n")
	if err != nil {
		t.Fatal(err)
	}
	frt := sim.New(sim.TMR, sim.Options{CallerLocksThread: true})
	go NewRunner(&Basic{RT: frt, SimHooks: frt, SimCtl: frt, SimTimeout: frt, Mem: frt.ACL()}, Options{BeforeOp: func(i int) {
		if i != 1 {
			return
		}
		close(inOp)
		for !scratch.Ending() {
			runtime.Gosched()
		}
		time.Sleep(50 * time.Millisecond) // the cleanup would be gone by now if it did not wait
		finished.Store(true)
	}}).Run(flight)
	<-inOp
	scratch.Cleanup()
	if !finished.Load() {
		t.Errorf("the cleanup returned while a run was in flight")
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("the abandoned run's segment %s after the cleanup: %v, want it removed", left, err)
	}
	// Named once the cleanup passed by: removed at once.
	late := mkSegment(abi.CommSessionName(uint32(os.Getppid()), "/simabi/test/abandon/"+strconv.Itoa(os.Getpid())+"/3"))
	abandoned.names("/" + late[len("/dev/shm/"):])
	if _, err := os.Stat(late); !os.IsNotExist(err) {
		t.Errorf("a segment named after the cleanup began, %s: %v, want it removed", late, err)
	}
	// An in-process run makes no call once the cleanup began.
	ops, err := op.ParseScript("create c0\ncinit h0 rank=0 nranks=1 path=p0\n")
	if err != nil {
		t.Fatal(err)
	}
	rt := sim.New(sim.TMR, sim.Options{CallerLocksThread: true})
	res := NewRunner(&Basic{RT: rt, SimHooks: rt, SimCtl: rt, SimTimeout: rt, Mem: rt.ACL()}, Options{}).Run(ops)
	for i, e := range res.History.Entries {
		if e.Obs.Call.Status != 0 || e.Op.Kind != 0 {
			t.Errorf("op %d ran after the cleanup began: %+v", i, e)
		}
	}
}
