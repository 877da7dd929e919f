package conformance

import (
	"strconv"
	"strings"
	"testing"

	"github.com/simabi/simabi/abi"
	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
	"github.com/simabi/simabi/conformance/op"
)

// TestMasking_VCFG_EPINIT_VIMG_VINIT_ECOMM_noRefusalSharedByTwoClauses:
// every refused call of the directed catalogue, on every profile, breaks
// the clause that decides it alone: the next condition that refuses it
// answers another code (model.Masking), so a runtime that dropped the
// clause that decides would answer otherwise. A call that shares its code
// on purpose says why (catalogue.Check.Shared). The calls it found first were
// V-CFG's and E-PINIT's swimlane -1 with no output prefix, V-IMG's
// defects that break several steps, V-INIT before V-CFG, E-KINIT's state
// with the claim or the device, S-3 with E-PROG's NULL arguments,
// V-PREP-2.1 with V-PREP-2.3, E-COMM.43 with the descriptor checks, and a
// legacy E-PINIT device bound elsewhere.
func TestMasking_VCFG_EPINIT_VIMG_VINIT_ECOMM_noRefusalSharedByTwoClauses(t *testing.T) {
	masked := CatalogueMasking()
	for _, r := range masked {
		t.Errorf("%s: decided by %s, whose code %s answers too", r, r.Masking[0].Key(), r.Masking[1].Key())
	}
	if len(masked) > 0 {
		t.Errorf("%d refused calls share their refusal between two clauses: change each input so that it breaks one clause alone, or say why in the check's Shared", len(masked))
	}
}

// TestMasking_exemptionsHaveCallsAlone: a call that breaks two clauses
// with one code on purpose (catalogue.Check.Shared) names such a call of its check,
// and for each of its two clauses the catalogue holds a call that
// the clause decides alone, no other condition of that call answering its
// code (unless no call can drive the clause: the clause table says why).
func TestMasking_exemptionsHaveCallsAlone(t *testing.T) {
	checks := catalogue.Checks()
	alone := map[model.Profile]map[string]bool{}
	var exempt []RefusedCall
	used := map[string]bool{}
	for _, p := range MaskingProfiles {
		alone[p] = map[string]bool{}
		for _, r := range RefusedCalls(checks, p, ^catalogue.Caps(0)) {
			if r.Exempt != "" {
				if len(r.Masking) > 0 {
					used[r.Check+"\x00"+r.Op] = true
					exempt = append(exempt, r)
				}
				continue
			}
			if first, ok := decider(r.Refusers); ok && !sharedWithAny(r.Refusers, first) {
				alone[p][first.Key()] = true
			}
		}
	}
	for _, c := range checks {
		for text, why := range c.Shared {
			if !used[c.Name+"\x00"+text] {
				t.Errorf("%s: Shared names %q, which is no call of the check that two clauses refuse with one code", c.Name, text)
			}
			if strings.TrimSpace(why) == "" {
				t.Errorf("%s: Shared[%q] says no why", c.Name, text)
			}
		}
	}
	undriven := map[string]bool{}
	for _, c := range catalogue.Clauses() {
		undriven[c.ID] = c.Undriven != ""
	}
	seen := map[string]bool{}
	for _, r := range exempt {
		for _, x := range r.Masking {
			if undriven[x.Clause] {
				continue // no call can drive it alone: the clause table says why
			}
			if !alone[r.Profile][x.Key()] && !seen[string(r.Profile)+x.Key()] {
				seen[string(r.Profile)+x.Key()] = true
				t.Errorf("%s (%s, exempt: %s): no call of the catalogue breaks %s alone on %s", r.Check, r.Op, r.Exempt, x.Key(), r.Profile)
			}
		}
	}
}

// decider is the condition that decides a call (the build's own refusal
// left out).
func decider(rs []model.Refusal) (model.Refusal, bool) {
	for _, r := range rs {
		if !r.Build {
			return r, true
		}
	}
	return model.Refusal{}, false
}

