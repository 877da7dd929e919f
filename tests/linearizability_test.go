package tests

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/lifecycle"
	"github.com/simabi/simabi/sim"
)

// The consumer's gate (C-GATE), ids (C-ID, M-1) and single use (C-SINGLE),
// checked for linearizability with porcupine: several goroutines, each
// locked to its OS thread with the device current there
// (lifecycle.Config.AnyThread), call PrepareCallable, Launch and Close on
// one kernel Worker over sim; sim's fault site 7 makes every prepare hold the
// gate a few milliseconds, so launches really overlap prepares and each
// other. The recorded history must be explainable by a sequential model.
//
// The sequential model, and what "fails fast when the gate is held" means
// in it. A sequential specification has no notion of overlap, so every
// operation that holds the gate is split into two pieces that share its
// interval [call, return]: acquire (the gate goes from free to held by this
// operation) and release (back to free). Porcupine must place both pieces,
// in that order, at points inside the operation's interval. A launch that
// returned INVALID_STATE is one piece whose precondition is "the worker is
// closed, or the gate is held by another operation": its linearization
// point must fall between some other operation's acquire and release, both
// of which lie inside that operation's interval — so the launch must
// overlap an operation holding the gate (or come after Close published
// CLOSED). A launch refused while nothing could have held the gate makes the
// history non-linearizable. The states and pieces:
//
//	state: closed, finalized, holder (an operation or none), minted (ids)
//	prepare → id k     acquire: !closed, gate free → held by it
//	                   release: held by it, k == minted → free, minted++ (M-1: dense, in gate order)
//	prepare → IS       closed (C-SINGLE; a prepare that waited through Close sees CLOSED)
//	launch(i) → 0      acquire: !closed, gate free, i < minted → held; release → free
//	launch(i) → IS     closed, or the gate held by another operation (C-GATE, X-2)
//	launch(i) → IA     acquire: !closed, gate free, i not minted → held; release → free
//	                   (C-ID: the gate and the state come first, so a launch
//	                   refused for its id held the gate while it looked, and a
//	                   launch overlapping it may be refused IS)
//	Close → nil        publish: closed = true; then finalize: closed, and
//	                   (finalized already, or the gate free) → finalized (Close
//	                   publishes CLOSED before it takes the gate; only one
//	                   finalizes; later Closes return nil, C-SINGLE)
//	anything else      illegal (prepare always succeeds while READY)

type gatePiece uint8

const (
	pieceBad gatePiece = iota
	piecePrepAcquire
	piecePrepRelease
	piecePrepRefused
	pieceLaunchAcquire
	pieceLaunchRelease
	pieceLaunchBusy
	pieceLaunchUnknown
	pieceClosePublish
	pieceCloseFinalize
)

var pieceNames = [...]string{"bad", "prepare.acquire", "prepare.release", "prepare→IS", "launch.acquire",
	"launch.release", "launch→IS", "launch→IA", "close.publish", "close.finalize"}

type gateInput struct {
	piece gatePiece
	op    int   // the operation a piece belongs to
	id    int32 // launch: the id
	desc  string
}

type gateOutput struct {
	id   int32 // prepare: the id returned
	code abi.Status
}

type gateState struct {
	closed, finalized bool
	holder            int // -1: free
	minted            int32
}

var gateModel = porcupine.Model{
	Init: func() interface{} { return gateState{holder: -1} },
	Step: func(st, in, out interface{}) (bool, interface{}) {
		s, i, o := st.(gateState), in.(gateInput), out.(gateOutput)
		free := s.holder == -1
		switch i.piece {
		case piecePrepAcquire:
			if s.closed || !free {
				return false, s
			}
			s.holder = i.op
		case piecePrepRelease:
			if s.holder != i.op || o.id != s.minted {
				return false, s
			}
			s.holder = -1
			s.minted++
		case piecePrepRefused:
			return s.closed, s
		case pieceLaunchAcquire:
			if s.closed || !free || i.id < 0 || i.id >= s.minted {
				return false, s
			}
			s.holder = i.op
		case pieceLaunchRelease:
			if s.holder != i.op {
				return false, s
			}
			s.holder = -1
		case pieceLaunchBusy:
			return s.closed || (!free && s.holder != i.op), s
		case pieceLaunchUnknown:
			if s.closed || !free || (i.id >= 0 && i.id < s.minted) {
				return false, s
			}
			s.holder = i.op
		case pieceClosePublish:
			s.closed = true
		case pieceCloseFinalize:
			if !s.closed || (!s.finalized && !free) {
				return false, s
			}
			s.finalized = true
		default:
			return false, s
		}
		return true, s
	},
	DescribeOperation: func(in, out interface{}) string {
		i, o := in.(gateInput), out.(gateOutput)
		return fmt.Sprintf("%s [%s] -> id=%d %s", pieceNames[i.piece], i.desc, o.id, o.code)
	},
	DescribeState: func(st interface{}) string {
		s := st.(gateState)
		return fmt.Sprintf("closed=%v finalized=%v holder=%d minted=%d", s.closed, s.finalized, s.holder, s.minted)
	},
}

