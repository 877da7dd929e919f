package model

import "maps"

// The model as a function: Step(state, call, answer) → (state, findings).
// Copying a state costs (M-4's fill steps one context 8192 times), so a
// State is owned or shared. An owned one (NewState) has one holder, and
// Step advances it in place: the state it was given is consumed (stepping
// it again panics). A shared one (Share: the linearization search keeps
// every state it reached) is never changed: Step copies it first.

// State is the model's knowledge of one runtime instance between calls.
type State struct {
	m   *Model
	gen uint64 // the owned model's step count when returned (behind it: consumed)
}

// NewState returns the owned state of a fresh runtime instance.
func NewState(o ModelOptions) State {
	m := newModel(o)
	return State{m: m, gen: m.gen}
}

// Share returns s as a shared state (s is consumed).
func (s State) Share() State {
	s.m.checkOwned(s.gen)
	s.m.shared = true
	return State{m: s.m}
}

// Shared reports whether Step copies s rather than advancing it.
func (s State) Shared() bool { return s.m.shared }

// Step judges one call (repetition rep of op, the idx-th op) against its
// answer obs and returns the state after it and the findings it added (obs
// nil: the primary expectation is assumed, nothing judged; obs.Unmade: a
// call not made, recorded as a skip).
func Step(s State, idx, rep int, op Op, obs *Observation) (State, []Finding) {
	m := s.advancing()
	before := len(m.findings)
	if obs != nil && obs.Unmade != "" {
		m.skip(idx, op, Rule(obs.UnmadeRule), obs.Unmade)
	} else {
		m.step(idx, rep, op, obs)
	}
	return m.state(), m.findings[before:len(m.findings):len(m.findings)]
}

// state is the State of m after a step (ModelOptions.Resumes: resumed).
func (m *Model) state() State {
	if m.lost && m.opt.Resumes {
		m.resume()
	}
	return State{m: m, gen: m.gen}
}

// Expect is the model's primary expectation for op in state s; s is not
// changed (an owned s stays owned and current).
func Expect(s State, op Op) Expectation {
	s.m.checkOwned(s.gen)
	c := s.m.copy()
	c.advance(op)
	return c.e
}

// Model is the state's model, for reading (SlotLive, Findings, Tally...).
func (s State) Model() *Model {
	s.m.checkOwned(s.gen)
	return s.m
}

// advancing returns the model Step may change for s: its own, or a copy
// when shared.
func (s State) advancing() *Model {
	if s.m.shared {
		return s.m.copy()
	}
	s.m.checkOwned(s.gen)
	s.m.gen++
	return s.m
}

// checkOwned panics when an owned state a Step consumed is used.
func (m *Model) checkOwned(gen uint64) {
	if !m.shared && gen != m.gen {
		panic("conformance: a model State used after Step consumed it (keep the State Step returns, or Share it)")
	}
}

// copy is a model that shares nothing another step may change with m
// (TestModelCopySharesNothing).
func (m *Model) copy() *Model {
	n := *m
	n.claims = make(map[int32]*mctx, len(m.claims))
	remap := map[*mctx]*mctx{m.external: m.external}
	cp := func(c *mctx) *mctx {
		if c == nil {
			return nil
		}
		if d, ok := remap[c]; ok {
			return d
		}
		d := *c
		d.ids = append([]idInfo(nil), c.ids...)
		d.blocks = append([]uint32(nil), c.blocks...)
		d.prog = maps.Clone(c.prog)
		remap[c] = &d
		return &d
	}
	for i, c := range m.ctxs {
		n.ctxs[i] = cp(c)
	}
	for d, c := range m.claims {
		n.claims[d] = cp(c)
	}
	for i := range m.storages {
		n.storages[i].ctx = cp(m.storages[i].ctx)
	}
	for i := range m.allocs {
		n.allocs[i].ctx = cp(m.allocs[i].ctx)
	}
	n.findings = append([]Finding(nil), m.findings...)
	if m.cm != nil {
		n.cm = m.cm.copy()
	}
	n.gen = 0
	return &n
}

// with returns the state after f, a step other than Step's (the trace
// checker's), on the model Step would change.
func with(s State, f func(m *Model)) State {
	m := s.advancing()
	f(m)
	return m.state()
}