// sharedWithAny reports whether another condition of rs answers x's code.
func sharedWithAny(rs []model.Refusal, x model.Refusal) bool {
	for _, r := range rs {
		if !r.Build && r.Key() != x.Key() && len(model.Masking([]model.Refusal{x, r})) > 0 {
			return true
		}
	}
	return false
}

// TestRefusersAgreeWithTheModel: over every call of the catalogue on every
// profile, and of random sequences, the model predicts a refusal exactly
// when Refusers lists a condition (a failure injected at a fault site is
// none), and the condition that decides answers a code the model allows:
// no condition that decides a call is missing, and the conditions come in
// the entry's order.
func TestRefusersAgreeWithTheModel(t *testing.T) {
	for _, p := range MaskingProfiles {
		for _, c := range catalogue.Checks() {
			if c.AppliesTo(p) {
				refusersAgree(t, c.Name, p, c.Ops())
			}
		}
	}
	for seed := uint64(1); seed <= 60; seed++ {
		p := MaskingProfiles[seed%3]
		ops := Generate(GenOptions{Seed: seed, Ops: 300, Caps: ^catalogue.Caps(0), Profile: p, NoFill: true, Comm: seed%2 == 0})
		refusersAgree(t, "seed "+strconv.FormatUint(seed, 10), p, ops)
	}
}

func refusersAgree(t *testing.T, name string, p model.Profile, ops []op.Op) {
	t.Helper()
	st := model.NewState(checkModelOptions(p, ^catalogue.Caps(0)))
	for i, o := range ops {
		if p == model.ProfileLegacy && legacyUnavailable(o) != "" {
			continue
		}
		rs := model.Refusers(st, o)
		e := model.Expect(st, o)
		injected := o.Kind.PassesSites() && armed(st.Model())
		for rep := 0; rep < o.Reps(); rep++ {
			st, _ = model.Step(st, i, rep, o, nil)
		}
		if lost, _ := st.Model().Lost(); lost {
			return
		}
		refused := modelRefuses(o, e)
		switch {
		case !o.Kind.Entry() || o.Kind.TwoThread(), injected && refused && len(rs) == 0:
			// simabi_inject's own refusals are the hooks', a two-thread op's
			// the two calls'; an injected failure is no condition of the call.
		case refused != (len(rs) > 0):
			t.Errorf("%s (%s) #%d %s: the model expects %v (%s), Refusers lists %v", name, p, i, o, e.Status, e.Note, rs)
		case refused:
			first := rs[0]
			if d, ok := decider(rs); ok {
				first = d
			}
			if !allows(e, first.Status, p) {
				t.Errorf("%s (%s) #%d %s: the model expects %v (%s), the condition that decides is %s", name, p, i, o, e.Status, e.Note, first)
			}
		}
	}
}

// armed reports whether a fault site of m is armed to fail.
func armed(m *model.Model) bool {
	for s := int32(0); s <= abi.LastSite; s++ {
		if m.SiteArmed(s) {
			return true
		}
	}
	return false
}

// modelRefuses reports whether e, the model's expectation of o, is a
// refusal: failing statuses only (not simpler_poll_run's 1), or
// comm_init's NULL handle.
func modelRefuses(o op.Op, e model.Expectation) bool {
	if o.Kind == op.KindCommInit {
		return e.CheckValue && e.Value == 0
	}
	polls1 := !e.Status.NonZero && e.Status.Has(abi.PollComplete)
	return !e.Unchecked && !e.Status.Any && !e.Status.Empty() && !e.Status.Has(abi.OK) && !polls1
}

// allows reports whether e allows the code of a condition whose codes are
// ss (on a legacy build, whose every failure is its generic -1, any
// failure the model expects).
func allows(e model.Expectation, ss model.StatusSet, p model.Profile) bool {
	if ss.Empty() {
		return e.CheckValue && e.Value == 0
	}
	if ss.NonZero || p == model.ProfileLegacy {
		return true
	}
	for i := 0; i < int(ss.N); i++ {
		if e.Status.Has(ss.V[i]) || e.Tol.Has(ss.V[i]) {
			return true
		}
	}
	return false
}
