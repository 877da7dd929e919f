package latch_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/simabi/simabi/abi"
	. "github.com/simabi/simabi/latch"
)

// cell is one expected cell of the phase table.
type cell struct {
	To     Phase
	Result Result
	Effect Effect
}

// expectedTable is the kernel phase machine written from docs/contract.md K-1..K-7
// (and runtime-semantics.md §4.2 where the rules leave a cell open), without
// looking at latch.Table. A cell not listed keeps the phase and yields
// INVALID_STATE with no effect.
func expectedTable() map[Phase]map[Event]cell {
	return map[Phase]map[Event]cell{
		New: {
			EvInit:   {Initializing, ResContinue, EffCreate}, // K-2: init only from New; the caller creates (K-7)
			EvClose:  {Closed, ResOK, EffNone},               // K-5: close of New returns 0 and moves to Closed
			EvPoison: {New, ResOK, EffNone},                  // K-4: poison in any other phase is ignored
		},
		Initializing: {
			EvInitSucceeded:      {Collecting, ResOK, EffNone},               // K-2: New -> Collecting
			EvInitRolledBack:     {New, ResCode, EffNone},                    // K-7: rolled back to New, init returns the code
			EvInitRollbackFailed: {Closing, ResCode, EffRecordTeardownError}, // K-7: lands in Closing, resources kept
			EvInitPoisoned:       {Poisoned, ResCode, EffRecordRuntimeError}, // K-4: failure after creation, from inside init
			EvPoison:             {Poisoned, ResCode, EffRecordRuntimeError}, // K-4: poison from inside init moves to Poisoned
			// EvClose: INVALID_STATE (§4.2: defensive, Initializing is never observable)
		},
		Collecting: {
			EvDispatch:  {Collecting, ResOK, EffNone},               // K-1
			EvMarkReady: {ReadyEnqueued, ResOK, EffNone},            // K-3: the first successful prepare
			EvPoison:    {Poisoned, ResCode, EffRecordRuntimeError}, // K-4
			EvClose:     {Closing, ResContinue, EffRelease},         // K-5: Closing before the first destructive step
		},
		ReadyEnqueued: {
			EvDispatch:  {ReadyEnqueued, ResOK, EffNone},            // K-1
			EvMarkReady: {ReadyEnqueued, ResOK, EffNone},            // K-3: later prepares stay
			EvPoison:    {Poisoned, ResCode, EffRecordRuntimeError}, // K-4
			EvClose:     {Closing, ResContinue, EffRelease},         // K-5
		},
		Poisoned: {
			EvPoison: {Poisoned, ResOK, EffNone},         // K-4: only the first cause is kept
			EvClose:  {Closing, ResContinue, EffRelease}, // K-4: Poisoned still accepts close; K-5
			// EvDispatch, EvMarkReady: INVALID_STATE (K-4 refuses dispatch with IS)
		},
		Closing: {
			EvPoison:          {Closing, ResOK, EffNone},                  // K-4: ignored
			EvClose:           {Closing, ResContinue, EffRelease},         // K-5: a retry releases what is left
			EvCloseStepFailed: {Closing, ResCode, EffRecordTeardownError}, // K-5: the first failure stops it in Closing
			EvCloseDone:       {Closed, ResOK, EffNone},                   // K-5: success reaches Closed
		},
		Closed: {
			EvPoison: {Closed, ResOK, EffNone}, // K-4: ignored
			EvClose:  {Closed, ResOK, EffNone}, // K-6: finalize returns 0 again
			// EvInit, EvDispatch, ...: INVALID_STATE (K-6)
		},
	}
}

func expected(p Phase, e Event) Transition {
	c, ok := expectedTable()[p][e]
	if !ok {
		c = cell{p, ResInvalidState, EffNone}
	}
	return Transition{From: p, Event: e, To: c.To, Result: c.Result, Effect: c.Effect}
}

