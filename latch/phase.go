package latch

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/simabi/simabi/abi"
)

// Phase is a kernel context's phase (docs/contract.md "K").
type Phase uint8

// Phases. Initializing exists only inside init and is never observable.
const (
	New Phase = iota
	Initializing
	Collecting
	ReadyEnqueued
	Poisoned
	Closing
	Closed
	NumPhases
)

var phaseNames = [NumPhases]string{"New", "Initializing", "Collecting", "ReadyEnqueued", "Poisoned", "Closing", "Closed"}

func (p Phase) String() string {
	if p < NumPhases {
		return phaseNames[p]
	}
	return fmt.Sprintf("Phase(%d)", uint8(p))
}

// AcceptsDispatch is K-1: prepare and launch are accepted only in Collecting
// and ReadyEnqueued.
func (p Phase) AcceptsDispatch() bool { return p == Collecting || p == ReadyEnqueued }

// Live reports whether the phase holds resources a close must release.
func (p Phase) Live() bool { return p >= Collecting && p <= Closing }

// Event is an input to the phase machine.
type Event uint8

// Events.
const (
	// EvInit begins a kernel init (K-2).
	EvInit Event = iota
	// EvInitSucceeded ends an init whose resources and bring-up succeeded.
	EvInitSucceeded
	// EvInitRolledBack ends an init whose resource creation failed and whose
	// rollback succeeded (K-7).
	EvInitRolledBack
	// EvInitRollbackFailed ends an init whose rollback failed too (K-7). The
	// event carries the rollback's code, which the machine keeps as the
	// teardown error; the init itself still returns the creation failure's
	// code, which the caller holds (so Fire's status is not init's result).
	EvInitRollbackFailed
	// EvInitPoisoned ends an init that failed after its resources were created
	// (K-4).
	EvInitPoisoned
	// EvDispatch asks whether a prepare or launch may proceed (K-1).
	EvDispatch
	// EvMarkReady records a successful prepare (K-3).
	EvMarkReady
	// EvPoison records a failure that may have left device work half done (K-4).
	EvPoison
	// EvClose begins a close (K-5, K-6).
	EvClose
	// EvCloseStepFailed records a failed release step (K-5).
	EvCloseStepFailed
	// EvCloseDone records that every resource was released (K-5).
	EvCloseDone
	NumEvents
)

var eventNames = [NumEvents]string{"Init", "InitSucceeded", "InitRolledBack", "InitRollbackFailed", "InitPoisoned",
	"Dispatch", "MarkReady", "Poison", "Close", "CloseStepFailed", "CloseDone"}

func (e Event) String() string {
	if e < NumEvents {
		return eventNames[e]
	}
	return fmt.Sprintf("Event(%d)", uint8(e))
}

// Result is the status a transition yields.
type Result uint8

// Results.
const (
	// ResOK yields 0.
	ResOK Result = iota
	// ResInvalidState yields INVALID_STATE and changes nothing.
	ResInvalidState
	// ResCode yields the code the event carries (the failing step's).
	ResCode
	// ResContinue yields nothing yet: the caller goes on (init creates
	// resources, close releases them) and fires the event that ends the step.
	ResContinue
)

func (r Result) String() string {
	return [...]string{"OK", "INVALID_STATE", "code", "continue"}[r]
}

// Effect is what the caller (or the interpreter) does besides moving phase.
type Effect uint8

// Effects.
const (
	EffNone Effect = iota
	// EffCreate: the caller creates the context's streams and events.
	EffCreate
	// EffRelease: the caller releases device resources, then events in
	// reverse order, then streams in reverse order (K-5).
	EffRelease
	// EffRecordRuntimeError keeps the event's code as the first poison cause.
	EffRecordRuntimeError
	// EffRecordTeardownError keeps the event's code as the first teardown error.
	EffRecordTeardownError
)

func (e Effect) String() string {
	return [...]string{"none", "create", "release", "record runtime error", "record teardown error"}[e]
}

// Transition is one cell of the table.
type Transition struct {
	From   Phase
	Event  Event
	To     Phase
	Result Result
	Effect Effect
}

func (t Transition) String() string {
	return fmt.Sprintf("%v --%v--> %v (%v, %v)", t.From, t.Event, t.To, t.Result, t.Effect)
}

// Table is the kernel phase machine: Table[phase][event]. Every cell is
// defined; a cell whose event does not apply to its phase keeps the phase and
// yields INVALID_STATE (or, for poison, is ignored, K-4).
var Table = buildTable()