type opKind uint8

const (
	opPrepare opKind = iota
	opLaunch
	opClose
)

// gateRecord is one call as a client saw it.
type gateRecord struct {
	client    int
	kind      opKind
	id        int32 // launch: the id asked; prepare: the id returned
	code      abi.Status
	call, ret int64
}

func statusOf(err error) abi.Status {
	if err == nil {
		return abi.OK
	}
	var se *lifecycle.StatusError
	if errors.As(err, &se) {
		return se.Code
	}
	return abi.Internal
}

// pieces turns records into porcupine operations.
func pieces(recs []gateRecord) []porcupine.Operation {
	var ops []porcupine.Operation
	add := func(r gateRecord, n int, p gatePiece, desc string) {
		ops = append(ops, porcupine.Operation{ClientId: r.client, Call: r.call, Return: r.ret,
			Input: gateInput{piece: p, op: n, id: r.id, desc: desc}, Output: gateOutput{id: r.id, code: r.code}})
	}
	for n, r := range recs {
		switch r.kind {
		case opPrepare:
			desc := fmt.Sprintf("#%d prepare", n)
			switch r.code {
			case abi.OK:
				add(r, n, piecePrepAcquire, desc)
				add(r, n, piecePrepRelease, desc)
			case abi.InvalidState:
				add(r, n, piecePrepRefused, desc)
			default:
				add(r, n, pieceBad, desc)
			}
		case opLaunch:
			desc := fmt.Sprintf("#%d launch %d", n, r.id)
			switch r.code {
			case abi.OK:
				add(r, n, pieceLaunchAcquire, desc)
				add(r, n, pieceLaunchRelease, desc)
			case abi.InvalidState:
				add(r, n, pieceLaunchBusy, desc)
			case abi.InvalidArgument:
				add(r, n, pieceLaunchUnknown, desc)
				add(r, n, pieceLaunchRelease, desc)
			default:
				add(r, n, pieceBad, desc)
			}
		case opClose:
			desc := fmt.Sprintf("#%d close", n)
			if r.code == abi.OK {
				add(r, n, pieceClosePublish, desc)
				add(r, n, pieceCloseFinalize, desc)
			} else {
				add(r, n, pieceBad, desc)
			}
		}
	}
	return ops
}

// simInstance is an abi.Loader over one existing sim instance (the test needs
// the instance for its hooks: the current device, fault site 7).
type simInstance struct{ rt *sim.Runtime }

func (l simInstance) Load() (abi.LoadedRuntime, error) { return sim.LoadedRuntime{Runtime: l.rt}, nil }
func (l simInstance) LoadProbe() (abi.LoadedRuntime, error) {
	return sim.LoadedRuntime{Runtime: l.rt}, nil
}
func (l simInstance) String() string { return "sim-instance" }

// gateHistory is one concurrent run and what it showed.
type gateHistory struct {
	recs              []gateRecord
	busy, closed      int // launches refused with IS before any Close started / after
	unknown, ok       int // launches refused for an unknown id / enqueued
	prepares, refused int
}