var allPhases = []Phase{New, Initializing, Collecting, ReadyEnqueued, Poisoned, Closing, Closed}
var allEvents = []Event{EvInit, EvInitSucceeded, EvInitRolledBack, EvInitRollbackFailed, EvInitPoisoned, EvDispatch,
	EvMarkReady, EvPoison, EvClose, EvCloseStepFailed, EvCloseDone}

// K-1..K-7: every cell of latch.Table (7 phases x 11 events) against the
// table written from the rules.
func TestKTableEveryCell(t *testing.T) {
	if NumPhases != 7 || NumEvents != 11 || len(Table) != 7 || len(Table[0]) != 11 {
		t.Fatalf("table is %d x %d (NumPhases %d, NumEvents %d), want 7 x 11", len(Table), len(Table[0]), NumPhases, NumEvents)
	}
	var want, got []Transition
	for _, p := range allPhases {
		for _, e := range allEvents {
			want = append(want, expected(p, e))
			got = append(got, Table[p][e])
			if Step(p, e) != Table[p][e] {
				t.Errorf("Step(%v, %v) differs from Table", p, e)
			}
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("latch.Table differs from docs/contract.md K-1..K-7 (-rules +table):\n%s", d)
	}
}

// K-1: dispatch only in Collecting and ReadyEnqueued; Live phases hold
// resources.
func TestK1AcceptsDispatch(t *testing.T) {
	for _, p := range allPhases {
		want := p == Collecting || p == ReadyEnqueued
		if p.AcceptsDispatch() != want {
			t.Errorf("K-1: %v.AcceptsDispatch() = %v", p, p.AcceptsDispatch())
		}
		if (Table[p][EvDispatch].Result == ResOK) != want {
			t.Errorf("K-1: dispatch cell of %v is %v", p, Table[p][EvDispatch])
		}
		live := p == Collecting || p == ReadyEnqueued || p == Poisoned || p == Closing
		if p.Live() != live {
			t.Errorf("%v.Live() = %v", p, p.Live())
		}
	}
}

func TestStepOutOfRange(t *testing.T) {
	for _, c := range []struct {
		p Phase
		e Event
	}{{NumPhases, EvInit}, {New, NumEvents}, {200, 200}} {
		tr := Step(c.p, c.e)
		if tr.To != c.p || tr.Result != ResInvalidState || tr.Effect != EffNone {
			t.Errorf("Step(%d, %d) = %v", c.p, c.e, tr)
		}
	}
}

func TestTransitionStatus(t *testing.T) {
	code := abi.Status(-1234)
	for _, c := range []struct {
		r    Result
		want abi.Status
	}{{ResOK, abi.OK}, {ResContinue, abi.OK}, {ResCode, code}, {ResInvalidState, abi.InvalidState}} {
		if got := (Transition{Result: c.r}).Status(code); got != c.want {
			t.Errorf("Status of %v = %v, want %v", c.r, got, c.want)
		}
	}
}

func TestNames(t *testing.T) {
	names := map[string]bool{}
	for _, p := range allPhases {
		names[p.String()] = true
	}
	for _, e := range allEvents {
		names[e.String()] = true
	}
	if len(names) != 18 {
		t.Errorf("phase and event names are not distinct: %v", names)
	}
	if Phase(9).String() != "Phase(9)" || Event(99).String() != "Event(99)" {
		t.Error("out-of-range names")
	}
	for r := ResOK; r <= ResContinue; r++ {
		if r.String() == "" {
			t.Errorf("result %d unnamed", r)
		}
	}
	for e := EffNone; e <= EffRecordTeardownError; e++ {
		if e.String() == "" {
			t.Errorf("effect %d unnamed", e)
		}
	}
	if s := Table[New][EvInit].String(); s == "" {
		t.Error("transition text")
	}
}

// fire fires e and fails the test unless the machine lands in want.
func fire(t *testing.T, m *Machine, e Event, code abi.Status, wantStatus abi.Status, want Phase) {
	t.Helper()
	_, st := m.Fire(e, code)
	if st != wantStatus || m.Phase() != want {
		t.Fatalf("Fire(%v, %v) = %v in %v, want %v in %v", e, code, st, m.Phase(), wantStatus, want)
	}
}

const (
	c1 = abi.Status(-1000)
	c2 = abi.Status(-1007)
	c3 = abi.Status(-5)
)

func initialized(t *testing.T) *Machine {
	t.Helper()
	m := &Machine{}
	fire(t, m, EvInit, 0, abi.OK, Initializing)
	fire(t, m, EvInitSucceeded, 0, abi.OK, Collecting)
	return m
}

// K-4: the first poison cause is kept; later ones are ignored; dispatch is
// refused with IS and close is accepted.
func TestK4MachineKeepsFirstPoisonCause(t *testing.T) {
	m := initialized(t)
	fire(t, m, EvMarkReady, 0, abi.OK, ReadyEnqueued)
	fire(t, m, EvPoison, c1, c1, Poisoned)
	fire(t, m, EvPoison, c2, abi.OK, Poisoned)
	if m.RuntimeError() != c1 || m.TeardownError() != 0 {
		t.Errorf("K-4: runtime error %v teardown %v, want %v 0", m.RuntimeError(), m.TeardownError(), c1)
	}
	if m.AcceptsDispatch() {
		t.Error("K-4: Poisoned accepts dispatch")
	}
	fire(t, m, EvDispatch, 0, abi.InvalidState, Poisoned)
	fire(t, m, EvClose, 0, abi.OK, Closing)
	fire(t, m, EvPoison, c3, abi.OK, Closing)
	fire(t, m, EvCloseDone, 0, abi.OK, Closed)
	if m.RuntimeError() != c1 {
		t.Errorf("K-4: runtime error changed to %v", m.RuntimeError())
	}
}

// K-5: the first teardown failure is kept across a successful retry.
func TestK5MachineTeardownErrorSurvivesRetry(t *testing.T) {
	m := initialized(t)
	fire(t, m, EvClose, 0, abi.OK, Closing)
	fire(t, m, EvCloseStepFailed, c1, c1, Closing)
	fire(t, m, EvClose, 0, abi.OK, Closing)
	fire(t, m, EvCloseStepFailed, c2, c2, Closing)
	fire(t, m, EvClose, 0, abi.OK, Closing)
	fire(t, m, EvCloseDone, 0, abi.OK, Closed)
	if m.TeardownError() != c1 || m.RuntimeError() != 0 {
		t.Errorf("K-5: teardown %v runtime %v, want %v 0", m.TeardownError(), m.RuntimeError(), c1)
	}
	// K-6: Closed is terminal.
	fire(t, m, EvClose, 0, abi.OK, Closed)
	fire(t, m, EvInit, 0, abi.InvalidState, Closed)
	fire(t, m, EvDispatch, 0, abi.InvalidState, Closed)
	fire(t, m, EvMarkReady, 0, abi.InvalidState, Closed)
}

// K-7: creation failure with a clean rollback returns the creation code and
// leaves New with no error recorded; a failed rollback lands in Closing with
// the rollback's code kept as the teardown error.
func TestK7MachineInitFailures(t *testing.T) {
	var m Machine
	fire(t, &m, EvInit, 0, abi.OK, Initializing)
	fire(t, &m, EvInitRolledBack, c1, c1, New)
	if m.RuntimeError() != 0 || m.TeardownError() != 0 {
		t.Error("K-7: a clean rollback recorded an error")
	}
	var f Machine
	fire(t, &f, EvInit, 0, abi.OK, Initializing)
	fire(t, &f, EvInitRollbackFailed, c2, c2, Closing)
	if f.TeardownError() != c2 || f.RuntimeError() != 0 || f.AcceptsDispatch() {
		t.Errorf("K-7: teardown %v runtime %v", f.TeardownError(), f.RuntimeError())
	}
	fire(t, &f, EvInit, 0, abi.InvalidState, Closing) // K-2
	fire(t, &f, EvClose, 0, abi.OK, Closing)
	fire(t, &f, EvCloseDone, 0, abi.OK, Closed)
	// K-4: a failure after creation, from inside init, poisons.
	var p Machine
	fire(t, &p, EvInit, 0, abi.OK, Initializing)
	fire(t, &p, EvInitPoisoned, c3, c3, Poisoned)
	if p.RuntimeError() != c3 {
		t.Errorf("K-4: init poison cause %v", p.RuntimeError())
	}
	var q Machine
	fire(t, &q, EvInit, 0, abi.OK, Initializing)
	fire(t, &q, EvPoison, c3, c3, Poisoned)
	if q.RuntimeError() != c3 {
		t.Errorf("K-4: poison inside init: cause %v", q.RuntimeError())
	}
}

// X-1 under -race: concurrent poisons of one Collecting context; exactly one
// takes effect and its code is the cause kept.
func TestK4ConcurrentPoison(t *testing.T) {
	for round := range 20 {
		m := initialized(t)
		const n = 32
		statuses := make([]abi.Status, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, statuses[i] = m.Fire(EvPoison, abi.Status(-1-i))
				_ = m.AcceptsDispatch()
			}()
		}
		wg.Wait()
		winners := 0
		for i, st := range statuses {
			if st != abi.OK {
				winners++
				if st != abi.Status(-1-i) || m.RuntimeError() != st {
					t.Fatalf("round %d: winner %d status %v, cause kept %v", round, i, st, m.RuntimeError())
				}
			}
		}
		if winners != 1 || m.Phase() != Poisoned {
			t.Fatalf("round %d: %d poisons took effect, phase %v", round, winners, m.Phase())
		}
	}
}

