package conformance

import (
	"slices"
	"strconv"
	"strings"

	"github.com/simabi/simabi/conformance/model"
)

// Masking (issue #32): a refused call of a directed check should break one
// clause of the contract, so that its answer speaks for that clause. When
// the condition that decides it and the next one refuse it with the same
// code, a runtime that forgot the one that decides still answers as
// expected: the call masks it. The model lists, for every refused call,
// each condition that alone refuses it (model.Refusers, in the entry's
// order); the calls that mask one (model.Masking) are listed here, unless
// the check breaks the two together on purpose (Check.Shared).

// RefusedCall is a call of a directed check that the model predicts
// refused, with each condition that alone refuses it.
type RefusedCall struct {
	Check   string
	Profile model.Profile
	Index   int    // the op's index in the check
	Op      string // the op's text
	// Refusers are the conditions, in the order the entry checks them.
	Refusers []model.Refusal
	// Masking are the condition that decides and the next one, when they
	// answer the same code (model.Masking); nil otherwise.
	Masking []model.Refusal
	// Exempt is why the check breaks them together on purpose
	// (Check.Shared); "" when it does not.
	Exempt string
}

// Masked reports whether the call masks a clause: the condition that
// decides shares its code with the next, and the check does not break the
// two together on purpose.
func (r RefusedCall) Masked() bool { return len(r.Masking) > 0 && r.Exempt == "" }

func (r RefusedCall) String() string {
	parts := make([]string, len(r.Refusers))
	for i, x := range r.Refusers {
		parts[i] = x.String()
	}
	return r.Check + "#" + strconv.Itoa(r.Index) + " (" + string(r.Profile) + ") " + r.Op + ": " + strings.Join(parts, "; ")
}

// checkModelOptions are the model options a check of profile p runs under
// on a target with capabilities caps (the probes' and the masking's walk).
func checkModelOptions(p model.Profile, caps Caps) model.ModelOptions {
	mo := model.ModelOptions{Profile: p, DrivenCompletion: caps.Has(CapDriven), DeviceKnown: caps.Has(CapClearDevice), Device: -1,
		Simulated: caps.Has(CapDriven)}
	if !caps.Has(CapClearDevice) && caps.Has(CapSetDevice) {
		mo.DeviceKnown, mo.Device = true, 0
	}
	return mo
}

// RefusedCalls are the refused calls of the checks that apply to profile p
// on a target with capabilities caps, walked through the model as the
// runner walks them (an op the target cannot run is left out, as the runner
// skips it). An op repeated (rep=N) is listed once for each different set
// of conditions its calls meet.
func RefusedCalls(checks []Check, p model.Profile, caps Caps) []RefusedCall {
	if p == "" {
		p = model.ProfileTMR
	}
	var out []RefusedCall
	for ci := range checks {
		c := &checks[ci]
		if !c.AppliesTo(p) || !caps.Has(c.Needs) {
			continue
		}
		st := model.NewState(checkModelOptions(p, caps))
	ops:
		for i, o := range c.Ops() {
			if need, _, _ := needs(o); !caps.Has(need) || (p == model.ProfileLegacy && legacyUnavailable(o) != "") {
				continue // the runner skips it
			}
			var seen []string
			for rep := 0; rep < o.Reps(); rep++ {
				rs := model.Refusers(st, o)
				st, _ = model.Step(st, i, rep, o, nil)
				if lost, _ := st.Model().Lost(); lost {
					break ops
				}
				if len(rs) == 0 {
					continue
				}
				key := refusalKeys(rs)
				if slices.Contains(seen, key) {
					continue
				}
				seen = append(seen, key)
				text := o.String()
				out = append(out, RefusedCall{Check: c.Name, Profile: p, Index: i, Op: text, Refusers: rs,
					Masking: model.Masking(rs), Exempt: c.Shared[text]})
			}
		}
	}
	return out
}

func refusalKeys(rs []model.Refusal) string {
	keys := make([]string, len(rs))
	for i, r := range rs {
		keys[i] = r.Key()
	}
	return strings.Join(keys, "\x00")
}

// MaskedCalls are the refused calls of the checks on profile p whose
// deciding condition shares its code with the next, and which the check
// does not break together on purpose: each masks a clause.
func MaskedCalls(checks []Check, p model.Profile, caps Caps) []RefusedCall {
	var out []RefusedCall
	for _, r := range RefusedCalls(checks, p, caps) {
		if r.Masked() {
			out = append(out, r)
		}
	}
	return out
}

// MaskingProfiles are the profiles the masking of the catalogue is read
// on: every profile a check applies to.
var MaskingProfiles = []model.Profile{model.ProfileTMR, model.ProfileRefusing, model.ProfileLegacy}

// CatalogueMasking is the masked calls of the whole catalogue on every
// profile, with every capability a target can have.
func CatalogueMasking() []RefusedCall {
	var out []RefusedCall
	for _, p := range MaskingProfiles {
		out = append(out, MaskedCalls(Catalogue(), p, ^Caps(0))...)
	}
	return out
}