// runGateHistory drives one Worker from clients goroutines, opsPer calls
// each; every prepare holds the gate holdMs (site 7).
func runGateHistory(t *testing.T, seed uint64, clients, opsPer int, holdMs int32) gateHistory {
	t.Helper()
	rt := sim.New(sim.TMR, sim.Options{Faults: []sim.Fault{{Site: abi.SitePrepareHoldGate, Count: 1 << 20, Code: holdMs}}})
	w := lifecycle.New(lifecycle.Config{Mode: lifecycle.Kernel, DeviceID: 0, Loader: simInstance{rt},
		AnyThread: true, CloseBudget: 30 * time.Second})
	spec := abi.ChipCallableSpec{FuncName: "noop"}
	img, err := spec.Build()
	if err != nil {
		t.Fatal(err)
	}
	initErr := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		rt.SimSetCurrentDevice(0)
		initErr <- w.Init(lifecycle.InitConfig{Config: &abi.CallConfig{}})
		rt.SimSetCurrentDevice(-1)
	}()
	if err := <-initErr; err != nil {
		t.Fatalf("Init: %v", err)
	}
	start := time.Now()
	now := func() int64 { return int64(time.Since(start)) }
	var mu sync.Mutex
	maxID := int32(-1)
	recs := make([][]gateRecord, clients)
	var wg sync.WaitGroup
	barrier := make(chan struct{})
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			rt.SimSetCurrentDevice(0)
			defer rt.SimSetCurrentDevice(-1)
			r := rand.New(rand.NewPCG(seed, uint64(c)))
			args := abi.NewTaskArgs()
			stream := abi.Stream(0x5EED00)
			// Each client closes the worker once, late in its run (or not
			// at all when closeAt falls past its last call, except the last
			// call of a client that has not closed yet).
			closeAt := 3*opsPer/4 + r.IntN(opsPer/2)
			<-barrier
			for k := range opsPer {
				rec := gateRecord{client: c}
				switch x := r.IntN(100); {
				case k == closeAt || (k == opsPer-1 && closeAt >= opsPer):
					rec.kind = opClose
					rec.call = now()
					err := w.Close()
					rec.ret = now()
					rec.code = statusOf(err)
				case x < 35:
					rec.kind = opPrepare
					rec.call = now()
					id, err := w.PrepareCallable(img)
					rec.ret = now()
					rec.id, rec.code = id, statusOf(err)
					if err == nil {
						mu.Lock()
						maxID = max(maxID, id)
						mu.Unlock()
					}
				default:
					rec.kind = opLaunch
					mu.Lock()
					rec.id = int32(r.IntN(int(maxID) + 3)) // sometimes one not minted yet
					mu.Unlock()
					rec.call = now()
					err := w.Launch(rec.id, args, stream)
					rec.ret = now()
					rec.code = statusOf(err)
				}
				recs[c] = append(recs[c], rec)
				if r.IntN(4) == 0 {
					runtime.Gosched()
				}
			}
		}()
	}
	close(barrier)
	wg.Wait()
	// Close once finalizes (C-SINGLE): the context is gone, and no call
	// reached a freed handle.
	if n := rt.LiveContexts(); n != 0 {
		t.Errorf("seed %d: %d contexts still live after every client closed the worker", seed, n)
	}
	if n := rt.InvalidHandleCalls(); n != 0 {
		t.Errorf("seed %d: %d calls reached the runtime with a freed handle", seed, n)
	}
	var h gateHistory
	for _, rs := range recs {
		h.recs = append(h.recs, rs...)
	}
	firstClose := int64(1 << 62)
	for _, r := range h.recs {
		if r.kind == opClose {
			firstClose = min(firstClose, r.call)
		}
	}
	for _, r := range h.recs {
		switch {
		case r.kind == opLaunch && r.code == abi.InvalidState && r.ret < firstClose:
			h.busy++
		case r.kind == opLaunch && r.code == abi.InvalidState:
			h.closed++
		case r.kind == opLaunch && r.code == abi.InvalidArgument:
			h.unknown++
		case r.kind == opLaunch && r.code == abi.OK:
			h.ok++
		case r.kind == opPrepare && r.code == abi.OK:
			h.prepares++
		case r.kind == opPrepare:
			h.refused++
		}
	}
	return h
}

// TestWorkerGateLinearizable: concurrent histories of a lifecycle.Worker over
// sim (prepare, launch and Close from several locked goroutines,
// Config.AnyThread) are linearizable against the sequential model above:
// C-GATE, C-ID, C-SINGLE, X-2, M-1. Several seeds; -long runs more and
// longer histories.
func TestWorkerGateLinearizable(t *testing.T) {
	seeds, clients, opsPer := 6, 4, 40
	if *long {
		seeds, opsPer = 40, 80
	}
	if testing.Short() {
		seeds = 3
	}
	var histories, operations, pieceCount, busy, closed, unknown, launched, prepared int
	for s := range seeds {
		seed := uint64(1000 + s)
		h := runGateHistory(t, seed, clients, opsPer, int32(1+s%3))
		ops := pieces(h.recs)
		res, info := porcupine.CheckOperationsVerbose(gateModel, ops, 30*time.Second)
		switch res {
		case porcupine.Illegal:
			var lines []string
			for _, r := range h.recs {
				lines = append(lines, fmt.Sprintf("client %d %v id=%d -> %s [%d, %d]", r.client, r.kind, r.id, r.code, r.call, r.ret))
			}
			if path := os.Getenv("SIMABI_PORCUPINE_HTML"); path != "" {
				_ = porcupine.VisualizePath(gateModel, info, path)
			}
			t.Fatalf("seed %d: the history is not linearizable against the gate model:\n%s", seed, joinLines(lines))
		case porcupine.Unknown:
			t.Fatalf("seed %d: porcupine timed out", seed)
		}
		histories++
		operations += len(h.recs)
		pieceCount += len(ops)
		busy += h.busy
		closed += h.closed
		unknown += h.unknown
		launched += h.ok
		prepared += h.prepares
	}
	if busy == 0 {
		t.Errorf("no launch was refused for a held gate in %d histories: the test did not create overlap", histories)
	}
	t.Logf("porcupine: %d histories, %d operations (%d model pieces) linearizable; launches: %d enqueued, "+
		"%d refused IS while the gate was held (before any Close), %d refused IS around or after Close, %d unknown id (IA); %d prepares minted",
		histories, operations, pieceCount, launched, busy, closed, unknown, prepared)
}

