package model

// The model as a function: Step(state, call, answer) → (state, findings),
// porcupine's model shape. A State is a value to its holder: Step never
// changes a state another holder may still read.
//
// Copies cost: a context keeps every id it minted and every 2 MiB block it
// charged, and M-4's fill steps one context 8192 times, so a step that
// copied them would make a checked sequence quadratic. A State is therefore
// owned or shared. An owned state (NewState: the runner's, the generator's,
// a probe's) has one holder, which keeps only what Step returns: Step
// advances it in place and the state it was given is consumed (stepping it
// again panics rather than read a state that moved on). A shared state
// (Share: the linearization search keeps every state it reached, to
// backtrack) is never changed: Step copies it first, and what it returns is
// shared too.

// State is the model's knowledge of one runtime instance between calls:
// each context's latch, phase, ids and charged blocks, the device claims,
// the streams, the armed fault sites, the run storages, and the verdicts so
// far.
type State struct {
	m *Model
	// gen is the owned model's step count when this state was returned:
	// a state whose gen is behind its model's was consumed by a Step.
	gen uint64
}

// NewState returns the owned state of a fresh runtime instance.
func NewState(o ModelOptions) State {
	m := newModel(o)
	return State{m: m, gen: m.gen}
}

// Share returns s as a shared state: Step copies it instead of advancing
// it. The state s is consumed (its holder keeps the shared one).
func (s State) Share() State {
	s.m.checkOwned(s.gen)
	s.m.shared = true
	return State{m: s.m}
}

// Shared reports whether Step copies s rather than advancing it.
func (s State) Shared() bool { return s.m.shared }

// Step judges one call (repetition rep of op, the idx-th op of the
// sequence) against its answer obs and returns the state after it and the
// findings the call added (obs nil: the call is assumed to answer the
// model's primary expectation, and nothing is judged; obs.Unmade: the
// runner did not make the call, and Step records the skip).
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

// state is the State of m after a step: a model that follows its primary
// path (ModelOptions.Resumes) predicts again once it lost track.
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
// Changing it through its methods is the owner's business: a shared
// state's model must not be changed.
func (s State) Model() *Model {
	s.m.checkOwned(s.gen)
	return s.m
}

// advancing returns the model Step may change for s: s's own when s is
// owned (its gen moves on), a copy when s is shared.
func (s State) advancing() *Model {
	if s.m.shared {
		return s.m.copy()
	}
	s.m.checkOwned(s.gen)
	s.m.gen++
	return s.m
}

// checkOwned panics when an owned state older than its model is used: its
// holder kept a state a Step consumed.
func (m *Model) checkOwned(gen uint64) {
	if !m.shared && gen != m.gen {
		panic("conformance: a model State used after Step consumed it (keep the State Step returns, or Share it)")
	}
}

// copy is a model that shares nothing another step may change with m
// (TestModelCopySharesNothing holds every field to it). A shared model's
// copy is shared.
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
		if c.prog != nil {
			d.prog = make(map[int32]progCallable, len(c.prog))
			for k, v := range c.prog {
				d.prog[k] = v
			}
		}
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

// with returns the state after f, a step of the model other than Step's
// (the trace checker's: a call it skips, a refusal that changes nothing):
// f changes the model Step would (a copy when s is shared).
func with(s State, f func(m *Model)) State {
	m := s.advancing()
	f(m)
	return m.state()
}