// A rapid property over random event sequences. A kernel init is one atomic
// step (EvInit followed, when it entered Initializing, by one of the events
// that end an init), as it runs under the context's lock; every other event
// may come at any time. Every transition taken is the cell of the table
// written from the rules, Initializing is never observable between steps,
// and the error slots keep the first cause.
func TestKRandomSequencesFollowTheRules(t *testing.T) {
	initEnds := []Event{EvInitSucceeded, EvInitRolledBack, EvInitRollbackFailed, EvInitPoisoned, EvPoison}
	others := []Event{EvDispatch, EvMarkReady, EvPoison, EvClose, EvCloseStepFailed, EvCloseDone,
		EvInitSucceeded, EvInitRolledBack, EvInitRollbackFailed, EvInitPoisoned}
	codes := []abi.Status{-1000, -1001, -1003, -1008, -1, -103}
	rapid.Check(t, func(t *rapid.T) {
		var m Machine
		var runtimeErr, teardownErr abi.Status
		step := func(e Event, code abi.Status) Transition {
			from := m.Phase()
			tr, st := m.Fire(e, code)
			want := expected(from, e)
			if tr != want {
				t.Fatalf("%v --%v--> took %v, rules say %v", from, e, tr, want)
			}
			if m.Phase() != want.To {
				t.Fatalf("phase %v after %v, want %v", m.Phase(), tr, want.To)
			}
			if st != want.Status(code) {
				t.Fatalf("status %v for %v with code %v", st, tr, code)
			}
			switch want.Effect {
			case EffRecordRuntimeError:
				if runtimeErr == 0 {
					runtimeErr = code
				}
			case EffRecordTeardownError:
				if teardownErr == 0 {
					teardownErr = code
				}
			}
			if m.RuntimeError() != runtimeErr || m.TeardownError() != teardownErr {
				t.Fatalf("error slots %v/%v, want %v/%v", m.RuntimeError(), m.TeardownError(), runtimeErr, teardownErr)
			}
			return tr
		}
		for range rapid.IntRange(1, 40).Draw(t, "steps") {
			code := rapid.SampledFrom(codes).Draw(t, "code")
			if rapid.IntRange(0, 3).Draw(t, "kind") == 0 {
				if tr := step(EvInit, 0); tr.To == Initializing {
					step(rapid.SampledFrom(initEnds).Draw(t, "end"), code)
				}
			} else {
				step(rapid.SampledFrom(others).Draw(t, "event"), code)
			}
			if m.Phase() == Initializing {
				t.Fatal("Initializing observable after a complete step")
			}
			if m.AcceptsDispatch() != (m.Phase() == Collecting || m.Phase() == ReadyEnqueued) {
				t.Fatalf("AcceptsDispatch in %v", m.Phase())
			}
		}
	})
}