func (k opKind) String() string { return [...]string{"prepare", "launch", "close"}[k] }

func joinLines(lines []string) string {
	out := ""
	for _, l := range lines {
		out += l + "\n"
	}
	return out
}

// TestGateModelHasTeeth: the sequential model rejects the histories the
// rules forbid and accepts the ones they allow (C-GATE, C-ID, C-SINGLE,
// M-1): a launch refused while nothing held the gate, ids out of gate order,
// a launch enqueued or a prepare minted after Close. (A finalize inside a
// prepare's gate hold is invisible at this level: any interval containing
// Close may have released the gate before it.)
func TestGateModelHasTeeth(t *testing.T) {
	P := func(client int, id int32, code abi.Status, call, ret int64) gateRecord {
		return gateRecord{client: client, kind: opPrepare, id: id, code: code, call: call, ret: ret}
	}
	L := func(client int, id int32, code abi.Status, call, ret int64) gateRecord {
		return gateRecord{client: client, kind: opLaunch, id: id, code: code, call: call, ret: ret}
	}
	C := func(client int, call, ret int64) gateRecord {
		return gateRecord{client: client, kind: opClose, code: abi.OK, call: call, ret: ret}
	}
	for _, c := range []struct {
		name string
		recs []gateRecord
		ok   bool
	}{
		{"launch IS overlapping a prepare", []gateRecord{P(0, 0, abi.OK, 0, 10), L(1, 0, abi.InvalidState, 5, 6)}, true},
		{"launch IS after the prepare returned", []gateRecord{P(0, 0, abi.OK, 0, 10), L(1, 0, abi.InvalidState, 11, 12)}, false},
		{"launch IS with nothing running", []gateRecord{P(0, 0, abi.OK, 0, 1), L(0, 0, abi.OK, 2, 3), L(0, 0, abi.InvalidState, 4, 5)}, false},
		{"launch IS overlapping a launch", []gateRecord{P(0, 0, abi.OK, 0, 1), L(0, 0, abi.OK, 2, 9), L(1, 0, abi.InvalidState, 4, 5)}, true},
		{"launch IA of an id a concurrent prepare mints", []gateRecord{P(0, 0, abi.OK, 0, 10), L(1, 0, abi.InvalidArgument, 0, 1)}, true},
		{"launch IS overlapping a launch refused for its id", []gateRecord{L(0, 3, abi.InvalidArgument, 0, 10), L(1, 0, abi.InvalidState, 4, 5)}, true},
		{"launch IS before any other call", []gateRecord{L(1, 0, abi.InvalidState, 0, 1), L(0, 3, abi.InvalidArgument, 2, 10)}, false},
		{"launch IA of a minted id", []gateRecord{P(0, 0, abi.OK, 0, 1), L(1, 0, abi.InvalidArgument, 2, 3)}, false},
		{"ids in gate order", []gateRecord{P(0, 0, abi.OK, 0, 10), P(1, 1, abi.OK, 1, 20)}, true},
		{"ids out of order", []gateRecord{P(0, 1, abi.OK, 0, 1), P(1, 0, abi.OK, 2, 3)}, false},
		{"launch after Close", []gateRecord{P(0, 0, abi.OK, 0, 1), C(0, 2, 3), L(1, 0, abi.OK, 4, 5)}, false},
		{"prepare after Close", []gateRecord{C(0, 0, 1), P(1, 0, abi.OK, 2, 3)}, false},
		{"everything IS after Close", []gateRecord{P(0, 0, abi.OK, 0, 1), C(0, 2, 3), P(1, -1, abi.InvalidState, 4, 5), L(1, 0, abi.InvalidState, 6, 7), C(1, 8, 9)}, true},
		{"prepare OK overlapping Close", []gateRecord{P(0, 0, abi.OK, 0, 10), C(1, 1, 11)}, true},
		{"Close returned nil, then a launch enqueued", []gateRecord{P(0, 0, abi.OK, 0, 1), L(0, 0, abi.OK, 2, 3), C(1, 4, 5), L(0, 0, abi.OK, 6, 7)}, false},
		{"launch IA after Close", []gateRecord{C(0, 0, 1), L(1, 5, abi.InvalidArgument, 2, 3)}, false},
	} {
		got := porcupine.CheckOperations(gateModel, pieces(c.recs))
		if got != c.ok {
			t.Errorf("%s: linearizable=%v, want %v", c.name, got, c.ok)
		}
	}
}
