package model

import (
	"slices"
	"strconv"

	"github.com/simabi/simabi/abi"
)

// Judging an answer against the expectation (S-1, S-2, S-3, tolerances, out, memory).

func legacyCanon(s abi.Status) abi.Status {
	switch s {
	case abi.InvalidArgument, abi.InvalidState, abi.CallableNotResident:
		return abi.Internal
	}
	return s
}

// wasInjected reports whether a fault site was armed with code s.
func (m *Model) wasInjected(s abi.Status) bool { return slices.Contains(m.injected[:m.nInj], s) }

// documented reports whether S-2 allows status s of op.
func (m *Model) documented(op Op, s abi.Status) bool {
	if s == abi.OK || s.IsDefinedHost() || s.IsDeviceLatched() ||
		(s == abi.PollComplete && (op.Kind == KindPollRun || op.Kind == KindProg && op.Fn == FnPollRun)) {
		return true
	}
	return m.wasInjected(s)
}

// tolerated reports whether st is a tolerated alternative of e (a lower
// layer's own code never covers an injected one).
func (m *Model) tolerated(e *Expectation, st abi.Status) bool {
	t := e.Tol
	t.Foreign = t.Foreign && !m.wasInjected(st)
	return t.Has(st)
}

// suspectContext is the context of op marked latchSuspect, or nil.
func (m *Model) suspectContext(op Op) (int8, *mctx) {
	a, b := op.Slots()
	for _, s := range [2]int8{a, b} {
		if c := m.ctx(s); c != nil && c.latchSuspect {
			return s, c
		}
	}
	return NullRef, nil
}

func (m *Model) finding(r Rule, v Verdict, detail string) { m.findingKey(r, v, "", detail) }

// findingKey records a finding fingerprinted by key, not the whole detail,
// so that rewording a note changes no baseline.
func (m *Model) findingKey(r Rule, v Verdict, key, detail string) {
	m.tally[r][v]++
	m.findings = append(m.findings, Finding{Index: m.curIdx, Rep: m.curRep, Op: m.curOp, Rule: r, Verdict: v, Detail: detail, Key: key, Upto: m.upto})
}

// verdict counts a pass of r, or a failure with detail.
func (m *Model) verdict(r Rule, ok bool, detail string) {
	if ok {
		m.pass(r)
	} else {
		m.finding(r, Fail, detail)
	}
}

func (m *Model) pass(r Rule) {
	if r != RuleNone {
		m.tally[r][Pass]++
	}
}

// passOn counts a pass (generic: earned with a legacy build's -1).
func (m *Model) passOn(r Rule, generic bool) {
	m.pass(r)
	if generic && r != RuleNone {
		m.generic[r]++
	}
}

// judge compares one call with the expectation the walk left in m.e.
func (m *Model) judge(co *CallObs, obs *Observation, withMem bool) {
	e := &m.e
	if e.Unchecked {
		return
	}
	m.checked++
	st := co.Status
	if m.opt.Profile == ProfileLegacy {
		// A legacy build reports IA, IS, NR and INTERNAL alike (its -1).
		st = legacyCanon(st)
		e.Status, e.Tol = e.Status.canon(legacyCanon), e.Tol.canon(legacyCanon)
	}
	op := m.curOp
	entry, null := op.StatusCall(), op.NullCtxCall()
	switch {
	case e.Status.Has(st):
		m.judgeAllowed(st, entry, null)
	case m.tolerated(e, st):
		r := e.TolRule
		if r == RuleNone {
			r = e.Rule
		}
		m.finding(r, Warn, "got "+statusName(st)+" where "+e.Rule.String()+" wants "+e.Status.String()+": "+e.TolNote)
	default:
		m.judgeWrong(st, entry, null)
	}
	if e.CommCodes {
		// S-2 for the comm family: its documented codes are 0 and -1.
		m.verdict(RS2, st == abi.OK || st == commFail, "undocumented status value "+strconv.Itoa(int(st))+": the comm family answers 0 or -1 (E-COMM)")
	}
	if e.CheckOut {
		m.judgeOut(co, st)
	}
	if e.CheckValue {
		m.judgeValue(co, null)
	}
	if withMem && obs.MemProbed {
		m.judgeMem(obs)
	}
	m.judgeEffects(obs, st)
}