// The upstream cases of runtime-semantics.md §14.2
// (test_kernel_execution_state.cpp) that map onto the table. The ops-table
// vocabulary cases and GetCurrentDeviceFailurePropagates concern the resource
// and device hooks of the runtime, not the phase machine, and live with the
// sim tests.

// EmptyContextInitThenCloseIsClean: init -> Collecting and dispatch; close ->
// Closed; a second close -> 0. (K-2, K-5, K-6)
func TestUpstream_EmptyContextInitThenCloseIsClean(t *testing.T) {
	var m Machine
	tr, _ := m.Fire(EvInit, 0)
	if tr.Effect != EffCreate {
		t.Errorf("init effect %v, want create", tr.Effect)
	}
	fire(t, &m, EvInitSucceeded, 0, abi.OK, Collecting)
	if !m.AcceptsDispatch() {
		t.Error("K-1: Collecting refuses dispatch")
	}
	tr, _ = m.Fire(EvClose, 0)
	if tr.Effect != EffRelease || m.Phase() != Closing {
		t.Errorf("close: %v", tr)
	}
	fire(t, &m, EvCloseDone, 0, abi.OK, Closed)
	fire(t, &m, EvClose, 0, abi.OK, Closed)
	if m.RuntimeError() != 0 || m.TeardownError() != 0 {
		t.Error("a clean lifetime recorded an error")
	}
}