func buildTable() (t [NumPhases][NumEvents]Transition) {
	for p := range NumPhases {
		for e := range NumEvents {
			t[p][e] = Transition{From: p, Event: e, To: p, Result: ResInvalidState}
		}
	}
	set := func(p Phase, e Event, to Phase, r Result, eff Effect) {
		t[p][e] = Transition{From: p, Event: e, To: to, Result: r, Effect: eff}
	}
	// K-2: init only from New.
	set(New, EvInit, Initializing, ResContinue, EffCreate)
	set(Initializing, EvInitSucceeded, Collecting, ResOK, EffNone)
	// K-7: a creation failure rolls back to New, or lands in Closing when the
	// rollback fails too.
	set(Initializing, EvInitRolledBack, New, ResCode, EffNone)
	set(Initializing, EvInitRollbackFailed, Closing, ResCode, EffRecordTeardownError)
	// K-4: a failure after the resources exist, from inside init, poisons
	// (EvPoison fired from inside init means the same: K-4 lists init among
	// the sources of poison, so it must not leave Initializing observable).
	set(Initializing, EvInitPoisoned, Poisoned, ResCode, EffRecordRuntimeError)
	set(Initializing, EvPoison, Poisoned, ResCode, EffRecordRuntimeError)
	// K-1: dispatch in Collecting and ReadyEnqueued.
	set(Collecting, EvDispatch, Collecting, ResOK, EffNone)
	set(ReadyEnqueued, EvDispatch, ReadyEnqueued, ResOK, EffNone)
	// K-3.
	set(Collecting, EvMarkReady, ReadyEnqueued, ResOK, EffNone)
	set(ReadyEnqueued, EvMarkReady, ReadyEnqueued, ResOK, EffNone)
	// K-4: poison from the dispatch phases (and from inside init, above);
	// ignored in New, Poisoned, Closing and Closed.
	set(Collecting, EvPoison, Poisoned, ResCode, EffRecordRuntimeError)
	set(ReadyEnqueued, EvPoison, Poisoned, ResCode, EffRecordRuntimeError)
	for _, p := range []Phase{New, Poisoned, Closing, Closed} {
		set(p, EvPoison, p, ResOK, EffNone)
	}
	// K-5 / K-6: close.
	set(New, EvClose, Closed, ResOK, EffNone)
	for _, p := range []Phase{Collecting, ReadyEnqueued, Poisoned, Closing} {
		set(p, EvClose, Closing, ResContinue, EffRelease)
	}
	set(Closed, EvClose, Closed, ResOK, EffNone)
	set(Closing, EvCloseStepFailed, Closing, ResCode, EffRecordTeardownError)
	set(Closing, EvCloseDone, Closed, ResOK, EffNone)
	return t
}

// Step looks up the transition of event e in phase p.
func Step(p Phase, e Event) Transition {
	if p >= NumPhases || e >= NumEvents {
		return Transition{From: p, Event: e, To: p, Result: ResInvalidState}
	}
	return Table[p][e]
}

// Status maps a transition's result to a status: code is the event's.
func (t Transition) Status(code abi.Status) abi.Status {
	switch t.Result {
	case ResOK, ResContinue:
		return abi.OK
	case ResCode:
		return code
	default:
		return abi.InvalidState
	}
}

// Machine interprets Table for one kernel context. It is safe for concurrent
// use: each Fire is atomic, and Phase reads without locking.
type Machine struct {
	mu          sync.Mutex
	phase       atomic.Uint32
	runtimeErr  abi.Status // first poison cause (K-4)
	teardownErr abi.Status // first teardown failure (K-5, K-7)
}

// Phase is the current phase.
func (m *Machine) Phase() Phase { return Phase(m.phase.Load()) }

// AcceptsDispatch is K-1 on the current phase.
func (m *Machine) AcceptsDispatch() bool { return m.Phase().AcceptsDispatch() }

// Fire applies event e carrying code (the failing step's status, or 0) and
// returns the transition taken and the status it yields. Recording effects are
// applied here; creating and releasing resources is the caller's.
func (m *Machine) Fire(e Event, code abi.Status) (Transition, abi.Status) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := Step(m.Phase(), e)
	switch t.Effect {
	case EffRecordRuntimeError:
		if m.runtimeErr == 0 {
			m.runtimeErr = code
		}
	case EffRecordTeardownError:
		if m.teardownErr == 0 {
			m.teardownErr = code
		}
	}
	m.phase.Store(uint32(t.To))
	return t, t.Status(code)
}

// RuntimeError is the first poison cause, 0 if none (K-4).
func (m *Machine) RuntimeError() abi.Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.runtimeErr
}

// TeardownError is the first teardown failure, 0 if none; it survives a
// successful retry (K-5).
func (m *Machine) TeardownError() abi.Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.teardownErr
}
