package conformance

import (
	"slices"
	"strconv"
	"strings"

	"github.com/simabi/simabi/conformance/catalogue"
	"github.com/simabi/simabi/conformance/model"
)

// Masking (issue #32): a refused call whose deciding condition and the
// next one refuse it with the same code masks the first (a runtime that
// forgot it still answers as expected), unless the check breaks the two
// together on purpose (catalogue.Check.Shared).

// RefusedCall is a call of a directed check that the model predicts
// refused, with each condition that alone refuses it.
type RefusedCall struct {
	Check   string
	Profile model.Profile
	Index   int    // the op's index in the check
	Op      string // the op's text
	// Refusers are the conditions, in the entry's order.
	Refusers []model.Refusal
	// Masking are the deciding condition and the next, when they share a code.
	Masking []model.Refusal
	// Exempt is why the check breaks them together on purpose (catalogue.Check.Shared).
	Exempt string
}

// Masked reports whether the call masks a clause.
func (r RefusedCall) Masked() bool { return len(r.Masking) > 0 && r.Exempt == "" }

func (r RefusedCall) String() string {
	parts := make([]string, len(r.Refusers))
	for i, x := range r.Refusers {
		parts[i] = x.String()
	}
	return r.Check + "#" + strconv.Itoa(r.Index) + " (" + string(r.Profile) + ") " + r.Op + ": " + strings.Join(parts, "; ")
}

// checkModelOptions are the model options of a check on profile p, caps.
func checkModelOptions(p model.Profile, caps catalogue.Caps) model.ModelOptions {
	mo := model.ModelOptions{Profile: p, DrivenCompletion: caps.Has(catalogue.CapDriven), DeviceKnown: caps.Has(catalogue.CapClearDevice), Device: -1,
		Simulated: caps.Has(catalogue.CapDriven)}
	if !caps.Has(catalogue.CapClearDevice) && caps.Has(catalogue.CapSetDevice) {
		mo.DeviceKnown, mo.Device = true, 0
	}
	return mo
}

// RefusedCalls are the refused calls of the checks on profile p with caps,
// walked as the runner walks them; a repeated op is listed once per
// different set of conditions its calls meet.
func RefusedCalls(checks []catalogue.Check, p model.Profile, caps catalogue.Caps) []RefusedCall {
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

// MaskedCalls are the refused calls on profile p that mask a clause.
func MaskedCalls(checks []catalogue.Check, p model.Profile, caps catalogue.Caps) []RefusedCall {
	return slices.DeleteFunc(RefusedCalls(checks, p, caps), func(r RefusedCall) bool { return !r.Masked() })
}

// MaskingProfiles are every profile a check applies to.
var MaskingProfiles = []model.Profile{model.ProfileTMR, model.ProfileRefusing, model.ProfileLegacy}

// CatalogueMasking is the masked calls of the whole catalogue on every
// profile, with every capability a target can have.
func CatalogueMasking() []RefusedCall {
	var out []RefusedCall
	for _, p := range MaskingProfiles {
		out = append(out, MaskedCalls(catalogue.Checks(), p, ^catalogue.Caps(0))...)
	}
	return out
}