// CloseOnNewContextIsANoOpSuccess (K-5).
func TestUpstream_CloseOnNewContextIsANoOpSuccess(t *testing.T) {
	var m Machine
	tr, st := m.Fire(EvClose, 0)
	if st != abi.OK || m.Phase() != Closed || tr.Effect != EffNone {
		t.Errorf("K-5: close of New = %v (%v), phase %v", st, tr, m.Phase())
	}
}

// RepeatedInitializeRejected (K-2).
func TestUpstream_RepeatedInitializeRejected(t *testing.T) {
	m := initialized(t)
	fire(t, m, EvInit, 0, abi.InvalidState, Collecting)
}

// PreEnqueueValidationLeavesStateUnchanged: a refusal before creation fires
// nothing, the context stays New and a later valid init succeeds; a stray
// end-of-init event outside init changes nothing. (K-2)
func TestUpstream_PreEnqueueValidationLeavesStateUnchanged(t *testing.T) {
	var m Machine
	for _, e := range []Event{EvInitSucceeded, EvInitRolledBack, EvInitRollbackFailed, EvInitPoisoned, EvDispatch, EvMarkReady} {
		fire(t, &m, e, c1, abi.InvalidState, New)
	}
	if m.RuntimeError() != 0 || m.TeardownError() != 0 {
		t.Error("refused events recorded an error")
	}
	fire(t, &m, EvInit, 0, abi.OK, Initializing)
	fire(t, &m, EvInitSucceeded, 0, abi.OK, Collecting)
}