// judgeAllowed is judge's verdict on a status the rules allow: passes for
// the rules it speaks for, S-1's band and S-2's documented values.
func (m *Model) judgeAllowed(st abi.Status, entry, null bool) {
	e, op := &m.e, m.curOp
	// A legacy build's INTERNAL is its generic -1: such a pass tells less.
	generic := m.opt.Profile == ProfileLegacy && st == abi.Internal
	if e.RunClause {
		m.runClauses[e.Rule]++
	}
	if !e.Status.Any {
		m.passOn(e.Rule, generic)
		for _, r := range e.Also.All() {
			if r != e.Rule {
				m.passOn(r, generic)
			}
		}
		if null && e.Rule != RS3 {
			m.passOn(RS3, generic)
		}
	}
	if st != abi.OK && !st.IsDeviceLatched() && m.opt.Profile != ProfileLegacy {
		m.pass(RS1) // legacy builds are exempt from S-1
	}
	if e.Status.Any && entry && !m.documented(op, st) {
		m.finding(RS2, Fail, "undocumented status value "+strconv.Itoa(int(st))+
			": not 0, not a host code of docs/contract.md, not a device-band code")
	} else {
		m.pass(RS2)
	}
}

// judgeWrong is judge's verdict on a status the rules do not allow: a
// failure of every rule the expectation speaks for or blames, S-1 and S-2
// where the code itself is wrong, L-5's suspicion; then resync (diverged).
func (m *Model) judgeWrong(st abi.Status, entry, null bool) {
	e, op := &m.e, m.curOp
	detail := "want " + e.Status.String()
	if e.Note != "" {
		detail += " (" + e.Note + ")"
	}
	if tol := e.Tol; !tol.Empty() {
		// Name only what the tolerance adds beyond what is wanted.
		if extra := tol.minus(e.Status); !extra.Empty() {
			detail += ", tolerated " + extra.String()
		}
	}
	if e.Grounds != "" {
		detail += " [legacy: " + e.Grounds + "]"
	}
	detail += ", got " + statusName(st)
	key := "want " + e.Status.String() + ", got " + statusName(st)
	m.findingKey(e.Rule, Fail, key, detail)
	for _, r := range e.Also.All() {
		if r != e.Rule {
			m.findingKey(r, Fail, key, detail)
		}
	}
	for _, b := range e.Blame {
		if b.Rule != e.Rule && !e.Also.Has(b.Rule) && b.When.Has(st) {
			m.findingKey(b.Rule, Fail, key, detail)
		}
	}
	if null && e.Rule != RS3 && !e.Also.Has(RS3) {
		m.findingKey(RS3, Fail, "NULL ctx: "+key, "NULL ctx: "+detail)
	}
	if code, ok := e.Status.single(); ok && st != abi.OK && m.wasInjected(code) && m.opt.Profile != ProfileLegacy {
		// S-1.2: an injected code is forwarded unchanged.
		m.findingKey(RS1, Fail, "forwarded "+statusName(code)+", got "+statusName(st),
			"the injected failure "+statusName(code)+" came back as "+statusName(st)+": a forwarded code is returned unchanged")
	}
	if entry && m.opt.Profile != ProfileLegacy && st.IsDeviceLatched() && e.Status.hostOnly() {
		// S-1: a host-side refusal in the band of device-latched codes.
		m.finding(RS1, Fail, "returned "+strconv.Itoa(int(st))+", a code of the device-latched band (-1..-999), where the rules want "+
			e.Status.String()+": host-side failures lie at or below -1000")
	}
	if entry && !m.documented(op, st) {
		m.finding(RS2, Fail, "undocumented status value "+strconv.Itoa(int(st))+
			": not 0, not a host code of docs/contract.md, not a device-band code")
	}
	if slot, c := m.suspectContext(op); c != nil && e.Rule != RL5 && !e.Also.Has(RL5) {
		m.finding(RL5, Fail, "c"+strconv.Itoa(int(slot))+"'s kernel init was refused before the latch (#"+strconv.Itoa(c.refusedAt)+
			") and a later kernel init answered INVALID_STATE (#"+strconv.Itoa(c.suspectAt)+"), as a runtime that latched at the refusal does; "+detail)
	}
	m.diverged = true
	m.divergences++
}