// PartialInitFailureRollsBackCleanly and StreamCreateFailureRollsBackCleanly:
// a creation failure returns its code, goes back to New with nothing
// recorded, and a retry succeeds. (K-7)
func TestUpstream_InitFailureRollsBackCleanly(t *testing.T) {
	for _, name := range []string{"PartialInitFailureRollsBackCleanly", "StreamCreateFailureRollsBackCleanly"} {
		t.Run(name, func(t *testing.T) {
			var m Machine
			fire(t, &m, EvInit, 0, abi.OK, Initializing)
			fire(t, &m, EvInitRolledBack, c2, c2, New)
			if m.RuntimeError() != 0 || m.TeardownError() != 0 || m.AcceptsDispatch() {
				t.Error("K-7: rollback left state behind")
			}
			fire(t, &m, EvInit, 0, abi.OK, Initializing)
			fire(t, &m, EvInitSucceeded, 0, abi.OK, Collecting)
		})
	}
}

// InitFailureWithFailedCleanupLandsInClosing (K-7).
func TestUpstream_InitFailureWithFailedCleanupLandsInClosing(t *testing.T) {
	var m Machine
	fire(t, &m, EvInit, 0, abi.OK, Initializing)
	fire(t, &m, EvInitRollbackFailed, c1, c1, Closing)
	if m.TeardownError() != c1 || m.AcceptsDispatch() {
		t.Errorf("K-7: teardown error %v, dispatch %v", m.TeardownError(), m.AcceptsDispatch())
	}
	fire(t, &m, EvDispatch, 0, abi.InvalidState, Closing)
	tr, _ := m.Fire(EvClose, 0)
	if tr.Effect != EffRelease || tr.To != Closing {
		t.Errorf("explicit close: %v", tr)
	}
	fire(t, &m, EvCloseDone, 0, abi.OK, Closed)
	if m.TeardownError() != c1 {
		t.Error("teardown error lost")
	}
}

// ReadyEnqueuedKeepsAdmissionOpen (K-3, K-1).
func TestUpstream_ReadyEnqueuedKeepsAdmissionOpen(t *testing.T) {
	m := initialized(t)
	for range 3 {
		fire(t, m, EvMarkReady, 0, abi.OK, ReadyEnqueued)
		fire(t, m, EvDispatch, 0, abi.OK, ReadyEnqueued)
	}
}

// MarkReadyEnqueuedRejectedOffPath (K-3).
func TestUpstream_MarkReadyEnqueuedRejectedOffPath(t *testing.T) {
	var m Machine
	fire(t, &m, EvMarkReady, 0, abi.InvalidState, New)
	fire(t, &m, EvClose, 0, abi.OK, Closed)
	fire(t, &m, EvMarkReady, 0, abi.InvalidState, Closed)
}

// PoisonRejectsDispatchButAllowsClose (K-4).
func TestUpstream_PoisonRejectsDispatchButAllowsClose(t *testing.T) {
	m := initialized(t)
	fire(t, m, EvPoison, c1, c1, Poisoned)
	fire(t, m, EvDispatch, 0, abi.InvalidState, Poisoned)
	fire(t, m, EvPoison, c2, abi.OK, Poisoned)
	fire(t, m, EvMarkReady, 0, abi.InvalidState, Poisoned)
	if m.RuntimeError() != c1 {
		t.Errorf("cause %v, want the first", m.RuntimeError())
	}
	fire(t, m, EvClose, 0, abi.OK, Closing)
	fire(t, m, EvCloseDone, 0, abi.OK, Closed)
}

// PoisonOutsideDispatchPhasesIsIgnored (K-4).
func TestUpstream_PoisonOutsideDispatchPhasesIsIgnored(t *testing.T) {
	var m Machine
	fire(t, &m, EvPoison, c1, abi.OK, New)
	if m.RuntimeError() != 0 {
		t.Error("ignored poison recorded a cause")
	}
	fire(t, &m, EvInit, 0, abi.OK, Initializing)
	fire(t, &m, EvInitSucceeded, 0, abi.OK, Collecting)
}

// PoisonDuringClosingIsIgnored (K-4, K-5).
func TestUpstream_PoisonDuringClosingIsIgnored(t *testing.T) {
	m := initialized(t)
	fire(t, m, EvClose, 0, abi.OK, Closing)
	fire(t, m, EvCloseStepFailed, c2, c2, Closing)
	fire(t, m, EvPoison, c1, abi.OK, Closing)
	if m.RuntimeError() != 0 || m.TeardownError() != c2 {
		t.Errorf("errors %v/%v", m.RuntimeError(), m.TeardownError())
	}
}

// PoisonAfterCloseIsIgnored (K-4, K-6).
func TestUpstream_PoisonAfterCloseIsIgnored(t *testing.T) {
	m := initialized(t)
	fire(t, m, EvClose, 0, abi.OK, Closing)
	fire(t, m, EvCloseDone, 0, abi.OK, Closed)
	fire(t, m, EvPoison, c1, abi.OK, Closed)
	if m.RuntimeError() != 0 {
		t.Error("poison after close recorded a cause")
	}
}

// InitializeRejectedFromEveryNonNewPhase (K-2, K-6).
func TestUpstream_InitializeRejectedFromEveryNonNewPhase(t *testing.T) {
	paths := map[Phase][]Event{
		Collecting:    {EvInit, EvInitSucceeded},
		ReadyEnqueued: {EvInit, EvInitSucceeded, EvMarkReady},
		Poisoned:      {EvInit, EvInitSucceeded, EvPoison},
		Closing:       {EvInit, EvInitSucceeded, EvClose},
		Closed:        {EvClose},
	}
	for p, path := range paths {
		t.Run(p.String(), func(t *testing.T) {
			var m Machine
			for _, e := range path {
				m.Fire(e, c1)
			}
			if m.Phase() != p {
				t.Fatalf("path reached %v", m.Phase())
			}
			fire(t, &m, EvInit, 0, abi.InvalidState, p)
		})
	}
}

// ClosingIsStickyAndRetriable (K-5).
func TestUpstream_ClosingIsStickyAndRetriable(t *testing.T) {
	m := initialized(t)
	fire(t, m, EvMarkReady, 0, abi.OK, ReadyEnqueued)
	fire(t, m, EvClose, 0, abi.OK, Closing)
	fire(t, m, EvCloseStepFailed, c1, c1, Closing)
	for _, e := range []Event{EvDispatch, EvMarkReady, EvInit} {
		fire(t, m, e, 0, abi.InvalidState, Closing)
	}
	if m.TeardownError() != c1 {
		t.Errorf("teardown error %v", m.TeardownError())
	}
	tr, _ := m.Fire(EvClose, 0)
	if tr.Effect != EffRelease || tr.Result != ResContinue {
		t.Errorf("retry: %v", tr)
	}
	fire(t, m, EvCloseDone, 0, abi.OK, Closed)
}

// TeardownErrorSlotIsSeparateFromRuntimeError (K-4, K-5).
func TestUpstream_TeardownErrorSlotIsSeparateFromRuntimeError(t *testing.T) {
	m := initialized(t)
	fire(t, m, EvPoison, c1, c1, Poisoned)
	fire(t, m, EvClose, 0, abi.OK, Closing)
	fire(t, m, EvCloseStepFailed, c2, c2, Closing)
	fire(t, m, EvClose, 0, abi.OK, Closing)
	fire(t, m, EvCloseDone, 0, abi.OK, Closed)
	if m.RuntimeError() != c1 || m.TeardownError() != c2 {
		t.Errorf("runtime %v teardown %v, want %v %v", m.RuntimeError(), m.TeardownError(), c1, c2)
	}
}

func Example_closeRetry() {
	var m Machine
	m.Fire(EvInit, 0)
	m.Fire(EvInitSucceeded, 0)
	m.Fire(EvClose, 0)
	_, st := m.Fire(EvCloseStepFailed, abi.Internal)
	m.Fire(EvClose, 0)
	m.Fire(EvCloseDone, 0)
	fmt.Println(st, m.Phase(), m.TeardownError())
	// Output: INTERNAL(-1000) Closed INTERNAL(-1000)
}