// judgeOut judges the id a prepare left in out (V-PREP-1, E-PREP, M-1).
func (m *Model) judgeOut(co *CallObs, st abi.Status) {
	e := &m.e
	switch {
	case st != abi.OK && co.Out != -1:
		m.finding(RVPrep1, Fail, "failed with "+statusName(st)+" and left out="+strconv.Itoa(int(co.Out))+"; V-PREP-1 wants -1")
		if e.Rule == RVPrep2 {
			// E-PREP.1: -1 is written before V-PREP-2 refuses.
			m.finding(REPrep, Fail, "refused by V-PREP-2 and left out="+strconv.Itoa(int(co.Out))+": the -1 of V-PREP-1 comes before V-PREP-2")
		}
	case st != abi.OK:
		m.pass(RVPrep1)
	case !e.OutKnown:
	case co.Out == -1:
		m.finding(REPrep, Fail, "succeeded and left -1 in out: the minted id "+strconv.Itoa(int(e.OutOK))+" was not written")
	case co.Out != e.OutOK:
		m.finding(e.OutRule, Fail, "succeeded with id "+strconv.Itoa(int(co.Out))+"; want id "+strconv.Itoa(int(e.OutOK))+
			" (the k-th success mints k-1, failures mint nothing, identical bytes get new ids)")
	default:
		m.pass(e.OutRule)
	}
}

// judgeValue judges the value a query returned.
func (m *Model) judgeValue(co *CallObs, null bool) {
	e := &m.e
	s3 := null && e.ValueRule != RS3
	switch key := "returned " + valueText(co.Value) + ", want " + valueText(e.Value); {
	case co.Value == e.Value:
		m.pass(e.ValueRule)
		if s3 {
			m.pass(RS3)
		}
	case e.ValueRule == RVContract:
		m.finding(RVContract, Fail, e.ValueNote)
	default:
		m.findingKey(e.ValueRule, Fail, key, key+": "+e.ValueNote)
		if s3 {
			m.findingKey(RS3, Fail, "NULL ctx: "+key, "NULL ctx: "+key+": "+e.ValueNote)
		}
	}
}

// judgeEffects judges what the call did besides its answer: the caller's
// image (M-6), the run's accepted_state (E-PROG), the ACL calls of a kernel
// path (D-1).
func (m *Model) judgeEffects(obs *Observation, st abi.Status) {
	e := &m.e
	if m.curOp.Kind.Prepares() { // the caller's image stays untouched (M-6)
		if obs.ImageWritten {
			m.finding(RM6, Fail, "prepare wrote into the caller's image (child addresses are patched only in the runtime's copy)")
			obs.ImageWritten = false
		} else if e.CheckOut && st == abi.OK {
			m.pass(RM6)
		}
	}
	if e.CheckAccepted && st == abi.OK {
		want := AcceptedValue(m.curOp.St)
		m.verdict(REProg, obs.Accepted == want, "launch_run returned 0 and left "+strconv.Itoa(int(obs.Accepted))+
			" at the descriptor's accepted_state; want its accepted_value "+strconv.Itoa(int(want))+" (published at launch)")
	}
	if e.D1Rule != RuleNone && obs.ACLProbed {
		m.verdict(e.D1Rule, obs.ACLForbidden == "", "called "+obs.ACLForbidden+" on a kernel path (the caller owns ACL, the device and its streams)")
	}
}

func (m *Model) judgeMem(obs *Observation) {
	e := &m.e
	v, p := obs.Mem, obs.MemPrev
	var ok bool
	switch e.Mem {
	case MemUnchecked, MemAny:
		return
	case MemZero:
		ok = v == 0
	case MemZeroTolUp:
		if ok = v == 0; !ok {
			m.finding(RM7, Warn, "committed "+strconv.FormatUint(v, 10)+" after kernel init: a nonzero C0 (M-7 tolerated)")
			return
		}
	default: // a direction: MemSame, MemUp, MemUpOrSame
		if obs.MemPrevUnknown {
			return
		}
		ok = e.Mem == MemSame && v == p || e.Mem == MemUp && v > p || e.Mem == MemUpOrSame && v >= p
	}
	r := e.MemRule
	if r == RuleNone {
		r = RM7
	}
	if ok {
		m.pass(r)
		return
	}
	went := "went " + strconv.FormatUint(p, 10) + " ->"
	if obs.MemPrevUnknown {
		went = "is"
	}
	m.finding(r, Fail, "committed "+went+" "+strconv.FormatUint(v, 10)+", want "+e.Mem.String())
}

// valueText renders a queried value: a device id or a status of -1 reads as
// -1, not as 2^64-1.
func valueText(v uint64) string {
	if int64(v) < 0 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatUint(v, 10)
}
